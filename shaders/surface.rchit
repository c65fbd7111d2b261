#version 460
// The closest-hit shader (integrator.glsl's closestHitShader). Built twice:
// surface.rchit (-DSURFACE) for glTF materials, hair.rchit (-DHAIR) for
// strands with a hair material. Shadow rays skip closest-hit shaders and
// end at their first hit.
#extension GL_GOOGLE_include_directive : require
#include "stage.glsl"

layout(location = 0) rayPayloadInEXT PathPayload path;
layout(location = 1) rayPayloadEXT ShadowPayload shadow;
hitAttributeEXT vec2 attribs;

bool occluded(vec3 origin, vec3 dir, float tmax) {
    shadow.occluded = 1u;
    traceRayEXT(accelerationStructureEXT(P.tlas), gl_RayFlagsTerminateOnFirstHitEXT | gl_RayFlagsSkipClosestHitShaderEXT,
                0xff, 1, RAY_TYPES, 1, origin, 0.0, dir, tmax, 1);
    return shadow.occluded != 0u;
}

#include "integrator.glsl"

void main() {
    Hit h = Hit(uint(gl_InstanceCustomIndexEXT), uint(gl_PrimitiveID), attribs.x, attribs.y, gl_HitTEXT, 0u);
    closestHitShader(path, h, gl_WorldRayOriginEXT, gl_WorldRayDirectionEXT);
}
