// lights.glsl: render/envmap.go on the GPU, the environment (a colour or
// an importance-sampled HDR map), and the GPU's side of kernel.Lights: the
// shared light table (render.LightTable: an alias table over emissive
// triangles and spheres, punctual lights and the environment) and its
// emitters, which the kernel's light sampling reads.
#ifndef LIGHTS_GLSL
#define LIGHTS_GLSL

// --- The HDR environment (render.EnvMap) ---------------------------------

vec3 envDirection(float u, float v) {
    float phi = 2.0 * PI * (u - 0.5) + P.envRotation;
    float theta = PI * v;
    float st = sin(theta);
    return vec3(st * sin(phi), cos(theta), -st * cos(phi));
}

vec2 envUV(vec3 d) {
    if (any(isnan(d)) || any(isinf(d))) {
        return vec2(0.0, 0.5);
    }
    float phi = atan(d.x, -d.z) - P.envRotation;
    float u = phi / (2.0 * PI) + 0.5;
    u -= floor(u);
    if (!(u >= 0.0 && u < 1.0)) {
        u = 0.0;
    }
    float v = atan(length(d.xz), d.y) / PI; // acos(d.y) is 5e-5 off near the rows' edges on lavapipe
    return vec2(u, v);
}

ivec2 envTexel(vec2 uv) {
    return ivec2(min(int(uv.x * float(P.envWidth)), int(P.envWidth) - 1), min(int(uv.y * float(P.envHeight)), int(P.envHeight) - 1));
}

vec3 envMapRadiance(vec3 d) {
    ivec2 t = envTexel(envUV(d));
    return P.envPixels.v[uint(t.y) * P.envWidth + uint(t.x)] * P.envIntensity;
}

float envMapPdf(vec3 d) {
    if (P.envTotal <= 0.0) {
        return 0.0;
    }
    vec2 uv = envUV(d);
    ivec2 t = envTexel(uv);
    uint row = uint(t.y) * (P.envWidth + 1u);
    float rowTotal = P.envConditional.v[row + P.envWidth];
    if (rowTotal <= 0.0) {
        return 0.0;
    }
    float pRow = (P.envMarginal.v[t.y + 1] - P.envMarginal.v[t.y]) / P.envTotal;
    float pCol = (P.envConditional.v[row + uint(t.x) + 1u] - P.envConditional.v[row + uint(t.x)]) / rowTotal;
    float pdfUV = pRow * float(P.envHeight) * pCol * float(P.envWidth);
    float st = sin(PI * uv.y);
    if (st <= 0.0 || pdfUV <= 0.0) {
        return 0.0;
    }
    return pdfUV / (2.0 * PI * PI * st);
}

bool envMapSample(float u1, float u2, out vec3 d, out vec3 radiance, out float pdf) {
    d = vec3(0.0);
    radiance = vec3(0.0);
    pdf = 0.0;
    if (P.envTotal <= 0.0) {
        return false;
    }
    // The first row whose upper CDF bound exceeds u1·total (sort.Search).
    float target = u1 * P.envTotal;
    int lo = 0, hi = int(P.envHeight);
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (P.envMarginal.v[mid + 1] > target) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    int y = min(lo, int(P.envHeight) - 1);
    uint row = uint(y) * (P.envWidth + 1u);
    float rowTotal = P.envConditional.v[row + P.envWidth];
    float target2 = u2 * rowTotal;
    lo = 0;
    hi = int(P.envWidth);
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (P.envConditional.v[row + uint(mid) + 1u] > target2) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    int x = min(lo, int(P.envWidth) - 1);
    float fy = (target - P.envMarginal.v[y]) / max(P.envMarginal.v[y + 1] - P.envMarginal.v[y], 1e-30);
    float fx = (target2 - P.envConditional.v[row + uint(x)]) / max(P.envConditional.v[row + uint(x) + 1u] - P.envConditional.v[row + uint(x)], 1e-30);
    float u = (float(x) + clamp(fx, 0.0, 0.99999)) / float(P.envWidth);
    float v = (float(y) + clamp(fy, 0.0, 0.99999)) / float(P.envHeight);
    d = envDirection(u, v);
    radiance = envMapRadiance(d);
    pdf = envMapPdf(d);
    return true;
}

vec3 envRadiance(vec3 d) {
    if (P.envMap != 0u) {
        return envMapRadiance(d);
    }
    return P.envColor;
}

float envPdf(vec3 d) {
    if (P.envMap != 0u) {
        return envMapPdf(d);
    }
    return 1.0 / (4.0 * PI);
}

void envSample(float u1, float u2, out vec3 d, out vec3 radiance, out float pdf) {
    if (P.envMap != 0u) {
        envMapSample(u1, u2, d, radiance, pdf);
        return;
    }
    float z = 1.0 - 2.0 * u1;
    float r = sqrt32(1.0 - z * z);
    float phi = 2.0 * PI * u2;
    d = vec3(r * cos(phi), r * sin(phi), z);
    radiance = P.envColor;
    pdf = 1.0 / (4.0 * PI);
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
        vec2 uv0, uv1;
        vec4 color;
        triangleAttributes(m, tri, bu, bv, uv0, uv1, color);
        le = mat.emissive * sampleTexture(mat.emissiveTex, uv0, uv1).xyz;
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
