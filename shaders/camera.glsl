// camera.glsl: the primary rays of render/camera.go and render/filter.go
// (CameraRays.Ray, CameraRays.LensRay, concentricDisk, PixelFilter.Sample)
// in the same float32/float64 arithmetic as the Go. Go's math.Sin and
// math.Cos (the pure-Go Cephes code that amd64 runs) are ported too, as
// sinGo/cosGo, since GLSL has no double trigonometry. Computed values are
// `precise` (SPIR-V NoContraction), so the compiler fuses no multiply-add
// that Go (amd64, GOAMD64=v1) does not fuse either.
//
// Extensions: none beyond core GLSL 4.60 (double is core); the device needs
// shaderFloat64 (concentricDisk's trigonometry and normalizeGo's length are
// float64 in Go).
//
// The includer defines, before including this file (Camera comes with the
// generated layout header):
//
//	struct Camera { vec3 eye; vec3 x; vec3 y; vec3 z; uint ortho; float sx;
//	                float sy; float w; float h; float aperture; float focus; };
//	float filterCDF(int i); // PixelFilter's cdf[i], i in [0, n]
//
// The CPU backend (render/cpu/integrator.go) makes a camera ray as
//
//	uint p = y * width + x; // s = the sample's index, bounce 0
//	float jx = filterSample(random(p, s, 0u, DIM_PIXEL_X, seed), radius, n, box);
//	float jy = filterSample(random(p, s, 0u, DIM_PIXEL_Y, seed), radius, n, box);
//	cameraRay(cam, float(x) + 0.5 + jx, float(y) + 0.5 + jy, o, d);
//	lensRay(cam, o, d, random(p, s, 0u, DIM_LENS_U, seed), random(p, s, 0u, DIM_LENS_V, seed));
//
// (float(x) + 0.5 first, then + jx, as Go's float32(x)+0.5+jx; the ray's
// tmin is 0, tmax +Inf.)

#ifndef CAMERA_GLSL
#define CAMERA_GLSL

#include "govec.glsl"

// Go's float64 constants (math.Pi/4, math.Pi/2, 4/math.Pi, each rounded
// once to float64 as Go's constant arithmetic does).
const double PI_4_GO = 0.78539816339744830961566084581987572lf;
const double PI_2_GO = 1.5707963267948966192313216916397514lf;
const double FOUR_OVER_PI_GO = 1.2732395447351626861510701069801149lf;

// Pi/4 split into three parts, and the polynomial coefficients, of Go's
// math/sin.go.
const double SIN_PI4A = 7.85398125648498535156e-1lf;  // 0x3fe921fb40000000
const double SIN_PI4B = 3.77489470793079817668e-8lf;  // 0x3e64442d00000000
const double SIN_PI4C = 2.69515142907905952645e-15lf; // 0x3ce8469898cc5170
const double SIN_S0 = 1.58962301576546568060e-10lf;   // 0x3de5d8fd1fd19ccd
const double SIN_S1 = -2.50507477628578072866e-8lf;   // 0xbe5ae5e5a9291f5d
const double SIN_S2 = 2.75573136213857245213e-6lf;    // 0x3ec71de3567d48a1
const double SIN_S3 = -1.98412698295895385996e-4lf;   // 0xbf2a01a019bfdf03
const double SIN_S4 = 8.33333333332211858878e-3lf;    // 0x3f8111111110f7d0
const double SIN_S5 = -1.66666666666666307295e-1lf;   // 0xbfc5555555555548
const double COS_C0 = -1.13585365213876817300e-11lf;  // 0xbda8fa49a0861a9b
const double COS_C1 = 2.08757008419747316778e-9lf;    // 0x3e21ee9d7b4e3f05
const double COS_C2 = -2.75573141792967388112e-7lf;   // 0xbe927e4f7eac4bc6
const double COS_C3 = 2.48015872888517045348e-5lf;    // 0x3efa01a019c844f5
const double COS_C4 = -1.38888888888730564116e-3lf;   // 0xbf56c16c16c14f91
const double COS_C5 = 4.16666666666665929218e-2lf;    // 0x3fa555555555554b

// The two polynomials of math/sin.go; precise keeps the compiler from fusing
// multiply-adds, which Go (amd64) does not do either.
double sinPolyGo(double z, double zz) {
    precise double y = z + z * zz * ((((((SIN_S0 * zz) + SIN_S1) * zz + SIN_S2) * zz + SIN_S3) * zz + SIN_S4) * zz + SIN_S5);
    return y;
}
double cosPolyGo(double zz) {
    precise double y = 1.0lf - 0.5lf * zz + zz * zz * ((((((COS_C0 * zz) + COS_C1) * zz + COS_C2) * zz + COS_C3) * zz + COS_C4) * zz + COS_C5);
    return y;
}

// sinCosReduceGo is the octant reduction of math/sin.go for 0 <= x < 2^29
// (Go's reduceThreshold; larger arguments take Payne–Hanek there, which is
// not ported: the camera's angles are below 3π/4).
void sinCosReduceGo(double x, out uint j, out double z) {
    j = uint(x * FOUR_OVER_PI_GO); // integer part of x/(Pi/4)
    double y = double(j);
    if ((j & 1u) == 1u) { // map zeros to origin
        j++;
        y += 1.0lf;
    }
    j &= 7u; // octant modulo 2Pi radians
    precise double zp = ((x - y * SIN_PI4A) - y * SIN_PI4B) - y * SIN_PI4C;
    z = zp;
}

// cosGo is Go's math.Cos for |x| < 2^29.
double cosGo(double x) {
    if (isnan(x) || isinf(x)) {
        return x - x; // NaN
    }
    bool sign = false;
    x = abs(x);
    uint j;
    double z;
    sinCosReduceGo(x, j, z);
    if (j > 3u) {
        j -= 4u;
        sign = !sign;
    }
    if (j > 1u) {
        sign = !sign;
    }
    double zz = z * z;
    double y = (j == 1u || j == 2u) ? sinPolyGo(z, zz) : cosPolyGo(zz);
    return sign ? -y : y;
}

// sinGo is Go's math.Sin for |x| < 2^29.
double sinGo(double x) {
    if (x == 0.0lf || isnan(x)) {
        return x; // ±0 or NaN
    }
    if (isinf(x)) {
        return x - x; // NaN
    }
    bool sign = false;
    if (x < 0.0lf) {
        x = -x;
        sign = true;
    }
    uint j;
    double z;
    sinCosReduceGo(x, j, z);
    if (j > 3u) { // reflect in x axis
        sign = !sign;
        j -= 4u;
    }
    double zz = z * z;
    double y = (j == 1u || j == 2u) ? cosPolyGo(zz) : sinPolyGo(z, zz);
    return sign ? -y : y;
}

// concentricDisk maps the unit square to the unit disk, keeping areas
// (Shirley and Chiu); the angle and the products are float64 as in Go.
vec2 concentricDisk(float u1, float u2) {
    precise float a = 2.0 * u1 - 1.0;
    precise float b = 2.0 * u2 - 1.0;
    if (a == 0.0 && b == 0.0) {
        return vec2(0.0);
    }
    double r;
    precise double phi;
    if (a * a > b * b) {
        r = double(a);
        phi = PI_4_GO * double(b / a);
    } else {
        r = double(b);
        phi = PI_2_GO - PI_4_GO * double(a / b);
    }
    precise double x = r * cosGo(phi);
    precise double y = r * sinGo(phi);
    return vec2(float(x), float(y));
}

// cameraRay is CameraRays.Ray: the ray through image point (px, py), in
// pixels from the top left; the direction is unit length.
void cameraRay(Camera c, float px, float py, out vec3 origin, out vec3 dir) {
    precise float u = (2.0 * px / c.w - 1.0) * c.sx;
    precise float v = (1.0 - 2.0 * py / c.h) * c.sy;
    if (c.ortho != 0u) {
        precise vec3 o = c.eye + c.x * u + c.y * v;
        origin = o;
        dir = c.z * -1.0;
        return;
    }
    precise vec3 q = c.x * u + c.y * v - c.z;
    origin = c.eye;
    dir = normalizeGo(q);
}

// lensRay is CameraRays.LensRay: the thin lens's ray for the pinhole ray
// (origin, dir), from the point of the lens that (u1, u2) pick through the
// point where the pinhole ray meets the plane in focus. With aperture <= 0
// or focus <= 0 (a pinhole) the ray stays as it is.
void lensRay(Camera c, inout vec3 origin, inout vec3 dir, float u1, float u2) {
    if (c.aperture <= 0.0 || c.focus <= 0.0) {
        return;
    }
    vec2 l = concentricDisk(u1, u2);
    vec3 forward = c.z * -1.0;
    precise vec3 focusPoint = origin + dir * (c.focus / dotGo(dir, forward));
    precise vec3 o = origin + c.x * (l.x * c.aperture) + c.y * (l.y * c.aperture);
    precise vec3 q = focusPoint - o;
    origin = o;
    dir = normalizeGo(q);
}

// filterSample is PixelFilter.Sample: maps u in [0, 1) to an offset from the
// pixel centre, in pixels, distributed as the filter along one axis. box
// (Go: cdf == nil) gives u - 0.5; otherwise the CDF has n + 1 entries,
// filterCDF(0..n), over [-radius, radius].
float filterSample(float u, float radius, int n, bool box) {
    if (box) {
        return u - 0.5;
    }
    // sort.Search(n, cdf[i+1] > u): the smallest i in [0, n) for which it
    // holds, or n.
    int lo = 0;
    int hi = n;
    while (lo < hi) {
        int h = int(uint(lo + hi) >> 1u);
        if (!(filterCDF(h + 1) > u)) {
            lo = h + 1;
        } else {
            hi = h;
        }
    }
    int i = min(lo, n - 1);
    float c0 = filterCDF(i);
    float c1 = filterCDF(i + 1);
    precise float t = (u - c0) / max(c1 - c0, 1e-12);
    precise float x = -radius + 2.0 * radius * (float(i) + min(max(t, 0.0), 1.0)) / float(n);
    return x;
}

#endif // CAMERA_GLSL
