#version 460
#extension GL_GOOGLE_include_directive : require
// Wavefront stage 4: shade each live path's hit (in material order when
// sorting) with the same closest-hit and miss code as the ray-tracing
// pipeline, shadow rays by ray query, and append the survivors to the
// other queue: the compaction.
#include "rq_common.glsl"
#include "integrator.glsl"
layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    uint i = flatIndex();
    if (i >= P.counters.v[COUNTER_LIVE]) {
        return;
    }
    uint p = P.sortOn != 0u ? P.sorted.v[i] : queueIn().v[i];
    Path path = P.paths.v[p];
    Hit h = P.hits.v[p];
    if (h.instance == MISS_INSTANCE) {
        missShader(path, path.dir);
    } else {
        closestHitShader(path, h.instance, h.prim, vec2(h.u, h.v), h.t, path.origin, path.dir);
    }
    P.paths.v[p] = path;
    if (path.alive != 0u) {
        queueOut().v[atomicAdd(P.counters.v[COUNTER_NEXT], 1u)] = p;
    }
}
