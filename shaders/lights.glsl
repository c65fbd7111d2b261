// lights.glsl: render/cpu/lights.go and render/envmap.go on the GPU: the
// environment (a colour or an importance-sampled HDR map), the shared light
// table (render.LightTable: an alias table over emissive triangles and
// spheres, punctual lights and the environment), and the pdfs MIS needs.
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

// --- The light table -----------------------------------------------------

struct LightSample {
    vec3 wi;       // towards the light, unit
    float dist;    // to the light point; INF for distant lights
    vec3 radiance;
    float pdf;     // solid angle, selection included; 0 for delta lights
    bool delta;
};

uint pickLight(float u, float coin) {
    uint n = P.lightCount;
    uint k = min(uint(u * float(n)), n - 1u);
    if (coin < P.lightProb.v[k]) {
        return k;
    }
    return P.lightAlias.v[k];
}

// A uniform point on an emissive triangle: world position, front-face
// normal and emitted radiance.
bool sampleTriangle(uint inst, uint tri, float u1, float u2, out vec3 p, out vec3 n, out vec3 le) {
    Instance in_ = P.instances.v[inst];
    Mesh m = P.meshes.v[in_.geometry];
    Material mat = P.materials.v[in_.material];
    uint i0 = P.indices.v[m.firstIndex + 3u * tri], i1 = P.indices.v[m.firstIndex + 3u * tri + 1u],
         i2 = P.indices.v[m.firstIndex + 3u * tri + 2u];
    vec3 o0 = P.positions.v[m.firstVertex + i0], o1 = P.positions.v[m.firstVertex + i1], o2 = P.positions.v[m.firstVertex + i2];
    vec3 p0 = affinePoint(in_.toWorld, o0), p1 = affinePoint(in_.toWorld, o1), p2 = affinePoint(in_.toWorld, o2);
    n = normalToWorld(in_.toObject, cross(o1 - o0, o2 - o0));
    p = vec3(0.0);
    le = vec3(0.0);
    if (n == vec3(0.0) || cross(p1 - p0, p2 - p0) == vec3(0.0)) {
        return false;
    }
    float su = sqrt32(u1);
    float bu = u2 * su, bv = su * (1.0 - u2);
    p = p0 + (p1 - p0) * bu + (p2 - p0) * bv;
    vec2 uv0, uv1;
    vec4 color;
    triangleAttributes(m, tri, bu, bv, uv0, uv1, color);
    le = mat.emissive * sampleTexture(mat.emissiveTex, uv0, uv1).xyz;
    return true;
}

// An emissive sphere's world centre and radius.
void sphereLight(LightEntry e, out vec3 c, out float r) {
    Instance in_ = P.instances.v[e.instance];
    SphereSet set = P.sphereSets.v[in_.geometry];
    c = affinePoint(in_.toWorld, P.points.v[set.firstPoint + uint(e.index)]);
    r = sqrt32(e.area / (4.0 * PI));
}

bool sampleLight(vec3 p, float u, float coin, float u1, float u2, out LightSample ls) {
    ls.wi = vec3(0.0);
    ls.dist = 0.0;
    ls.radiance = vec3(0.0);
    ls.pdf = 0.0;
    ls.delta = false;
    if (P.lightCount == 0u) {
        return false;
    }
    uint k = pickLight(u, coin);
    LightEntry e = P.lights.v[k];
    float sel = P.lightPdf.v[k];
    if (sel <= 0.0) {
        return false;
    }
    if (e.kind == LIGHT_TRIANGLE) {
        vec3 q, n, le;
        if (!sampleTriangle(uint(e.instance), uint(e.index), u1, u2, q, n, le)) {
            return false;
        }
        vec3 d = q - p;
        float dist = length(d);
        if (dist == 0.0) {
            return false;
        }
        vec3 wi = d * (1.0 / dist);
        float cosL = -dot(n, wi);
        Material mat = P.materials.v[P.instances.v[e.instance].material];
        if ((mat.flags & MAT_DOUBLE_SIDED) != 0u) {
            cosL = abs(cosL);
        }
        if (cosL <= 0.0) {
            return false;
        }
        ls.wi = wi;
        ls.dist = dist;
        ls.radiance = le;
        ls.pdf = sel / e.area * dist * dist / cosL;
        return true;
    }
    if (e.kind == LIGHT_SPHERE) {
        vec3 c, wi;
        float r, dist, pdf;
        sphereLight(e, c, r);
        bool ok;
        sampleSphere(p, c, r, u1, u2, wi, dist, pdf, ok);
        if (!ok) {
            return false;
        }
        ls.wi = wi;
        ls.dist = dist;
        ls.radiance = P.materials.v[P.instances.v[e.instance].material].emissive;
        ls.pdf = sel * pdf;
        return true;
    }
    if (e.kind == LIGHT_ENVIRONMENT) {
        vec3 d, le;
        float pdf;
        envSample(u1, u2, d, le, pdf);
        if (pdf <= 0.0) {
            return false;
        }
        ls.wi = d;
        ls.dist = INF;
        ls.radiance = le;
        ls.pdf = sel * pdf;
        return true;
    }
    Light l = P.punctual.v[e.index];
    vec3 le = l.color * (l.intensity / sel);
    ls.delta = true;
    if (l.kind == PUNCTUAL_DIRECTIONAL) {
        ls.wi = -l.direction;
        ls.dist = INF;
        ls.radiance = le;
        return true;
    }
    vec3 d = l.position - p;
    float dist = length(d);
    if (dist == 0.0) {
        return false;
    }
    vec3 wi = d * (1.0 / dist);
    float att = 1.0 / (dist * dist);
    if (l.kind == PUNCTUAL_SPOT) { // KHR_lights_punctual's smooth falloff
        float cosIn = cos(l.innerCone), cosOut = cos(l.outerCone);
        float cd = dot(l.direction, -wi);
        float f = clamp01((cd - cosOut) / max(cosIn - cosOut, SPOT_CONE_MIN));
        att *= f * f;
    }
    if (att <= 0.0) {
        return false;
    }
    ls.wi = wi;
    ls.dist = dist;
    ls.radiance = le * att;
    return true;
}

// The solid-angle pdf with which sampleLight picks the point that a ray
// from origin hit at distance t on triangle or sphere prim of instance
// inst, whose normal there makes cosL with the way back.
float pdfEmitter(uint inst, uint prim, float t, float cosL, vec3 origin) {
    int first = P.instances.v[inst].firstLight;
    if (first < 0 || P.lightCount == 0u || cosL <= 0.0) {
        return 0.0;
    }
    uint k = uint(first) + prim;
    LightEntry e = P.lights.v[k];
    if (e.kind == LIGHT_SPHERE) {
        vec3 c;
        float r, omc;
        sphereLight(e, c, r);
        vec3 toC = c - origin;
        bool ok;
        sphereCone(dot(toC, toC), r, omc, ok);
        if (!ok) {
            return 0.0;
        }
        return P.lightPdf.v[k] / (2.0 * PI * omc);
    }
    return P.lightPdf.v[k] / e.area * t * t / cosL;
}

float pdfEnvironment(vec3 d) {
    if (P.envLight < 0 || P.lightCount == 0u) {
        return 0.0;
    }
    return P.lightPdf.v[P.envLight] * envPdf(d);
}

#endif
