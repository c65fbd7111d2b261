package cpu

import (
	"unsafe"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// sceneTexels is a scene's decoded images as the kernel's texture
// filtering reads them (kernel.Texels).
type sceneTexels scene.Scene

func (sc *sceneTexels) TextureInfo(tex int) layout.Texture {
	return layout.PackTexture(&sc.Textures[tex], 0)
}

func (sc *sceneTexels) Texel(tex, x, y int) (scene.Vec3, float32) {
	t := &sc.Textures[tex]
	p := t.Pixels[4*(y*t.Width+x):]
	p = p[:4]
	if t.ColorSpace == scene.SRGB {
		return scene.Vec3{X: render.DecodeSRGB(p[0]), Y: render.DecodeSRGB(p[1]), Z: render.DecodeSRGB(p[2])}, float32(p[3]) / 255
	}
	return scene.Vec3{X: float32(p[0]) / 255, Y: float32(p[1]) / 255, Z: float32(p[2]) / 255}, float32(p[3]) / 255
}

// textureAt is a texture slot of sc's materials at a hit's UV sets
// (kernel.SampleTexture).
func textureAt(sc *scene.Scene, ref *layout.TextureRef, uv *kernel.UVs) (scene.Vec3, float32) {
	return kernel.SampleTexture((*sceneTexels)(sc), ref, uv)
}

// The scene's geometry as the kernel reads it (kernel.Geometry): the
// instances, the meshes' vertices, the spheres and the curves.

func (acc *Accel) InstanceKind(inst uint32) int { return int(acc.scene.Instances[inst].Geometry.Kind) }
func (acc *Accel) InstanceGeometry(inst uint32) uint32 {
	return uint32(acc.scene.Instances[inst].Geometry.Index)
}
func (acc *Accel) InstanceMaterial(inst uint32) int32 {
	return int32(acc.scene.Instances[inst].Material)
}
func (acc *Accel) ToWorld(inst uint32) [3]scene.Vec4  { return *rows(&acc.toWorld[inst]) }
func (acc *Accel) ToObject(inst uint32) [3]scene.Vec4 { return *rows(&acc.toObject[inst]) }

func (acc *Accel) TriangleVertices(mesh, prim uint32) (i0, i1, i2 uint32) {
	ix := acc.scene.Meshes[mesh].Indices[3*prim:]
	return ix[0], ix[1], ix[2]
}

func (acc *Accel) VertexPosition(mesh, i uint32) scene.Vec3 {
	return acc.scene.Meshes[mesh].Positions[i]
}
func (acc *Accel) HasNormals(mesh uint32) bool             { return acc.scene.Meshes[mesh].Normals != nil }
func (acc *Accel) VertexNormal(mesh, i uint32) scene.Vec3  { return acc.scene.Meshes[mesh].Normals[i] }
func (acc *Accel) HasColors(mesh uint32) bool              { return acc.scene.Meshes[mesh].Colors != nil }
func (acc *Accel) VertexColor(mesh, i uint32) scene.Vec4   { return acc.scene.Meshes[mesh].Colors[i] }
func (acc *Accel) HasTangents(mesh uint32) bool            { return acc.scene.Meshes[mesh].Tangents != nil }
func (acc *Accel) VertexTangent(mesh, i uint32) scene.Vec4 { return acc.scene.Meshes[mesh].Tangents[i] }

func (acc *Accel) HasTexCoords(mesh uint32, set int) bool {
	return texCoords(&acc.scene.Meshes[mesh], set) != nil
}
func (acc *Accel) VertexTexCoord(mesh uint32, set int, i uint32) (u, v float32) {
	t := texCoords(&acc.scene.Meshes[mesh], set)[i]
	return t.X, t.Y
}

func (acc *Accel) SphereCenter(spheres, i uint32) scene.Vec3 {
	return acc.scene.SphereSets[spheres].Centers[i]
}

func (acc *Accel) SegmentPoints(curves, prim uint32) (a, b scene.Vec3) {
	c := &acc.scene.CurveSets[curves]
	s := c.Segments[prim]
	return c.Positions[s], c.Positions[s+1]
}

// texCoords is a mesh's UV set 0 or 1.
func texCoords(m *scene.Mesh, set int) []scene.Vec2 {
	if set == 0 {
		return m.UV0
	}
	return m.UV1
}

// rows is an affine as the kernel reads it, in place: its twelve floats,
// row by row, are three Vec4s.
func rows(m *render.Affine) *[3]scene.Vec4 { return (*[3]scene.Vec4)(unsafe.Pointer(m)) }

// render.Affine and [3]scene.Vec4 are the same twelve floats.
var _ = [1]struct{}{}[unsafe.Sizeof(render.Affine{})-unsafe.Sizeof([3]scene.Vec4{})]

// Attenuation is material m's volume attenuation (kernel.Media).
func (acc *Accel) Attenuation(m int32) (scene.Vec3, float32) {
	mat := &acc.materials[m]
	return mat.AttenuationColor, mat.AttenuationDistance
}
