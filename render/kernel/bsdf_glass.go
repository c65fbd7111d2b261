package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

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
