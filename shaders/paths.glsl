// paths.glsl: a sample's path from the camera, the launch's sampled
// pixels, and a pixel's sums of its samples into the accumulation buffer
// (wave_resolve's, on every path), shared by the pipeline paths' raygen
// and the wavefronts' stages.
#ifndef PATHS_GLSL
#define PATHS_GLSL

// The pixel filter as the kernel's FilterSample reads it (kernel.Filter).
int filterCells() { return int(P.filterN); }
float filterRadius() { return P.filterRadius; }
float filterCDF(int i) { return P.filterCDF.v[i]; }

// newPath starts sample sampleIndex of pixel (x, y) of the launch (row y of
// its band: image row P.y0 + y) at the camera (kernel.StartPath).
Path newPath(uint x, uint y, uint sampleIndex) {
    Path path;
    startPath(path, P.camera, x, P.y0 + y, P.width, sampleIndex);
    return path;
}

// The launch's pixels that sample: every pixel of its rows, or, where
// Params.activePixels lists them (adaptive sampling: those still sampling),
// those; sampledPixel(k) is the k-th of them, its pixel index in the
// launch's rows.
uint sampledPixels() { return P.activeCount != 0u ? P.activeCount : P.width * P.height; }
uint sampledPixel(uint k) { return P.activeCount != 0u ? P.activePixels.v[k] : k; }

// startGroupLight zeroes the light by light group of the path in slot,
// before it starts (integrator.glsl's addGroupLight adds to it).
void startGroupLight(uint slot) {
    for (uint at = slot * P.lightGroups * 3u; at < (slot + 1u) * P.lightGroups * 3u; at++) {
        P.groupLight.v[at] = 0.0;
    }
}

// addSample adds a path's sample to its pixel's sums over the launch.
void addSample(inout PixelSample s, Path path) { pixelSampleAdd(s, sampleOf(path)); }

// addFilm adds v to float i of a film layer (FILM_*), where the render's
// buffer holds the layer (Params.filmAt).
void addFilm(uint layer, uint i, float v) {
    uint at = P.filmAt[layer];
    if (at != FILM_NONE) {
        P.film.v[at + i] += v;
    }
}

// writeFilm adds a pixel's sums to the accumulation buffer (one invocation
// owns each pixel: no atomics).
void writeFilm(uint pixel, PixelSample s) {
    for (uint c = 0u; c < 3u; c++) {
        addFilm(FILM_BEAUTY, 3u * pixel + c, s.beauty[c]);
        addFilm(FILM_ALBEDO, 3u * pixel + c, s.albedo[c]);
        addFilm(FILM_NORMAL, 3u * pixel + c, s.normal[c]);
        addFilm(FILM_DIFFUSE, 3u * pixel + c, s.diffuse[c]);
        addFilm(FILM_SPECULAR, 3u * pixel + c, s.specular[c]);
        addFilm(FILM_DIFFUSE_ALBEDO, 3u * pixel + c, s.diffAlbedo[c]);
        addFilm(FILM_SPECULAR_ALBEDO, 3u * pixel + c, s.specAlbedo[c]);
    }
    addFilm(FILM_DEPTH, pixel, s.depth);
    addFilm(FILM_LUM_SQ, pixel, s.lumSq);
    addFilm(FILM_COST, pixel, s.cost);
    addFilm(FILM_PATH_LENGTH, pixel, s.pathLength);
    addFilm(FILM_SHADOW_RAYS, pixel, s.shadowRays);
    addFilm(FILM_DIFFUSE_LUM_SQ, pixel, s.diffLumSq);
    addFilm(FILM_SPECULAR_LUM_SQ, pixel, s.specLumSq);
}

#endif
