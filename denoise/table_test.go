package denoise_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"sertrace/denoise"
	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/scene"
)

// TestQualityTable prints the denoiser's quality table against long
// references: set SERTRACE_DENOISE_REFERENCES to a folder holding
// cornell-4096.exr and hairy-4096.exr (128×128, rendered with --seed 1000).
// Minutes of rendering, so it never runs by default.
func TestQualityTable(t *testing.T) {
	dir := os.Getenv("SERTRACE_DENOISE_REFERENCES")
	if dir == "" {
		t.Skip("SERTRACE_DENOISE_REFERENCES is not set")
	}
	fmt.Println("| scene | image | PSNR (dB) | SSIM | hair crop PSNR |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, c := range []struct{ scene, ref string }{{"cornell", "cornell-4096.exr"}, {"hairy-cornell", "hairy-4096.exr"}} {
		path := filepath.Join(dir, c.ref)
		if _, err := os.Stat(path); err != nil {
			t.Logf("%s: %v", path, err)
			continue
		}
		w, h, ch, err := render.ReadEXR(path, "R", "G", "B")
		if err != nil {
			t.Fatal(err)
		}
		ref := make([]float32, 3*w*h)
		for i := 0; i < w*h; i++ {
			ref[3*i], ref[3*i+1], ref[3*i+2] = ch["R"][i], ch["G"][i], ch["B"][i]
		}
		sc, err := scene.Load(filepath.Join("..", "scenes", c.scene+".glb"))
		if err != nil {
			t.Fatal(err)
		}
		film := func(spp int) *render.Film {
			opts := render.Options{Width: w, Height: h, SPP: spp, MaxDepth: 8, Seed: uint32(spp)}
			f := render.NewFilm(w, h)
			if _, err := render.Render(context.Background(), (cpu.Backend{}), sc, opts, f, nil); err != nil {
				t.Fatal(err)
			}
			return f
		}
		crop := func(p []float32) []float32 {
			var out []float32
			for y := 52 * h / 128; y < 92*h/128; y++ {
				out = append(out, p[3*(y*w+70*w/128):3*(y*w+116*w/128)]...)
			}
			return out
		}
		row := func(name string, p []float32) {
			fmt.Printf("| %s | %s | %.2f | %.3f | %.2f |\n", c.scene, name, denoise.PSNR(p, ref), denoise.SSIM(p, ref, w, h), denoise.PSNR(crop(p), crop(ref)))
		}
		f16 := film(16)
		p16, _ := f16.Resolve(render.AOVBeauty)
		row("noisy 16 spp", p16)
		d, _ := denoise.Film(context.Background(), f16, denoise.Regression(denoise.Defaults, denoise.RegressCPU))
		pd, _ := d.Resolve(render.AOVBeauty)
		row("denoised 16 spp (regression)", pd)
		for _, passes := range []int{1, 8} {
			net, ok := installedNetwork(t, passes)
			if !ok {
				t.Log("no network weights (sertrace weights fetch): no network rows")
				break
			}
			d, err := denoise.Film(context.Background(), f16, net)
			if err != nil {
				t.Fatal(err)
			}
			pn, _ := d.Resolve(render.AOVBeauty)
			row(fmt.Sprintf("denoised 16 spp (network, %d pass%s)", passes, map[bool]string{true: "es"}[passes > 1]), pn)
		}
		for _, spp := range []int{64, 256} {
			p, _ := film(spp).Resolve(render.AOVBeauty)
			row(fmt.Sprintf("noisy %d spp", spp), p)
		}
	}
}
