#version 460
#extension GL_GOOGLE_include_directive : require
// Ray-query wavefront stage 2: trace every live path's ray by ray query
// into its hit record, and count the hits per sort key (wave.glsl).
#include "rq_common.glsl"
layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    uint i = flatIndex();
    if (i >= P.counters.v[COUNTER_LIVE]) {
        return;
    }
    uint p = queueIn().v[i];
    P.paths.v[p].rays++;
    keepHit(p, traceClosest(P.paths.v[p].origin, P.paths.v[p].dir));
}
