// shade.glsl: the GPU's side of a hit's shading (render/kernel's Shade,
// translated): what it reads of the scene's buffers: the albedo tables,
// the texels (kernel.Texels) and the hit's geometry (kernel.Geometry).
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

// The hit's geometry as the kernel's shading reads it (kernel.Geometry),
// from the scene's buffers (render/cpu/shading.go's Accel methods are the
// CPU's).

// A triangle's texture coordinates and vertex colour at barycentrics (u, v).
void hitAttributes(uint inst, uint prim, float u, float v, out UVs uv, out vec4 color) {
    Mesh m = P.meshes.v[P.instances.v[inst].geometry];
    uint i0 = P.indices.v[m.firstIndex + 3u * prim], i1 = P.indices.v[m.firstIndex + 3u * prim + 1u],
         i2 = P.indices.v[m.firstIndex + 3u * prim + 2u];
    float w = 1.0 - u - v;
    uv = UVs(0.0, 0.0, 0.0, 0.0);
    if (m.uv0 >= 0) {
        uint o = uint(m.uv0);
        vec2 t = w * P.texCoords.v[o + i0] + u * P.texCoords.v[o + i1] + v * P.texCoords.v[o + i2];
        uv.u0 = t.x;
        uv.v0 = t.y;
    }
    if (m.uv1 >= 0) {
        uint o = uint(m.uv1);
        vec2 t = w * P.texCoords.v[o + i0] + u * P.texCoords.v[o + i1] + v * P.texCoords.v[o + i2];
        uv.u1 = t.x;
        uv.v1 = t.y;
    }
    color = vec4(1.0);
    if (m.colors >= 0) {
        uint o = uint(m.colors);
        color = w * P.colors.v[o + i0] + u * P.colors.v[o + i1] + v * P.colors.v[o + i2];
    }
}

// The geometry of a hit at world point p of instance inst's primitive prim,
// at its parameters (u, v); the tangent only where tangents is true.
void hitGeometry(inout HitGeometry g, uint inst, uint prim, float u, float v, vec3 p, bool tangents) {
    Instance in_ = P.instances.v[inst];
    g = HitGeometry(int(in_.kind), vec3(0.0), vec3(0.0), vec4(0.0), vec3(0.0), UVs(0.0, 0.0, 0.0, 0.0), vec4(1.0));
    if (in_.kind == KIND_TRIANGLES) {
        Mesh m = P.meshes.v[in_.geometry];
        uint i0 = P.indices.v[m.firstIndex + 3u * prim], i1 = P.indices.v[m.firstIndex + 3u * prim + 1u],
             i2 = P.indices.v[m.firstIndex + 3u * prim + 2u];
        vec3 p0 = P.positions.v[m.firstVertex + i0], p1 = P.positions.v[m.firstVertex + i1],
             p2 = P.positions.v[m.firstVertex + i2];
        g.ng = normalToWorld(in_.toObject, cross(p1 - p0, p2 - p0));
        hitAttributes(inst, prim, u, v, g.uv, g.color);
        float w = 1.0 - u - v;
        if (m.normals >= 0) {
            uint o = uint(m.normals);
            g.ns = normalToWorld(in_.toObject, P.normals.v[o + i0] * w + P.normals.v[o + i1] * u + P.normals.v[o + i2] * v);
        }
        if (m.tangents >= 0 && tangents) {
            uint o = uint(m.tangents);
            vec4 t0 = P.tangents.v[o + i0], t1 = P.tangents.v[o + i1], t2 = P.tangents.v[o + i2];
            g.tangent = vec4(normalizeGo(affineVector(in_.toWorld, t0.xyz * w + t1.xyz * u + t2.xyz * v)), t0.w);
        }
    } else if (in_.kind == KIND_SPHERES) {
        SphereSet set = P.sphereSets.v[in_.geometry];
        g.ng = normalToWorld(in_.toObject, affinePoint(in_.toObject, p) - P.points.v[set.firstPoint + prim]);
    } else {
        CurveSet c = P.curveSets.v[in_.geometry];
        uint vtx = P.segments.v[c.firstSegment + 2u * prim];
        vec3 a = P.points.v[c.firstPoint + vtx], b = P.points.v[c.firstPoint + vtx + 1u];
        g.ng = normalToWorld(in_.toObject, sweptSphereNormal(affinePoint(in_.toObject, p), a, b, u));
        g.fibre = affineVector(in_.toWorld, b - a);
    }
}

#endif
