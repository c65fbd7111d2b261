// shade.glsl: the GPU's side of a hit's shading (render/kernel's Shade,
// translated): what it reads of the scene's buffers: the albedo tables,
// the texels (kernel.Texels) and the scene's geometry (kernel.Geometry).
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

// The scene's geometry as the kernel reads it (kernel.Geometry: its
// hitGeometrySet, hitAttributes and emitters interpolate from these), from
// the scene's buffers (render/cpu/shading.go's Accel methods are the CPU's).
int instanceKind(uint inst) { return int(P.instances.v[inst].kind); }
uint instanceGeometry(uint inst) { return P.instances.v[inst].geometry; }
int instanceMaterial(uint inst) { return int(P.instances.v[inst].material); }
vec4[3] toWorld(uint inst) { return P.instances.v[inst].toWorld; }
vec4[3] toObject(uint inst) { return P.instances.v[inst].toObject; }

void triangleVertices(uint mesh, uint prim, out uint i0, out uint i1, out uint i2) {
    uint first = P.meshes.v[mesh].firstIndex + 3u * prim;
    i0 = P.indices.v[first];
    i1 = P.indices.v[first + 1u];
    i2 = P.indices.v[first + 2u];
}

vec3 vertexPosition(uint mesh, uint i) { return P.positions.v[P.meshes.v[mesh].firstVertex + i]; }
bool hasNormals(uint mesh) { return P.meshes.v[mesh].normals >= 0; }
vec3 vertexNormal(uint mesh, uint i) { return P.normals.v[uint(P.meshes.v[mesh].normals) + i]; }
bool hasColors(uint mesh) { return P.meshes.v[mesh].colors >= 0; }
vec4 vertexColor(uint mesh, uint i) { return P.colors.v[uint(P.meshes.v[mesh].colors) + i]; }
bool hasTangents(uint mesh) { return P.meshes.v[mesh].tangents >= 0; }
vec4 vertexTangent(uint mesh, uint i) { return P.tangents.v[uint(P.meshes.v[mesh].tangents) + i]; }

// UV set 0 or 1.
int texCoords(uint mesh, int set) { return set == 0 ? P.meshes.v[mesh].uv0 : P.meshes.v[mesh].uv1; }
bool hasTexCoords(uint mesh, int set) { return texCoords(mesh, set) >= 0; }
void vertexTexCoord(uint mesh, int set, uint i, out float u, out float v) {
    vec2 t = P.texCoords.v[uint(texCoords(mesh, set)) + i];
    u = t.x;
    v = t.y;
}

vec3 sphereCenter(uint spheres, uint i) { return P.points.v[P.sphereSets.v[spheres].firstPoint + i]; }

void segmentPoints(uint curves, uint prim, out vec3 a, out vec3 b) {
    CurveSet c = P.curveSets.v[curves];
    uint v = P.segments.v[c.firstSegment + 2u * prim];
    a = P.points.v[c.firstPoint + v];
    b = P.points.v[c.firstPoint + v + 1u];
}

#endif
