package cpu

import (
	"math"
	"path/filepath"
	"testing"

	"sertrace/internal/sharedscenes"
	"sertrace/render"
)

// renderWith renders a scene through a worker whose environment sampling is
// importance or uniform, for comparing the two.
func renderWith(t *testing.T, opts render.Options, uniform bool) []float32 {
	t.Helper()
	sc := furnaceScene(lambert(0.8))
	acc := BuildAccel(sc, nil)
	r := newRenderer(sc, acc, opts)
	r.lights.env.uniform = uniform
	w := &worker{r: r}
	film := render.NewFilm(opts.Width, opts.Height)
	w.renderTile(tile{0, 0, opts.Width, opts.Height}, 0, opts.SPP, directOut(film))
	film.Samples = opts.SPP
	pix, _ := film.Resolve(render.AOVBeauty)
	return pix
}

// TestEnvironmentImportanceSampling: lit by the studio HDR, a diffuse sphere
// converges to the same image whether the environment is importance-sampled
// or sampled uniformly, and importance sampling has less noise at equal
// samples (measured as the mean squared difference of two seeds).
func TestEnvironmentImportanceSampling(t *testing.T) {
	p := sharedscenes.Path(t, filepath.Join("EnvironmentHDR", "studio_small_03_1k.hdr"))
	env, err := render.LoadHDR(p)
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 32, Height: 32, SPP: 64, MaxDepth: 2, EnvMap: env}
	type result struct{ mean, mse float64 }
	measure := func(uniform bool) result {
		a := renderWith(t, opts, uniform)
		opts.Seed = 99
		b := renderWith(t, opts, uniform)
		opts.Seed = 0
		var sum, mse float64
		for i := range a {
			sum += float64(a[i] + b[i])
			mse += float64((a[i] - b[i]) * (a[i] - b[i]))
		}
		return result{sum / float64(2*len(a)), mse / float64(len(a))}
	}
	imp, uni := measure(false), measure(true)
	t.Logf("importance: mean %.4f, mse %.5f; uniform: mean %.4f, mse %.5f", imp.mean, imp.mse, uni.mean, uni.mse)
	// The standard error of each mean follows from its measured noise: the
	// mse of two renders is twice a render's per-value variance.
	values := float64(2 * 3 * opts.Width * opts.Height)
	se := math.Sqrt(imp.mse/2/values + uni.mse/2/values)
	if math.Abs(imp.mean-uni.mean) > 4*se+0.002 {
		t.Errorf("the images differ: mean %.4f with importance sampling, %.4f uniform (standard error %.4f)", imp.mean, uni.mean, se)
	}
	if imp.mse > 0.5*uni.mse {
		t.Errorf("importance sampling is not less noisy: mse %.5f vs %.5f", imp.mse, uni.mse)
	}
}
