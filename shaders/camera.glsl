// camera.glsl: the primary rays of render/camera.go and render/filter.go
// (CameraRays.Ray, CameraRays.LensRay, concentricDisk, PixelFilter.Sample)
// in float32, in the Go's order of operations; concentricDisk's angle takes
// GLSL's sin and cos where the Go takes float64's, so a thin lens's rays
// agree with the CPU's to float32 rounding, not bit for bit.
//
// Extensions: none beyond core GLSL 4.60.
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

// concentricDisk maps the unit square to the unit disk, keeping areas
// (Shirley and Chiu).
vec2 concentricDisk(float u1, float u2) {
    float a = 2.0 * u1 - 1.0;
    float b = 2.0 * u2 - 1.0;
    if (a == 0.0 && b == 0.0) {
        return vec2(0.0);
    }
    const float PI_4 = 0.78539816;
    float r;
    float phi;
    if (a * a > b * b) {
        r = a;
        phi = PI_4 * (b / a);
    } else {
        r = b;
        phi = 2.0 * PI_4 - PI_4 * (a / b);
    }
    return vec2(r * cos(phi), r * sin(phi));
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
