#version 460
#extension GL_GOOGLE_include_directive : require
// Wavefront stage 1: one path per sampled pixel and sample of the launch
// (paths.glsl's sampledPixel), from the camera, into the first queue (path
// i is sample i % samples of sampled pixel i / samples, so the resolve
// stage sums a pixel's samples in order).
#include "wave_compute.glsl"
#include "paths.glsl"
layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    uint i = flatIndex();
    if (i >= P.pathCount) {
        return;
    }
    uint pixel = sampledPixel(i / P.samples);
    P.paths.v[i] = newPath(pixel % P.width, pixel / P.width, P.firstSample + i % P.samples);
    P.queueA.v[i] = i;
    startGroupLight(i);
}
