// wave_shade.glsl: the wavefronts' shading stage, after integrator.glsl:
// each live path's hit (in sort-key order when sorting) runs the same
// closest-hit or miss code as the ray-tracing pipeline, and the survivors
// are appended to the other queue: the compaction.
#ifndef WAVE_SHADE_GLSL
#define WAVE_SHADE_GLSL
#include "wave.glsl"

// shadeQueued shades the bounce's i-th live path.
void shadeQueued(uint i) {
    uint p = P.sortOn != 0u ? P.sorted.v[i] : queueIn().v[i];
    shadedPath = p; // its light by group goes to its slot (integrator.glsl)
    Path path = P.paths.v[p];
    Hit h = P.hits.v[p];
    if (h.instance == MISS_INSTANCE) {
        missShader(path, path.dir);
    } else {
        closestHitShader(path, h, path.origin, path.dir);
    }
    P.paths.v[p] = path;
    if (path.alive != 0u) {
        queueOut().v[atomicAdd(P.counters.v[COUNTER_NEXT], 1u)] = p;
    }
}

#endif
