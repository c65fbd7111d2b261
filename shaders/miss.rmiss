#version 460
// The miss shader (integrator.glsl's missShader).
#extension GL_GOOGLE_include_directive : require
#include "stage.glsl"

layout(location = 0) rayPayloadInEXT PathPayload path;

bool occluded(vec3 origin, vec3 dir, float tmax) { return false; } // the miss shader traces none

#include "integrator.glsl"

void main() {
    missShader(path, gl_WorldRayDirectionEXT);
}
