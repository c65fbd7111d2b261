package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// Surface is a shading point: where, which way it faces, and its material
// evaluated there. Shade sets every field, Hair only where IsHair.
type Surface struct {
	P         scene.Vec3 // world position
	Ng        scene.Vec3 // unit geometric normal, turned to the side the ray came from
	Frame     Frame      // about the shading normal, on the same side
	Front     bool       // the ray hit the front face (emitters emit from it)
	BSDF      BSDF
	Hair      HairBSDF // used instead of BSDF on hair strands with a hair material
	IsHair    bool
	AOVNormal scene.Vec3 // the normal AOV where it is not the shading frame's
	Emit      scene.Vec3 // emitted radiance towards the ray's origin
	Albedo    scene.Vec3 // the first-hit albedo AOV
	Unlit     bool       // KHR_materials_unlit: Emit shows the base colour and the path ends
	// The hit's geometry (kept here: a local passed to the backend would
	// escape to the heap on the CPU).
	Geo HitGeometry
}

// NeedsTangents reports whether shading m reads the surface's tangents.
func NeedsTangents(m *layout.Material) bool {
	return m.NormalTex.Texture >= 0 || (m.Clearcoat > 0 && m.ClearcoatNormalTex.Texture >= 0) || m.AnisotropyStrength > 0
}

// Shade evaluates into s the surface of material m at hit h of the ray
// (o, d): its instance's primitive at its parameters, at its distance.
func Shade(geo Geometry, tx Texels, s *Surface, m *layout.Material, h *layout.Hit, o, d scene.Vec3) {
	// Every field is set below, none cleared first: clearing the whole
	// Surface cost the CPU about 2.5% on the Cornell box.
	s.P = o.Add(d.Scale(h.T))
	s.Geo.Set(geo, h.Instance, h.Prim, h.U, h.V, s.P, NeedsTangents(m))
	s.Ng = s.Geo.Ng
	s.IsHair, s.Unlit = false, false
	s.AOVNormal, s.Emit = scene.Vec3{}, scene.Vec3{}
	wo := d.Scale(-1)
	if s.Geo.Kind == layout.KindSweptSpheres && m.Flags&layout.MatHair != 0 {
		s.BSDF = BSDF{} // what the integrator reads of a strand's glTF BSDF: no transmission
		s.hairFrame(&m.Hair, s.Geo.Fibre, wo)
		s.Albedo = scene.Vec3{X: m.BaseColor.X, Y: m.BaseColor.Y, Z: m.BaseColor.Z}
		s.AOVNormal = s.Ng // the strand's surface, not the view-facing BSDF frame
		return
	}
	ns := s.Geo.Ns
	if ns == (scene.Vec3{}) {
		ns = s.Ng
	}
	tangent := scene.Vec3{X: s.Geo.Tangent.X, Y: s.Geo.Tangent.Y, Z: s.Geo.Tangent.Z}
	hasTangent := s.Geo.Tangent != (scene.Vec4{})
	nc := ns // the clearcoat's normal: the vertex normal unless its own map perturbs it
	if hasTangent {
		if m.NormalTex.Texture >= 0 {
			ns = NormalMapped(tx, ns, tangent, s.Geo.Tangent.W, &m.NormalTex, m.NormalScale, &s.Geo.UV)
		}
		if m.Clearcoat > 0 && m.ClearcoatNormalTex.Texture >= 0 {
			nc = NormalMapped(tx, nc, tangent, s.Geo.Tangent.W, &m.ClearcoatNormalTex, m.ClearcoatNormalScale, &s.Geo.UV)
		}
	}
	var anisoDir scene.Vec3 // world, in the surface's own tangent frame (before it turns)
	if hasTangent && m.AnisotropyStrength > 0 {
		anisoDir = AnisotropyDirection(tx, ns, tangent, s.Geo.Tangent.W, m, &s.Geo.UV)
	}
	s.Front = s.Ng.Dot(wo) > 0
	if !s.Front {
		s.Ng, ns, nc = s.Ng.Scale(-1), ns.Scale(-1), nc.Scale(-1)
	}
	if ns.Dot(wo) <= 0 {
		ns = s.Ng // a shading normal facing away from the viewer is not usable
	}
	if nc.Dot(wo) <= 0 {
		nc = s.Ng
	}
	s.Frame.Set(ns)
	color := scene.Vec3{X: s.Geo.Color.X, Y: s.Geo.Color.Y, Z: s.Geo.Color.Z}
	sh := EvalMaterial(tx, &s.BSDF, m, &s.Geo.UV, color, s.Front, &s.Frame, ns, nc, anisoDir)
	s.Albedo, s.Emit, s.Unlit = sh.Albedo, sh.Emit, sh.Unlit
}

// hairFrame sets up the hair BSDF of parameters h: x along the fibre (its
// direction tangent), z towards the viewer (wo) across it, and where the
// ray crossed the fibre's width.
func (s *Surface) hairFrame(h *layout.HairParams, tangent, wo scene.Vec3) {
	t := tangent.Normalize()
	z := wo.Sub(t.Scale(t.Dot(wo))).Normalize()
	if z == (scene.Vec3{}) {
		z = NewFrame(t).T // looking straight along the fibre: any direction across it
	}
	y := z.Cross(t)
	n := s.Ng.Sub(t.Scale(t.Dot(s.Ng))).Normalize()
	s.Frame = Frame{T: t, B: y, N: z}
	s.IsHair = true
	s.Front = true
	s.Hair = NewHairBSDF(*h, -n.Dot(y))
	if s.Ng.Dot(wo) < 0 {
		s.Ng = s.Ng.Scale(-1)
	}
}

// OriginToward is where a ray leaving the surface in direction w starts:
// off the surface on w's side. Light that a hair strand transmits starts
// inside the strand, which a ray from inside does not hit
// (render.ExitHits).
func (s *Surface) OriginToward(w scene.Vec3) scene.Vec3 {
	if w.Dot(s.Ng) >= 0 {
		return OffsetRay(s.P, s.Ng)
	}
	return OffsetRay(s.P, s.Ng.Scale(-1))
}

// Transmits reports whether light can pass through the surface (so light
// from behind it counts, and paths may continue behind it).
func (s *Surface) Transmits() bool {
	return s.IsHair || s.BSDF.Transmission > 0 || s.BSDF.DiffTrans > 0
}

// OffsetRay moves a ray's origin off the surface along n by a few ulps of
// its coordinates (Wächter and Binder, "A Fast and Robust Method for
// Avoiding Self-Intersection", Ray Tracing Gems), so the next ray does not
// hit the surface it leaves at any distance from the origin.
func OffsetRay(p, n scene.Vec3) scene.Vec3 {
	return scene.Vec3{X: offsetCoordinate(p.X, n.X), Y: offsetCoordinate(p.Y, n.Y), Z: offsetCoordinate(p.Z, n.Z)}
}

// offsetCoordinate is OffsetRay along one axis: a step of the normal's
// size near the origin, where ulps are too small, and a number of ulps
// beyond.
//
//goglsl:precise
func offsetCoordinate(p, n float32) float32 {
	const origin, floatScale, intScale = 1.0 / 32, 1.0 / 65536, 256
	var q float32
	if float32(math.Abs(float64(p))) < origin {
		q = p + floatScale*n
		return q
	}
	off := int32(intScale * n)
	bits := int32(math.Float32bits(p))
	if p < 0 {
		bits -= off
	} else {
		bits += off
	}
	q = math.Float32frombits(uint32(bits))
	return q
}

// AlphaKeeps is the any-hit decision on a candidate hit at distance t of
// instance inst's triangle prim, at barycentrics u, v, whose material m is
// alpha-tested: MASK keeps an alpha at or above the cutoff (a NaN alpha is
// no hit); BLEND keeps it with probability alpha (stochastic transparency),
// by a hash of the candidate, so that a ray that meets it again decides
// the same.
func AlphaKeeps(geo Geometry, tx Texels, m *layout.Material, inst, prim uint32, u, v, t float32) bool {
	uv, color := HitAttributes(geo, inst, prim, u, v)
	_, a := SampleTexture(tx, &m.BaseColorTex, &uv)
	alpha := m.BaseColor.W * a * color.W
	if m.Flags&layout.MatAlphaBlend != 0 {
		return HitCoin(inst, prim, u, v, t) < alpha
	}
	return alpha >= m.AlphaCutoff
}
