#version 460
// The miss shader: the environment, weighted by MIS against light sampling.
#extension GL_GOOGLE_include_directive : require
#include "stage.glsl"
#include "shade.glsl"
#include "lights.glsl"
#include "medium.glsl"

layout(location = 0) rayPayloadInEXT PathPayload path;

void main() {
    path.throughput *= transmittance(path.medium, INF);
    vec3 d = gl_WorldRayDirectionEXT;
    vec3 env = envRadiance(d);
    float weight = 1.0;
    if (path.bounce > 0u && path.prevPdf > 0.0) {
        weight = powerHeuristic(path.prevPdf, pdfEnvironment(d));
    }
    path.radiance += path.throughput * env * weight;
    path.alive = 0u;
}
