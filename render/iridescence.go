package render

import (
	"math"
	"sync"

	"sertrace/render/kernel"
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
	film := f.Outside + (f.IOR-f.Outside)*smoothstep(0, 0.03, f.Thickness)
	ratio := f.Outside / film
	sin2 := ratio * ratio * (1 - cos1*cos1)
	if sin2 >= 1 {
		return scene.Vec3{X: 1, Y: 1, Z: 1} // total internal reflection in the film
	}
	cos2 := kernel.Sqrt32(1 - sin2)
	r0 := (film - f.Outside) / (film + f.Outside)
	r0 *= r0
	r12 := r0 + (1-r0)*kernel.Schlick5(cos1)
	t121 := 1 - r12
	var phi12 float32
	if film < f.Outside {
		phi12 = math.Pi
	}
	phi21 := math.Pi - phi12
	opd := 2 * film * f.Thickness * cos2
	s5 := kernel.Schlick5(cos2)
	// Per channel: the base's index from its F0, the second interface's
	// reflectance and phase, and the film's series' terms.
	var r23, phi, r123, rs [3]float32
	for k, f0 := range [3]float32{baseF0.X, baseF0.Y, baseF0.Z} {
		sf0 := kernel.Sqrt32(min(f0+0.0001, 0.9999))
		base := (1 + sf0) / (1 - sf0)
		r1 := (base - film) / (base + film)
		r1 *= r1
		r23[k] = r1 + (1-r1)*s5
		phi[k] = phi21
		if base < film {
			phi[k] += math.Pi
		}
		p := min(max(r12*r23[k], 1e-5), 0.9999)
		r123[k] = kernel.Sqrt32(p)
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
	return scene.Vec3{X: kernel.Clamp01(out[0]), Y: kernel.Clamp01(out[1]), Z: kernel.Clamp01(out[2])}
}

// thinFilmSensitivity is the RGB sensitivity of an optical path difference
// (nm) with per-channel phase shifts (the XYZ Gaussian fits' Fourier
// transforms, layout.IridSens*).
func thinFilmSensitivity(opd float32, shift [3]float32) [3]float32 {
	phase := 2 * math.Pi * float64(opd) * 1e-9
	p2 := phase * phase
	lobe := func(amp, pos, variance, shift float64) float32 {
		return float32(amp * math.Cos(pos*phase+shift) * math.Exp(-p2*variance))
	}
	x := lobe(layout.IridSensAmpX, layout.IridSensPosX, layout.IridSensVarX, float64(shift[0])) +
		lobe(layout.IridSensAmpX2, layout.IridSensPosX2, layout.IridSensVarX2, float64(shift[0]))
	y := lobe(layout.IridSensAmpY, layout.IridSensPosY, layout.IridSensVarY, float64(shift[1]))
	z := lobe(layout.IridSensAmpZ, layout.IridSensPosZ, layout.IridSensVarZ, float64(shift[2]))
	m := func(r int) float32 {
		return float32(layout.XYZToRec709[3*r])*x + float32(layout.XYZToRec709[3*r+1])*y + float32(layout.XYZToRec709[3*r+2])*z
	}
	return [3]float32{m(0), m(1), m(2)}
}

func smoothstep(lo, hi, x float32) float32 {
	t := kernel.Clamp01((x - lo) / (hi - lo))
	return t * t * (3 - 2*t)
}

// Albedo is the directional albedo, seen from μ = cos θo, of a GGX layer
// of roughness² alpha whose Fresnel is the film's: the sum over the bins
// of v·h of their weight times the film's Fresnel at their mean v·h
// (IridescenceBinTable), both read bilinearly.
func (f ThinFilm) Albedo(mu, alpha float32, baseF0 scene.Vec3) scene.Vec3 {
	i, fx := tableCoord(kernel.Sqrt32(mu), layout.AlbedoTableSize)
	j, fy := tableCoord(kernel.Sqrt32(alpha), layout.AlbedoTableSize)
	t := IridescenceBinTable()
	var e scene.Vec3
	for k := range layout.IridBins {
		lerp := func(c int) float32 {
			return (t[i][j][k][c]*(1-fx)+t[i+1][j][k][c]*fx)*(1-fy) + (t[i][j+1][k][c]*(1-fx)+t[i+1][j+1][k][c]*fx)*fy
		}
		w := lerp(0)
		if w <= 0 {
			continue
		}
		e = e.Add(f.Fresnel(lerp(1)/w, baseF0).Scale(w))
	}
	return scene.Vec3{X: min(e.X, 1), Y: min(e.Y, 1), Z: min(e.Z, 1)}
}

// IridescenceBinTable splits the specular table's A = ∫ D·V·cos (Fresnel
// 1) by v·h into layout.IridBins bins, over √μ = √cos θo and √α as the
// specular table: each bin's weight and its weight times its mean v·h.
// Any Fresnel that is a function of v·h then has the albedo Σ w·F(mean),
// exact where F is linear across a bin; the film's Fresnel varies slowly
// in v·h (its sensitivity's Gaussians damp the fast orders), so 16 bins
// hold its albedo to a few thousandths. Made on first use, from stratified
// visible normals as the specular table (64² a cell where it has 32²: the
// bins need more); the GPU receives it after the sheen's.
func IridescenceBinTable() *[layout.AlbedoTableSize][layout.AlbedoTableSize][layout.IridBins][2]float32 {
	iridOnce.Do(func() {
		const samples = 64
		t := &iridTable
		eachTableCell(func(i, j int, wo scene.Vec3) {
			var sums [layout.IridBins][2]float64
			visibleNormalQuadrature(wo, tableAlpha(j), samples, func(vh, w float32) {
				k := min(int(kernel.Clamp01(vh)*layout.IridBins), layout.IridBins-1)
				sums[k][0] += float64(w)
				sums[k][1] += float64(w) * float64(vh)
			})
			for k := range sums {
				t[i][j][k] = [2]float32{float32(sums[k][0] / (samples * samples)), float32(sums[k][1] / (samples * samples))}
			}
		})
	})
	return &iridTable
}

var (
	iridOnce  sync.Once
	iridTable [layout.AlbedoTableSize][layout.AlbedoTableSize][layout.IridBins][2]float32
)
