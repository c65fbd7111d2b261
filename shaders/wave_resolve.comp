#version 460
#extension GL_GOOGLE_include_directive : require
// Wavefront stage 6: each pixel sums its samples' paths, in sample order,
// into the accumulation buffer (their light groups' too), and writes what
// each sample saw first where the render counts it (Params.iDsOn).
#include "wave_compute.glsl"
#include "paths.glsl"
layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    uint pixel = flatIndex();
    if (pixel >= P.width * P.height) {
        return;
    }
    PixelSample sums = noPixelSample();
    for (uint s = 0u; s < P.samples; s++) {
        addSample(sums, P.paths.v[pixel * P.samples + s]);
        if (P.iDsOn != 0u) { // Cryptomatte: what each sample saw first
            P.iDs.v[pixel * P.samples + s] = P.paths.v[pixel * P.samples + s].firstInstance;
        }
    }
    writeFilm(pixel, sums);
    // The light groups: each group's light of the pixel's paths, in sample
    // order, into its layer of the film.
    for (uint g = 0u; g < P.lightGroups; g++) {
        vec3 sum = vec3(0.0);
        for (uint s = 0u; s < P.samples; s++) {
            uint at = ((pixel * P.samples + s) * P.lightGroups + g) * 3u;
            sum += vec3(P.groupLight.v[at], P.groupLight.v[at + 1u], P.groupLight.v[at + 2u]);
        }
        uint at = P.groupsAt + (g * P.width * P.height + pixel) * 3u;
        P.film.v[at] = sum.x;
        P.film.v[at + 1u] = sum.y;
        P.film.v[at + 2u] = sum.z;
    }
}
