#version 460
#extension GL_GOOGLE_include_directive : require
// Wavefront stage 3a: the counting sort's offsets, an exclusive prefix sum
// of the per-key counts into the cursors, which also clears the counts for
// the next bounce. One workgroup: each invocation sums a run of keys, the
// group scans the runs' sums in shared memory, then each invocation writes
// its run's cursors (a scheme with coherence bits over a hundred
// materials has thousands of keys: one invocation alone would take a
// millisecond a bounce on a GPU).
#include "wave_compute.glsl"
#define SCAN_GROUP 256
layout(local_size_x = SCAN_GROUP) in;

shared uint runs[SCAN_GROUP];

void main() {
    uint t = gl_LocalInvocationID.x;
    uint n = P.keyCount;
    uint per = (n + SCAN_GROUP - 1u) / SCAN_GROUP;
    uint first = min(t * per, n);
    uint last = min(first + per, n);
    uint sum = 0u;
    for (uint k = first; k < last; k++) {
        sum += P.counters.v[COUNTER_KEYS + k];
    }
    runs[t] = sum;
    barrier();
    // An inclusive scan of the runs' sums (Hillis and Steele).
    for (uint step = 1u; step < SCAN_GROUP; step <<= 1) {
        uint before = t >= step ? runs[t - step] : 0u;
        barrier();
        runs[t] += before;
        barrier();
    }
    uint cursor = runs[t] - sum;
    for (uint k = first; k < last; k++) {
        uint c = P.counters.v[COUNTER_KEYS + k];
        P.counters.v[COUNTER_KEYS + n + k] = cursor;
        P.counters.v[COUNTER_KEYS + k] = 0u;
        cursor += c;
    }
}
