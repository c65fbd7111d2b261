package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"strings"

	"sertrace/render"
	"sertrace/render/cpu"
)

func reportMarkdown(s settings, blender string, results []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CPU: %s, %d threads for both. %s (Cycles, CPU). %dx%d, sertrace %d spp, Cycles %d spp, max depth %d (Cycles: %d bounces), box filter, no adaptive sampling, denoising or clamping",
		cpu.ModelName(), s.Threads, blender, s.Width, s.Height, s.SPP, s.CyclesSPP, s.MaxDepth, s.MaxDepth-1)
	if s.Diffuse {
		b.WriteString(", every material Lambertian but hair's")
	}
	if s.Multiscatter {
		b.WriteString(", Cycles' Principled BSDFs multiscatter GGX")
	}
	if s.Flat {
		b.WriteString(", flat shaded (vertex normals dropped)")
	}
	if s.NoTerminatorOffset {
		b.WriteString(", Cycles' shadow terminator offset 0")
	}
	if s.TwoSidedEmission {
		b.WriteString(", Cycles' emission two-sided")
	}
	if s.NoLights {
		b.WriteString(", punctual lights dropped")
	}
	if s.HairBlack {
		b.WriteString(", hair opaque and black in both")
	}
	if s.HairTubes {
		b.WriteString(", Cycles' strands as triangle tubes")
	}
	if k := s.cyclesScale(); k > 1 {
		fmt.Fprintf(&b, ", Cycles at %d× the resolution, box-filtered down", k)
	}
	fmt.Fprintf(&b, ". Times exclude the scene import: sertrace's BVH build and render, Cycles' render operator (scene sync, BVH, render).\n\n")
	b.WriteString("| scene | sertrace | Cycles | sertrace / Cycles time | mean luminance sertrace / Cycles (±1σ of sertrace's noise) | region ratios, lowest / highest (±1σ of sertrace's noise) |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %.2f s (%s) | %.2f s | %.2f | %.4f / %.4f = %.4f (±%.4f) | %.4f at %v / %.4f at %v (±%.4f) |\n",
			r.Scene, r.SertraceSeconds, r.Tracer, r.CyclesSeconds, r.SertraceSeconds/r.CyclesSeconds,
			r.Mean[0], r.Mean[1], r.MeanRatio, r.MeanError, r.MinRegion, r.MinRegionAt, r.MaxRegion, r.MaxRegionAt, r.RegionError)
	}
	for _, r := range results {
		if len(r.Objects) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s, mean luminance of each object over the middle %.0f%% of its projected bounding sphere's radius:\n\n", r.Scene, 100*objectDisc)
		b.WriteString("| object | pixels | sertrace | Cycles | sertrace / Cycles (±1σ of sertrace's noise) |\n| --- | --- | --- | --- | --- |\n")
		for _, o := range r.Objects {
			fmt.Fprintf(&b, "| %s | %d | %.4f | %.4f | %.4f (±%.4f) |\n", o.Name, o.Pixels, o.Mean[0], o.Mean[1], o.Ratio, o.Error)
		}
	}
	for _, r := range results {
		fmt.Fprintf(&b, "\n%s, luminance ratio per region (%d×%d, top row first; ±1σ of sertrace's noise; the region's share of Cycles' light):\n\n", r.Scene, s.Grid, s.Grid)
		b.WriteString("|" + strings.Repeat(" |", s.Grid) + "\n|" + strings.Repeat(" --- |", s.Grid) + "\n")
		for y, row := range r.Regions {
			b.WriteString("|")
			for x, v := range row {
				fmt.Fprintf(&b, " %.3f ±%.3f, %.0f%% |", v, r.RegionErrors[y][x], 100*r.RegionShares[y][x])
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// writePNG writes an EXR's RGB beside it as an sRGB PNG, to look at,
// scaled by exposure (the same for both renderers' images).
func writePNG(exr string, exposure float64) error {
	w, h, ch, err := render.ReadEXR(exr, "R", "G", "B")
	if err != nil {
		return err
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	enc := func(v float32) uint8 {
		v = min(max(v*float32(exposure), 0), 1)
		if v <= 0.0031308 {
			v *= 12.92
		} else {
			v = 1.055*float32(math.Pow(float64(v), 1/2.4)) - 0.055
		}
		return uint8(v*255 + 0.5)
	}
	for i := 0; i < w*h; i++ {
		img.SetNRGBA(i%w, i/w, color.NRGBA{enc(ch["R"][i]), enc(ch["G"][i]), enc(ch["B"][i]), 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return os.WriteFile(strings.TrimSuffix(exr, ".exr")+".png", buf.Bytes(), 0o644)
}

// writeRatioPNG draws sertrace's luminance over Cycles', both blurred over
// 5×5 pixels against the noise: grey where they agree, red where sertrace is
// brighter and blue where it is darker, full colour at ±10%.
func writeRatioPNG(path string, w, h int, a, b []float64) error {
	blur := func(l []float64, x, y int) float64 {
		var sum float64
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				sum += l[min(max(y+dy, 0), h-1)*w+min(max(x+dx, 0), w-1)]
			}
		}
		return sum
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{40, 40, 40, 255}
			if d := blur(b, x, y); d > 0 {
				t := min(max((blur(a, x, y)/d-1)/0.1, -1), 1)
				c = color.NRGBA{uint8(128 + 127*max(t, 0)), uint8(128 * (1 - math.Abs(t))), uint8(128 + 127*max(-t, 0)), 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
