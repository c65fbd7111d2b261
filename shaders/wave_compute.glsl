// wave_compute.glsl: what the wavefronts' compute stages share: the
// extensions (no ray queries: the sorting wavefront on the ray-tracing
// pipeline runs these stages on devices without them), the push constant
// (the parameter block's address and the bounce, whose parity picks the
// queue to read), the queues and sort keys, and the 2D dispatch layout.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#ifndef WAVE_COMPUTE_GLSL
#define WAVE_COMPUTE_GLSL
#define PUSH_BOUNCE
#include "common.glsl"
#include "wave.glsl"

// flatIndex is the invocation's index in a dispatch of 1D work laid out in
// 2D, since one dimension holds at most 65535 groups on many devices.
uint flatIndex() {
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * WAVEFRONT_GROUP + gl_LocalInvocationID.x;
}

// groupsFor is the 2D group count that covers n invocations.
uvec2 groupsFor(uint n) {
    uint groups = (n + WAVEFRONT_GROUP - 1u) / WAVEFRONT_GROUP;
    uint x = min(groups, 65535u);
    return uvec2(x, x == 0u ? 1u : (groups + x - 1u) / x);
}

// traceRowsFor is the ray-tracing launch (width, height) that covers n
// invocations in rows of TRACE_ROW_WIDTH (wavefront.go's traceRows).
uvec2 traceRowsFor(uint n) {
    uint width = max(1u, min(n, TRACE_ROW_WIDTH));
    return uvec2(width, (n + width - 1u) / width);
}

#endif
