#version 460
#extension GL_GOOGLE_include_directive : require
// Wavefront stage 5: the survivors become the next bounce's live paths, and
// the next dispatches' indirect arguments cover them.
#include "rq_common.glsl"
layout(local_size_x = 1) in;

void main() {
    uint live = P.counters.v[COUNTER_NEXT];
    P.counters.v[COUNTER_LIVE] = live;
    P.counters.v[COUNTER_NEXT] = 0u;
    P.counters.v[COUNTER_DISPATCH] = (live + WAVEFRONT_GROUP - 1u) / WAVEFRONT_GROUP;
    P.counters.v[COUNTER_DISPATCH + 1u] = 1u;
    P.counters.v[COUNTER_DISPATCH + 2u] = 1u;
}
