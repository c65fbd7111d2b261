package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"sertrace/render"
	"sertrace/render/cpu"
)

// qualityRow is one render of an equal-quality comparison: its noise
// against its renderer's converged image (relMSE), its time and their
// product, lower better: the time to a given noise, up to a constant.
type qualityRow struct {
	Scene, Renderer, Mode string
	SPP                   int     // the samples a pixel (adaptive: the most)
	MeanSPP               float64 // the samples a pixel took on average (0: not known, Cycles' adaptive)
	Seconds, RelMSE       float64
	// RefNoise is the part of RelMSE that is the reference's own noise
	// (refNoise), which Noise takes away.
	RefNoise float64
}

// Noise is the render's own relMSE: what was measured less the
// reference's noise (independent of the render's, they add).
func (r qualityRow) Noise() float64 { return max(r.RelMSE-r.RefNoise, 0) }

// referenceSeed is the references' seed, the renders' being 0.
const referenceSeed = 1000

// refNoise is the relMSE a reference of refSPP samples a pixel has
// against the converged image, from a fixed render of spp samples whose
// relMSE against it is measured: a fixed render's relMSE goes as 1/spp,
// and the render's and the reference's add, so measured = c/spp + c/refSPP.
func refNoise(measured float64, spp, refSPP int) float64 {
	return measured / (float64(refSPP)/float64(spp) + 1)
}

// compareQuality renders the scene at path with sertrace at s.SPP and with
// Cycles at s.CyclesSPP with fixed samples, each also with its adaptive
// sampling (noise threshold threshold, at most maxSPP a pixel), and each renderer's
// converged image at refSPP samples a pixel; each render's relMSE is
// against its own renderer's converged image, so the two models'
// differences are not counted as noise (a reference's own noise is: it
// must take far more samples than the renders).
func compareQuality(path, dir string, s settings, sertrace, blender string, refSPP int, threshold float64, maxSPP int) ([]qualityRow, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	gltfPath, err := prepare(path, dir, s)
	if err != nil {
		return nil, err
	}
	scene := filepath.Base(path)
	img := func(name string) string { return filepath.Join(dir, name+".exr") }
	// The references take other samples than the renders (another
	// seed): both renderers' samples nest, so a reference of the same
	// seed would hold a render's samples and hide its noise.
	ref := s
	ref.SPP, ref.CyclesSPP, ref.Seed = refSPP, refSPP, referenceSeed
	if _, err := runSertrace(sertrace, gltfPath, img("sertrace-ref"), ref, "variance"); err != nil {
		return nil, err
	}
	if _, err := runCycles(blender, cyclesScene(gltfPath), img("cycles-ref"), ref); err != nil {
		return nil, err
	}
	st, err := runSertrace(sertrace, gltfPath, img("sertrace"), s, "variance")
	if err != nil {
		return nil, err
	}
	cy, err := runCycles(blender, cyclesScene(gltfPath), img("cycles"), s)
	if err != nil {
		return nil, err
	}
	adaptive := s
	adaptive.CyclesSPP, adaptive.CyclesAdaptive = maxSPP, threshold
	ca, err := runCycles(blender, cyclesScene(gltfPath), img("cycles-adaptive"), adaptive)
	if err != nil {
		return nil, err
	}
	// sertrace's adaptive sampling at the same threshold and the same
	// most samples a pixel.
	adaptive = s
	adaptive.SPP, adaptive.Threshold = maxSPP, threshold
	sa, err := runSertrace(sertrace, gltfPath, img("sertrace-adaptive"), adaptive, "variance")
	if err != nil {
		return nil, err
	}
	mode := fmt.Sprintf("adaptive %g", threshold)
	rows := []qualityRow{
		{scene, "sertrace", "fixed", s.SPP, st.MeanSPP, st.Seconds, 0, 0},
		{scene, "sertrace", mode, maxSPP, sa.MeanSPP, sa.Seconds, 0, 0},
		{scene, "Cycles", "fixed", s.CyclesSPP, float64(s.CyclesSPP), cy.Seconds, 0, 0},
		{scene, "Cycles", mode, maxSPP, 0, ca.Seconds, 0, 0},
	}
	for i, pair := range [][2]string{{"sertrace", "sertrace-ref"}, {"sertrace-adaptive", "sertrace-ref"}, {"cycles", "cycles-ref"}, {"cycles-adaptive", "cycles-ref"}} {
		if rows[i].RelMSE, err = relMSE(img(pair[0]), img(pair[1])); err != nil {
			return nil, err
		}
	}
	for _, i := range []int{0, 2} { // each renderer's reference, from its fixed render
		e := refNoise(rows[i].RelMSE, rows[i].SPP, refSPP)
		rows[i].RefNoise, rows[i+1].RefNoise = e, e
	}
	return rows, nil
}

// relMSE is the mean over pixels and channels of (x − r)² / (r² + 0.01),
// of image path against reference ref: the relative error most renderer
// comparisons report (the 0.01 keeps black pixels from dominating).
func relMSE(path, ref string) (float64, error) {
	w, h, a, err := render.ReadEXR(path, "R", "G", "B")
	if err != nil {
		return 0, err
	}
	rw, rh, b, err := render.ReadEXR(ref, "R", "G", "B")
	if err != nil {
		return 0, err
	}
	if w != rw || h != rh {
		return 0, fmt.Errorf("%s is %dx%d, its reference %s %dx%d", path, w, h, ref, rw, rh)
	}
	var sum float64
	for _, c := range []string{"R", "G", "B"} {
		for i := range w * h {
			x, r := float64(a[c][i]), float64(b[c][i])
			sum += (x - r) * (x - r) / (r*r + 0.01)
		}
	}
	if v := sum / float64(3*w*h); !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v, nil
	}
	return 0, fmt.Errorf("%s against %s: the relMSE is not finite", path, ref)
}

// reportQuality is compareQuality's rows as Markdown, each product also
// against sertrace's of the same scene (lower: less noise for the time).
func reportQuality(s settings, blender string, refSPP int, rows []qualityRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CPU: %s, %d threads for both. %s. %dx%d, max depth %d (Cycles: %d bounces), box filter, no denoising or clamping; references at %d samples a pixel, each renderer's own. relMSE = mean (x − ref)² / (ref² + 0.01) over pixels and channels, measured; the render's own is that less the reference's noise (estimated from the fixed render: relMSE goes as 1/spp), and the product is of it; times exclude the scene import.\n\n",
		cpu.ModelName(), s.Threads, blender, s.Width, s.Height, s.MaxDepth, s.MaxDepth-1, refSPP)
	b.WriteString("| scene | renderer | mode | spp (adaptive: most) | mean spp | seconds | relMSE measured | reference's noise | relMSE | relMSE × seconds | against sertrace's |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	base := map[string]float64{}
	for _, r := range rows {
		if r.Renderer == "sertrace" && r.Mode == "fixed" {
			base[r.Scene] = r.Noise() * r.Seconds
		}
	}
	for _, r := range rows {
		p := r.Noise() * r.Seconds
		mean := "—"
		if r.MeanSPP > 0 {
			mean = fmt.Sprintf("%.1f", r.MeanSPP)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %.2f | %.3g | %.2g | %.3g | %.3g | %.2f |\n", r.Scene, r.Renderer, r.Mode, r.SPP, mean, r.Seconds, r.RelMSE, r.RefNoise, r.Noise(), p, p/base[r.Scene])
	}
	return b.String()
}
