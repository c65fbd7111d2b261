#version 460
#extension GL_GOOGLE_include_directive : require
// Ray-query wavefront stage 4: shade each live path's hit (wave_shade.glsl),
// shadow rays by ray query.
#include "rq_common.glsl"
#include "integrator.glsl"
#include "wave_shade.glsl"
layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    uint i = flatIndex();
    if (i >= P.counters.v[COUNTER_LIVE]) {
        return;
    }
    shadeQueued(i);
}
