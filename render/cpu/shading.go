package cpu

import (
	"math"

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
func textureAt(sc *scene.Scene, ref *layout.TextureRef, uvs *[2]scene.Vec2) (scene.Vec3, float32) {
	uv := kernel.UVs{U0: uvs[0].X, V0: uvs[0].Y, U1: uvs[1].X, V1: uvs[1].Y}
	return kernel.SampleTexture((*sceneTexels)(sc), ref, &uv)
}

// surface is a shading point: where, which way it faces, and its material
// evaluated there.
type surface struct {
	p         scene.Vec3   // world position
	ng        scene.Vec3   // geometric normal, turned to the side the ray came from
	frame     kernel.Frame // about the shading normal, on the same side
	front     bool         // the ray hit the front face (emitters emit from it)
	mat       *layout.Material
	bsdf      kernel.BSDF
	hair      kernel.HairBSDF // used instead of bsdf on hair strands with a hair material
	isHair    bool
	aovNormal scene.Vec3 // the normal AOV when it is not the shading frame's
	emit      scene.Vec3 // emitted radiance towards the ray's origin
	albedo    scene.Vec3 // the first-hit albedo AOV
	unlit     bool       // KHR_materials_unlit: emit shows the base colour and the path ends
	uv        kernel.UVs // the hit's texture coordinates (kept here: on the stack, passed through kernel.Textures, they would escape to the heap)
}

// triangleAttributes interpolates a triangle's UVs and vertex colour.
func triangleAttributes(m *scene.Mesh, prim int, u, v float32) (uvs [2]scene.Vec2, color scene.Vec4) {
	i0, i1, i2 := m.Indices[3*prim], m.Indices[3*prim+1], m.Indices[3*prim+2]
	w := 1 - u - v
	lerp := func(a, b, c float32) float32 { return w*a + u*b + v*c }
	if src := m.UV0; src != nil {
		a, b, c := src[i0], src[i1], src[i2]
		uvs[0] = scene.Vec2{X: lerp(a.X, b.X, c.X), Y: lerp(a.Y, b.Y, c.Y)}
	}
	if src := m.UV1; src != nil {
		a, b, c := src[i0], src[i1], src[i2]
		uvs[1] = scene.Vec2{X: lerp(a.X, b.X, c.X), Y: lerp(a.Y, b.Y, c.Y)}
	}
	color = scene.Vec4{X: 1, Y: 1, Z: 1, W: 1}
	if m.Colors != nil {
		a, b, c := m.Colors[i0], m.Colors[i1], m.Colors[i2]
		color = scene.Vec4{X: lerp(a.X, b.X, c.X), Y: lerp(a.Y, b.Y, c.Y), Z: lerp(a.Z, b.Z, c.Z), W: lerp(a.W, b.W, c.W)}
	}
	return uvs, color
}

// alphaAt is the material's alpha at a triangle hit, for alpha masks.
func alphaAt(sc *scene.Scene, mat *scene.Material, m *scene.Mesh, prim int, u, v float32) float32 {
	uvs, color := triangleAttributes(m, prim, u, v)
	ref := layout.PackTextureRef(mat.BaseColorTexture)
	_, a := textureAt(sc, &ref, &uvs)
	return mat.BaseColor.W * a * color.W
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

// shade evaluates the surface at a hit of a ray into s.
func (acc *Accel) shade(s *surface, h *Hit, ray *Ray) {
	sc := acc.scene
	in := &sc.Instances[h.Instance]
	inv := &acc.toObject[h.Instance]
	toWorld := &acc.toWorld[h.Instance]
	*s = surface{p: ray.Origin.Add(ray.Dir.Scale(h.T)), mat: &acc.materials[in.Material]}
	var ns scene.Vec3
	var uvs [2]scene.Vec2
	color := scene.Vec4{X: 1, Y: 1, Z: 1, W: 1}
	var tangent scene.Vec4
	switch in.Geometry.Kind {
	case scene.Triangles:
		m := &sc.Meshes[in.Geometry.Index]
		prim := int(h.Prim)
		i0, i1, i2 := m.Indices[3*prim], m.Indices[3*prim+1], m.Indices[3*prim+2]
		// The object-space winding decides the front face; the normal matrix
		// keeps that side for mirrored instances, whose world winding glTF
		// defines as clockwise.
		p0, p1, p2 := m.Positions[i0], m.Positions[i1], m.Positions[i2]
		s.ng = normalToWorld(inv, p1.Sub(p0).Cross(p2.Sub(p0)))
		uvs, color = triangleAttributes(m, prim, h.U, h.V)
		w := 1 - h.U - h.V
		if m.Normals != nil {
			n := m.Normals[i0].Scale(w).Add(m.Normals[i1].Scale(h.U)).Add(m.Normals[i2].Scale(h.V))
			ns = normalToWorld(inv, n)
		}
		if m.Tangents != nil && sc.Materials[in.Material].NeedsTangents() {
			t := m.Tangents[i0]
			tw := t.XYZ().Scale(w).Add(m.Tangents[i1].XYZ().Scale(h.U)).
				Add(m.Tangents[i2].XYZ().Scale(h.V))
			tw = toWorld.Vector(tw).Normalize()
			tangent = scene.Vec4{X: tw.X, Y: tw.Y, Z: tw.Z, W: t.W}
		}
	case scene.Spheres:
		set := &sc.SphereSets[in.Geometry.Index]
		po := inv.Point(s.p)
		s.ng = normalToWorld(inv, po.Sub(set.Centers[h.Prim]))
	case scene.SweptSpheres:
		c := &sc.CurveSets[in.Geometry.Index]
		v := c.Segments[h.Prim]
		po := inv.Point(s.p)
		no := sweptSphereNormal(po, c.Positions[v], c.Positions[v+1], h.U)
		s.ng = normalToWorld(inv, no)
		if s.mat.Flags&layout.MatHair != 0 {
			s.hairFrame(&s.mat.Hair, toWorld.Vector(c.Positions[v+1].Sub(c.Positions[v])), ray.Dir.Scale(-1))
			s.albedo = s.mat.BaseColor.XYZ()
			s.aovNormal = s.ng // the strand's surface, not the view-facing BSDF frame
			return
		}
	}
	if ns == (scene.Vec3{}) {
		ns = s.ng
	}
	mat := s.mat
	s.uv = kernel.UVs{U0: uvs[0].X, V0: uvs[0].Y, U1: uvs[1].X, V1: uvs[1].Y}
	uv := &s.uv
	tx := (*sceneTexels)(sc)
	nc := ns // the clearcoat's normal: the vertex normal unless its own map perturbs it
	if tangent != (scene.Vec4{}) {
		if mat.NormalTex.Texture >= 0 {
			ns = kernel.NormalMapped(tx, ns, tangent.XYZ(), tangent.W, &mat.NormalTex, mat.NormalScale, uv)
		}
		if mat.Clearcoat > 0 && mat.ClearcoatNormalTex.Texture >= 0 {
			nc = kernel.NormalMapped(tx, nc, tangent.XYZ(), tangent.W, &mat.ClearcoatNormalTex, mat.ClearcoatNormalScale, uv)
		}
	}
	var anisoDir scene.Vec3 // world, in the surface's own tangent frame (before it turns)
	if tangent != (scene.Vec4{}) && mat.AnisotropyStrength > 0 {
		anisoDir = kernel.AnisotropyDirection(tx, ns, tangent.XYZ(), tangent.W, mat, uv)
	}
	wo := ray.Dir.Scale(-1)
	s.front = s.ng.Dot(wo) > 0
	if !s.front {
		s.ng, ns, nc = s.ng.Scale(-1), ns.Scale(-1), nc.Scale(-1)
	}
	if ns.Dot(wo) <= 0 {
		ns = s.ng // a shading normal facing away from the viewer is not usable
	}
	if nc.Dot(wo) <= 0 {
		nc = s.ng
	}
	s.frame.Set(ns)
	sh := kernel.EvalMaterial(tx, &s.bsdf, mat, uv, color.XYZ(), s.front, &s.frame, ns, nc, anisoDir)
	s.albedo, s.emit, s.unlit = sh.Albedo, sh.Emit, sh.Unlit
}

// offsetRay moves a ray's origin off the surface along n by a few ulps of
// its coordinates (Wächter and Binder, "A Fast and Robust Method for Avoiding
// Self-Intersection", Ray Tracing Gems), so the next ray does not hit the
// surface it leaves at any distance from the origin.
func offsetRay(p, n scene.Vec3) scene.Vec3 {
	const origin, floatScale, intScale = 1.0 / 32, 1.0 / 65536, 256
	offset := func(p, n float32) float32 {
		if float32(math.Abs(float64(p))) < origin {
			return p + floatScale*n
		}
		off := int32(intScale * n)
		bits := int32(math.Float32bits(p))
		if p < 0 {
			bits -= off
		} else {
			bits += off
		}
		return math.Float32frombits(uint32(bits))
	}
	return scene.Vec3{X: offset(p.X, n.X), Y: offset(p.Y, n.Y), Z: offset(p.Z, n.Z)}
}

// hairFrame sets up the hair BSDF: x along the fibre, z towards the viewer
// across it, and h, where the ray crossed the fibre's width; p is the
// material's hair parameters.
func (s *surface) hairFrame(p *layout.HairParams, tangent, wo scene.Vec3) {
	t := tangent.Normalize()
	z := wo.Sub(t.Scale(t.Dot(wo))).Normalize()
	if z == (scene.Vec3{}) {
		z = kernel.NewFrame(t).T // looking straight along the fibre: any direction across it
	}
	y := z.Cross(t)
	n := s.ng.Sub(t.Scale(t.Dot(s.ng))).Normalize()
	s.frame = kernel.Frame{T: t, B: y, N: z}
	s.isHair = true
	s.front = true
	s.hair = kernel.NewHairBSDF(*p, -n.Dot(y))
	if s.ng.Dot(wo) < 0 {
		s.ng = s.ng.Scale(-1)
	}
}

// originToward is where a ray leaving the surface in direction w starts: off
// the surface on w's side. Light that a hair strand transmits starts inside
// the strand, which a ray from inside does not hit (render.ExitHits).
func (s *surface) originToward(w scene.Vec3) scene.Vec3 {
	if w.Dot(s.ng) >= 0 {
		return offsetRay(s.p, s.ng)
	}
	return offsetRay(s.p, s.ng.Scale(-1))
}

// transmits reports whether light can pass through the surface (so light
// from behind it counts, and paths may continue behind it).
func (s *surface) transmits() bool {
	return s.isHair || s.bsdf.Transmission > 0 || s.bsdf.DiffTrans > 0
}
