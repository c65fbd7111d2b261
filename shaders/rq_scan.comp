#version 460
#extension GL_GOOGLE_include_directive : require
// Wavefront stage 3a: the counting sort's offsets, an exclusive prefix sum
// of the per-key counts into the cursors (one invocation: there are as many
// keys as materials), which also clears the counts for the next bounce.
#include "rq_common.glsl"
layout(local_size_x = 1) in;

void main() {
    uint sum = 0u;
    for (uint k = 0u; k < P.keyCount; k++) {
        uint c = P.counters.v[COUNTER_KEYS + k];
        P.counters.v[COUNTER_KEYS + P.keyCount + k] = sum;
        P.counters.v[COUNTER_KEYS + k] = 0u;
        sum += c;
    }
}
