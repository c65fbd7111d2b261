#version 460
#extension GL_GOOGLE_include_directive : require
// The last stage of every path's launch (the wavefronts' sixth; rt and
// ser's after their raygen): each sampled pixel sums its samples' paths,
// in sample order, into the accumulation buffer (their light groups' too), and writes
// what each sample saw first where the render counts it (Params.iDsOn).
// The k-th sampled pixel's sums are the buffer's k-th (paths.glsl's
// sampledPixel): the pixel's own where every pixel of the launch samples,
// else the launch's list's order, which the host follows.
#include "wave_compute.glsl"
#include "paths.glsl"
layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    uint k = flatIndex(); // the k-th sampled pixel
    uint pixels = sampledPixels();
    if (k >= pixels) {
        return;
    }
    PixelSample sums = noPixelSample();
    for (uint s = 0u; s < P.samples; s++) {
        addSample(sums, P.paths.v[k * P.samples + s]);
        if (P.iDsOn != 0u) { // Cryptomatte: what each sample saw first
            P.iDs.v[k * P.samples + s] = P.paths.v[k * P.samples + s].firstInstance;
        }
    }
    writeFilm(k, sums);
    // The light groups: each group's light of the pixel's paths, in sample
    // order, into its layer of the film.
    for (uint g = 0u; g < P.lightGroups; g++) {
        vec3 sum = vec3(0.0);
        for (uint s = 0u; s < P.samples; s++) {
            uint at = ((k * P.samples + s) * P.lightGroups + g) * 3u;
            sum += vec3(P.groupLight.v[at], P.groupLight.v[at + 1u], P.groupLight.v[at + 2u]);
        }
        uint at = P.groupsAt + (g * pixels + k) * 3u;
        P.film.v[at] = sum.x;
        P.film.v[at + 1u] = sum.y;
        P.film.v[at + 2u] = sum.z;
    }
}
