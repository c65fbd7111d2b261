package denoise_test

import (
	"math/rand/v2"
	"testing"

	"sertrace/denoise"
)

// splitImage is a flat field of pixel-sized particles of four colours,
// half of them glossy, under one light: every particle's diffuse lobe
// reflects an irradiance of 0.3, the glossy ones' specular lobe a
// reflection of 2, a few pixels glow (emission, seen directly), and each
// part's light is a 16-sample estimate whose every sample finds the light
// one time in four. It returns the image and the noiseless beauty.
func splitImage(seed uint64) (*denoise.Image, []float32) {
	const w, h, spp = 64, 64, 16
	n := w * h
	rng := rand.New(rand.NewPCG(seed, 7))
	colours := [][3]float32{{0.8, 0.2, 0.2}, {0.2, 0.7, 0.3}, {0.3, 0.3, 0.9}, {0.9, 0.8, 0.3}}
	img := &denoise.Image{Width: w, Height: h, Beauty: make([]float32, 3*n), Albedo: make([]float32, 3*n),
		Normal: make([]float32, 3*n), Depth: make([]float32, n), Variance: make([]float32, n),
		Diffuse: make([]float32, 3*n), Specular: make([]float32, 3*n), DiffuseAlbedo: make([]float32, 3*n),
		SpecularAlbedo: make([]float32, 3*n), DiffuseVariance: make([]float32, n), SpecularVariance: make([]float32, n)}
	truth := make([]float32, 3*n)
	// noisy is the mean of spp samples that are 0 or 4·v (a light found one
	// time in four), and the variance of that mean.
	noisy := func(v float32) (float32, float32) {
		var hits float32
		for s := 0; s < spp; s++ {
			if rng.IntN(4) == 0 {
				hits++
			}
		}
		return 4 * v * hits / spp, 3 * v * v / spp
	}
	for p := 0; p < n; p++ {
		c := colours[rng.IntN(len(colours))]
		glossy := rng.IntN(2) == 0
		var emit float32
		if rng.IntN(50) == 0 {
			emit = 1.5
		}
		for k := 0; k < 3; k++ {
			i := 3*p + k
			img.DiffuseAlbedo[i] = c[k] * 0.9
			if glossy {
				img.SpecularAlbedo[i] = 0.1
			}
			img.Albedo[i] = c[k]
			d, s := 0.3*img.DiffuseAlbedo[i], 2*img.SpecularAlbedo[i]
			truth[i] = d + s + emit
		}
		// One noise draw per pixel and part, the same in every channel.
		dl, dv := noisy(1)
		sl, sv := noisy(1)
		lumD, lumS := float32(0), float32(0)
		for k, wt := range []float32{0.2126, 0.7152, 0.0722} {
			i := 3*p + k
			img.Diffuse[i] = 0.3 * img.DiffuseAlbedo[i] * dl
			img.Specular[i] = 2 * img.SpecularAlbedo[i] * sl
			img.Beauty[i] = img.Diffuse[i] + img.Specular[i] + emit
			lumD += wt * 0.3 * img.DiffuseAlbedo[i]
			lumS += wt * 2 * img.SpecularAlbedo[i]
		}
		img.DiffuseVariance[p], img.SpecularVariance[p] = dv*lumD*lumD, sv*lumS*lumS
		img.Variance[p] = img.DiffuseVariance[p] + img.SpecularVariance[p]
		img.Normal[3*p+2], img.Depth[p] = 1, 1
	}
	return img, truth
}

func mse(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i] - b[i])
		s += d * d
	}
	return s / float64(len(a))
}

// TestSplitSharesDiffuseLight: with the renderer's diffuse and specular
// split, the diffuse light of particles of many colours is filtered as one
// irradiance, which the whole beauty over one albedo cannot be (a glossy
// particle's reflection stands out of its neighbours' light), so the split
// image ends much closer to the truth; what the camera saw directly (the
// glow) is kept, and no light is lost.
func TestSplitSharesDiffuseLight(t *testing.T) {
	img, truth := splitImage(1)
	split, err := denoise.DenoiseWith(img, denoise.Defaults, denoise.RegressCPU)
	if err != nil {
		t.Fatal(err)
	}
	whole := *img
	whole.Diffuse, whole.Specular, whole.DiffuseAlbedo, whole.SpecularAlbedo = nil, nil, nil, nil
	wholeOut, err := denoise.DenoiseWith(&whole, denoise.Defaults, denoise.RegressCPU)
	if err != nil {
		t.Fatal(err)
	}
	noisy, es, ew := mse(img.Beauty, truth), mse(split, truth), mse(wholeOut, truth)
	t.Logf("squared error: noisy %.5f, whole %.5f, split %.5f", noisy, ew, es)
	if es > 0.5*ew {
		t.Errorf("the split image's error %.5f is not half the whole image's %.5f", es, ew)
	}
	var sum, want float64
	for i := range split {
		sum, want = sum+float64(split[i]), want+float64(img.Beauty[i])
	}
	// The glowing particles keep their glow (1.5), the filtered light on top.
	for p := 0; p < img.Width*img.Height; p++ {
		if i := 3 * p; img.Beauty[i]-img.Diffuse[i]-img.Specular[i] > 1 && split[i] < 1.5 {
			t.Fatalf("pixel %d glowed 1.5 and is %v", p, split[i])
		}
	}
	if r := sum / want; r < 0.99 || r > 1.01 {
		t.Errorf("the split denoiser kept %.4f of the light", r)
	}
}

// TestSplitSizes: a split whose parts are not the image's size is an error.
func TestSplitSizes(t *testing.T) {
	img, _ := splitImage(2)
	img.SpecularAlbedo = img.SpecularAlbedo[:10]
	if _, err := denoise.DenoiseWith(img, denoise.Defaults, denoise.RegressCPU); err == nil {
		t.Error("a short specular albedo was accepted")
	}
}
