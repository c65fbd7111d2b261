// lights.glsl: the GPU's side of kernel.EnvMap and kernel.Lights: the
// environment (a colour or an importance-sampled HDR map), the shared
// light table (render.LightTable: an alias table over emissive triangles
// and spheres, punctual lights and the environment) and its emitters,
// which the kernel's light sampling reads.
#ifndef LIGHTS_GLSL
#define LIGHTS_GLSL

// --- The environment -------------------------------------------------------

// The HDR map as the kernel's lookups and sampling read it (kernel.EnvMap:
// envMapRadiance, envMapPdf, envMapSample), from the GPU's buffers.
void envSize(out int w, out int h) {
    w = int(P.envWidth);
    h = int(P.envHeight);
}
float envRotation() { return P.envRotation; }
float envIntensity() { return P.envIntensity; }
vec3 envPixel(int i) { return P.envPixels.v[i]; }
float envMarginal(int i) { return P.envMarginal.v[i]; }
float envConditional(int i) { return P.envConditional.v[i]; }
float envTotal() { return P.envTotal; }

// The environment: the map, importance-sampled, or a constant colour
// (kernel.EnvironmentRadiance, EnvironmentPdf, EnvironmentSample).
vec3 envRadiance(vec3 d) { return environmentRadiance(P.envMap != 0u, P.envColor, d); }
float envPdf(vec3 d) { return environmentPdf(P.envMap != 0u, d); }
void envSample(float u1, float u2, out vec3 d, out vec3 radiance, out float pdf) {
    environmentSample(P.envMap != 0u, P.envMap != 0u, P.envColor, u1, u2, d, radiance, pdf);
}

// --- The light table --------------------------------------------------------

// What the kernel's light sampling (kernel.SampleLight, PdfEmitter,
// PdfEnvironment) reads of the scene: the kernel.Lights interface, from
// the GPU's buffers (render/cpu/lights.go is the CPU's).
int lightCount() { return int(P.lightCount); }
float lightProb(int k) { return P.lightProb.v[k]; }
int lightAlias(int k) { return int(P.lightAlias.v[k]); }
float lightPdf(int k) { return P.lightPdf.v[k]; }
LightEntry lightEntry(int k) { return P.lights.v[k]; }
int firstLight(int inst) { return P.instances.v[inst].firstLight; }
int envIndex() { return P.envLight; }
Light punctual(int i) { return P.punctual.v[i]; }

// The point at barycentrics bu, bv of an emissive triangle: world
// position, front-face normal, emitted radiance and whether it is
// double-sided.
void emissiveTriangle(int k, float bu, float bv, out vec3 q, out vec3 n, out vec3 le, out bool doubleSided, out bool ok) {
    LightEntry e = P.lights.v[k];
    uint tri = uint(e.index);
    Instance in_ = P.instances.v[e.instance];
    Mesh m = P.meshes.v[in_.geometry];
    Material mat = P.materials.v[in_.material];
    uint i0 = P.indices.v[m.firstIndex + 3u * tri], i1 = P.indices.v[m.firstIndex + 3u * tri + 1u],
         i2 = P.indices.v[m.firstIndex + 3u * tri + 2u];
    vec3 o0 = P.positions.v[m.firstVertex + i0], o1 = P.positions.v[m.firstVertex + i1], o2 = P.positions.v[m.firstVertex + i2];
    vec3 p0 = affinePoint(in_.toWorld, o0), p1 = affinePoint(in_.toWorld, o1), p2 = affinePoint(in_.toWorld, o2);
    n = normalToWorld(in_.toObject, cross(o1 - o0, o2 - o0));
    q = vec3(0.0);
    le = vec3(0.0);
    doubleSided = (mat.flags & MAT_DOUBLE_SIDED) != 0u;
    ok = n != vec3(0.0) && cross(p1 - p0, p2 - p0) != vec3(0.0);
    if (ok) {
        q = p0 + (p1 - p0) * bu + (p2 - p0) * bv;
        UVs uv;
        vec4 color;
        hitAttributes(uint(e.instance), tri, bu, bv, uv, color);
        float alpha;
        sampleTexture(mat.emissiveTex, uv, le, alpha);
        le *= mat.emissive;
    }
}

// An emissive sphere's world centre, radius and radiance.
void sphereLight(int k, out vec3 c, out float r, out vec3 le) {
    LightEntry e = P.lights.v[k];
    Instance in_ = P.instances.v[e.instance];
    SphereSet set = P.sphereSets.v[in_.geometry];
    c = affinePoint(in_.toWorld, P.points.v[set.firstPoint + uint(e.index)]);
    r = sqrt32(e.area / (4.0 * PI));
    le = P.materials.v[in_.material].emissive;
}

#endif
