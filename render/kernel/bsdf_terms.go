package kernel

import (
	"sertrace/render/layout"
	"sertrace/scene"
)

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
