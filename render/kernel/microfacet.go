package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// Sqrt32 is the square root of v, of 0 for v below 0.
func Sqrt32(v float32) float32 {
	return float32(math.Sqrt(float64(max(v, 0))))
}

// Clamp01 is v clamped to [0, 1], 0 for NaN.
func Clamp01(v float32) float32 {
	if !(v > 0) {
		return 0
	}
	return min(v, 1)
}

// SmithV is the height-correlated Smith visibility term, which includes
// the 1 / (4·cos·cos) of the microfacet BRDF.
func SmithV(cosO, cosI, a2 float32) float32 {
	gO := cosI * Sqrt32(cosO*cosO*(1-a2)+a2)
	gI := cosO * Sqrt32(cosI*cosI*(1-a2)+a2)
	return 0.5 / (gO + gI)
}

// SmithG1 is the masking of one direction, for the visible-normal pdf.
func SmithG1(cos, a2 float32) float32 {
	return 2 * cos / (cos + Sqrt32(a2+(1-a2)*cos*cos))
}

// Schlick5 is (1 − cos)⁵, clamped.
func Schlick5(cos float32) float32 {
	m := Clamp01(1 - cos)
	m2 := m * m
	return m2 * m2 * m
}

// GGXDAniso is the anisotropic GGX distribution at the unit half vector h,
// of roughness ax along x and ay along y.
func GGXDAniso(h scene.Vec3, ax, ay float32) float32 {
	x, y := h.X/ax, h.Y/ay
	d := x*x + y*y + h.Z*h.Z
	return 1 / (math.Pi * ax * ay * d * d)
}

// LambdaAniso is Λ of the anisotropic Smith masking for direction w.
func LambdaAniso(w scene.Vec3, ax, ay float32) float32 {
	c2 := w.Z * w.Z
	if c2 <= 0 {
		return 1e30
	}
	x, y := ax*w.X, ay*w.Y
	return (-1 + Sqrt32(1+(x*x+y*y)/c2)) / 2
}

// SheenV is the sheen's visibility term (Neubelt and Pettineo's, as the
// glTF sample renderer has it), which includes the 1/(4·cos·cos).
func SheenV(cosO, cosI float32) float32 {
	return 1 / (4 * (cosI + cosO - cosI*cosO))
}

// GGXD is the GGX normal distribution at the unit half vector h (local).
// The denominator is written with sin² θ = hx² + hy², not 1 − cos² θ, which
// cancels near the peak of a smooth surface's lobe.
func GGXD(h scene.Vec3, a2 float32) float32 {
	d := h.X*h.X + h.Y*h.Y + h.Z*h.Z*a2
	return a2 / (math.Pi * d * d)
}

// SmithLambda is Λ of the Smith GGX masking function for direction w.
func SmithLambda(w scene.Vec3, a2 float32) float32 {
	c2 := w.Z * w.Z
	if c2 <= 0 {
		return 1e30
	}
	tan2 := (1 - c2) / c2
	return (-1 + Sqrt32(1+a2*tan2)) / 2
}

// SmithG2 is the height-correlated masking-shadowing of wo and wi.
func SmithG2(wo, wi scene.Vec3, a2 float32) float32 {
	return 1 / (1 + SmithLambda(wo, a2) + SmithLambda(wi, a2))
}

// ClampF is v clamped to [lo, hi].
func ClampF(v, lo, hi float32) float32 { return min(max(v, lo), hi) }

// FresnelDielectric is the exact unpolarised Fresnel reflectance for a
// cosine cosI on the side of index 1, eta the other side's (light from
// inside, cosI < 0, sees the inverse index).
func FresnelDielectric(cosI, eta float32) float32 {
	cosI = min(max(cosI, -1), 1)
	if cosI < 0 {
		eta = 1 / eta
		cosI = -cosI
	}
	sin2T := (1 - cosI*cosI) / (eta * eta)
	if sin2T >= 1 {
		return 1
	}
	cosT := Sqrt32(1 - sin2T)
	rPar := (eta*cosI - cosT) / (eta*cosI + cosT)
	rPerp := (cosI - eta*cosT) / (cosI + eta*cosT)
	return (rPar*rPar + rPerp*rPerp) / 2
}

// CharlieD is the Charlie sheen distribution (Estevez and Kulla,
// "Production Friendly Microfacet Sheen BRDF", 2017) at a half vector
// whose cosine with the normal is cosH, for α = roughness².
func CharlieD(cosH, alpha float32) float32 {
	inv := 1 / alpha
	sin2 := max(1-cosH*cosH, 0)
	return (2 + inv) * float32(math.Pow(float64(sin2), float64(0.5*inv))) / (2 * math.Pi)
}

// MultipleScattering is the factor by which a GGX lobe of
// single-scattering albedo a (Fresnel 1) is scaled up for its light that
// scatters more than once, whose Fresnel is fms
// (kernel.MultipleScatteringFresnel).
func MultipleScattering(a, fms float32) float32 {
	if !(a > 0) {
		return 1
	}
	return 1 + fms*(1-a)/a
}

// ThinTransmissionAlpha is the roughness² a thin sheet of index eta
// transmits with: a sheet of index 1 is not there and blurs nothing, so
// the roughness is scaled by clamp(2·(η − 1), 0, 1), as the glTF sample
// renderer scales it (η or 1/η, whichever is above 1), at least MinAlpha.
func ThinTransmissionAlpha(alpha, eta float32) float32 {
	if eta < 1 {
		eta = 1 / eta
	}
	s := min(max(2*(eta-1), 0), 1)
	return max(alpha*s*s, layout.MinAlpha)
}

// SheenAlpha is the Charlie α of a sheen roughness: its square, at least
// layout.SheenMinAlpha.
func SheenAlpha(roughness float32) float32 { return max(roughness*roughness, layout.SheenMinAlpha) }

// ProjectedAlpha is the roughness² of anisotropic GGX (ax along x, ay
// along y) seen in the azimuth of w (in the anisotropy's frame), what its
// masking of w is a function of. A film over an anisotropic layer reads
// its isotropic bins there, scaled to the layer's A: an approximation,
// lossless to 0.006 but at grazing angles (1.4% lost at cos 0.05).
func ProjectedAlpha(w scene.Vec3, ax, ay float32) float32 {
	r2 := w.X*w.X + w.Y*w.Y
	if r2 <= 0 {
		return ay
	}
	return Sqrt32((w.X*w.X*ax*ax + w.Y*w.Y*ay*ay) / r2)
}

// AboutNormal is the unit vector h in a frame about the unit normal n, as
// much as an isotropic D needs of it: its sine and cosine.
func AboutNormal(h, n scene.Vec3) scene.Vec3 {
	if n == (scene.Vec3{Z: 1}) {
		return h
	}
	return scene.Vec3{X: h.Cross(n).Length(), Z: n.Dot(h)}
}

// FoldUp mirrors a reflection that a rough lobe's visible normal sends
// below the surface (local +Z) up through it, where losing it would end
// the path: GGX at roughness 1 sends half its samples there, and a path
// that keeps the other half at twice the weight (the multiple-scattering
// compensation's) makes fireflies. Eval's pdf adds the density of the
// mirrored direction's half vector.
func FoldUp(w scene.Vec3) scene.Vec3 {
	if w.Z < 0 {
		w.Z = -w.Z
	}
	return w
}

// IORToF0 is the reflectance at normal incidence of an interface of
// relative index eta.
func IORToF0(eta float32) float32 {
	r := (eta - 1) / (eta + 1)
	return r * r
}

// SchlickAlbedo is the directional albedo of a GGX layer with Schlick's
// Fresnel from f0 to f90, given the tabulated integrals a and s.
func SchlickAlbedo(f0 scene.Vec3, f90, a, s float32) scene.Vec3 {
	return scene.Vec3{X: schlickAlbedo1(f0.X, f90, a, s), Y: schlickAlbedo1(f0.Y, f90, a, s), Z: schlickAlbedo1(f0.Z, f90, a, s)}
}

// schlickAlbedo1 is one channel of SchlickAlbedo.
func schlickAlbedo1(f0, f90, a, s float32) float32 { return min(f0*a+(f90-f0)*s, 1) }
