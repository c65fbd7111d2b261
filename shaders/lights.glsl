// lights.glsl: the GPU's side of kernel.EnvMap and kernel.Lights: the
// environment (a colour or an importance-sampled HDR map), the shared
// light table (render.LightTable: an alias table over the infinite lights
// and the light tree over emissive triangles and spheres and punctual
// lights) and its emitters, which the kernel's light sampling reads.
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
int columnCount() { return int(P.columnCount); }
LightColumn lightColumn(int c) { return P.lightColumns.v[c]; }
float lightPdf(int k) { return P.lightPdf.v[k]; }
LightEntry lightEntry(int k) { return P.lights.v[k]; }
int lightNodeCount() { return int(P.nodeCount); }
LightNode lightNode(int i) { return P.lightNodes.v[i]; }
int firstLight(int inst) { return P.instances.v[inst].firstLight; }
int envIndex() { return P.envLight; }
Light punctual(int i) { return P.punctual.v[i]; }
// The light groups (render.LightGroups) of an instance's emission and of
// the environment: 0 in a render without groups.
uint instanceLightGroup(uint inst) { return P.instances.v[inst].lightGroup; }
uint envLightGroup() { return P.envLightGroup; }

// An emissive triangle in world space: the kernel's, made at every sample
// (the CPU makes each once).
TriangleEmitter triangleEmitter(int k) {
    LightEntry e = P.lights.v[k];
    return newTriangleEmitter(uint(e.instance), uint(e.index));
}

// The emitters' materials (the triangles and spheres the kernel's
// emissiveTriangle and sphereLight read, through kernel.Geometry).
vec3 materialEmissive(int m) { return P.materials.v[m].emissive; }
TextureRef materialEmissiveTex(int m) { return P.materials.v[m].emissiveTex; }
uint materialFlags(int m) { return P.materials.v[m].flags; }

#endif
