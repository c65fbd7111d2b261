package kernel

import (
	"math"

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
