// shade.glsl: the GPU's side of a hit's shading: the albedo tables' and
// the texels' access for the kernel (its BSDF, texture filter and material
// evaluation are render/kernel's, translated), and the hit's geometry from
// the scene's buffers (render/cpu/shading.go's shade is its CPU twin).
#ifndef SHADE_GLSL
#define SHADE_GLSL

// The albedo tables the BSDF reads (kernel.AlbedoTables).
#define ALBEDO_TABLE(i) P.albedoTable.v[i]
#include "tables.glsl"

// render.DecodeSRGB, from the same table.
float decodeSRGB(uint b) { return P.srgbTable.v[b]; }

// The scene's images as the kernel's texture filtering reads them
// (kernel.Texels): texel (x, y) of texture tex, linear.
Texture textureInfo(int tex) { return P.textures.v[tex]; }

void texel(int tex, int x, int y, out vec3 rgb, out float a) {
    Texture tx = P.textures.v[tex];
    uint v = P.texels.v[tx.offset + uint(y) * tx.width + uint(x)];
    uint r = v & 255u, g = (v >> 8) & 255u, b = (v >> 16) & 255u;
    a = float(v >> 24) / 255.0;
    if (tx.srgb != 0u) {
        rgb = vec3(decodeSRGB(r), decodeSRGB(g), decodeSRGB(b));
    } else {
        rgb = vec3(float(r) / 255.0, float(g) / 255.0, float(b) / 255.0);
    }
}

// A triangle's UVs and vertex colour at barycentrics (u, v).
void triangleAttributes(Mesh m, uint prim, float u, float v, out vec2 uv0, out vec2 uv1, out vec4 color) {
    uint i0 = P.indices.v[m.firstIndex + 3u * prim], i1 = P.indices.v[m.firstIndex + 3u * prim + 1u],
         i2 = P.indices.v[m.firstIndex + 3u * prim + 2u];
    float w = 1.0 - u - v;
    uv0 = vec2(0.0);
    uv1 = vec2(0.0);
    if (m.uv0 >= 0) {
        uint o = uint(m.uv0);
        uv0 = w * P.texCoords.v[o + i0] + u * P.texCoords.v[o + i1] + v * P.texCoords.v[o + i2];
    }
    if (m.uv1 >= 0) {
        uint o = uint(m.uv1);
        uv1 = w * P.texCoords.v[o + i0] + u * P.texCoords.v[o + i1] + v * P.texCoords.v[o + i2];
    }
    color = vec4(1.0);
    if (m.colors >= 0) {
        uint o = uint(m.colors);
        color = w * P.colors.v[o + i0] + u * P.colors.v[o + i1] + v * P.colors.v[o + i2];
    }
}

float alphaAt(Material mat, Mesh m, uint prim, float u, float v) {
    vec2 uv0, uv1;
    vec4 color;
    triangleAttributes(m, prim, u, v, uv0, uv1, color);
    vec3 rgb;
    float a;
    sampleTexture(mat.baseColorTex, UVs(uv0.x, uv0.y, uv1.x, uv1.y), rgb, a);
    return mat.baseColor.w * a * color.w;
}

// alphaKeeps is the any-hit decision on a candidate at distance t of an
// alpha-tested material (render/cpu's): MASK keeps alpha at or above the
// cutoff (a NaN alpha is no hit); BLEND keeps it with probability alpha,
// by hitCoin.
bool alphaKeeps(Material mat, Mesh m, uint inst, uint prim, float u, float v, float t) {
    float alpha = alphaAt(mat, m, prim, u, v);
    if ((mat.flags & MAT_ALPHA_BLEND) != 0u) {
        return hitCoin(inst, prim, u, v, t) < alpha;
    }
    return alpha >= mat.alphaCutoff;
}

// Surface is a shading point (render/cpu's surface).
struct Surface {
    vec3 p;
    vec3 ng;  // geometric normal, turned to the side the ray came from
    Frame frame;
    bool front;
    uint material;
    BSDF bsdf;
    HairBSDF hair;
    bool isHair;
    vec3 aovNormal;
    vec3 emit;
    vec3 albedo;
    bool unlit; // KHR_materials_unlit: emit shows the base colour and the path ends
};

// hairFrame sets up the hair BSDF: x along the fibre, z towards the viewer
// across it, and h, where the ray crossed the fibre's width.
void hairFrame(inout Surface s, Material mat, vec3 tangent, vec3 wo) {
    vec3 t = normalizeGo(tangent);
    vec3 z = normalizeGo(wo - t * dot(t, wo));
    if (z == vec3(0.0)) {
        z = newFrame(t).t;
    }
    vec3 y = cross(z, t);
    vec3 n = normalizeGo(s.ng - t * dot(t, s.ng));
    s.frame.t = t;
    s.frame.b = y;
    s.frame.n = z;
    s.isHair = true;
    s.front = true;
    s.hair = newHairBSDF(mat.hair, -dot(n, y));
    if (dot(s.ng, wo) < 0.0) {
        s.ng = -s.ng;
    }
}

// shadeHit evaluates the surface at a hit of instance inst, primitive prim,
// with hit parameters (u, v) and distance t, for a ray (o, d).
Surface shadeHit(uint inst, uint prim, float u, float v, float t, vec3 o, vec3 d) {
    Instance in_ = P.instances.v[inst];
    Material mat = P.materials.v[in_.material];
    Surface s;
    s.p = o + d * t;
    s.material = in_.material;
    s.isHair = false;
    s.front = false;
    s.aovNormal = vec3(0.0);
    s.emit = vec3(0.0);
    s.unlit = false;
    s.albedo = vec3(0.0);
    s.bsdf.transmission = 0.0; // what the integrator reads of a hair's BSDF too
    s.bsdf.diffTrans = 0.0;
    s.bsdf.thin = false;
    vec3 ns = vec3(0.0);
    vec2 uv0 = vec2(0.0), uv1 = vec2(0.0);
    vec4 color = vec4(1.0);
    vec4 tangent = vec4(0.0);
    if (in_.kind == KIND_TRIANGLES) {
        Mesh m = P.meshes.v[in_.geometry];
        uint i0 = P.indices.v[m.firstIndex + 3u * prim], i1 = P.indices.v[m.firstIndex + 3u * prim + 1u],
             i2 = P.indices.v[m.firstIndex + 3u * prim + 2u];
        vec3 p0 = P.positions.v[m.firstVertex + i0], p1 = P.positions.v[m.firstVertex + i1],
             p2 = P.positions.v[m.firstVertex + i2];
        s.ng = normalToWorld(in_.toObject, cross(p1 - p0, p2 - p0));
        triangleAttributes(m, prim, u, v, uv0, uv1, color);
        float w = 1.0 - u - v;
        if (m.normals >= 0) {
            uint o = uint(m.normals);
            vec3 n = P.normals.v[o + i0] * w + P.normals.v[o + i1] * u + P.normals.v[o + i2] * v;
            ns = normalToWorld(in_.toObject, n);
        }
        if (m.tangents >= 0 && (mat.normalTex.texture >= 0 || (mat.clearcoat > 0.0 && mat.clearcoatNormalTex.texture >= 0) ||
                                mat.anisotropyStrength > 0.0)) {
            uint o = uint(m.tangents);
            vec4 t0 = P.tangents.v[o + i0], t1 = P.tangents.v[o + i1], t2 = P.tangents.v[o + i2];
            vec3 tw = t0.xyz * w + t1.xyz * u + t2.xyz * v;
            tw = normalizeGo(affineVector(in_.toWorld, tw));
            tangent = vec4(tw, t0.w);
        }
    } else if (in_.kind == KIND_SPHERES) {
        SphereSet set = P.sphereSets.v[in_.geometry];
        vec3 po = affinePoint(in_.toObject, s.p);
        s.ng = normalToWorld(in_.toObject, po - P.points.v[set.firstPoint + prim]);
    } else {
        CurveSet c = P.curveSets.v[in_.geometry];
        uint vtx = P.segments.v[c.firstSegment + 2u * prim];
        vec3 a = P.points.v[c.firstPoint + vtx], b = P.points.v[c.firstPoint + vtx + 1u];
        vec3 po = affinePoint(in_.toObject, s.p);
        vec3 no = sweptSphereNormal(po, a, b, u);
        s.ng = normalToWorld(in_.toObject, no);
        if ((mat.flags & MAT_HAIR) != 0u) {
            hairFrame(s, mat, affineVector(in_.toWorld, b - a), -d);
            s.albedo = mat.baseColor.xyz;
            s.aovNormal = s.ng;
            return s;
        }
    }
    if (ns == vec3(0.0)) {
        ns = s.ng;
    }
    UVs uv = UVs(uv0.x, uv0.y, uv1.x, uv1.y);
    vec3 nc = ns; // the clearcoat's normal: the vertex normal unless its own map perturbs it
    if (tangent != vec4(0.0)) {
        if (mat.normalTex.texture >= 0) {
            ns = normalMapped(ns, tangent.xyz, tangent.w, mat.normalTex, mat.normalScale, uv);
        }
        if (mat.clearcoat > 0.0 && mat.clearcoatNormalTex.texture >= 0) {
            nc = normalMapped(nc, tangent.xyz, tangent.w, mat.clearcoatNormalTex, mat.clearcoatNormalScale, uv);
        }
    }
    vec3 anisoDir = vec3(0.0); // world, in the surface's own tangent frame (before it turns)
    if (tangent != vec4(0.0) && mat.anisotropyStrength > 0.0) {
        anisoDir = anisotropyDirection(ns, tangent.xyz, tangent.w, mat, uv);
    }
    vec3 wo = -d;
    s.front = dot(s.ng, wo) > 0.0;
    if (!s.front) {
        s.ng = -s.ng;
        ns = -ns;
        nc = -nc;
    }
    if (dot(ns, wo) <= 0.0) {
        ns = s.ng;
    }
    if (dot(nc, wo) <= 0.0) {
        nc = s.ng;
    }
    s.frame = newFrame(ns);

    Shaded sh = evalMaterial(s.bsdf, mat, uv, color.xyz, s.front, s.frame, ns, nc, anisoDir);
    s.albedo = sh.albedo;
    s.emit = sh.emit;
    s.unlit = sh.unlit;
    return s;
}

// originToward is where a ray leaving the surface in direction w starts: off
// the surface on w's side (a hair strand's transmitted light starts inside
// it, which a ray from inside does not hit).
vec3 originToward(Surface s, vec3 w) {
    return offsetRay(s.p, dot(w, s.ng) >= 0.0 ? s.ng : -s.ng);
}

bool transmits(Surface s) { return s.isHair || s.bsdf.transmission > 0.0 || s.bsdf.diffTrans > 0.0; }

#endif
