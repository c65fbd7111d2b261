#version 460
// The sorting wavefront's closest-hit shader (path rt-sorted): it records
// the hit for rts_trace.rgen, as a ray query's committed intersection
// would (procedural hits carry their intersection shader's attributes).
#extension GL_GOOGLE_include_directive : require
#define PUSH_BOUNCE
#include "stage.glsl"

layout(location = 0) rayPayloadInEXT Hit hit;
hitAttributeEXT vec2 attribs;

void main() {
    hit.instance = gl_InstanceCustomIndexEXT;
    hit.prim = gl_PrimitiveID;
    hit.u = attribs.x;
    hit.v = attribs.y;
    hit.t = gl_HitTEXT;
}
