// wave.glsl: what both wavefronts' stages share, whatever traces their rays
// (ray queries in compute shaders, or traceRayEXT in the ray-tracing
// pipeline's raygen shaders): the queues a bounce reads and appends to, and
// the counting sort's key of a hit. Needs common.glsl with PUSH_BOUNCE.
#ifndef WAVE_GLSL
#define WAVE_GLSL

// The queue a bounce reads and the one it appends the survivors to.
UintBuf queueIn() { return (push.bounce & 1u) == 0u ? P.queueA : P.queueB; }
UintBuf queueOut() { return (push.bounce & 1u) == 0u ? P.queueB : P.queueA; }

// sortKey is a hit's key in the counting sort: the order in which
// reorderThreadNV(hitObject, hint, bits) groups threads, and the CPU
// emulator's Reorder sorts them. By shader first (a miss, then each hit
// group), then by the hint's low bits, the most significant first: with
// the coherence scheme the path's coherence bits (it ends here, it survived
// roulette, it sampled a light), then the material's. The keys are dense:
// P.keyMaterials material values per shader and coherence class
// (render/vulkan's sortKeys counts them the same way).
uint sortKey(uint instance, uint events) {
    uint shader = 0u;
    uint material = 0u;
    if (instance != MISS_INSTANCE) {
        Instance in_ = P.instances.v[instance];
        shader = 1u + in_.hitGroup;
        material = in_.material;
    }
    uint bits = P.reorderBits;
    if (bits == 0u || bits == REORDER_NONE) {
        return shader;
    }
    uint classes = 1u;
    uint coherence = 0u;
    if ((P.hintFlags & HINT_COHERENCE) != 0u && bits > COHERENCE_BITS) {
        bits -= COHERENCE_BITS;
        classes = 1u << COHERENCE_BITS;
        coherence = (instance == MISS_INSTANCE ? 1u : 0u) | ((events & 3u) << 1);
    }
    return (shader * classes + coherence) * P.keyMaterials + (material & ((1u << bits) - 1u));
}

// keepHit stores path p's hit record with its sort key, counting the key
// when the bounce is sorted.
void keepHit(uint p, Hit h) {
    h.key = sortKey(h.instance, P.paths.v[p].events);
    P.hits.v[p] = h;
    if (P.sortOn != 0u) {
        atomicAdd(P.counters.v[COUNTER_KEYS + h.key], 1u);
    }
}

#endif
