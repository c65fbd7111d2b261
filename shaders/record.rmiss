#version 460
// The sorting wavefront's miss shader (path rt-sorted): a miss record.
#extension GL_GOOGLE_include_directive : require
#define PUSH_BOUNCE
#include "stage.glsl"

layout(location = 0) rayPayloadInEXT Hit hit;

void main() {
    hit.instance = MISS_INSTANCE;
    hit.prim = 0u;
    hit.u = 0.0;
    hit.v = 0.0;
    hit.t = INF;
}
