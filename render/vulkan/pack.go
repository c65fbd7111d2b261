package vulkan

import (
	"encoding/binary"
	"math"
	"unsafe"

	"sertrace/render"
	"sertrace/render/layout"
	"sertrace/scene"
)

// packed is a scene in the shaders' buffer layouts (package layout), ready
// to upload: one slice per buffer of Params.
type packed struct {
	instances  []layout.Instance
	materials  []layout.Material
	meshes     []layout.Mesh
	sphereSets []layout.SphereSet
	curveSets  []layout.CurveSet
	textures   []layout.Texture
	positions  []scene.Vec3
	normals    []scene.Vec3
	texCoords  []scene.Vec2
	colors     []scene.Vec4
	tangents   []scene.Vec4
	indices    []uint32
	points     []scene.Vec3
	radii      []float32
	segments   []uint32 // (first control point, join flags) per segment
	texels     []uint32
	aabbs      [][6]float32 // per sphere and segment, object space, in set order
	aabbFirst  []int        // per sphere set, then per curve set: first AABB
	hitGroups  []uint32     // per instance
	opaque     []bool       // per instance: no any-hit shader to run
	collapsed  []bool       // per instance: a singular transform, left out of the TLAS

	lights    *render.LightTable
	lightEnts []layout.LightEntry
	punctual  []layout.Light
}

// packScene packs sc, its light table weighing the environment by
// envPower and choosing lights as sampler says, its instances' and
// punctual lights' light groups groups' (nil: none, every group 0).
func packScene(sc *scene.Scene, envPower float32, sampler render.LightSampler, groups *render.LightGroups) *packed {
	p := &packed{}
	for i := range sc.Materials {
		p.materials = append(p.materials, layout.PackMaterial(&sc.Materials[i]))
	}
	for i := range sc.Textures {
		t := &sc.Textures[i]
		g := layout.PackTexture(t, uint32(len(p.texels)))
		for k := 0; k+4 <= len(t.Pixels); k += 4 {
			p.texels = append(p.texels, binary.LittleEndian.Uint32(t.Pixels[k:]))
		}
		p.textures = append(p.textures, g)
	}
	for i := range sc.Meshes {
		m := &sc.Meshes[i]
		g := layout.Mesh{FirstIndex: uint32(len(p.indices)), FirstVertex: uint32(len(p.positions)), TriangleCount: uint32(m.TriangleCount())}
		p.positions = append(p.positions, m.Positions...)
		p.indices = append(p.indices, m.Indices[:3*m.TriangleCount()]...)
		g.Normals = appendAttribute(&p.normals, m.Normals)
		g.UV0 = appendAttribute(&p.texCoords, m.UV0)
		g.UV1 = appendAttribute(&p.texCoords, m.UV1)
		g.Colors = appendAttribute(&p.colors, m.Colors)
		g.Tangents = appendAttribute(&p.tangents, m.Tangents)
		p.meshes = append(p.meshes, g)
	}
	for i := range sc.SphereSets {
		s := &sc.SphereSets[i]
		p.sphereSets = append(p.sphereSets, layout.SphereSet{FirstPoint: uint32(len(p.points)), FirstRadius: uint32(len(p.radii)), Count: uint32(len(s.Centers))})
		p.aabbFirst = append(p.aabbFirst, len(p.aabbs))
		for k, c := range s.Centers {
			p.points = append(p.points, c)
			p.radii = append(p.radii, s.Radii[k])
			r := max(s.Radii[k], 0)
			p.aabbs = append(p.aabbs, padBox(scene.Vec3{X: c.X - r, Y: c.Y - r, Z: c.Z - r}, scene.Vec3{X: c.X + r, Y: c.Y + r, Z: c.Z + r}))
		}
	}
	for i := range sc.CurveSets {
		c := &sc.CurveSets[i]
		g := layout.CurveSet{FirstPoint: uint32(len(p.points)), FirstRadius: uint32(len(p.radii)), FirstSegment: uint32(len(p.segments)), Count: uint32(len(c.Segments))}
		p.aabbFirst = append(p.aabbFirst, len(p.aabbs))
		p.points = append(p.points, c.Positions...)
		p.radii = append(p.radii, c.Radii...)
		for k, v := range c.Segments {
			p.segments = append(p.segments, v, uint32(c.Joins[k]))
			a, b := c.Positions[v], c.Positions[v+1]
			ra, rb := max(c.Radii[v], 0), max(c.Radii[v+1], 0)
			var lo, hi scene.Vec3
			for k := 0; k < 3; k++ {
				lo.Set(k, min(a.At(k)-ra, b.At(k)-rb))
				hi.Set(k, max(a.At(k)+ra, b.At(k)+rb))
			}
			p.aabbs = append(p.aabbs, padBox(lo, hi))
		}
		p.curveSets = append(p.curveSets, g)
	}
	p.lights = render.NewLightTable(sc, envPower, sampler)
	for i, in := range sc.Instances {
		g := layout.Instance{Kind: uint32(in.Geometry.Kind), Geometry: uint32(in.Geometry.Index), Material: uint32(in.Material),
			FirstLight: p.lights.FirstLight[i], LightGroup: groups.InstanceGroup(i)}
		w, inv := render.AffineOf(in.Transform), render.AffineInverse(in.Transform)
		for r := 0; r < 3; r++ {
			copy(g.ToWorld[r][:], w[4*r:4*r+4])
			copy(g.ToObject[r][:], inv[4*r:4*r+4])
		}
		if render.ExitHits(sc, &in) {
			g.Flags |= layout.InstanceExitHits
		}
		hg := render.HitGroupOf(sc, &in)
		g.HitGroup = uint32(hg)
		p.instances = append(p.instances, g)
		p.collapsed = append(p.collapsed, inv == render.Affine{})
		p.hitGroups = append(p.hitGroups, uint32(hg))
		p.opaque = append(p.opaque, hg != layout.HitTrianglesMasked)
	}
	for _, e := range p.lights.Entries {
		p.lightEnts = append(p.lightEnts, layout.LightEntry{Kind: uint32(e.Kind), Instance: e.Instance, Index: e.Index, Area: e.Area, Trail: e.Trail})
	}
	for i := range sc.Lights {
		l := layout.PackLight(&sc.Lights[i])
		l.Group = groups.PunctualGroup(i)
		p.punctual = append(p.punctual, l)
	}
	return p
}

// packedGroups is what packScene writes of groups: each instance's light
// group, then each punctual light's (all 0 without groups). A kept scene
// serves a render whose groups pack the same.
func packedGroups(sc *scene.Scene, groups *render.LightGroups) []uint32 {
	out := make([]uint32, 0, len(sc.Instances)+len(sc.Lights))
	for i := range sc.Instances {
		out = append(out, groups.InstanceGroup(i))
	}
	for i := range sc.Lights {
		out = append(out, groups.PunctualGroup(i))
	}
	return out
}

// appendAttribute appends a mesh's vertex attribute to its shared buffer
// and returns where it starts there, or −1 when the mesh has none.
func appendAttribute[T any](dst *[]T, src []T) int32 {
	if len(src) == 0 {
		return -1
	}
	first := int32(len(*dst))
	*dst = append(*dst, src...)
	return first
}

// padBox widens a box by a relative and an absolute margin, so that the
// intersection shader, not the box, decides every hit near its faces.
func padBox(lo, hi scene.Vec3) [6]float32 {
	var b [6]float32
	for k := 0; k < 3; k++ {
		m := 1e-5*max(float32(math.Abs(float64(lo.At(k)))), float32(math.Abs(float64(hi.At(k)))), hi.At(k)-lo.At(k)) + 1e-30
		b[k], b[3+k] = lo.At(k)-m, hi.At(k)+m
	}
	return b
}

// bytesOf is a slice's memory, for upload.
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}
