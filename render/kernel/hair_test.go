package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/render/layout"
	"sertrace/scene"
)

func f32(v float32) *float32 { return &v }

// newHair is the hair BSDF of a material at offset h, as the shading makes it.
func newHair(p *scene.Hair, h float32) HairBSDF {
	return NewHairBSDF(layout.PackHair(p), h)
}

// hairIntegral integrates f·|cos θ_i| over the sphere on a stratified grid:
// the directional albedo, independent of Sample.
func hairIntegral(b *HairBSDF, wo scene.Vec3) scene.Vec3 {
	const nz, nphi = 400, 800
	var sum scene.Vec3
	for i := 0; i < nz; i++ {
		z := 1 - 2*(float64(i)+0.5)/nz
		r := math.Sqrt(1 - z*z)
		for j := 0; j < nphi; j++ {
			phi := 2 * math.Pi * (float64(j) + 0.5) / nphi
			f, _ := b.Eval(wo, scene.Vec3{X: float32(z), Y: float32(r * math.Sin(phi)), Z: float32(r * math.Cos(phi))})
			sum = sum.Add(f)
		}
	}
	return sum.Scale(float32(4 * math.Pi / (nz * nphi)))
}

// TestHairWhiteFurnace: without absorption the fibre loses nothing, so the
// integral of f·cos over the sphere is 1 for every view and offset (Chiang
// et al.'s furnace test).
func TestHairWhiteFurnace(t *testing.T) {
	for _, beta := range []float32{0.2, 0.3, 0.6} {
		p := scene.Hair{Eumelanin: f32(0), Pheomelanin: f32(0), BetaM: f32(beta), BetaN: f32(beta)}
		for _, h := range []float32{-0.8, 0.5} {
			b := newHair(&p, h)
			for _, sinO := range []float32{-0.6, 0.8} {
				wo := scene.Vec3{X: sinO, Y: 0, Z: Sqrt32(1 - sinO*sinO)}
				if a := hairIntegral(&b, wo); math.Abs(float64(a.Y)-1) > 0.01 {
					t.Errorf("β %v, h %v, sin θo %v: albedo %.4f, want 1", beta, h, sinO, a.Y)
				}
			}
		}
	}
}

// TestHairSamplingMatchesEval: with absorption (so lobe weights and
// attenuations differ), the importance-sampled albedo equals the integral.
func TestHairSamplingMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, h := range []float32{-0.6, 0.4} {
		b := newHair(&scene.Hair{Eumelanin: f32(0.4), Pheomelanin: f32(0.3)}, h)
		wo := scene.Vec3{X: 0.25, Y: 0, Z: Sqrt32(1 - 0.0625)}
		want := hairIntegral(&b, wo)
		const n = 200000
		var sum scene.Vec3
		for i := 0; i < n; i++ {
			if _, w, _, ok := b.Sample(wo, rng.Float32(), rng.Float32(), rng.Float32(), rng.Float32()); ok {
				sum = sum.Add(w)
			}
		}
		got := sum.Scale(1.0 / n)
		for c := 0; c < 3; c++ {
			if math.Abs(float64(got.At(c)-want.At(c))) > 0.01+0.02*float64(want.At(c)) {
				t.Errorf("h %v: sampled albedo %v, integral %v", h, got, want)
			}
		}
	}
}

// TestHairAbsorbs: melanin darkens and colours the fibre as red-brown
// (blue absorbed most), and more melanin absorbs more.
func TestHairAbsorbs(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	albedo := func(eu float32) scene.Vec3 {
		b := newHair(&scene.Hair{Eumelanin: f32(eu)}, 0.2)
		wo := scene.Vec3{X: 0.2, Y: 0, Z: Sqrt32(1 - 0.04)}
		var sum scene.Vec3
		for i := 0; i < 50000; i++ {
			if _, w, _, ok := b.Sample(wo, rng.Float32(), rng.Float32(), rng.Float32(), rng.Float32()); ok {
				sum = sum.Add(w)
			}
		}
		return sum.Scale(1.0 / 50000)
	}
	light, dark := albedo(0.3), albedo(1.3)
	if !(light.X > light.Z && dark.X > dark.Z && Luminance(dark) < Luminance(light) && Luminance(dark) > 0.02) {
		t.Errorf("albedo with eumelanin 0.3: %v, 1.3: %v", light, dark)
	}
}

// TestHairSamplingChiSquare: the directions Sample draws follow Eval's pdf
// over the whole sphere.
func TestHairSamplingChiSquare(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 56))
	for _, h := range []float32{-0.5, 0.3} {
		b := newHair(&scene.Hair{Eumelanin: f32(0.5), BetaM: f32(0.35), BetaN: f32(0.4)}, h)
		wo := scene.Vec3{X: 0.3, Y: 0, Z: Sqrt32(1 - 0.09)}
		sphereChiSquare(t, fmt.Sprintf("hair h %v", h), func() (scene.Vec3, bool) {
			wi, _, _, ok := b.Sample(wo, rng.Float32(), rng.Float32(), rng.Float32(), rng.Float32())
			return wi, ok
		}, func(wi scene.Vec3) float32 { _, pdf := b.Eval(wo, wi); return pdf })
	}
}

// TestHairLobesChiSquare: each path's lobe alone (R, TT, TRT, residual)
// is sampled as its M_p·N_p says, cuticle tilt included.
func TestHairLobesChiSquare(t *testing.T) {
	rng := rand.New(rand.NewPCG(59, 60))
	b := newHair(&scene.Hair{Eumelanin: f32(0.5), BetaM: f32(0.3), BetaN: f32(0.35), Alpha: f32(3)}, 0.3)
	wo := scene.Vec3{X: 0.4, Y: 0, Z: Sqrt32(1 - 0.16)}
	_, gammaT := b.Attenuations(HairSinCosTheta(wo))
	for p := 0; p < 4; p++ {
		sphereChiSquare(t, fmt.Sprintf("lobe %d", p), func() (scene.Vec3, bool) {
			return b.SampleLobe(p, wo, gammaT, rng.Float32(), rng.Float32(), rng.Float32()), true
		}, func(wi scene.Vec3) float32 {
			sinO, cosO := HairSinCosTheta(wo)
			sinI, cosI := HairSinCosTheta(wi)
			return b.Lobe(p, sinO, cosO, sinI, cosI, HairPhiOf(wi)-HairPhiOf(wo), gammaT)
		})
	}
}

// sphereChiSquare bins 400,000 sampled directions over (z, atan2(y, x)) on
// the whole sphere and compares them with the pdf integrated over each bin.
func sphereChiSquare(t *testing.T, name string, sample func() (scene.Vec3, bool), pdf func(scene.Vec3) float32) {
	t.Helper()
	const zBins, phiBins, n, sub = 16, 32, 400000, 12
	var observed [zBins * phiBins]float64
	for i := 0; i < n; i++ {
		wi, ok := sample()
		if !ok {
			continue
		}
		zi := min(int((float64(wi.Z)+1)/2*zBins), zBins-1)
		phi := math.Atan2(float64(wi.Y), float64(wi.X)) + math.Pi
		pi := min(int(phi/(2*math.Pi)*phiBins), phiBins-1)
		observed[zi*phiBins+pi]++
	}
	var chi2, dof, pooledObs, pooledExp float64
	for zi := 0; zi < zBins; zi++ {
		for pi := 0; pi < phiBins; pi++ {
			var integral float64
			for a := 0; a < sub; a++ {
				for c := 0; c < sub; c++ {
					z := -1 + 2*(float64(zi)+(float64(a)+0.5)/sub)/zBins
					phi := (float64(pi)+(float64(c)+0.5)/sub)/phiBins*2*math.Pi - math.Pi
					r := math.Sqrt(1 - z*z)
					integral += float64(pdf(scene.Vec3{X: float32(r * math.Cos(phi)), Y: float32(r * math.Sin(phi)), Z: float32(z)}))
				}
			}
			exp := integral / (sub * sub) * (2.0 / zBins) * (2 * math.Pi / phiBins) * n
			obs := observed[zi*phiBins+pi]
			if exp < 5 {
				pooledObs, pooledExp = pooledObs+obs, pooledExp+exp
				continue
			}
			chi2 += (obs - exp) * (obs - exp) / exp
			dof++
		}
	}
	if pooledExp > 0 {
		chi2 += (pooledObs - pooledExp) * (pooledObs - pooledExp) / pooledExp
		dof++
	}
	if limit := chiSquareQuantile(dof-1, 3.09); chi2 > limit {
		t.Errorf("%s: chi-square %.1f over %v bins exceeds %.1f", name, chi2, dof, limit)
	}
}

// TestHairReflectionIsAMirror: with the other paths absorbed and a narrow
// lobe, light reflected at offset h comes from the mirror direction about
// the fibre's normal there, azimuth −2·asin(h) in the BSDF's frame (the
// frame's y is z × x, the normal at h is (0, −h, √(1−h²))).
func TestHairReflectionIsAMirror(t *testing.T) {
	rng := rand.New(rand.NewPCG(57, 58))
	for _, h := range []float32{-0.6, 0.2, 0.7} {
		b := newHair(&scene.Hair{Eumelanin: f32(8), BetaM: f32(0.1), BetaN: f32(0.1), Alpha: f32(0)}, h)
		wo := scene.Vec3{X: 0, Y: 0, Z: 1}
		var sy, sz float64
		for i := 0; i < 20000; i++ {
			wi, w, _, ok := b.Sample(wo, rng.Float32(), rng.Float32(), rng.Float32(), rng.Float32())
			if ok {
				weight := float64(Luminance(w))
				sy += weight * float64(wi.Y)
				sz += weight * float64(wi.Z)
			}
		}
		got := math.Atan2(sy, sz)
		want := -2 * math.Asin(float64(h))
		if math.Abs(got-want) > 0.05 {
			t.Errorf("h %v: light arrives at azimuth %.3f, the mirror direction is %.3f", h, got, want)
		}
	}
}

// An absorption coefficient given as sigma_a is the one the BSDF uses,
// over the melanins and the colour (as Cycles' absorption parametrisation
// and Blender's melanin, through Cycles' own pigment spectra, give it).
func TestHairSigmaAOverrides(t *testing.T) {
	sigma := scene.Vec3{X: 0.5, Y: 0.9, Z: 1.7}
	col := scene.Vec3{X: 0.5, Y: 0.3, Z: 0.1}
	for _, h := range []*scene.Hair{{SigmaA: &sigma}, {SigmaA: &sigma, Eumelanin: f32(1.3), Color: &col}} {
		if got := ResolveHair(layout.PackHair(h)).SigmaA; got != sigma {
			t.Errorf("%+v: σ_a %v, want %v", h, got, sigma)
		}
	}
	if got := ResolveHair(layout.PackHair(&scene.Hair{Color: &col})).SigmaA; got == col || got == sigma {
		t.Errorf("a colour alone was taken for σ_a: %v", got)
	}
}
