package job

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sertrace/denoise"
	"sertrace/render"
)

// TestChosenDenoiserSaysDamage: the denoisers Choose gives (render,
// merge and batch jobs', through Write) say what damage they
// repair, a film's included, and leave nothing of it in the image.
func TestChosenDenoiserSaysDamage(t *testing.T) {
	film := render.NewFilmOf(6, 5, render.GuideLayers)
	film.Samples = 1
	for i := range 6 * 5 {
		for c := range 3 {
			film.Sums[render.LayerBeauty].Set(3*i+c, 0.5)
			film.Sums[render.LayerAlbedo].Set(3*i+c, 0.5)
		}
		film.Sums[render.LayerNormal].Set(3*i+2, 1)
		film.Sums[render.LayerDepth].Set(i, 1)
	}
	film.Sums[render.LayerBeauty].Set(3*(2*6+4)+1, -3)
	var notes []string
	written, final, err := Write(context.Background(), film, render.Display{}, []Output{{Path: filepath.Join(t.TempDir(), "b.pfm"), AOV: render.AOVBeauty}},
		Denoise{On: true, Name: "regression", Passes: 1}, "cpu", -1, func(line string) { notes = append(notes, line) })
	if err != nil || len(written) != 2 {
		t.Fatalf("%v, wrote %v", err, written)
	}
	if want := "warning: denoise: 1 of the beauty's 30 pixels is negative (at x=4,y=2: -3): taken as 0"; !slices.Contains(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
	out, _ := final.Resolve(render.AOVBeauty)
	for i, v := range out {
		if !(v >= 0 && v <= 0.5001) {
			t.Fatalf("value %d: %v", i, v)
		}
	}
}

// TestDenoisedFilmKeepsTheNoise: the denoised film shows the noisy render's
// variance (what a later denoiser weighs noise by), and Write writes the
// AOVs, the variance among them, from the film as rendered.
func TestDenoisedFilmKeepsTheNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	film := render.NewFilm(8, 6)
	for range 16 {
		for l := range render.NumLayers {
			vals := make([]float32, render.FilmLayers[l].Channels*48)
			for i := range vals {
				vals[i] = 2 * rng.Float32()
			}
			film.AddPass(l, vals)
		}
		film.Samples++
	}
	// A "denoiser" that returns a flat image: the variance must not follow it.
	flat := func(_ context.Context, in *denoise.Image) ([]float32, error) {
		out := make([]float32, len(in.Beauty))
		for i := range out {
			out[i] = 0.7
		}
		return out, nil
	}
	noisy := film.MeanVariance()
	dir := t.TempDir()
	written, final, err := writeWith(context.Background(), film, render.Display{},
		[]Output{{filepath.Join(dir, "b.pfm"), render.AOVBeauty}, {filepath.Join(dir, "v.pfm"), render.AOVVariance}}, flat)
	if err != nil || len(written) != 3 {
		t.Fatalf("%v, wrote %v", err, written)
	}
	for i, v := range final.MeanVariance() {
		if math.Abs(float64(v-noisy[i])) > 1e-6*max(1, math.Abs(float64(noisy[i]))) {
			t.Fatalf("pixel %d: the denoised film's variance %v, the render's %v", i, v, noisy[i])
		}
	}
	// The variance output is the rendered film's, byte for byte.
	want := filepath.Join(dir, "want.pfm")
	if err := render.WriteAOV(want, film, render.AOVVariance, render.Display{}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(want)
	b, _ := os.ReadFile(filepath.Join(dir, "v.pfm"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("Write's variance output is not the rendered film's")
	}
}
