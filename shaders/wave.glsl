// wave.glsl: what both wavefronts' stages share, whatever traces their rays
// (ray queries in compute shaders, or traceRayEXT in the ray-tracing
// pipeline's raygen shaders): the queues a bounce reads and appends to, and
// the counting sort's key of a hit. Needs common.glsl with PUSH_BOUNCE.
#ifndef WAVE_GLSL
#define WAVE_GLSL

// The queue a bounce reads and the one it appends the survivors to.
UintBuf queueIn() { return (push.bounce & 1u) == 0u ? P.queueA : P.queueB; }
UintBuf queueOut() { return (push.bounce & 1u) == 0u ? P.queueB : P.queueA; }

// hitSortKey is a hit's key in the counting sort (kernel.SortKey of its
// kernel.ReorderHint).
uint hitSortKey(uint instance, uint events) {
    uint shader = 0u;
    uint material = 0u;
    if (instance != MISS_INSTANCE) {
        Instance in_ = P.instances.v[instance];
        shader = 1u + in_.hitGroup;
        material = in_.material;
    }
    uint hint = reorderHint(instance == MISS_INSTANCE, material, events, P.reorderBits, P.hintFlags);
    return sortKey(shader, hint, P.reorderBits, P.hintFlags, P.keyMaterials);
}

// keepHit stores path p's hit record with its sort key, counting the key
// when the bounce is sorted.
void keepHit(uint p, Hit h) {
    h.key = hitSortKey(h.instance, P.paths.v[p].events);
    P.hits.v[p] = h;
    if (P.sortOn != 0u) {
        atomicAdd(P.counters.v[COUNTER_KEYS + h.key], 1u);
    }
}

#endif
