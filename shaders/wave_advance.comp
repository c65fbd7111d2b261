#version 460
#extension GL_GOOGLE_include_directive : require
// Wavefront stage 5: the survivors become the next bounce's live paths, and
// the next dispatches' and ray-tracing launches' indirect arguments cover
// them.
#include "wave_compute.glsl"
layout(local_size_x = 1) in;

void main() {
    uint live = P.counters.v[COUNTER_NEXT];
    P.counters.v[COUNTER_LIVE] = live;
    P.counters.v[COUNTER_NEXT] = 0u;
    uvec2 g = groupsFor(live);
    P.counters.v[COUNTER_DISPATCH] = g.x;
    P.counters.v[COUNTER_DISPATCH + 1u] = g.y;
    P.counters.v[COUNTER_DISPATCH + 2u] = 1u;
    uvec2 rows = traceRowsFor(live);
    P.counters.v[COUNTER_TRACE] = rows.x;
    P.counters.v[COUNTER_TRACE + 1u] = rows.y;
    P.counters.v[COUNTER_TRACE + 2u] = 1u;
}
