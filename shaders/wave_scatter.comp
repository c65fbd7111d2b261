#version 460
#extension GL_GOOGLE_include_directive : require
// Wavefront stage 3b: each live path takes the next slot of its key's bin:
// the sorted queue groups the paths by material (their order within a bin
// is whatever the atomics make it; the image does not depend on it). Built
// with SUBGROUP_SORT too (wave.glsl's takeCounter).
#include "wave_compute.glsl"
layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    uint i = flatIndex();
    if (i >= P.counters.v[COUNTER_LIVE]) {
        return;
    }
    uint p = queueIn().v[i];
    uint slot = takeCounter(COUNTER_KEYS + P.keyCount + P.hits.v[p].key);
    P.sorted.v[slot] = p;
}
