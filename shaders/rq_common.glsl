// rq_common.glsl: what the ray-query wavefront's trace and shade stages
// share: wave_compute.glsl, and tracing by ray query with the candidates
// the pipeline's any-hit and intersection shaders would decide:
// alpha-masked triangles, spheres and swept spheres (the same intersection
// code as sphere.rint and swept.rint).
#extension GL_EXT_ray_query : require
#include "wave_compute.glsl"
#include "shade.glsl"

// A procedural candidate: the CPU backend's intersection in object space.
bool procedural(uint inst, uint prim, vec3 o, vec3 d, float tmax, out float t, out float u) {
    Instance in_ = P.instances.v[inst];
    vec3 oo = affinePoint(in_.toObject, o);
    vec3 od = affineVector(in_.toObject, d);
    u = 0.0;
    if (in_.kind == KIND_SPHERES) {
        SphereSet set = P.sphereSets.v[in_.geometry];
        return intersectSphere(oo, od, P.points.v[set.firstPoint + prim], P.radii.v[set.firstRadius + prim], 0.0, tmax,
                               (in_.flags & INSTANCE_EXIT_HITS) != 0u, t);
    }
    return intersectStrandSegment(P.curveSets.v[in_.geometry], prim, oo, od, 0.0, tmax, t, u);
}

// The candidate loop of a ray query q traced from o along d up to tmax; the
// procedural hit's u lands in procU. (A macro: a ray query cannot be passed
// to a function on every compiler.)
#define RQ_CANDIDATES(q, o, d, tmax, procU)                                                                        \
    while (rayQueryProceedEXT(q)) {                                                                               \
        uint cInst = rayQueryGetIntersectionInstanceCustomIndexEXT(q, false);                                    \
        uint cPrim = rayQueryGetIntersectionPrimitiveIndexEXT(q, false);                                         \
        if (rayQueryGetIntersectionTypeEXT(q, false) == gl_RayQueryCandidateIntersectionTriangleEXT) {          \
            Material cMat = P.materials.v[P.instances.v[cInst].material];                                         \
            vec2 cBary = rayQueryGetIntersectionBarycentricsEXT(q, false);                                       \
            if (alphaKeeps(cMat, cInst, cPrim, cBary.x, cBary.y, rayQueryGetIntersectionTEXT(q, false))) {      \
                rayQueryConfirmIntersectionEXT(q);                                                                \
            }                                                                                                     \
        } else {                                                                                                  \
            float cMax = tmax;                                                                                    \
            if (rayQueryGetIntersectionTypeEXT(q, true) != gl_RayQueryCommittedIntersectionNoneEXT) {            \
                cMax = rayQueryGetIntersectionTEXT(q, true);                                                      \
            }                                                                                                     \
            float cT, cU;                                                                                         \
            if (procedural(cInst, cPrim, o, d, cMax, cT, cU)) {                                                   \
                procU = cU;                                                                                       \
                rayQueryGenerateIntersectionEXT(q, cT);                                                           \
            }                                                                                                     \
        }                                                                                                         \
    }

// traceClosest is the closest hit along a ray, as a Hit record.
Hit traceClosest(vec3 o, vec3 d) {
    rayQueryEXT q;
    rayQueryInitializeEXT(q, accelerationStructureEXT(P.tlas), gl_RayFlagsNoneEXT, 0xff, o, 0.0, d, INF);
    float procU = 0.0;
    RQ_CANDIDATES(q, o, d, INF, procU)
    Hit h;
    h.instance = MISS_INSTANCE;
    h.prim = 0u;
    h.u = 0.0;
    h.v = 0.0;
    h.t = INF;
    h.key = 0u;
    uint type = rayQueryGetIntersectionTypeEXT(q, true);
    if (type == gl_RayQueryCommittedIntersectionNoneEXT) {
        return h;
    }
    h.instance = rayQueryGetIntersectionInstanceCustomIndexEXT(q, true);
    h.prim = rayQueryGetIntersectionPrimitiveIndexEXT(q, true);
    h.t = rayQueryGetIntersectionTEXT(q, true);
    if (type == gl_RayQueryCommittedIntersectionTriangleEXT) {
        vec2 b = rayQueryGetIntersectionBarycentricsEXT(q, true);
        h.u = b.x;
        h.v = b.y;
    } else {
        h.u = procU;
    }
    return h;
}

// occluded traces a shadow ray: anything between o and o + tmax·d.
bool occluded(vec3 o, vec3 d, float tmax) {
    rayQueryEXT q;
    rayQueryInitializeEXT(q, accelerationStructureEXT(P.tlas), gl_RayFlagsTerminateOnFirstHitEXT, 0xff, o, 0.0, d, tmax);
    float procU = 0.0;
    RQ_CANDIDATES(q, o, d, tmax, procU)
    return rayQueryGetIntersectionTypeEXT(q, true) != gl_RayQueryCommittedIntersectionNoneEXT;
}
