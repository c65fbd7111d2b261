package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

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
