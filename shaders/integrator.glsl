// integrator.glsl: the closest-hit and miss shaders (render/kernel's
// ClosestHit and Miss, translated) as functions of the path, shared by the
// ray-tracing pipeline (surface.rchit, hair.rchit, miss.rmiss) and the
// wavefronts (rq_shade.comp, rts_shade.rgen), with what they read of the
// GPU: its shadow rays (kernel.Tracer) and the materials' volumes
// (kernel.Media). The includer defines, before including it,
//
//	bool occluded(vec3 origin, vec3 dir, float tmax); // a shadow ray
//
// and may define HAIR or SURFACE to specialise the shader to one kind of
// surface (layout.Shader*).
#ifndef INTEGRATOR_GLSL
#define INTEGRATOR_GLSL

#include "shade.glsl"
#include "lights.glsl"

#if defined(HAIR)
#define HIT_SHADER SHADER_HAIR
#elif defined(SURFACE)
#define HIT_SHADER SHADER_SURFACE
#else
#define HIT_SHADER SHADER_ANY
#endif

// The light a path adds, by light group (kernel.LightGroups), where the
// render writes groups (Params.lightGroups); the kernel's AddGroupedLight
// and AddShadowLight hand it over finite. It goes into the path's slot in
// Params.groupLight (3 floats a group), which the stage that starts the
// path zeroes (wave_generate, or the pipeline's raygen) and wave_resolve
// adds to the film in sample order. The wavefronts' stages (PUSH_BOUNCE)
// know the slot of the path being shaded (shadedPath, wave_shade.glsl's);
// the pipeline's closest-hit shaders find it from their invocation, which
// traces paths launch index · Params.sampleBatch on, one sample after
// another (raygen.rgen).
#ifdef PUSH_BOUNCE
uint shadedPath;
#endif
void addGroupLight(inout Path p, uint group, vec3 l) {
    if (P.lightGroups == 0u) {
        return;
    }
#ifdef PUSH_BOUNCE
    uint slot = shadedPath;
#else
    uint batch = P.sampleBatch;
    uint slot = (gl_LaunchIDEXT.y * gl_LaunchSizeEXT.x + gl_LaunchIDEXT.x) * batch + (p.sampleIndex - P.firstSample) % batch;
#endif
    uint at = (slot * P.lightGroups + group) * 3u;
    P.groupLight.v[at] += l.x;
    P.groupLight.v[at + 1u] += l.y;
    P.groupLight.v[at + 2u] += l.z;
}

// A shadow ray traced at once: its light added where nothing is in the way.
void shadowRay(inout Path p, vec3 o, vec3 d, float tmax, vec3 contrib, vec3 share, uint group) {
    if (!occluded(o, d, tmax)) {
        addShadowLight(p, contrib, share, group);
    }
}

void attenuation(int m, out vec3 color, out float dist) {
    color = P.materials.v[m].attenuationColor;
    dist = P.materials.v[m].attenuationDistance;
}

void missShader(inout Path path, vec3 d) { miss(path, d); }

void closestHitShader(inout Path path, Hit h, vec3 o, vec3 d) {
    Surface s;
    LightSample ls;
    closestHit(path, s, ls, P.materials.v[P.instances.v[h.instance].material], h, o, d, P.maxDepth, P.forward, HIT_SHADER);
}

#endif
