package denoise_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"sertrace/denoise"
	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/scene"
)

func renderCornell(t *testing.T, spp int, seed uint32) *render.Film {
	t.Helper()
	sc, err := scene.Load(filepath.Join("..", "scenes", "cornell.glb"))
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 48, Height: 48, SPP: spp, MaxDepth: 8, Seed: seed}
	film := render.NewFilm(opts.Width, opts.Height)
	if _, err := (cpu.Backend{}).Render(context.Background(), sc, opts, film, nil); err != nil {
		t.Fatal(err)
	}
	return film
}

// TestDenoiserApproachesTheReference: on the Cornell box, the denoised
// 16-spp image is much closer to a 1024-spp reference than the noisy one,
// and at least as close as the noisy 64-spp image (4x the samples).
func TestDenoiserApproachesTheReference(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a 1024-spp reference")
	}
	ref, _ := renderCornell(t, 1024, 100).Resolve(render.AOVBeauty)
	noisy := renderCornell(t, 16, 1)
	n16, _ := noisy.Resolve(render.AOVBeauty)
	n64, _ := renderCornell(t, 64, 2).Resolve(render.AOVBeauty)
	d, err := denoise.Film(noisy, denoise.Defaults)
	if err != nil {
		t.Fatal(err)
	}
	d16, _ := d.Resolve(render.AOVBeauty)
	a, _ := denoise.Film(noisy, denoise.ATrous)
	a16, _ := a.Resolve(render.AOVBeauty)
	if pa := denoise.PSNR(a16, ref); pa < denoise.PSNR(n64, ref) {
		t.Errorf("the à-trous filter's 16-spp image (%.2f dB) is further from the reference than 64 spp", pa)
	}
	p16, p64, pd := denoise.PSNR(n16, ref), denoise.PSNR(n64, ref), denoise.PSNR(d16, ref)
	s16, s64, sd := denoise.SSIM(n16, ref, 48, 48), denoise.SSIM(n64, ref, 48, 48), denoise.SSIM(d16, ref, 48, 48)
	t.Logf("PSNR noisy 16: %.2f dB, noisy 64: %.2f, denoised 16: %.2f; SSIM %.3f, %.3f, %.3f", p16, p64, pd, s16, s64, sd)
	if pd < p64 || sd < s64 || math.IsNaN(pd) {
		t.Errorf("the denoised 16-spp image is further from the reference than the 64-spp one")
	}
}

func TestMetrics(t *testing.T) {
	a := []float32{0.2, 0.4, 0.6, 0.1, 0.1, 0.1}
	if !math.IsInf(denoise.PSNR(a, a), 1) {
		t.Error("an image's PSNR against itself is infinite")
	}
	img := make([]float32, 3*16*16)
	for i := range img {
		img[i] = float32(i%7) / 7
	}
	if s := denoise.SSIM(img, img, 16, 16); math.Abs(s-1) > 1e-9 {
		t.Errorf("SSIM against itself %v", s)
	}
}

func TestDenoiseRefusesMismatchedGuides(t *testing.T) {
	if _, err := denoise.Denoise(&denoise.Image{Width: 2, Height: 2, Beauty: make([]float32, 12)}, denoise.Defaults); err == nil {
		t.Error("missing guides were accepted")
	}
}
