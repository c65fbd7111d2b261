package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// ThinFilm is KHR_materials_iridescence's film: its index, its thickness
// in nanometres, and the index of the medium above it (1, or the coat's).
type ThinFilm struct {
	Outside, IOR, Thickness float32
}

// Fresnel is the film's reflectance at cos θ1 = v·h over a base whose
// reflectance at normal incidence is baseF0: the extension's approximation
// of Belcour and Barla's model (Schlick's Fresnel at both interfaces, phase
// shifts of 0 or π, the first two orders of the analytic spectral
// integration), clamped to [0, 1] so that the film never makes light.
func (f ThinFilm) Fresnel(cos1 float32, baseF0 scene.Vec3) scene.Vec3 {
	// A film of no thickness is the medium above it.
	film := f.Outside + (f.IOR-f.Outside)*Smoothstep(0, 0.03, f.Thickness)
	ratio := f.Outside / film
	sin2 := ratio * ratio * (1 - cos1*cos1)
	if sin2 >= 1 {
		return scene.Vec3{X: 1, Y: 1, Z: 1} // total internal reflection in the film
	}
	cos2 := Sqrt32(1 - sin2)
	r0 := (film - f.Outside) / (film + f.Outside)
	r0 *= r0
	r12 := r0 + (1-r0)*Schlick5(cos1)
	t121 := 1 - r12
	var phi12 float32
	if film < f.Outside {
		phi12 = math.Pi
	}
	phi21 := math.Pi - phi12
	opd := 2 * film * f.Thickness * cos2
	s5 := Schlick5(cos2)
	// Per channel: the base's index from its F0, the second interface's
	// reflectance and phase, and the film's series' terms.
	var r23, phi, r123, rs [3]float32
	for k, f0 := range [3]float32{baseF0.X, baseF0.Y, baseF0.Z} {
		sf0 := Sqrt32(min(f0+0.0001, 0.9999))
		base := (1 + sf0) / (1 - sf0)
		r1 := (base - film) / (base + film)
		r1 *= r1
		r23[k] = r1 + (1-r1)*s5
		phi[k] = phi21
		if base < film {
			phi[k] += math.Pi
		}
		p := min(max(r12*r23[k], 1e-5), 0.9999)
		r123[k] = Sqrt32(p)
		rs[k] = t121 * t121 * r23[k] / (1 - p)
	}
	var out [3]float32
	cm := [3]float32{rs[0] - t121, rs[1] - t121, rs[2] - t121}
	for k := range out {
		out[k] = r12 + rs[k]
	}
	for m := float32(1); m <= 2; m++ {
		sm := thinFilmSensitivity(m*opd, [3]float32{m * phi[0], m * phi[1], m * phi[2]})
		for k := range out {
			cm[k] *= r123[k]
			out[k] += cm[k] * 2 * sm[k]
		}
	}
	return scene.Vec3{X: Clamp01(out[0]), Y: Clamp01(out[1]), Z: Clamp01(out[2])}
}

// thinFilmSensitivity is the RGB sensitivity of an optical path difference
// (nm) with per-channel phase shifts (the XYZ Gaussian fits' Fourier
// transforms, layout.IridSens*). The cosines' arguments reach 150 radians,
// which the GPU brings to [−π, π] first (math.Cos is gomath.glsl's cosGo).
func thinFilmSensitivity(opd float32, shift [3]float32) [3]float32 {
	phase := 2 * math.Pi * float64(opd) * 1e-9
	p2 := phase * phase
	x := thinFilmLobe(layout.IridSensAmpX, layout.IridSensPosX, layout.IridSensVarX, phase, p2, float64(shift[0])) +
		thinFilmLobe(layout.IridSensAmpX2, layout.IridSensPosX2, layout.IridSensVarX2, phase, p2, float64(shift[0]))
	y := thinFilmLobe(layout.IridSensAmpY, layout.IridSensPosY, layout.IridSensVarY, phase, p2, float64(shift[1]))
	z := thinFilmLobe(layout.IridSensAmpZ, layout.IridSensPosZ, layout.IridSensVarZ, phase, p2, float64(shift[2]))
	return [3]float32{xyzToRec709Row(0, x, y, z), xyzToRec709Row(1, x, y, z), xyzToRec709Row(2, x, y, z)}
}

// thinFilmLobe is one Gaussian lobe's Fourier transform at a phase.
func thinFilmLobe(amp, pos, variance, phase, p2, shift float64) float32 {
	return float32(amp * math.Cos(pos*phase+shift) * math.Exp(-p2*variance))
}

// xyzToRec709Row is row r of XYZ to linear Rec. 709 applied to x, y, z.
func xyzToRec709Row(r int, x, y, z float32) float32 {
	return float32(layout.XYZToRec709[3*r])*x + float32(layout.XYZToRec709[3*r+1])*y + float32(layout.XYZToRec709[3*r+2])*z
}

// Smoothstep is GLSL's smoothstep: 0 below lo, 1 above hi, a cubic between.
func Smoothstep(lo, hi, x float32) float32 {
	t := Clamp01((x - lo) / (hi - lo))
	return t * t * (3 - 2*t)
}
