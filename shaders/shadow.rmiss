#version 460
// The shadow rays' miss shader: nothing was in the way.
#extension GL_GOOGLE_include_directive : require
#include "stage.glsl"

layout(location = 1) rayPayloadInEXT ShadowPayload shadow;

void main() {
    shadow.occluded = 0u;
}
