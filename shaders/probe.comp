#version 460
// The probe shader: one GLSL helper, chosen by push.fn (layout.Probe*), run
// on push.n input records of PROBE_IN floats into records of PROBE_OUT
// floats, for the tests that hold each helper against its Go function
// (render/cpu/probe_test.go). Integer inputs come as their bits.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "generated/layout.glsl"
#include "math.glsl"
#include "govec.glsl"
#include "intersect.glsl"

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Floats { float v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Uints { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Vec2s { vec2 v[]; };
layout(push_constant, scalar) uniform Push { Vec2s table; Floats in_; Floats out_; uint fn; uint n; } push;

#include "gomath.glsl"
#include "generated/kernel.glsl"
#define ALBEDO_TABLE(i) push.table.v[i]
#include "tables.glsl"

layout(local_size_x = 64) in;

float inF(uint i, uint k) { return push.in_.v[i * PROBE_IN + k]; }
// Integers are read as integers: a small one's bits are a denormal float,
// which a device may flush to zero.
uint inU(uint i, uint k) { return Uints(uint64_t(push.in_)).v[i * PROBE_IN + k]; }
vec3 inV(uint i, uint k) { return vec3(inF(i, k), inF(i, k + 1u), inF(i, k + 2u)); }
void outF(uint i, uint k, float v) { push.out_.v[i * PROBE_OUT + k] = v; }
void outV(uint i, uint k, vec3 v) {
    outF(i, k, v.x);
    outF(i, k + 1u, v.y);
    outF(i, k + 2u, v.z);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.n) {
        return;
    }
    switch (push.fn) {
    case PROBE_RANDOM: // pixel, sample, bounce, dim, seed
        outF(i, 0u, random(inU(i, 0u), inU(i, 1u), inU(i, 2u), inU(i, 3u), inU(i, 4u)));
        break;
    case PROBE_SPECTRUM: { // u, ior, dispersion
        float lambda = sampleWavelength(inF(i, 0u));
        outF(i, 0u, lambda);
        outV(i, 1u, wavelengthWeights(lambda));
        outF(i, 4u, dispersionIOR(inF(i, 1u), inF(i, 2u), lambda));
        break;
    }
    case PROBE_HIT_COIN: // instance, prim, u, v, t
        outF(i, 0u, hitCoin(inU(i, 0u), inU(i, 1u), inF(i, 2u), inF(i, 3u), inF(i, 4u)));
        break;
    case PROBE_SPHERE: { // o, d, c, r, tmin, tmax, exits
        float t;
        bool hit = intersectSphere(inV(i, 0u), inV(i, 3u), inV(i, 6u), inF(i, 9u), inF(i, 10u), inF(i, 11u), inU(i, 12u) != 0u, t);
        outF(i, 0u, hit ? 1.0 : 0.0);
        outF(i, 1u, t);
        break;
    }
    case PROBE_SWEPT_SPHERE: { // o, d, a, b, ra, rb, startCap, tmin, tmax
        float t, u;
        bool hit = intersectSweptSphere(inV(i, 0u), inV(i, 3u), inV(i, 6u), inV(i, 9u), inF(i, 12u), inF(i, 13u),
                                        inU(i, 14u) != 0u, inF(i, 15u), inF(i, 16u), t, u);
        outF(i, 0u, hit ? 1.0 : 0.0);
        outF(i, 1u, t);
        outF(i, 2u, u);
        break;
    }
    case PROBE_ROUND_CONE: // x, ba, ra, rb
        float dist, u;
        roundConeNearest(toVec3d(inV(i, 0u)), toVec3d(inV(i, 3u)), inF(i, 6u), inF(i, 7u), dist, u);
        outF(i, 0u, dist);
        break;
    case PROBE_BSDF_EVAL: { // base, metallic, roughness, ior, specular, specular colour, wo, wi, coat, its roughness and normal, sheen colour and roughness, glass
        BSDF b = newBSDF(inV(i, 0u), inF(i, 3u), inF(i, 4u), inF(i, 5u), inF(i, 6u), inV(i, 7u));
        if (inF(i, 16u) > 0.0) {
            bsdfSetCoat(b, inF(i, 16u), inF(i, 17u), inV(i, 18u));
        }
        bsdfSetSheen(b, inV(i, 21u), inF(i, 24u));
        b.transmission = inF(i, 25u); // glass, its index and whether thin
        b.eta = inF(i, 26u);
        b.thin = inF(i, 27u) != 0.0;
        b.diffTrans = inF(i, 28u); // diffuse transmission and its tint
        b.diffTransColor = inV(i, 29u);
        bsdfSetAnisotropy(b, inF(i, 32u), inV(i, 33u)); // the metal's anisotropy and its direction
        bsdfSetIridescence(b, inF(i, 36u), inF(i, 37u), inF(i, 38u)); // the film: how much, its index and thickness
        vec3 f;
        float pdf;
        bsdfEval(b, inV(i, 10u), inV(i, 13u), f, pdf);
        outV(i, 0u, f);
        outF(i, 3u, pdf);
        break;
    }
    case PROBE_BSDF_SAMPLE: { // base, metallic, roughness, ior, specular, specular colour, wo, u, u1, u2, coat, its roughness and normal, sheen colour and roughness, glass
        BSDF b = newBSDF(inV(i, 0u), inF(i, 3u), inF(i, 4u), inF(i, 5u), inF(i, 6u), inV(i, 7u));
        if (inF(i, 16u) > 0.0) {
            bsdfSetCoat(b, inF(i, 16u), inF(i, 17u), inV(i, 18u));
        }
        bsdfSetSheen(b, inV(i, 21u), inF(i, 24u));
        b.transmission = inF(i, 25u); // glass, its index and whether thin
        b.eta = inF(i, 26u);
        b.thin = inF(i, 27u) != 0.0;
        b.diffTrans = inF(i, 28u); // diffuse transmission and its tint
        b.diffTransColor = inV(i, 29u);
        bsdfSetAnisotropy(b, inF(i, 32u), inV(i, 33u)); // the metal's anisotropy and its direction
        bsdfSetIridescence(b, inF(i, 36u), inF(i, 37u), inF(i, 38u)); // the film: how much, its index and thickness
        vec3 wi, weight;
        float pdf;
        bool ok;
        bsdfSample(b, inV(i, 10u), inF(i, 13u), inF(i, 14u), inF(i, 15u), wi, weight, pdf, ok);
        outF(i, 0u, ok ? 1.0 : 0.0);
        outV(i, 1u, wi);
        outV(i, 4u, weight);
        outF(i, 7u, pdf);
        break;
    }
    case PROBE_VISIBLE_NORMAL: // wo, alpha, u1, u2
        outV(i, 0u, sampleVisibleNormal(inV(i, 0u), inF(i, 3u), inF(i, 4u), inF(i, 5u)));
        break;
    case PROBE_HAIR_EVAL: { // HairParams (eumelanin, pheomelanin, colour, betaM, betaN, alpha, eta, set), h, wo, wi
        HairParams p = HairParams(inF(i, 0u), inF(i, 1u), inV(i, 2u), inF(i, 5u), inF(i, 6u), inF(i, 7u), inF(i, 8u), inU(i, 9u));
        HairBSDF b = newHairBSDF(p, inF(i, 10u));
        vec3 f;
        float pdf;
        hairBSDFEval(b, inV(i, 11u), inV(i, 14u), f, pdf);
        outV(i, 0u, f);
        outF(i, 3u, pdf);
        break;
    }
    case PROBE_HAIR_SAMPLE: { // HairParams, h, wo, u, u1, u2, u3
        HairParams p = HairParams(inF(i, 0u), inF(i, 1u), inV(i, 2u), inF(i, 5u), inF(i, 6u), inF(i, 7u), inF(i, 8u), inU(i, 9u));
        HairBSDF b = newHairBSDF(p, inF(i, 10u));
        vec3 wi, weight;
        float pdf;
        bool ok;
        hairBSDFSample(b, inV(i, 11u), inF(i, 14u), inF(i, 15u), inF(i, 16u), inF(i, 17u), wi, weight, pdf, ok);
        outF(i, 0u, ok ? 1.0 : 0.0);
        outV(i, 1u, wi);
        outV(i, 4u, weight);
        outF(i, 7u, pdf);
        break;
    }
    case PROBE_MOVED_ORIGIN: // o, a, t, d
        outV(i, 0u, movedOrigin(inV(i, 0u), inV(i, 3u), inF(i, 6u), inV(i, 7u)));
        break;
    case PROBE_CAMERA: { // Camera (eye, x, y, z, ortho, sx, sy, w, h, aperture, focus), px, py, u1, u2
        Camera c = Camera(inV(i, 0u), inV(i, 3u), inV(i, 6u), inV(i, 9u), inU(i, 12u), inF(i, 13u), inF(i, 14u), inF(i, 15u),
                          inF(i, 16u), inF(i, 17u), inF(i, 18u));
        vec3 o, d;
        cameraRay(c, inF(i, 19u), inF(i, 20u), o, d);
        lensRay(c, o, d, inF(i, 21u), inF(i, 22u), o, d);
        outV(i, 0u, o);
        outV(i, 3u, d);
        break;
    }
    }
}
