package kernel

import (
	"sertrace/render/layout"
	"sertrace/scene"
)

// SetAnisotropy stretches the specular lobes' roughness along the local
// direction dir (projected into the tangent plane; +X if it has no part
// there) by strength, as KHR_materials_anisotropy does: α along it is
// mix(α, 1, strength²).
func (b *BSDF) SetAnisotropy(strength float32, dir scene.Vec3) {
	strength = Clamp01(strength)
	if strength == 0 {
		b.AnisoAlpha = 0
		return
	}
	b.AnisoAlpha = b.Alpha + (1-b.Alpha)*strength*strength
	b.AnisoDir = scene.Vec3{X: dir.X, Y: dir.Y}.Normalize()
	if b.AnisoDir == (scene.Vec3{}) {
		b.AnisoDir = scene.Vec3{X: 1}
	}
}

// toAniso expresses a local direction in the anisotropy's frame (x along
// AnisoDir), and fromAniso back.
func (b *BSDF) toAniso(w scene.Vec3) scene.Vec3 {
	d := b.AnisoDir
	return scene.Vec3{X: w.X*d.X + w.Y*d.Y, Y: w.Y*d.X - w.X*d.Y, Z: w.Z}
}

func (b *BSDF) fromAniso(w scene.Vec3) scene.Vec3 {
	d := b.AnisoDir
	return scene.Vec3{X: w.X*d.X - w.Y*d.Y, Y: w.X*d.Y + w.Y*d.X, Z: w.Z}
}

// anisoTerms are the anisotropic specular lobe's D, D·V and the masking of
// wo for the half vector h.
func (b *BSDF) anisoTerms(wo, wi, h scene.Vec3) (d, dv, g1 float32) {
	ax, ay := b.AnisoAlpha, b.Alpha
	lo, li := LambdaAniso(b.toAniso(wo), ax, ay), LambdaAniso(b.toAniso(wi), ax, ay)
	d = GGXDAniso(b.toAniso(h), ax, ay)
	return d, d / ((1 + lo + li) * 4 * wo.Z * wi.Z), 1 / (1 + lo)
}

// SetIridescence puts a thin film of index ior and thickness (nm) over the
// specular layers, mixed in by factor.
func (b *BSDF) SetIridescence(factor, ior, thickness float32) {
	b.Irid, b.FilmIOR, b.FilmThickness = Clamp01(factor), max(ior, 1), max(thickness, 0)
}

// film is the thin film with the medium above it: air, or as much of the
// coat's index as the coat covers.
func (b *BSDF) film() ThinFilm {
	return ThinFilm{Outside: 1 + (layout.CoatIOR-1)*b.Coat, IOR: b.FilmIOR, Thickness: b.FilmThickness}
}

// dielectricF0 is the dielectric's reflectance at normal incidence before
// KHR_materials_specular's factor (F0 = that·F90): what lies under its film.
func (b *BSDF) dielectricF0() scene.Vec3 {
	if b.F90 <= 0 {
		return scene.Vec3{}
	}
	return b.F0.Scale(1 / b.F90)
}

// SetSheen puts a sheen of the given colour and roughness over the base.
func (b *BSDF) SetSheen(color scene.Vec3, roughness float32) {
	b.SheenColor = scene.Vec3{X: Clamp01(color.X), Y: Clamp01(color.Y), Z: Clamp01(color.Z)}
	b.SheenRoughness = Clamp01(roughness)
}

// sheenEval is the sheen lobe's f·cos θi (before its colour and norm).
func (b *BSDF) sheenEval(wo, wi scene.Vec3) float32 {
	if wi.Z <= 0 {
		return 0
	}
	h := wo.Add(wi).Normalize()
	return CharlieD(h.Z, SheenAlpha(b.SheenRoughness)) * SheenV(wo.Z, wi.Z) * wi.Z
}

// SetCoat puts a clearcoat of weight coat and roughness over the BSDF,
// about the local normal n (unit, on the +Z side; the zero vector for +Z).
func (b *BSDF) SetCoat(coat, roughness float32, n scene.Vec3) {
	b.Coat, b.CoatAlpha, b.CoatN = Clamp01(coat), max(roughness*roughness, layout.MinAlpha), n
	if n == (scene.Vec3{}) || !(n.Z > 0) {
		b.CoatN = scene.Vec3{Z: 1}
	}
}

// coatEval is the coat's f·cos θi about its normal and the pdf of its
// folded visible-normal sample (coatSample), for wo and wi in the shading
// frame. A tilted coat reflects nothing below the shading surface: the
// surface is opaque there (or, for glass, the other side is the glass's),
// and its sample there is lost.
func (b *BSDF) coatEval(wo, wi scene.Vec3) (float32, float32) {
	n := b.CoatN
	co, ci := n.Dot(wo), n.Dot(wi)
	if co <= 0 || ci <= 0 || wi.Z <= 0 {
		return 0, 0
	}
	a2 := b.CoatAlpha * b.CoatAlpha
	h := wo.Add(wi).Normalize()
	d := GGXD(AboutNormal(h, n), a2)
	// The folded samples: reflections below the coat, mirrored up through it.
	var df float32
	if hf := wo.Add(wi.Sub(n.Scale(2 * ci))).Normalize(); n.Dot(hf) > 0 {
		df = GGXD(AboutNormal(hf, n), a2)
	}
	fr := layout.CoatF0 + (1-layout.CoatF0)*Schlick5(wo.Dot(h))
	return b.Coat * fr * d * SmithV(co, ci, a2) * ci, SmithG1(co, a2) * (d + df) / (4 * co)
}

// coatSample reflects wo about a visible normal of the coat; a reflection
// below the coat is folded up through it (foldUp).
func (b *BSDF) coatSample(wo scene.Vec3, u1, u2 float32) scene.Vec3 {
	if b.CoatN == (scene.Vec3{Z: 1}) {
		h := SampleVisibleNormal(wo, b.CoatAlpha, u1, u2)
		return FoldUp(h.Scale(2 * wo.Dot(h)).Sub(wo))
	}
	f := NewFrame(b.CoatN)
	woC := f.ToLocal(wo)
	h := SampleVisibleNormal(woC, b.CoatAlpha, u1, u2)
	return f.ToWorld(FoldUp(h.Scale(2 * woC.Dot(h)).Sub(woC)))
}
