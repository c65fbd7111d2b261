#version 460
// The scene probe shader: the GLSL helpers that read a scene (light
// sampling and its pdfs, the environment), run with a render's parameter
// block on push.n input records of PROBE_IN floats into records of
// PROBE_OUT floats, for the tests that hold each against its Go function
// (render/cpu/probe_test.go). probe.comp has the helpers that need no
// scene. Integer inputs come as their bits.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define PUSH_PROBE
#include "common.glsl"
#include "shade.glsl"
#include "lights.glsl"

layout(local_size_x = 64) in;

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer ProbeUints { uint v[]; };

float inF(uint i, uint k) { return push.in_.v[i * PROBE_IN + k]; }
uint inU(uint i, uint k) { return ProbeUints(uint64_t(push.in_)).v[i * PROBE_IN + k]; }
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
    case PROBE_LIGHT_SAMPLE: { // p, u, coin, u1, u2
        LightSample ls;
        bool ok = sampleLight(ls, inV(i, 0u), inF(i, 3u), inF(i, 4u), inF(i, 5u), inF(i, 6u));
        outF(i, 0u, ok ? 1.0 : 0.0);
        outV(i, 1u, ls.wi);
        outF(i, 4u, ls.dist);
        outV(i, 5u, ls.radiance);
        outF(i, 8u, ls.pdf);
        outF(i, 9u, ls.delta ? 1.0 : 0.0);
        break;
    }
    case PROBE_PDF_EMITTER: // instance, prim, t, cosL, origin
        outF(i, 0u, pdfEmitter(int(inU(i, 0u)), int(inU(i, 1u)), inF(i, 2u), inF(i, 3u), inV(i, 4u)));
        break;
    case PROBE_ENVIRONMENT: // d
        outF(i, 0u, pdfEnvironment(inV(i, 0u)));
        outV(i, 1u, envRadiance(inV(i, 0u)));
        break;
    }
}
