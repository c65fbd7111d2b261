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
// and AddShadowLight hand it over finite. The pipeline's raygen owns its
// pixel and runs its samples one after another: the light goes straight
// into the film's group layer (Params.groupsAt, group after group, 3
// floats a pixel of the launch). The wavefronts' stages (PUSH_BOUNCE) have several samples
// of a pixel in flight at once: into the slot of the path being shaded
// (shadedPath, wave_shade.glsl's) in Params.groupLight (3 floats a group),
// which wave_generate zeroes and wave_resolve adds to the film in sample
// order.
#ifdef PUSH_BOUNCE
uint shadedPath;
#endif
void addGroupLight(inout Path p, uint group, vec3 l) {
    if (P.lightGroups == 0u) {
        return;
    }
#ifdef PUSH_BOUNCE
    uint at = (shadedPath * P.lightGroups + group) * 3u;
    FloatBuf dst = P.groupLight;
#else
    uint pixel = p.pixel - P.y0 * P.width; // the launch's
    uint at = P.groupsAt + (group * P.width * P.height + pixel) * 3u;
    FloatBuf dst = P.film;
#endif
    dst.v[at] += l.x;
    dst.v[at + 1u] += l.y;
    dst.v[at + 2u] += l.z;
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
