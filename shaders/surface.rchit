#version 460
// The closest-hit shader: render/cpu/integrator.go's closestHit. It shades
// the hit (emission weighted by MIS against light sampling), samples a light
// and traces its shadow ray, samples the BSDF for the next ray, and plays
// Russian roulette after three bounces. Built twice: surface.rchit for glTF
// materials, hair.rchit (-DHAIR) for strands with a hair material.
#extension GL_GOOGLE_include_directive : require
#include "stage.glsl"
#include "shade.glsl"
#include "lights.glsl"
#include "medium.glsl"

layout(location = 0) rayPayloadInEXT PathPayload path;
layout(location = 1) rayPayloadEXT ShadowPayload shadow;
hitAttributeEXT vec2 attribs;

void main() {
    uint inst = gl_InstanceCustomIndexEXT;
    uint prim = gl_PrimitiveID;
    float t = gl_HitTEXT;
    vec3 o = gl_WorldRayOriginEXT, d = gl_WorldRayDirectionEXT;
    path.throughput *= transmittance(path.medium, t);
    Surface s = shadeHit(inst, prim, attribs.x, attribs.y, t, o, d);
    vec3 wo = -d;
    if (path.bounce == 0u) {
        path.albedo = s.albedo;
        path.normal = s.aovNormal != vec3(0.0) ? s.aovNormal : s.frame.n;
        vec3 fwd = P.forward;
        path.depth = t * dot(d, fwd);
    }
    if (s.emit != vec3(0.0)) {
        float weight = 1.0;
        if (path.bounce > 0u && path.prevPdf > 0.0) {
            weight = powerHeuristic(path.prevPdf, pdfTriangle(inst, prim, t, dot(s.ng, wo)));
        }
        path.radiance += path.throughput * s.emit * weight;
    }
    if (path.bounce >= P.maxDepth) {
        path.alive = 0u;
        return;
    }
    vec3 woLocal = toLocal(s.frame, wo);
    path.events = 0u;

    // Next-event estimation.
    LightSample ls;
    if (sampleLight(s.p, rnd(path, DIM_LIGHT), rnd(path, DIM_LIGHT_COIN), rnd(path, DIM_LIGHT_U), rnd(path, DIM_LIGHT_V), ls) &&
        (transmits(s) || dot(ls.wi, s.ng) > 0.0)) {
        vec3 f;
        float pdfB;
#ifdef HAIR
        f = hairEval(s.hair, woLocal, toLocal(s.frame, ls.wi), pdfB);
#else
        f = bsdfEval(s.bsdf, woLocal, toLocal(s.frame, ls.wi), pdfB);
#endif
        if (f != vec3(0.0)) {
            path.events |= EVENT_LIGHT;
            path.rays++;
            path.shadowRays++;
            shadow.occluded = 1u;
            float tmax = ls.dist * (1.0 - 1e-4);
            traceRayEXT(accelerationStructureEXT(P.tlas), gl_RayFlagsTerminateOnFirstHitEXT | gl_RayFlagsSkipClosestHitShaderEXT,
                        0xff, 1, RAY_TYPES, 1, originToward(s, ls.wi), 0.0, ls.wi, tmax, 1);
            if (shadow.occluded == 0u) {
                vec3 contrib = path.throughput * f * ls.radiance * transmittance(path.medium, ls.dist);
                if (!ls.delta) {
                    contrib *= powerHeuristic(ls.pdf, pdfB) / ls.pdf;
                }
                path.radiance += contrib;
            }
        }
    }

    // The next direction.
    vec3 wiLocal, weight;
    float pdf;
    bool ok;
#ifdef HAIR
    ok = hairSample(s.hair, woLocal, rnd(path, DIM_LOBE), rnd(path, DIM_BSDF_U), rnd(path, DIM_BSDF_V), rnd(path, DIM_BSDF_W),
                    wiLocal, weight, pdf);
#else
    ok = bsdfSample(s.bsdf, woLocal, rnd(path, DIM_LOBE), rnd(path, DIM_BSDF_U), rnd(path, DIM_BSDF_V), wiLocal, weight, pdf);
#endif
    vec3 wi = toWorld(s.frame, wiLocal);
    bool crosses = dot(wi, s.ng) < 0.0;
    if (!ok || (!transmits(s) && crosses) || (!s.isHair && crosses != (wiLocal.z < 0.0))) {
        path.alive = 0u;
        return;
    }
    Material mat = P.materials.v[s.material];
    if (!s.isHair && crosses && (mat.flags & MAT_VOLUME) != 0u) {
        path.medium = s.front ? int(s.material) : -1;
    }
    path.origin = originToward(s, wi);
    path.dir = wi;
    path.throughput *= weight;
    path.prevPdf = pdf;
    if (path.bounce >= 3u) {
        float q = max(0.05, 1.0 - max(max(path.throughput.x, path.throughput.y), path.throughput.z));
        if (rnd(path, DIM_ROULETTE) < q) {
            path.alive = 0u;
            return;
        }
        path.throughput *= 1.0 / (1.0 - q);
        path.events |= EVENT_ROULETTE;
    }
    path.bounce++;
}
