// common.glsl: what every stage includes: the generated buffer layouts, the
// launch's parameter block (a push constant holds its address), the path
// payload that the raygen, closest-hit and miss shaders share, and the
// small helpers of render/cpu.
//
// Extensions (enabled before including this by stage.glsl, or by
// rq_common.glsl with GL_EXT_ray_query in place of the first):
// GL_EXT_ray_tracing, GL_EXT_buffer_reference, GL_EXT_scalar_block_layout,
// GL_EXT_shader_explicit_arithmetic_types_int64, GL_GOOGLE_include_directive.
#ifndef COMMON_GLSL
#define COMMON_GLSL

#include "generated/layout.glsl"
#include "random.glsl"
#include "govec.glsl"
#include "math.glsl"
#include "intersect.glsl"

layout(buffer_reference, scalar, buffer_reference_align = 8) buffer ParamsBuf { Params p; };
#if defined(PUSH_BOUNCE)
layout(push_constant, scalar) uniform Push { ParamsBuf params; uint bounce; uint pad; } push;
#elif defined(PUSH_PROBE)
// probe_scene.comp's: the records in and out, the helper and their count.
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer ProbeFloats { float v[]; };
layout(push_constant, scalar) uniform Push { ParamsBuf params; ProbeFloats in_; ProbeFloats out_; uint fn; uint n; } push;
#else
layout(push_constant, scalar) uniform Push { ParamsBuf params; } push;
#endif
#define P (push.params.p)


// The path state one sample carries between bounces (render/cpu's
// pathState, layout.Path): the raygen shader traces path.origin/dir; the
// closest-hit or miss shader shades and writes the next ray or ends it.
#define PathPayload Path

// Shadow rays: occluded until the shadow miss shader says otherwise.
struct ShadowPayload {
    uint occluded;
};

// A row-major 3×4 affine (render.Affine) applied to a point or a vector.
vec3 affinePoint(vec4 m[3], vec3 p) {
    return vec3(m[0].x * p.x + m[0].y * p.y + m[0].z * p.z + m[0].w,
                m[1].x * p.x + m[1].y * p.y + m[1].z * p.z + m[1].w,
                m[2].x * p.x + m[2].y * p.y + m[2].z * p.z + m[2].w);
}

vec3 affineVector(vec4 m[3], vec3 v) {
    return vec3(m[0].x * v.x + m[0].y * v.y + m[0].z * v.z,
                m[1].x * v.x + m[1].y * v.y + m[1].z * v.z,
                m[2].x * v.x + m[2].y * v.y + m[2].z * v.z);
}

// normalToWorld transforms an object-space normal by the inverse transpose,
// which the world-to-object affine holds (its transpose, read by columns).
vec3 normalToWorld(vec4 inv[3], vec3 n) {
    return normalizeGo(vec3(inv[0].x * n.x + inv[1].x * n.y + inv[2].x * n.z,
                            inv[0].y * n.x + inv[1].y * n.y + inv[2].y * n.z,
                            inv[0].z * n.x + inv[1].z * n.y + inv[2].z * n.z));
}

float powerHeuristic(float a, float b) {
    float a2 = a * a, b2 = b * b;
    if (a2 + b2 == 0.0) {
        return 0.0;
    }
    return a2 / (a2 + b2);
}

// The random number of a path's current bounce.
float rnd(PathPayload p, uint dim) {
    return random(p.pixel, p.sampleIndex, p.bounce, dim, P.seed);
}

#endif
