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

float maxAbs(vec3 v) { return max(max(abs(v.x), abs(v.y)), abs(v.z)); }

// strandInside is render/cpu's strandHitCounts' inside for segment q of
// curve set c, with the hit x and the origin o relative to a (the first
// vertex of segment p, whose larger radius is rp): whether the hit is not on
// the tube's surface by q, and (near) whether q can hold it at all. joint
// is the vertex q shares with p, or -1 (q is p, or further along).
bool strandInside(CurveSet c, uint p, uint q, int joint, float rp, vec3 a, vec3 x, vec3 o, float tol, out bool near) {
    uint w = P.segments.v[c.firstSegment + 2u * q];
    vec3 aq = P.points.v[c.firstPoint + w];
    vec3 bq = P.points.v[c.firstPoint + w + 1u] - aq;
    vec3 shift = a - aq;
    vec3 xq = x + shift;
    float ra = P.radii.v[c.firstRadius + w];
    float rb = P.radii.v[c.firstRadius + w + 1u];
    near = false;
    if (joint >= 0) {
        vec3 xj = x + (a - P.points.v[c.firstPoint + uint(joint)]);
        float reach = 3.0 * (rp + max(ra, rb)) + tol;
        if (dot(xj, xj) > reach * reach) {
            return false;
        }
    } else if (q != p) {
        float reach = length(bq) + max(ra, rb) + tol;
        if (dot(xq, xq) > reach * reach) {
            return false;
        }
    }
    near = true;
    float dx = roundConeDistance(xq, bq, ra, rb);
    return dx < -tol || (dx < tol && roundConeDistance(o + shift, bq, ra, rb) < tol);
}

// strandHitCounts is render/cpu's: whether a hit at distance t on segment p
// of curve set c, of a ray from o along d (object space), is where the ray
// enters the one smooth tube that the segment's chain draws
// (intersectStrandSegment there says why).
bool strandHitCounts(CurveSet c, uint p, vec3 o, vec3 d, float t) {
    uint v = P.segments.v[c.firstSegment + 2u * p];
    vec3 a = P.points.v[c.firstPoint + v];
    vec3 oa = o - a;
    vec3 travel = d * t;
    vec3 x = oa + travel;
    float ra = P.radii.v[c.firstRadius + v];
    float rb = P.radii.v[c.firstRadius + v + 1u];
    float tol = STRAND_TOL_TRAVEL * (maxAbs(oa) + maxAbs(travel)) + STRAND_TOL_RADIUS * (ra + rb) +
                STRAND_TOL_POSITION * max(maxAbs(o), maxAbs(x + a));
    float rp = max(ra, rb);
    bool near;
    if (strandInside(c, p, p, -1, rp, a, x, oa, tol, near)) {
        return false;
    }
    uint q = p;
    for (int k = 0; k < STRAND_REACH && (P.segments.v[c.firstSegment + 2u * q + 1u] & JOINED_PREV) != 0u; k++) {
        q--;
        if (strandInside(c, p, q, k == 0 ? int(v) : -1, rp, a, x, oa, tol, near)) {
            return false;
        }
        if (!near) {
            break;
        }
    }
    q = p;
    for (int k = 0; k < STRAND_REACH && (P.segments.v[c.firstSegment + 2u * q + 1u] & JOINED_NEXT) != 0u; k++) {
        q++;
        if (strandInside(c, p, q, k == 0 ? int(v) + 1 : -1, rp, a, x, oa, tol, near)) {
            return false;
        }
        if (!near) {
            break;
        }
    }
    return true;
}

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
    if (!strandHitCounts(c, p, o, d, t)) {
        t = 0.0;
        u = 0.0;
        return false;
    }
    return true;
}

// normalToWorld transforms an object-space normal by the inverse transpose,
// which the world-to-object affine holds (its transpose, read by columns).
vec3 normalToWorld(vec4 inv[3], vec3 n) {
    return normalizeGo(vec3(inv[0].x * n.x + inv[1].x * n.y + inv[2].x * n.z,
                            inv[0].y * n.x + inv[1].y * n.y + inv[2].y * n.z,
                            inv[0].z * n.x + inv[1].z * n.y + inv[2].z * n.z));
}

// A path's random numbers at its bounce (kernel.Randoms): Random's, which
// the CPU's stream keys cache.
float pathRandom(inout Path p, uint dim) { return random(p.pixel, p.sampleIndex, p.bounce, dim, P.seed); }

void pathRandom2(inout Path p, uint pair, out float a, out float b) {
    a = pathRandom(p, 2u * pair);
    b = pathRandom(p, 2u * pair + 1u);
}

#endif
