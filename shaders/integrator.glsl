// integrator.glsl: render/cpu/integrator.go's closestHit and miss shaders as
// functions of the path, shared by the ray-tracing pipeline (surface.rchit,
// hair.rchit, miss.rmiss) and the ray-query wavefront (rq_shade.comp). The
// includer defines, before including it,
//
//	bool occluded(vec3 origin, vec3 dir, float tmax); // a shadow ray
//
// and may define HAIR or SURFACE to specialise the BSDF to one kind.
#ifndef INTEGRATOR_GLSL
#define INTEGRATOR_GLSL

#include "shade.glsl"
#include "lights.glsl"
#include "medium.glsl"

#if defined(HAIR)
#define IS_HAIR(s) true
#elif defined(SURFACE)
#define IS_HAIR(s) false
#else
#define IS_HAIR(s) ((s).isHair)
#endif

// The miss shader: the environment, weighted by MIS against light sampling.
void missShader(inout Path path, vec3 d) {
    path.throughput *= transmittance(path.medium, INF);
    vec3 env = envRadiance(d);
    float weight = 1.0;
    if (path.bounce > 0u && path.prevPdf > 0.0) {
        weight = powerHeuristic(path.prevPdf, pdfEnvironment(d));
    }
    addLight(path, path.throughput * env * weight);
    path.alive = 0u;
}

// The closest-hit shader: emission weighted by MIS against light sampling,
// a light sample and its shadow ray, a BSDF sample for the next ray, and
// Russian roulette after three bounces.
void closestHitShader(inout Path path, uint inst, uint prim, vec2 attribs, float t, vec3 o, vec3 d) {
    path.throughput *= transmittance(path.medium, t);
    Surface s = shadeHit(inst, prim, attribs.x, attribs.y, t, o, d);
    vec3 wo = -d;
    vec3 woLocal = frameToLocal(s.frame, wo);
    // What the first hit's albedos, the light sample and the next direction
    // need of wo, computed once a hit, and only when one of them is taken.
    WoTerms terms;
    bool haveTerms = false;
    if (path.bounce == 0u) {
        path.albedo = s.albedo;
        path.normal = s.aovNormal != vec3(0.0) ? s.aovNormal : s.frame.n;
        vec3 fwd = P.forward;
        path.depth = t * dot(d, fwd);
        if (IS_HAIR(s)) {
            path.diffAlbedo = s.albedo;
        } else if (!s.unlit) { // an unlit surface reflects nothing: its light is the camera's direct view
            terms = bsdfTerms(s.bsdf, woLocal);
            haveTerms = true;
            bsdfAlbedosWith(s.bsdf, terms, woLocal, path.diffAlbedo, path.specAlbedo);
        }
    }
    if (s.emit != vec3(0.0)) {
        float weight = 1.0;
        if (path.bounce > 0u && path.prevPdf > 0.0) {
            weight = powerHeuristic(path.prevPdf, pdfEmitter(int(inst), int(prim), t, dot(s.ng, wo), o));
        }
        addLight(path, path.throughput * s.emit * weight);
    }
    if (s.unlit || path.bounce >= P.maxDepth) {
        path.alive = 0u;
        return;
    }
    // A dispersive interface refracts by the path's one wavelength, which
    // the first such interface picks and weighs the throughput by.
    if (!IS_HAIR(s) && s.bsdf.transmission > 0.0 && !s.bsdf.thin) {
        Material dm = P.materials.v[s.material];
        if (dm.dispersion > 0.0) {
            if (path.wavelength == 0.0) {
                path.wavelength = sampleWavelength(rnd(path, DIM_BSDF_W));
                path.throughput *= wavelengthWeights(path.wavelength);
            }
            float n = dispersionIOR(glassIOR(dm), dm.dispersion, path.wavelength);
            s.bsdf.eta = s.front ? n : 1.0 / n;
            haveTerms = false; // the glass's terms depend on its index

        }
    }
    path.events = 0u;
    if (!IS_HAIR(s) && !haveTerms && woLocal.z > 0.0) { // (below the surface the BSDF reads none)
        terms = bsdfTerms(s.bsdf, woLocal);
    }

    // Next-event estimation.
    LightSample ls;
    if (sampleLight(ls, s.p, rnd(path, DIM_LIGHT), rnd(path, DIM_LIGHT_COIN), rnd(path, DIM_LIGHT_U), rnd(path, DIM_LIGHT_V)) &&
        (transmits(s) || dot(ls.wi, s.ng) > 0.0)) {
        vec3 f;
        float pdfB;
        vec3 wiL = frameToLocal(s.frame, ls.wi);
        if (IS_HAIR(s)) {
            hairBSDFEval(s.hair, woLocal, wiL, f, pdfB);
        } else {
            bsdfEvalWith(s.bsdf, terms, woLocal, wiL, f, pdfB);
        }
        if (f != vec3(0.0)) {
            path.events |= EVENT_LIGHT;
            path.rays++;
            path.shadowRays++;
            if (!occluded(originToward(s, ls.wi), ls.wi, ls.dist * SHADOW_RAY_END)) {
                vec3 contrib = path.throughput * f * ls.radiance * transmittance(path.medium, ls.dist);
                if (!ls.delta) {
                    contrib *= powerHeuristic(ls.pdf, pdfB) / ls.pdf;
                }
                addSplit(path, contrib, path.bounce == 0u ? diffuseShare(IS_HAIR(s), path.diffAlbedo, wiL, f) : path.split);
            }
        }
    }

    // The next direction.
    vec3 wiLocal, weight;
    float pdf;
    bool ok;
    if (IS_HAIR(s)) {
        hairBSDFSample(s.hair, woLocal, rnd(path, DIM_LOBE), rnd(path, DIM_BSDF_U), rnd(path, DIM_BSDF_V), rnd(path, DIM_BSDF_W),
                       wiLocal, weight, pdf, ok);
    } else {
        bsdfSampleWith(s.bsdf, terms, woLocal, rnd(path, DIM_LOBE), rnd(path, DIM_BSDF_U), rnd(path, DIM_BSDF_V), wiLocal, weight, pdf, ok);
    }
    vec3 wi = frameToWorld(s.frame, wiLocal);
    bool crosses = dot(wi, s.ng) < 0.0;
    if (!ok || (!transmits(s) && crosses) || (!IS_HAIR(s) && crosses != (wiLocal.z < 0.0))) {
        path.alive = 0u;
        return;
    }
    Material mat = P.materials.v[s.material];
    if (!IS_HAIR(s) && crosses && (mat.flags & MAT_VOLUME) != 0u) {
        path.medium = s.front ? int(s.material) : -1;
    }
    if (!IS_HAIR(s) && crosses && s.bsdf.transmission > 0.0 && !bsdfGlassThin(s.bsdf)) { // refracted (diffuse transmission does not bend)
        path.etaScale *= s.bsdf.eta * s.bsdf.eta;
    }
    if (path.bounce == 0u) {
        path.split = diffuseShare(IS_HAIR(s), path.diffAlbedo, wiLocal, weight * pdf); // f·|cos|
    }
    path.origin = originToward(s, wi);
    path.dir = wi;
    path.throughput *= weight;
    path.prevPdf = pdf;
    if (path.bounce >= ROULETTE_START) {
        vec3 rr = path.throughput * path.etaScale;
        float q = max(ROULETTE_FLOOR, 1.0 - max(max(rr.x, rr.y), rr.z));
        if (rnd(path, DIM_ROULETTE) < q) {
            path.alive = 0u;
            return;
        }
        path.throughput *= 1.0 / (1.0 - q);
        path.events |= EVENT_ROULETTE;
    }
    path.bounce++;
}

#endif
