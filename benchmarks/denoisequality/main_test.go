package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"sertrace/denoise/unet"
	"sertrace/internal/longtest"
	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/scene"
)

// TestQualityTable: against a small reference of the Cornell box (48×48,
// 512 spp), the table has its rows in order, and they say what the full
// table says, loosely: 256 spp is 6 dB closer than 16 spp (about 11 here),
// and the denoised 16-spp image 3 dB closer than the noisy one (about 6). A scene without its reference
// is left out, saying so; a folder without any is an error.
func TestQualityTable(t *testing.T) {
	longtest.Skip(t)
	if testing.Short() {
		t.Skip("renders 850 samples per pixel")
	}
	sc, err := scene.Load("../../scenes/cornell.glb")
	if err != nil {
		t.Fatal(err)
	}
	refs := t.TempDir()
	film := render.NewFilm(48, 48)
	if _, err := render.Render(context.Background(), cpu.Backend{}, sc, render.Options{Width: 48, Height: 48, SPP: 512, MaxDepth: 8, Seed: 1000}, film, nil); err != nil {
		t.Fatal(err)
	}
	if err := render.Write(filepath.Join(refs, "cornell-4096.exr"), film, render.Display{}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var notes []string
	if err := qualityTable(&out, func(s string) { notes = append(notes, s) }, refs, "../../scenes"); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s%s", out.String(), strings.Join(notes, "\n"))
	images := []string{"noisy 16 spp", "denoised 16 spp (regression)", "noisy 64 spp", "noisy 256 spp"}
	if unet.Missing(unet.Dir()) == nil {
		images = append(images[:2], append([]string{"denoised 16 spp (network, 1 pass)", "denoised 16 spp (network, 8 passes)"}, images[2:]...)...)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2+len(images) || lines[0] != "| scene | image | PSNR (dB) | SSIM | hair crop PSNR |" {
		t.Fatalf("%d lines, want the header and %d rows", len(lines), len(images))
	}
	psnr := map[string]float64{}
	for i, line := range lines[2:] {
		var p, ssim, crop float64
		cells := strings.Split(line, " | ")
		_, err := fmt.Sscanf(strings.Join(cells[2:], " "), "%f %f %f |", &p, &ssim, &crop)
		if !strings.HasPrefix(line, "| cornell | "+images[i]+" | ") || err != nil || !(ssim > 0 && ssim <= 1) {
			t.Fatalf("row %d: %q (%v), want cornell's %q", i, line, err, images[i])
		}
		psnr[images[i]] = p
	}
	if psnr["noisy 256 spp"] < psnr["noisy 16 spp"]+6 {
		t.Errorf("noisy 256 spp %.2f dB, 16 spp %.2f: not 6 dB closer", psnr["noisy 256 spp"], psnr["noisy 16 spp"])
	}
	if d := psnr["denoised 16 spp (regression)"]; d < psnr["noisy 16 spp"]+3 {
		t.Errorf("denoised 16 spp %.2f dB, noisy %.2f: not 3 dB closer", d, psnr["noisy 16 spp"])
	}
	if !strings.Contains(strings.Join(notes, "\n"), "hairy-cornell: left out") {
		t.Errorf("notes %q do not say that the hairy Cornell box is left out", notes)
	}
	if err := qualityTable(&out, func(string) {}, t.TempDir(), "../../scenes"); err == nil || !strings.Contains(err.Error(), "holds none of the references") {
		t.Errorf("no references: %v", err)
	}
}
