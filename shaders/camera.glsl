// camera.glsl: the pixel filter's sample of render/filter.go
// (PixelFilter.Sample), which reads the filter's table from the launch's
// parameters. The camera's rays are written once in Go (render/kernel's
// CameraRay and LensRay, translated).
//
// Extensions: none beyond core GLSL 4.60.
//
// The includer defines, before including this file:
//
//	float filterCDF(int i); // PixelFilter's cdf[i], i in [0, n]
//
// The CPU backend (render/cpu/integrator.go) makes a camera ray as
//
//	uint p = y * width + x; // s = the sample's index, bounce 0
//	float jx = filterSample(random(p, s, 0u, DIM_PIXEL_X, seed), radius, n, box);
//	float jy = filterSample(random(p, s, 0u, DIM_PIXEL_Y, seed), radius, n, box);
//	cameraRay(cam, float(x) + 0.5 + jx, float(y) + 0.5 + jy, o, d);
//	lensRay(cam, o, d, random(p, s, 0u, DIM_LENS_U, seed), random(p, s, 0u, DIM_LENS_V, seed), o, d);
//
// (float(x) + 0.5 first, then + jx, as Go's float32(x)+0.5+jx; the ray's
// tmin is 0, tmax +Inf.)

#ifndef CAMERA_GLSL
#define CAMERA_GLSL

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
