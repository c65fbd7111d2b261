package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sertrace/render/cpu"
)

// sizeResult is one size's runs of both renderers.
type sizeResult struct {
	Width, Height    int
	Sertrace, Cycles run
}

// compareSizes renders the scene at path at each size (WxH) with sertrace
// (the beauty with the AOVs aovs names in its EXR) and Cycles, one after
// the other in the same run, for their peak memory, render and write
// times and samples per second.
func compareSizes(path, dir string, s settings, sizes []string, aovs, sertrace, blender string) ([]sizeResult, error) {
	var out []sizeResult
	for i, size := range sizes {
		if _, err := fmt.Sscanf(size, "%dx%d", &s.Width, &s.Height); err != nil || s.Width < 1 || s.Height < 1 {
			return nil, fmt.Errorf("-sizes: %q is not WxH", size)
		}
		sub := filepath.Join(dir, fmt.Sprintf("size%d", i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return nil, err
		}
		gltfPath, err := prepare(path, sub, s)
		if err != nil {
			return nil, err
		}
		r := sizeResult{Width: s.Width, Height: s.Height}
		if r.Sertrace, err = runSertrace(sertrace, gltfPath, filepath.Join(sub, "sertrace.exr"), s, aovs); err != nil {
			return nil, err
		}
		if r.Cycles, err = runCycles(blender, cyclesScene(gltfPath), filepath.Join(sub, "cycles.exr"), s); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// reportSizes is compareSizes' results as Markdown.
func reportSizes(scene string, s settings, blender, aovs string, results []sizeResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d spp (Cycles %d), depth %d, %d threads each, on %s; %s; sertrace's EXR holds the beauty, its variance and %s, Cycles' the combined pass\n\n",
		scene, s.SPP, s.CyclesSPP, s.MaxDepth, s.Threads, cpu.ModelName(), blender, orNone(aovs))
	b.WriteString("| size | peak memory, sertrace | peak memory, Cycles (process; its own report) | render s, sertrace / Cycles | write s, sertrace / Cycles | samples/s, sertrace / Cycles | sertrace samples/s against the first size |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %dx%d | %s | %s; %.0f MB | %.2f / %.2f | %.2f / %.2f | %.3g / %.3g | %.2f |\n", r.Width, r.Height,
			mb(r.Sertrace.PeakRSS), mb(r.Cycles.PeakRSS), r.Cycles.OwnPeak, r.Sertrace.Seconds, r.Cycles.Seconds,
			r.Sertrace.WriteSeconds, r.Cycles.WriteSeconds, r.Sertrace.Samples, r.Cycles.Samples, r.Sertrace.Samples/results[0].Sertrace.Samples)
	}
	return b.String()
}

func mb(bytes uint64) string { return fmt.Sprintf("%.0f MB", float64(bytes)/(1<<20)) }

func orNone(s string) string {
	if s == "" {
		return "no AOV"
	}
	return s
}
