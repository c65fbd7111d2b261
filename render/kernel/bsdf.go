package kernel

import (
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
