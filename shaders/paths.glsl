// paths.glsl: a sample's path from the camera, and a pixel's sums of its
// samples into the accumulation buffer, shared by the raygen shader and the
// ray-query wavefront.
#ifndef PATHS_GLSL
#define PATHS_GLSL

float filterCDF(int i) { return P.filterCDF.v[i]; }
#include "camera.glsl"

// newPath starts sample sampleIndex of pixel (x, y) at the camera, through
// the pixel filter and the lens, as render/cpu's renderTile does.
Path newPath(uint x, uint y, uint sampleIndex) {
    Path path;
    path.pixel = y * P.width + x;
    path.sampleIndex = sampleIndex;
    path.bounce = 0u;
    path.throughput = vec3(1.0);
    path.radiance = vec3(0.0);
    path.albedo = vec3(0.0);
    path.normal = vec3(0.0);
    path.depth = 0.0;
    path.prevPdf = 0.0;
    path.medium = -1;
    path.alive = 1u;
    path.rays = 0u;
    path.shadowRays = 0u;
    path.events = 0u;
    float jx = filterSample(rnd(path, DIM_PIXEL_X), P.filterRadius, int(P.filterN), P.filterN == 0u);
    float jy = filterSample(rnd(path, DIM_PIXEL_Y), P.filterRadius, int(P.filterN), P.filterN == 0u);
    vec3 o, d;
    precise float px = float(x) + 0.5;
    precise float py = float(y) + 0.5;
    px += jx;
    py += jy;
    cameraRay(P.camera, px, py, o, d);
    lensRay(P.camera, o, d, rnd(path, DIM_LENS_U), rnd(path, DIM_LENS_V));
    path.origin = o;
    path.dir = d;
    return path;
}

// A pixel's sums over its samples of this launch.
struct Sums {
    vec3 beauty, albedo, normal;
    float depth, lumSq, cost, pathLength, shadowRays;
};

Sums noSums() {
    Sums s;
    s.beauty = vec3(0.0);
    s.albedo = vec3(0.0);
    s.normal = vec3(0.0);
    s.depth = 0.0;
    s.lumSq = 0.0;
    s.cost = 0.0;
    s.pathLength = 0.0;
    s.shadowRays = 0.0;
    return s;
}

float finiteOr0(float v) { return isnan(v) || isinf(v) ? 0.0 : v; }

void addSample(inout Sums s, Path path) {
    // One bad sample never poisons a pixel.
    s.beauty += vec3(finiteOr0(path.radiance.x), finiteOr0(path.radiance.y), finiteOr0(path.radiance.z));
    s.albedo += path.albedo;
    s.normal += path.normal;
    s.depth += path.depth;
    float l = finiteOr0(luminance(path.radiance));
    s.lumSq += l * l;
    s.cost += float(path.rays);
    s.pathLength += float(path.bounce);
    s.shadowRays += float(path.shadowRays);
}

// writeFilm adds a pixel's sums to the accumulation buffer (one invocation
// owns each pixel: no atomics).
void writeFilm(uint pixel, Sums s) {
    uint n = P.width * P.height;
    for (uint c = 0u; c < 3u; c++) {
        P.film.v[FILM_BEAUTY * n + 3u * pixel + c] += s.beauty[c];
        P.film.v[FILM_ALBEDO * n + 3u * pixel + c] += s.albedo[c];
        P.film.v[FILM_NORMAL * n + 3u * pixel + c] += s.normal[c];
    }
    P.film.v[FILM_DEPTH * n + pixel] += s.depth;
    P.film.v[FILM_LUM_SQ * n + pixel] += s.lumSq;
    P.film.v[FILM_COST * n + pixel] += s.cost;
    P.film.v[FILM_PATH_LENGTH * n + pixel] += s.pathLength;
    P.film.v[FILM_SHADOW_RAYS * n + pixel] += s.shadowRays;
}

#endif
