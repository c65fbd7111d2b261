#version 460
#extension GL_GOOGLE_include_directive : require
// Wavefront stage 6: each pixel sums its samples' paths, in sample order,
// into the accumulation buffer.
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
    }
    writeFilm(pixel, sums);
}
