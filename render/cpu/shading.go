package cpu

import (
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

// triangleAttributes interpolates a triangle's UVs and vertex colour.
func triangleAttributes(m *scene.Mesh, prim int, u, v float32) (uv kernel.UVs, color scene.Vec4) {
	i0, i1, i2 := m.Indices[3*prim], m.Indices[3*prim+1], m.Indices[3*prim+2]
	w := 1 - u - v
	lerp := func(a, b, c float32) float32 { return w*a + u*b + v*c }
	if src := m.UV0; src != nil {
		a, b, c := src[i0], src[i1], src[i2]
		uv.U0, uv.V0 = lerp(a.X, b.X, c.X), lerp(a.Y, b.Y, c.Y)
	}
	if src := m.UV1; src != nil {
		a, b, c := src[i0], src[i1], src[i2]
		uv.U1, uv.V1 = lerp(a.X, b.X, c.X), lerp(a.Y, b.Y, c.Y)
	}
	color = scene.Vec4{X: 1, Y: 1, Z: 1, W: 1}
	if m.Colors != nil {
		a, b, c := m.Colors[i0], m.Colors[i1], m.Colors[i2]
		color = scene.Vec4{X: lerp(a.X, b.X, c.X), Y: lerp(a.Y, b.Y, c.Y), Z: lerp(a.Z, b.Z, c.Z), W: lerp(a.W, b.W, c.W)}
	}
	return uv, color
}

// normalToWorld transforms an object-space normal by the inverse transpose,
// which the world-to-object affine holds (its transpose, read by columns).
func normalToWorld(inv *render.Affine, n scene.Vec3) scene.Vec3 {
	return scene.Vec3{
		X: inv[0]*n.X + inv[4]*n.Y + inv[8]*n.Z,
		Y: inv[1]*n.X + inv[5]*n.Y + inv[9]*n.Z,
		Z: inv[2]*n.X + inv[6]*n.Y + inv[10]*n.Z,
	}.Normalize()
}

// HitGeometry is the kernel's hit geometry, from the scene's meshes,
// sphere sets and curve sets (kernel.Geometry).
func (acc *Accel) HitGeometry(g *kernel.HitGeometry, inst, prim uint32, u, v float32, p scene.Vec3, tangents bool) {
	sc := acc.scene
	in := &sc.Instances[inst]
	inv := &acc.toObject[inst]
	*g = kernel.HitGeometry{Kind: int(in.Geometry.Kind), Color: scene.Vec4{X: 1, Y: 1, Z: 1, W: 1}}
	switch in.Geometry.Kind {
	case scene.Triangles:
		m := &sc.Meshes[in.Geometry.Index]
		i0, i1, i2 := m.Indices[3*prim], m.Indices[3*prim+1], m.Indices[3*prim+2]
		// The object-space winding decides the front face; the normal matrix
		// keeps that side for mirrored instances, whose world winding glTF
		// defines as clockwise.
		p0, p1, p2 := m.Positions[i0], m.Positions[i1], m.Positions[i2]
		g.Ng = normalToWorld(inv, p1.Sub(p0).Cross(p2.Sub(p0)))
		g.UV, g.Color = triangleAttributes(m, int(prim), u, v)
		w := 1 - u - v
		if m.Normals != nil {
			n := m.Normals[i0].Scale(w).Add(m.Normals[i1].Scale(u)).Add(m.Normals[i2].Scale(v))
			g.Ns = normalToWorld(inv, n)
		}
		if m.Tangents != nil && tangents {
			t := m.Tangents[i0]
			tw := t.XYZ().Scale(w).Add(m.Tangents[i1].XYZ().Scale(u)).
				Add(m.Tangents[i2].XYZ().Scale(v))
			tw = acc.toWorld[inst].Vector(tw).Normalize()
			g.Tangent = scene.Vec4{X: tw.X, Y: tw.Y, Z: tw.Z, W: t.W}
		}
	case scene.Spheres:
		set := &sc.SphereSets[in.Geometry.Index]
		g.Ng = normalToWorld(inv, inv.Point(p).Sub(set.Centers[prim]))
	case scene.SweptSpheres:
		c := &sc.CurveSets[in.Geometry.Index]
		s := c.Segments[prim]
		g.Ng = normalToWorld(inv, sweptSphereNormal(inv.Point(p), c.Positions[s], c.Positions[s+1], u))
		g.Fibre = acc.toWorld[inst].Vector(c.Positions[s+1].Sub(c.Positions[s]))
	}
}

// HitAttributes is a triangle hit's texture coordinates and vertex colour
// (kernel.Geometry).
func (acc *Accel) HitAttributes(inst, prim uint32, u, v float32) (kernel.UVs, scene.Vec4) {
	sc := acc.scene
	return triangleAttributes(&sc.Meshes[sc.Instances[inst].Geometry.Index], int(prim), u, v)
}

// Attenuation is material m's volume attenuation (kernel.Media).
func (acc *Accel) Attenuation(m int32) (scene.Vec3, float32) {
	mat := &acc.materials[m]
	return mat.AttenuationColor, mat.AttenuationDistance
}
