package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/scene"
)

func glass(roughness, eta float32, thin bool) BSDF {
	white := scene.Vec3{X: 1, Y: 1, Z: 1}
	b := NewBSDF(white, 0, roughness, 1.5, 1, white)
	b.Transmission, b.Eta, b.Thin = 1, eta, thin
	return b
}

// TestGlassEnergy: with no absorption, what a dielectric interface reflects
// and transmits (transmitted radiance scaled back by η² to flux) adds up to
// one, smooth or rough (what single scattering loses given back, from the
// glass table or, for a sheet, the specular one), entering and leaving, at
// indices near 1 too, in every channel: a thin film over the glass colours
// what it reflects and transmits, and makes no light.
func TestGlassEnergy(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for _, c := range []struct {
		roughness, eta float32
		thin           bool
		film           float32 // the film's share (index 1.8, 500 nm)
	}{{0, 1.5, false, 0}, {0, 1 / 1.5, false, 0}, {0.3, 1.5, false, 0}, {0.6, 1 / 1.5, false, 0}, {0, 1.5, true, 0}, {0.4, 1.5, true, 0},
		{0, 1.5, false, 1}, {0.3, 1.5, false, 0.7}, {0, 1.5, true, 1}, {0.4, 1 / 1.5, false, 1},
		{1, 1.5, false, 0}, {1, 1 / 1.5, false, 0}, {0.8, 2.4, false, 0}, {0.8, 1 / 2.4, false, 0}, {1, 1.5, true, 0}, {0.7, 1.2, true, 0},
		{0.5, 1, false, 0}, {1, 1, true, 0}, {0.5, 1.0005, false, 0}, {0.5, 1.002, false, 0}, {0.5, 1.01, false, 0}, {0.5, 1 / 1.01, false, 0}, {0.5, 1.05, false, 0}} {
		b := glass(c.roughness, c.eta, c.thin)
		b.SetIridescence(c.film, 1.8, 500)
		for _, cosO := range []float64{1, 0.6, 0.2} {
			wo := directionAt(cosO)
			const n = 100000
			var sum [3]float64
			for i := 0; i < n; i++ {
				wi, w, _, ok := b.Sample(wo, rng.Float32(), rng.Float32(), rng.Float32())
				if !ok {
					continue
				}
				for ch := range 3 {
					flux := float64(w.At(ch))
					if wi.Z < 0 && !b.GlassThin() {
						flux *= float64(c.eta * c.eta)
					}
					sum[ch] += flux
				}
			}
			for ch := range 3 {
				e := sum[ch] / n
				if math.Abs(e-1) > 0.01 {
					t.Errorf("roughness %v, eta %v, thin %v, film %v, cos %v: channel %d reflected and transmitted %.4f", c.roughness, c.eta, c.thin, c.film, cosO, ch, e)
				}
			}
		}
	}
}

// TestFilmColoursGlass: a thin film over glass reflects its channels
// differently (interference), where the bare glass reflects grey.
func TestFilmColoursGlass(t *testing.T) {
	b := glass(0.05, 1.5, false)
	wo := scene.Vec3{Z: 1}
	bare, _ := b.Eval(wo, wo)
	b.SetIridescence(1, 1.3, 400)
	filmed, _ := b.Eval(wo, wo)
	if bare.X != bare.Z || !(max(filmed.X, filmed.Y, filmed.Z)-min(filmed.X, filmed.Y, filmed.Z) > 0.2*max(filmed.X, filmed.Y, filmed.Z)) {
		t.Errorf("glass reflects %v bare and %v under a film: no interference colours", bare, filmed)
	}
}

// TestSmoothGlassFollowsFresnel: a smooth interface reflects exactly the
// Fresnel fraction, from outside and from inside (total internal reflection
// beyond the critical angle), and refracts by Snell's law.
func TestSmoothGlassFollowsFresnel(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	for _, eta := range []float32{1.5, 1 / 1.5} {
		b := glass(0, eta, false)
		for _, cosO := range []float64{0.95, 0.7, 0.3} {
			wo := directionAt(cosO)
			want := float64(FresnelDielectric(float32(cosO), eta))
			const n = 50000
			reflected, bent := 0, 0
			for i := 0; i < n; i++ {
				wi, _, _, ok := b.Sample(wo, rng.Float32(), rng.Float32(), rng.Float32())
				if !ok {
					continue
				}
				if wi.Z > 0 {
					reflected++
					continue
				}
				sinO := math.Sqrt(1 - cosO*cosO)
				sinI := math.Sqrt(float64(1 - wi.Z*wi.Z))
				if math.Abs(sinO-float64(eta)*sinI) > 0.01 {
					bent++ // GGX's long tail, even at α = 10⁻³
				}
			}
			if bent > n/100 {
				t.Errorf("eta %v, cos %v: %d of %d refractions break Snell's law", eta, cosO, bent, n)
			}
			got := float64(reflected) / n
			if math.Abs(got-want) > 4*math.Sqrt(want*(1-want)/n)+0.003 {
				t.Errorf("eta %v, cos %v: reflects %.4f, Fresnel says %.4f", eta, cosO, got, want)
			}
		}
	}
}

// TestRoughGlassSamplingChiSquare: reflection and refraction directions
// follow Eval's pdf, entering and leaving, refractive and thin.
func TestRoughGlassSamplingChiSquare(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 76))
	for _, c := range []struct {
		eta  float32
		thin bool
		film float32
	}{{1.5, false, 0}, {1 / 1.5, false, 0}, {1.5, true, 0}, {1.5, false, 1}, {1.5, true, 0.6}, {1.25, true, 0}, {1.1, false, 0}} {
		b := glass(0.5, c.eta, c.thin)
		b.Base = scene.Vec3{X: 0.9, Y: 0.8, Z: 0.7}
		b.SetIridescence(c.film, 1.6, 350)
		wo := directionAt(0.6)
		sphereChiSquare(t, fmt.Sprintf("glass eta %v thin %v film %v", c.eta, c.thin, c.film), func() (scene.Vec3, bool) {
			wi, _, _, ok := b.Sample(wo, rng.Float32(), rng.Float32(), rng.Float32())
			return wi, ok
		}, func(wi scene.Vec3) float32 { _, pdf := b.Eval(wo, wi); return pdf })
	}
}

// TestNullInterfaceIsInvisible: glass of index 1 (or within NullEta of
// it), rough or smooth, thin or refracting, sends every sample straight on
// (but for GGX's tail at MinAlpha, as a smooth glass's, within 0.05 of
// −wo) with a weight of its tint on average: it is not there. Just
// past NullEta (1.002), Walter et al.'s interface bends it a little, by
// what such an index bends, and keeps its energy (TestGlassEnergy).
func TestNullInterfaceIsInvisible(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	tint := scene.Vec3{X: 0.9, Y: 0.6, Z: 0.3}
	for _, c := range []struct {
		roughness, eta float32
		thin           bool
	}{{0, 1, false}, {1, 1, false}, {0.5, 1, true}, {1, 1, true}, {1, 1.0005, false}, {1, 1 / 1.0005, false}, {1, 1.0005, true}} {
		b := glass(c.roughness, c.eta, c.thin)
		b.Base = tint
		for _, cosO := range []float64{1, 0.5, 0.1} {
			wo := directionAt(cosO)
			var sum scene.Vec3
			const n = 20000
			astray := 0 // GGX's tail at MinAlpha, as a smooth glass's
			for range n {
				wi, w, _, ok := b.Sample(wo, rng.Float32(), rng.Float32(), rng.Float32())
				if ok && wi.Add(wo).Length() > 0.05 {
					astray++
				}
				sum = sum.Add(w) // a lost sample (a rare reflection of the tail below) weighs 0
			}
			if astray > n/200 {
				t.Errorf("roughness %v, eta %v, thin %v, cos %v: %d of %d samples over 0.05 from straight on", c.roughness, c.eta, c.thin, cosO, astray, n)
			}
			if mean := sum.Scale(1.0 / n); !close3(mean, tint, 0.01) {
				t.Errorf("roughness %v, eta %v, thin %v, cos %v: mean weight %v, want the tint %v", c.roughness, c.eta, c.thin, cosO, mean, tint)
			}
		}
	}
}
