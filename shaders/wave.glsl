// wave.glsl: what both wavefronts' stages share, whatever traces their rays
// (ray queries in compute shaders, or traceRayEXT in the ray-tracing
// pipeline's raygen shaders): the queues a bounce reads and appends to, and
// the counting sort's key of a hit. Needs common.glsl with PUSH_BOUNCE.
#ifdef SUBGROUP_SORT
#extension GL_KHR_shader_subgroup_ballot : require
#endif
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

// takeCounter adds 1 to counter at for the invocation and returns its old
// value, as atomicAdd(P.counters.v[at], 1u) does. Built with
// SUBGROUP_SORT (the _subgroup variants, where the device has subgroup
// ballots in the stage), the subgroup's invocations that add to the same
// counter add once together: the lowest adds their number, and each
// takes the value before it plus its rank among them. The sort's keys
// fall on few counters (a scene's handful of materials), so most of a
// subgroup shares one, and the atomics drop from one an invocation to
// one a key. The counters end the same either way, and the values taken
// are a permutation of the same ones. It assumes, as warp-aggregated
// atomics do, that the invocations that enter the if below leave its
// inner one together. Vulkan 1.2 promises no reconvergence; compilers
// commonly reconverge at a structured merge, lavapipe's does, and
// TestSortIsAPermutationGroupedByKey fails on a device where they do not.
// VK_KHR_shader_maximal_reconvergence would make it a guarantee.
uint takeCounter(uint at) {
#ifdef SUBGROUP_SORT
    // Each round takes the counter of the lowest invocation still active;
    // those adding to it leave the loop.
    for (;;) {
        if (subgroupBroadcastFirst(at) == at) {
            uvec4 same = subgroupBallot(true);
            uint before = 0u;
            if (subgroupElect()) {
                before = atomicAdd(P.counters.v[at], subgroupBallotBitCount(same));
            }
            return subgroupBroadcastFirst(before) + subgroupBallotExclusiveBitCount(same);
        }
    }
    return 0u; // (never reached)
#else
    return atomicAdd(P.counters.v[at], 1u);
#endif
}

// keepHit stores path p's hit record with its sort key, counting the key
// when the bounce is sorted.
void keepHit(uint p, Hit h) {
    h.key = hitSortKey(h.instance, P.paths.v[p].events);
    P.hits.v[p] = h;
    if (P.sortOn != 0u) {
        takeCounter(COUNTER_KEYS + h.key);
    }
}

#endif
