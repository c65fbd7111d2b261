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
#include "govec.glsl"
#include "math.glsl"
#include "gomath.glsl"
#include "generated/kernel.glsl"
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

// The strands the strand rule reads (kernel.Strands): the curve set
// intersectStrandSegment sets before it applies the rule.
CurveSet strandSet;
int strandVertex(int p) { return int(P.segments.v[strandSet.firstSegment + 2u * uint(p)]); }
uint strandJoins(int p) { return P.segments.v[strandSet.firstSegment + 2u * uint(p) + 1u]; }
vec3 strandPoint(int v) { return P.points.v[strandSet.firstPoint + uint(v)]; }
float strandRadius(int v) { return P.radii.v[strandSet.firstRadius + uint(v)]; }

// intersectStrandSegment is render/cpu's: segment p of curve set c as a
// piece of the smooth tube its chain draws (object space).
bool intersectStrandSegment(CurveSet c, uint p, vec3 o, vec3 d, float tmin, float tmax, out float t, out float u) {
    uint v = P.segments.v[c.firstSegment + 2u * p];
    uint joins = P.segments.v[c.firstSegment + 2u * p + 1u];
    if (!intersectSweptSphere(o, d, P.points.v[c.firstPoint + v], P.points.v[c.firstPoint + v + 1u],
                              P.radii.v[c.firstRadius + v], P.radii.v[c.firstRadius + v + 1u], (joins & JOINED_PREV) == 0u,
                              tmin, tmax, t, u)) {
        return false;
    }
    strandSet = c;
    if (!strandHitCounts(int(p), o, d, t)) {
        t = 0.0;
        u = 0.0;
        return false;
    }
    return true;
}

// A path's random numbers at its bounce (kernel.Randoms): Random's, which
// the CPU's stream keys cache.
float pathRandom(inout Path p, uint dim) { return random(p.pixel, p.sampleIndex, p.bounce, dim, P.seed); }

void pathRandom2(inout Path p, uint pair, out float a, out float b) {
    a = pathRandom(p, 2u * pair);
    b = pathRandom(p, 2u * pair + 1u);
}

#endif
