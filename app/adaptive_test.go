package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sertrace/render"
)

// TestNoiseThresholdFromTheCommandLine: --noise-threshold samples
// adaptively: the summary line and --stats say how many samples the
// pixels took and how many stopped; --aov samples writes the count as a
// heatmap and as the EXR's samples.Y layer, which the beauty's pixels
// were divided by; a slice of samples refuses a threshold in one line.
func TestNoiseThresholdFromTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	out, stats := filepath.Join(dir, "a.exr"), filepath.Join(dir, "s.json")
	code, _, errs := runCLI(t, "render", "../scenes/hairy-cornell.glb", "-o", out, "--backend", "cpu", "--res", "48x32",
		"--spp", "64", "--max-depth", "4", "--env-color", "0.3", "--noise-threshold", "0.1", "--min-spp", "8",
		"--aov", "samples", "--stats", stats)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "spp on average (at most 64;") || !strings.Contains(errs, "below noise threshold 0.1") {
		t.Errorf("the summary line does not say what adaptive sampling did: %s", errs)
	}
	var s render.Stats
	b, err := os.ReadFile(stats)
	if err != nil || json.Unmarshal(b, &s) != nil || s.Adaptive == nil {
		t.Fatalf("stats: %v %s", err, b)
	}
	a := s.Adaptive
	if a.Threshold != 0.1 || a.MinSPP != 8 || a.Pixels != 48*32 || a.Stopped == 0 || !(a.MeanSamples > 8 && a.MeanSamples < 64) {
		t.Errorf("adaptive stats %+v", a)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.samples.png")); err != nil {
		t.Errorf("no samples heatmap: %v", err)
	}
	_, _, planes, _ := readEXR(t, out)
	counts := planes["samples.Y"]
	if len(counts) != 48*32 {
		t.Fatalf("the EXR has no samples layer: %d values", len(counts))
	}
	mean, least, most := 0.0, float32(64), float32(0)
	for _, c := range counts {
		mean += float64(c) / float64(len(counts))
		least, most = min(least, c), max(most, c)
	}
	if least != 8 || most != 64 || math.Abs(mean-a.MeanSamples) > 1e-9 {
		t.Errorf("the samples layer: %v..%v, mean %v; the stats' mean %v", least, most, mean, a.MeanSamples)
	}

	code, _, errs = runCLI(t, "render", "../scenes/cornell.glb", "-o", filepath.Join(dir, "s.exr"), "--backend", "cpu", "--res", "8x8",
		"--spp", "8", "--samples", "0:4", "--noise-threshold", "0.1")
	if first, _, _ := strings.Cut(errs, "\n"); code == 0 || !strings.Contains(first, "--noise-threshold: a slice of samples (0:4) cannot be sampled adaptively") {
		t.Errorf("a slice with a threshold: exit %d, %q", code, errs)
	}
}
