package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// BSDF is the glTF metallic-roughness BRDF at one shading point, as the
// glTF 2.0 specification's appendix B defines it, with the dielectric's F0
// and F90 from KHR_materials_ior and KHR_materials_specular:
//
//	f = (1 − m)·[(1 − E)·baseColor/π + F_dielectric·D·V] + m·F_metal·D·V
//
// with GGX D, the height-correlated Smith V, Schlick's Fresnel, and
// α = roughness². One change from the specification's fresnel_mix: the
// diffuse is weighted by 1 − E, E the directional albedo of the specular
// layer seen from the viewer (albedo scaling, as Enterprise PBR and OpenPBR
// do), where the specification's 1 − F(v·h) per light direction makes a
// glossy dielectric reflect more light than it receives at grazing angles
// (1.39 times, measured for roughness 0.2 at cos θ = 0.05). Directions are in
// the local frame, the normal along +Z.
type BSDF struct {
	Base     scene.Vec3 // linear base colour
	Metallic float32
	Alpha    float32    // roughness², at least layout.MinAlpha
	F0       scene.Vec3 // dielectric reflectance at normal incidence
	F90      float32    // dielectric reflectance at grazing incidence

	// KHR_materials_transmission: that share of the dielectric is a glass
	// interface (Walter et al.'s rough dielectric, exact Fresnel per
	// microfacet) tinted by the base colour. Eta is the index of the far
	// side over the viewer's; Thin makes it a sheet that lets light through
	// without bending it (glTF's thin-walled case, without
	// KHR_materials_volume), with its roughness scaled by how much its index
	// bends (thinAlpha); an index within layout.NullEta of 1 is a sheet too
	// (glassThin). Both get back what single scattering loses (glassTerms).
	Transmission float32
	Eta          float32
	Thin         bool

	// KHR_materials_clearcoat: a clear dielectric coat (F0 0.04, its IOR
	// 1.5; F90 1) of weight Coat and roughness² CoatAlpha over the rest,
	// about its own normal CoatN (local: +Z, the shading normal, unless the
	// coat's normal differs). The rest is scaled by 1 − Coat·Ec(wo), Ec the
	// coat's directional albedo seen from wo: albedo scaling, as the
	// specular layer scales the diffuse, so the coat never adds energy.
	Coat      float32
	CoatAlpha float32
	CoatN     scene.Vec3

	// KHR_materials_sheen: a Charlie sheen lobe of this colour and
	// roughness over the base (under the coat), which keeps
	// 1 − max(SheenColor)·Es(wo), Es the lobe's tabulated albedo capped at
	// 1 (where the lobe's visibility term would reflect more than it gets,
	// at grazing angles, the lobe is scaled down to albedo 1).
	SheenColor     scene.Vec3
	SheenRoughness float32

	// KHR_materials_anisotropy: the specular lobes of the metal and of the
	// dielectric have roughness AnisoAlpha along AnisoDir (local, in the
	// tangent plane) and Alpha across it (0: isotropic). The dielectric's
	// albedo scaling reads the anisotropic table
	// (AnisoSpecularIntegrals), so a white one stays lossless; read
	// at either of the two roughnesses from the isotropic table, it
	// reflected 1.02 or lost 70% at grazing angles. The glass stays
	// isotropic.
	AnisoAlpha float32
	AnisoDir   scene.Vec3

	// KHR_materials_diffuse_transmission: that share of the diffuse lobe
	// leaves through the other side, Lambertian, tinted by DiffTransColor.
	DiffTrans      float32
	DiffTransColor scene.Vec3

	// KHR_materials_iridescence: a thin film over the dielectric's specular
	// layer and the metal, whose Fresnel (Film.Fresnel, the film over the
	// dielectric's F0 or the metal's base colour) is mixed into theirs by
	// Irid. The diffuse keeps 1 − E, E now the albedo of the mixed layer
	// (Film.Albedo), so the film never makes light. Where light enters
	// glass, the film's Fresnel is mixed into the interface's exact one
	// per channel, each channel transmitting the rest (glassFresnel).
	Irid          float32
	FilmIOR       float32
	FilmThickness float32 // nm
}

// WoTerms are a BSDF's quantities that depend on wo alone: the
// tabulated specular integrals, the specular layer's albedo, the lobes'
// multiple-scattering factors and the probabilities of the sampling
// strategies. A shading point computes them once (Terms) for its light
// sample and its next direction (EvalWith, SampleWith).
type WoTerms struct {
	a, s       float32
	e          scene.Vec3 // the dielectric specular layer's albedo, multiple scattering included
	km, kd     scene.Vec3 // the multiple-scattering factors of the metal's lobe and the specular layer's
	kc         float32    // the coat's
	kg         float32    // the glass interface's
	pgr        float32    // a sheet that transmits at another roughness: how often its sample reflects
	ps, pd, pg float32    // of the base's strategies, given that the coat's was not taken
	ec         float32    // the coat's directional albedo times Coat
	pc         float32    // of the coat's strategy
	se         float32    // the sheen's directional albedo (capped at 1) times max(SheenColor)
	sheenNorm  float32    // what scales the sheen lobe down to albedo 1
	psh        float32    // of the sheen's strategy, given that the coat's was not taken
}

// Lambertian reports whether the BSDF is its diffuse lobe alone: no metal,
// no glass, a specular layer of zero reflectance (KHR_materials_specular's
// specular 0), a base that reflects. Its f·cos is base·cos/π, sampled by
// the cosine: the general formulas give exactly that, at more cost.
func (b *BSDF) Lambertian() bool {
	return b.Metallic == 0 && b.Transmission == 0 && b.Coat == 0 && b.SheenColor == (scene.Vec3{}) && b.DiffTrans == 0 && b.F90 == 0 && b.F0 == (scene.Vec3{}) && b.Irid == 0 && Luminance(b.Base) > 0
}

// Terms are WoTerms for wo; a Lambertian BSDF's are its diffuse
// strategy's alone.
func (b *BSDF) Terms(wo scene.Vec3) WoTerms {
	if b.Lambertian() {
		return WoTerms{pd: 1}
	}
	return b.lobeTerms(wo)
}

// lobeTerms computes WoTerms for wo.
func (b *BSDF) lobeTerms(wo scene.Vec3) WoTerms {
	var l WoTerms
	filmAlpha := b.Alpha // the roughness the film's isotropic bins are read at
	if b.AnisoAlpha > 0 {
		wa := b.toAniso(wo)
		l.a, l.s = AnisoSpecularIntegrals(wa, b.AnisoAlpha, b.Alpha)
		filmAlpha = ProjectedAlpha(wa, b.AnisoAlpha, b.Alpha)
	} else {
		l.a, l.s = SpecularIntegrals(wo.Z, b.Alpha)
	}
	l.e = SchlickAlbedo(b.F0, b.F90, l.a, l.s)
	// The lobes get back what single scattering loses (kernel.MultipleScattering).
	msAlpha := b.Alpha
	if b.AnisoAlpha > 0 { // the isotropic lobe's at the geometric mean roughness
		msAlpha = Sqrt32(b.Alpha * b.AnisoAlpha)
	}
	l.kd, l.km = scene.Vec3{X: 1, Y: 1, Z: 1}, scene.Vec3{X: 1, Y: 1, Z: 1} // for a lobe that is not there
	if b.opaqueWeight() > 0 {
		l.kd = multipleScatteringRGB(l.a, wo.Z, msAlpha, b.F0, b.F90)
	}
	if b.Metallic > 0 {
		l.km = multipleScatteringRGB(l.a, wo.Z, msAlpha, b.Base, 1)
	}
	if b.Irid > 0 {
		ei := ThinFilmAlbedo(b.film(), wo.Z, filmAlpha, b.dielectricF0()).Scale(b.F90)
		if b.AnisoAlpha > 0 { // the bins scaled to the anisotropic layer's A
			if ia, _ := SpecularIntegrals(wo.Z, filmAlpha); ia > 0 {
				ei = ei.Scale(l.a / ia)
			}
		}
		l.e = l.e.Scale(1 - b.Irid).Add(ei.Scale(b.Irid))
	}
	l.e = l.e.Mul3(l.kd).Min(scene.Vec3{X: 1, Y: 1, Z: 1})
	if b.Transmission > 0 {
		l.kg, l.pgr = b.glassTerms(wo.Z)
	}
	var base float32
	l.ps, l.pd, l.pg, base = b.lobeProbabilities(wo.Z, l.e)
	l.sheenNorm = 1
	if b.SheenColor != (scene.Vec3{}) {
		es := SheenAlbedo(wo.Z, b.SheenRoughness)
		l.sheenNorm = 1 / max(es, 1)
		l.se = max(b.SheenColor.X, b.SheenColor.Y, b.SheenColor.Z) * min(es, 1)
		if w := l.se + (1-l.se)*base; w > 0 {
			l.psh = l.se / w
		}
		base = l.se + (1-l.se)*base // the rest under the coat, estimated
	}
	if b.Coat > 0 {
		if c := b.CoatN.Dot(wo); c > 0 {
			ca, cs := SpecularIntegrals(c, b.CoatAlpha)
			l.kc = MultipleScattering(ca, MultipleScatteringFresnel(c, b.CoatAlpha, layout.CoatF0, 1))
			l.ec = b.Coat * min((layout.CoatF0*ca+(1-layout.CoatF0)*cs)*l.kc, 1)
		}
		if w := l.ec + (1-l.ec)*base; w > 0 {
			l.pc = l.ec / w
		}
	}
	return l
}

// multipleScatteringRGB is, per channel, the multiple-scattering factor
// of a GGX lobe of single-scattering albedo a and roughness² alpha seen
// from cos θo mu whose Schlick Fresnel runs from f0 to f90 (a grey lobe's
// looked up once).
func multipleScatteringRGB(a, mu, alpha float32, f0 scene.Vec3, f90 float32) scene.Vec3 {
	x := MultipleScattering(a, MultipleScatteringFresnel(mu, alpha, f0.X, f90))
	if f0.Y == f0.X && f0.Z == f0.X {
		return scene.Vec3{X: x, Y: x, Z: x}
	}
	return scene.Vec3{X: x, Y: MultipleScattering(a, MultipleScatteringFresnel(mu, alpha, f0.Y, f90)),
		Z: MultipleScattering(a, MultipleScatteringFresnel(mu, alpha, f0.Z, f90))}
}

// glassTerms are the glass interface's multiple-scattering factor for
// what it reflects and transmits, seen from cos θo, and for a sheet that
// transmits at another roughness than it reflects, the probability that
// its sample reflects: its reflected share of the two lobes' energy (a
// microfacet's own Fresnel cannot choose between two lobes; the Fresnel at
// cos θo, 6e-8 at index 1.0005, would weigh a grazing microfacet's
// reflection 1e5 times).
func (b *BSDF) glassTerms(cosO float32) (k, pr float32) {
	eta := b.glassEta()
	if !b.GlassThin() {
		e, _ := GlassAlbedo(cosO, b.Alpha, eta)
		return 1 / max(e, 1e-3), 0
	}
	// A sheet reflects R(α), the interface's reflected part for light
	// entering it, and transmits its mirror image, A(αt) − R(αt): where the
	// two roughnesses are one, R + T is the lobe's A.
	at := b.thinAlpha()
	a, _ := SpecularIntegrals(cosO, b.Alpha)
	e := a
	if at != b.Alpha {
		at1, _ := SpecularIntegrals(cosO, at)
		_, r := GlassAlbedo(cosO, b.Alpha, eta)
		_, rt := GlassAlbedo(cosO, at, eta)
		e = r + at1 - rt
		if e > 0 {
			pr = Clamp01(r / e)
		}
	}
	return 1 / max(e, 1e-3), pr
}

// GlassThin reports whether the glass interface transmits as a sheet,
// without bending: a thin-walled material, or one whose relative index is
// within layout.NullEta of 1 (which bends nothing).
func (b *BSDF) GlassThin() bool {
	return b.Thin || math.Abs(float64(b.glassEta()-1)) < layout.NullEta
}

// thinAlpha is the roughness² a sheet transmits with
// (render.ThinTransmissionAlpha): an interface of index 1 is not there.
func (b *BSDF) thinAlpha() float32 { return ThinTransmissionAlpha(b.Alpha, b.glassEta()) }

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

// diffuseColors are the diffuse lobe's reflected and transmitted colours.
func (b *BSDF) diffuseColors() (reflected, transmitted scene.Vec3) {
	if b.DiffTrans <= 0 {
		return b.Base, scene.Vec3{}
	}
	return b.Base.Scale(1 - b.DiffTrans), b.DiffTransColor.Scale(b.DiffTrans)
}

// diffuseBelow is the probability that the diffuse strategy samples the
// far side: the transmitted colour's share of the lobe's.
func (b *BSDF) diffuseBelow() float32 {
	if b.DiffTrans <= 0 {
		return 0
	}
	r, t := b.diffuseColors()
	lr, lt := Luminance(r), Luminance(t)
	if lr+lt <= 0 {
		return b.DiffTrans
	}
	return lt / (lr + lt)
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

// glassWeight is the share of f that the glass interface is.
func (b *BSDF) glassWeight() float32 { return (1 - b.Metallic) * b.Transmission }

// NewBSDF makes the BSDF of a material with the given factors (textures
// already applied). specular and specularColor are KHR_materials_specular's.
func NewBSDF(base scene.Vec3, metallic, roughness, ior, specular float32, specularColor scene.Vec3) BSDF {
	var b BSDF
	b.Init(base, metallic, roughness, ior, specular, specularColor)
	return b
}

// Init is NewBSDF in place (the shading point's BSDF is not copied).
func (b *BSDF) Init(base scene.Vec3, metallic, roughness, ior, specular float32, specularColor scene.Vec3) {
	f0 := float32(0.04)
	if ior >= 1 {
		f0 = IORToF0(ior)
	}
	f90 := Clamp01(specular)
	*b = BSDF{Base: base, Metallic: Clamp01(metallic), Alpha: max(roughness*roughness, layout.MinAlpha), F90: f90,
		F0: scene.Vec3{X: min(f0*specularColor.X, 1) * f90, Y: min(f0*specularColor.Y, 1) * f90, Z: min(f0*specularColor.Z, 1) * f90}}
}

// InitF0 makes b the dielectric of a diffuse colour, a roughness and its
// own reflectance at normal incidence f0 (per channel, reaching 1 at
// grazing angles): KHR_materials_pbrSpecularGlossiness's, whose F0 is a
// colour rather than an index's.
func (b *BSDF) InitF0(base scene.Vec3, roughness float32, f0 scene.Vec3) {
	*b = BSDF{Base: base, Alpha: max(roughness*roughness, layout.MinAlpha), F90: 1, F0: f0.Min(scene.Vec3{X: 1, Y: 1, Z: 1})}
}

// opaqueWeight is the share of f that the opaque dielectric (diffuse and
// specular layer) is.
func (b *BSDF) opaqueWeight() float32 { return (1 - b.Metallic) * (1 - b.Transmission) }

// Albedos are the directional albedos seen from wo (local) of the diffuse
// lobe and (estimated for the metal and the glass) of the rest, the coat
// included. The diffuse lobe's f·|cos wi| is its albedo·cos wi/π.
func (b *BSDF) Albedos(wo scene.Vec3) (diffuse, specular scene.Vec3) {
	t := b.Terms(wo)
	return b.AlbedosWith(&t, wo)
}

// AlbedosWith is Albedos given wo's terms.
func (b *BSDF) AlbedosWith(t *WoTerms, wo scene.Vec3) (diffuse, specular scene.Vec3) {
	if b.Lambertian() {
		return b.Base, scene.Vec3{}
	}
	e, metal := t.e, SchlickAlbedo(b.Base, 1, t.a, t.s)
	metal = metal.Mul3(t.km).Min(scene.Vec3{X: 1, Y: 1, Z: 1})
	opaque, glass := b.opaqueWeight(), b.glassWeight()
	under := 1 - t.ec // what the coat lets through to the rest
	var es float32    // the sheen's albedo for a white sheen
	if b.SheenColor != (scene.Vec3{}) {
		es = min(SheenAlbedo(wo.Z, b.SheenRoughness), 1)
	}
	below := under * (1 - t.se) // what the sheen lets through to the base
	// The diffuse albedo is the reflected diffuse light's; what the diffuse
	// lobe transmits counts with the rest, as the glass's does.
	dr, dt := b.diffuseColors()
	diffuse = scene.Vec3{X: below * opaque * (1 - e.X) * dr.X, Y: below * opaque * (1 - e.Y) * dr.Y, Z: below * opaque * (1 - e.Z) * dr.Z}
	m := b.Metallic
	specular = scene.Vec3{X: specularAlbedo(t.ec, under, es, below, opaque, m, glass, e.X, metal.X, b.Base.X, b.SheenColor.X, dt.X),
		Y: specularAlbedo(t.ec, under, es, below, opaque, m, glass, e.Y, metal.Y, b.Base.Y, b.SheenColor.Y, dt.Y),
		Z: specularAlbedo(t.ec, under, es, below, opaque, m, glass, e.Z, metal.Z, b.Base.Z, b.SheenColor.Z, dt.Z)}
	return diffuse, specular
}

// specularAlbedo is one channel of Albedos' specular albedo: the coat's
// ec, the sheen's under the coat (under), and below the sheen (below) the
// specular layer's e over the opaque share, the metal's, the glass's
// (its base colour) and what the diffuse lobe transmits.
func specularAlbedo(ec, under, es, below, opaque, metallic, glass, e, metal, base, sheen, trans float32) float32 {
	return ec + under*sheen*es + below*(opaque*e+metallic*metal+glass*base+opaque*(1-e)*trans)
}

// lobeProbabilities are how often Sample uses each of the base's
// strategies: visible-normal reflection, cosine (diffuse), and the glass
// interface, in proportion to an estimate of what each lobe reflects seen
// from wo (the metal's estimated); sum is the estimates' sum.
func (b *BSDF) lobeProbabilities(cosO float32, e scene.Vec3) (spec, diff, glass, sum float32) {
	lb := Luminance(b.Base)
	le := Luminance(e)
	opaque := b.opaqueWeight()
	spec = opaque*le + b.Metallic*(lb+(1-lb)*Schlick5(cosO))
	diff = opaque * (1 - le) * lb
	if b.DiffTrans > 0 {
		r, t := b.diffuseColors()
		diff = opaque * (1 - le) * (Luminance(r) + Luminance(t))
	}
	glass = b.glassWeight()
	sum = spec + diff + glass
	if sum <= 0 {
		return 1, 0, 0, 0
	}
	return spec / sum, diff / sum, glass / sum, sum
}

// Eval returns f(wo, wi)·|cos(wi)| and the pdf with which Sample picks wi.
// wo is on the +Z side; wi below it only transmits.
func (b *BSDF) Eval(wo, wi scene.Vec3) (scene.Vec3, float32) {
	if wo.Z <= 0 || wi.Z == 0 {
		return scene.Vec3{}, 0
	}
	t := b.Terms(wo)
	return b.EvalWith(&t, wo, wi)
}

// EvalWith is Eval given wo's terms.
func (b *BSDF) EvalWith(l *WoTerms, wo, wi scene.Vec3) (scene.Vec3, float32) {
	if wo.Z <= 0 || wi.Z == 0 {
		return scene.Vec3{}, 0
	}
	if b.Lambertian() {
		if wi.Z < 0 {
			return scene.Vec3{}, 0
		}
		return scene.Vec3{X: b.Base.X / math.Pi * wi.Z, Y: b.Base.Y / math.Pi * wi.Z, Z: b.Base.Z / math.Pi * wi.Z}, wi.Z / math.Pi
	}
	e, ps, pd, pg := l.e, l.ps, l.pd, l.pg
	var f scene.Vec3
	var pdf float32
	dr, dt := b.diffuseColors()
	below := b.diffuseBelow()
	if wi.Z > 0 {
		h := wo.Add(wi).Normalize()
		var d, spec, g1, df float32
		// The specular strategy's folded samples (foldUp): those whose
		// reflection about hf went below.
		hf := wo.Add(scene.Vec3{X: wi.X, Y: wi.Y, Z: -wi.Z}).Normalize()
		if b.AnisoAlpha > 0 { // the metal's and the dielectric's lobe
			d, spec, g1 = b.anisoTerms(wo, wi, h)
			if hf.Z > 0 {
				df = GGXDAniso(b.toAniso(hf), b.AnisoAlpha, b.Alpha)
			}
		} else {
			a2 := b.Alpha * b.Alpha
			d = GGXD(h, a2)
			spec, g1 = d*SmithV(wo.Z, wi.Z, a2), SmithG1(wo.Z, a2)
			if hf.Z > 0 {
				df = GGXD(hf, a2)
			}
		}
		vh := wo.Dot(h)
		s5 := Schlick5(vh)
		opaque := b.opaqueWeight()
		fd := scene.Vec3{X: b.F0.X + (b.F90-b.F0.X)*s5, Y: b.F0.Y + (b.F90-b.F0.Y)*s5, Z: b.F0.Z + (b.F90-b.F0.Z)*s5}
		fm := scene.Vec3{X: b.Base.X + (1-b.Base.X)*s5, Y: b.Base.Y + (1-b.Base.Y)*s5, Z: b.Base.Z + (1-b.Base.Z)*s5}
		if b.Irid > 0 {
			film := b.film()
			if opaque > 0 {
				fd = fd.Scale(1 - b.Irid).Add(film.Fresnel(vh, b.dielectricF0()).Scale(b.F90 * b.Irid))
			}
			if b.Metallic > 0 {
				fm = fm.Scale(1 - b.Irid).Add(film.Fresnel(vh, b.Base).Scale(b.Irid))
			}
		}
		fd, fm = fd.Mul3(l.kd), fm.Mul3(l.km) // with what single scattering loses
		m := b.Metallic
		f = scene.Vec3{X: reflectionChannel(opaque, m, spec, wi.Z, fd.X, fm.X, dr.X, e.X),
			Y: reflectionChannel(opaque, m, spec, wi.Z, fd.Y, fm.Y, dr.Y, e.Y),
			Z: reflectionChannel(opaque, m, spec, wi.Z, fd.Z, fm.Z, dr.Z, e.Z)}
		pdf = ps*g1*(d+df)/(4*wo.Z) + pd*(1-below)*wi.Z/math.Pi
	} else if below > 0 {
		// The diffuse light that leaves through the far side.
		c := b.opaqueWeight() * -wi.Z / math.Pi
		f = scene.Vec3{X: c * (1 - e.X) * dt.X, Y: c * (1 - e.Y) * dt.Y, Z: c * (1 - e.Z) * dt.Z}
		pdf = pd * below * -wi.Z / math.Pi
	}
	if pg > 0 {
		gf, gpdf := b.glassEval(wo, wi, l)
		f = f.Add(gf.Scale(b.glassWeight()))
		pdf += pg * gpdf
	}
	if l.se > 0 {
		sf := b.sheenEval(wo, wi) * l.sheenNorm
		f = f.Scale(1 - l.se).Add(b.SheenColor.Scale(sf))
		var spdf float32
		if wi.Z > 0 {
			spdf = 1 / (2 * math.Pi)
		}
		pdf = l.psh*spdf + (1-l.psh)*pdf
	}
	if b.Coat > 0 {
		cf, cpdf := b.coatEval(wo, wi)
		cf *= l.kc
		f = f.Scale(1 - l.ec).Add(scene.Vec3{X: cf, Y: cf, Z: cf})
		pdf = l.pc*cpdf + (1-l.pc)*pdf
	}
	return f, pdf
}

// reflectionChannel is one channel of the reflected f·cos θi: the diffuse
// lobe (reflecting its colour diffuse of what the specular layer of albedo
// e leaves) and the dielectric's and the metal's specular lobes of D·V spec
// and Fresnel fd and fm.
func reflectionChannel(opaque, metallic, spec, cosI, fd, fm, diffuse, e float32) float32 {
	return (opaque*((1-e)*diffuse/math.Pi+fd*spec) + metallic*fm*spec) * cosI
}

// Sample picks wi for wo with the numbers u (strategy) and u1, u2
// (direction), returning f·|cos|/pdf and the pdf; ok is false when nothing
// was sampled (the path ends).
func (b *BSDF) Sample(wo scene.Vec3, u, u1, u2 float32) (wi, weight scene.Vec3, pdf float32, ok bool) {
	if wo.Z <= 0 {
		return
	}
	t := b.Terms(wo)
	return b.SampleWith(&t, wo, u, u1, u2)
}

// SampleWith is Sample given wo's terms.
func (b *BSDF) SampleWith(l *WoTerms, wo scene.Vec3, u, u1, u2 float32) (wi, weight scene.Vec3, pdf float32, ok bool) {
	if wo.Z <= 0 {
		return
	}
	if l.pc > 0 {
		if u < l.pc {
			wi = b.coatSample(wo, u1, u2)
			if b.CoatN.Dot(wi) <= 0 || wi.Z <= 0 {
				return wi, scene.Vec3{}, 0, false // lost, as a reflection below the surface is
			}
			return b.weighed(l, wo, wi)
		}
		u = min((u-l.pc)/(1-l.pc), layout.OneBelowOne) // what is left of u picks among the rest's
	}
	if l.psh > 0 {
		if u < l.psh {
			wi = SampleUniform(u1, u2) // the sheen's lobe is broad and grazing: uniformly
			return b.weighed(l, wo, wi)
		}
		u = min((u-l.psh)/(1-l.psh), layout.OneBelowOne) // what is left of u picks among the base's
	}
	ps, pd := l.ps, l.pd
	switch {
	case u < ps:
		var h scene.Vec3
		if b.AnisoAlpha > 0 {
			h = b.fromAniso(SampleVisibleNormalAniso(b.toAniso(wo), b.AnisoAlpha, b.Alpha, u1, u2))
		} else {
			h = SampleVisibleNormal(wo, b.Alpha, u1, u2)
		}
		wi = FoldUp(h.Scale(2 * wo.Dot(h)).Sub(wo))
		if wi.Z == 0 {
			return wi, scene.Vec3{}, 0, false
		}
	case u < ps+pd:
		wi = SampleCosine(u1, u2)
		if (u-ps)/pd < b.diffuseBelow() { // what is left of u picks the side
			wi.Z = -wi.Z
		}
	default:
		// The glass picks reflection or transmission by the microfacet's
		// Fresnel: reuse what is left of u for that choice.
		var good bool
		if wi, good = b.glassSample(wo, (u-ps-pd)/max(1-ps-pd, 1e-7), u1, u2, l); !good {
			return wi, scene.Vec3{}, 0, false
		}
	}
	return b.weighed(l, wo, wi)
}

// weighed is a sampled wi with its weight f·|cos|/pdf and pdf, which Eval
// gives for whichever strategy drew it; ok is false where the pdf is 0.
func (b *BSDF) weighed(l *WoTerms, wo, wi scene.Vec3) (scene.Vec3, scene.Vec3, float32, bool) {
	f, pdf := b.EvalWith(l, wo, wi)
	if pdf <= 0 {
		return wi, scene.Vec3{}, 0, false
	}
	return wi, f.Scale(1 / pdf), pdf, true
}

// glassFresnel is the glass interface's reflectance per channel at cos
// (v·m) and the probability with which glassSample reflects there: the
// exact Fresnel, with a thin film's mixed in (the channels' mean for the
// choice) where light enters; each channel transmits what it does not
// reflect, so the film colours the glass without making light.
func (b *BSDF) glassFresnel(cos float32) (scene.Vec3, float32) {
	eta := b.glassEta()
	fr := FresnelDielectric(cos, eta)
	if b.Irid <= 0 || eta < 1 {
		return scene.Vec3{X: fr, Y: fr, Z: fr}, fr
	}
	f0 := IORToF0(eta)
	fi := b.film().Fresnel(cos, scene.Vec3{X: f0, Y: f0, Z: f0})
	rgb := scene.Vec3{X: fr, Y: fr, Z: fr}.Scale(1 - b.Irid).Add(fi.Scale(b.Irid))
	return rgb, (rgb.X + rgb.Y + rgb.Z) / 3
}

// glassEval is the glass interface's f·|cos wi| and the pdf of
// glassSample, given wo's terms (its multiple-scattering factors).
func (b *BSDF) glassEval(wo, wi scene.Vec3, l *WoTerms) (scene.Vec3, float32) {
	a2 := b.Alpha * b.Alpha
	thin := b.GlassThin()
	at := b.Alpha // the roughness² it transmits with
	if thin {
		at = b.thinAlpha()
	}
	// The probability of reflecting is the microfacet's Fresnel, or where a
	// sheet transmits at another roughness, the interface's.
	if wi.Z > 0 { // reflection off the interface
		h := wo.Add(wi).Normalize()
		fr, pr := b.glassFresnel(wo.Dot(h))
		if at != b.Alpha {
			pr = l.pgr
		}
		d, g := GGXD(h, a2), SmithG2(wo, wi, a2)
		pdf := pr * SmithG1(wo.Z, a2) * d / (4 * wo.Z)
		return scene.Vec3{X: fr.X * d * g / (4 * wo.Z) * l.kg, Y: fr.Y * d * g / (4 * wo.Z) * l.kg, Z: fr.Z * d * g / (4 * wo.Z) * l.kg}, pdf
	}
	if thin {
		// A sheet: the transmitted direction is the reflected one mirrored
		// through the surface, tinted by the base colour.
		at2 := at * at
		wr := scene.Vec3{X: wi.X, Y: wi.Y, Z: -wi.Z}
		h := wo.Add(wr).Normalize()
		fr, pr := b.glassFresnel(wo.Dot(h))
		if at != b.Alpha {
			pr = l.pgr
		}
		d, g := GGXD(h, at2), SmithG2(wo, wr, at2)
		return scene.Vec3{X: b.Base.X * ((1 - fr.X) * d * g / (4 * wo.Z) * l.kg), Y: b.Base.Y * ((1 - fr.Y) * d * g / (4 * wo.Z) * l.kg),
			Z: b.Base.Z * ((1 - fr.Z) * d * g / (4 * wo.Z) * l.kg)}, (1 - pr) * SmithG1(wo.Z, at2) * d / (4 * wo.Z)
	}
	eta := b.glassEta()
	wm := wi.Scale(eta).Add(wo).Normalize()
	if wm.Z < 0 {
		wm = wm.Scale(-1)
	}
	// Microfacets facing away from either direction transmit nothing.
	if wm.Dot(wi) >= 0 || wm.Dot(wo) <= 0 {
		return scene.Vec3{}, 0
	}
	fr, pr := b.glassFresnel(wo.Dot(wm))
	d := GGXD(wm, a2)
	denom := wi.Dot(wm) + wo.Dot(wm)/eta
	denom *= denom
	// Walter et al.'s BTDF times |cos wi|, with the radiance scaled by 1/η²
	// as it crosses into the denser side (and back).
	g, j := SmithG2(wo, wi, a2), float32(math.Abs(float64(wi.Dot(wm)*wo.Dot(wm)/(wo.Z*denom))))
	pdf := (1 - pr) * SmithG1(wo.Z, a2) * d * wo.Dot(wm) / wo.Z * float32(math.Abs(float64(wi.Dot(wm)))) / denom
	return scene.Vec3{X: b.Base.X * ((1 - fr.X) * d * g * j / (eta * eta) * l.kg), Y: b.Base.Y * ((1 - fr.Y) * d * g * j / (eta * eta) * l.kg),
		Z: b.Base.Z * ((1 - fr.Z) * d * g * j / (eta * eta) * l.kg)}, pdf
}

// glassEta is the relative index the glass interface bends by; a sheet
// (glassThin), with the same medium on both sides, reflects and transmits
// as light entering it does: its index or the inverse, whichever is above
// 1 (total internal reflection would have it reflect light it transmits).
func (b *BSDF) glassEta() float32 {
	eta := max(b.Eta, 1e-3)
	if eta < 1 && (b.Thin || 1/eta-1 < layout.NullEta) {
		return 1 / eta
	}
	return eta
}

// glassSample samples a visible microfacet normal, then reflects (with the
// Fresnel reflectance's probability, chosen by u) or refracts about it; a
// sheet that transmits at another roughness chooses first, by its
// reflected share of the two lobes' energy (WoTerms' pgr), and samples that
// lobe's normal.
func (b *BSDF) glassSample(wo scene.Vec3, u, u1, u2 float32, l *WoTerms) (scene.Vec3, bool) {
	thin := b.GlassThin()
	if thin {
		if at := b.thinAlpha(); at != b.Alpha {
			if u < l.pgr {
				h := SampleVisibleNormal(wo, b.Alpha, u1, u2)
				r := h.Scale(2 * wo.Dot(h)).Sub(wo)
				return r, r.Z > 0
			}
			h := SampleVisibleNormal(wo, at, u1, u2)
			r := h.Scale(2 * wo.Dot(h)).Sub(wo)
			return scene.Vec3{X: r.X, Y: r.Y, Z: -r.Z}, r.Z > 0
		}
	}
	h := SampleVisibleNormal(wo, b.Alpha, u1, u2)
	cosO := wo.Dot(h)
	eta := b.glassEta()
	r := h.Scale(2 * cosO).Sub(wo)
	// A rough microfacet can send either direction to the wrong side of the
	// surface; such samples are lost (Eval gives those directions to the
	// other branch, so keeping them would break the pdf).
	if _, pr := b.glassFresnel(cosO); u < pr {
		return r, r.Z > 0
	}
	if thin {
		return scene.Vec3{X: r.X, Y: r.Y, Z: -r.Z}, r.Z > 0
	}
	sin2T := (1 - cosO*cosO) / (eta * eta)
	if sin2T >= 1 {
		return scene.Vec3{}, false // total internal reflection; its Fresnel is 1, so u never gets here
	}
	cosT := Sqrt32(1 - sin2T)
	t := wo.Scale(-1 / eta).Add(h.Scale(cosO/eta - cosT))
	return t, t.Z < 0
}
