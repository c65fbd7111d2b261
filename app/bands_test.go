package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"sertrace/render"
)

// TestBatchJobInBandsWritesWhatRenderWrites: a batch job over its memory
// budget renders in bands, as sertrace render does, and writes the same
// file byte for byte; the contact sheet shows no thumbnail for it (none is
// made) and the next run finds it done. A job over its budget whose
// outputs need the whole film is refused, saying why.
func TestBatchJobInBandsWritesWhatRenderWrites(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // the budget becomes the collector's
	dir := t.TempDir()
	opts := render.Options{Width: 1280, Height: 808}
	layers := render.LayersFor(nil, false)
	band := opts
	band.Height = 16
	runtime.GC()
	budget := fmt.Sprint((render.MemoryNeed(opts, layers, "cpu", false) + render.MemoryNeed(band, layers, "cpu", false)) / 2)
	rendered := filepath.Join(dir, "render.exr")
	runtime.GC()
	code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "-o", rendered, "--backend", "cpu", "--spp", "2", "--res", "1280x808",
		"--max-depth", "2", "--memory-budget", budget)
	if code != 0 || !strings.Contains(errs, "rendering it in bands of") {
		t.Fatalf("render --memory-budget %s: exit %d: %s", budget, code, errs)
	}
	cfg := writeBatch(t, dir, `
output_dir: out
defaults:
  backend: cpu
  spp: 2
  res: 1280x808
  max_depth: 2
  memory_budget: `+budget+`
jobs:
  - name: poster
    scene: SCENES/cornell.glb
    outputs: [beauty.exr]
  - name: both
    scene: SCENES/cornell.glb
    outputs: [beauty.exr, beauty.png]
`)
	runtime.GC()
	code, _, errs = runCLI(t, "batch", cfg)
	if code != 1 || !strings.Contains(errs, "poster: 1280x808 does not fit the memory budget in one film: rendering it in bands of") ||
		!strings.Contains(errs, "a render in bands writes one EXR: outputs: [beauty.exr]") {
		t.Fatalf("batch: exit %d: %s", code, errs)
	}
	want, err := os.ReadFile(rendered)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "out", "poster", "beauty.exr"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && got[i] == want[i] {
			i++
		}
		t.Errorf("the batch job's image (%d bytes) is not the render's (%d bytes): from byte %d, %q vs %q", len(got), len(want), i, got[max(0, i-80):i+40], want[max(0, i-80):i+40])
	}
	_, _, planes, err := render.ReadEXR(rendered, "G")
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, v := range planes["G"] {
		sum += float64(v)
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		t.Errorf("the image in bands sums to %v: black or not finite", sum)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "poster", "thumb.png")); err == nil {
		t.Error("a job rendered in bands has a thumbnail")
	}
	sheet, _ := os.ReadFile(filepath.Join(dir, "out", "summary.html"))
	if strings.Contains(string(sheet), `src="poster/thumb.png"`) {
		t.Error("the contact sheet shows a thumbnail of the job in bands")
	}
	runtime.GC()
	code, _, errs = runCLI(t, "batch", cfg)
	if code != 1 || !strings.Contains(errs, "poster: skipped") {
		t.Errorf("the second run: exit %d: %s", code, errs)
	}
}

// TestBatchJobInBandsContinues: a batch job in bands killed outright
// (kill -9) or interrupted (SIGINT) keeps the bands it wrote whole, the
// status saying which rows; the next run continues from them, and the
// image is byte for byte sertrace render's.
func TestBatchJobInBandsContinues(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	args := []string{"--spp", "16", "--res", "512x512", "--max-depth", "2", "--memory-budget", "8M", "--backend", "cpu", "--accel", "bvh"}
	rendered := filepath.Join(dir, "render.exr")
	cmd, stderr := startCLI(t, append([]string{"render", "../scenes/cornell.glb", "-o", rendered}, args...)...)
	if code := exitOf(t, cmd); code != 0 {
		t.Fatalf("render: exit %d: %s", code, stderr.String())
	}
	want, _ := os.ReadFile(rendered)
	cfg := writeBatch(t, dir, `
output_dir: out
jobs:
  - name: poster
    scene: SCENES/cornell.glb
    outputs: [beauty.exr]
    spp: 16
    res: 512x512
    max_depth: 2
    memory_budget: 8M
    backend: cpu
    accel: bvh
    threads: 1
`)
	out := filepath.Join(dir, "out", "poster", "beauty.exr")
	for _, sig := range []os.Signal{os.Kill, os.Interrupt} {
		cmd, stderr := startCLI(t, "batch", cfg)
		waitFor(t, cmd, "bands", func() bool { return rowsDone(temporaries(out)) >= 32 })
		cmd.Process.Signal(sig)
		code := exitOf(t, cmd)
		if sig == os.Interrupt {
			status, _ := os.ReadFile(filepath.Join(dir, "out", "poster", "status.json"))
			if code != 1 || !strings.Contains(string(status), "interrupted: rows 0..") || !strings.Contains(string(status), "the next run continues from them") {
				t.Fatalf("SIGINT: exit %d, status %s\n%s", code, status, stderr.String())
			}
		}
		cmd, stderr = startCLI(t, "batch", cfg) // a process of its own: the budget is tight
		if code := exitOf(t, cmd); code != 0 || !strings.Contains(stderr.String(), "continuing the render in bands that") {
			t.Fatalf("after %v: exit %d: %s", sig, code, stderr.String())
		}
		got, _ := os.ReadFile(out)
		if !bytes.Equal(got, want) {
			t.Errorf("after %v: the continued image is not sertrace render's", sig)
		}
		if left := temporaries(out); len(left) > 0 {
			t.Errorf("after %v: temporary files left: %v", sig, left)
		}
		os.RemoveAll(filepath.Join(dir, "out"))
	}
}

// TestAdaptiveRenderInBands: an adaptive render too large for one film
// renders in bands to the image it renders in one go: every channel
// equal, the samples layer included, and some pixels stopped.
func TestAdaptiveRenderInBands(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	dir := t.TempDir()
	opts := render.Options{Width: 1280, Height: 808, SPP: 6, Adaptive: render.Adaptive{Threshold: 0.3, MinSPP: 2}}
	layers := render.LayersFor(nil, false) | render.SamplesLayers
	band := opts
	band.Height = 16
	runtime.GC()
	budget := fmt.Sprint((render.MemoryNeed(opts, layers, "cpu", false) + render.MemoryNeed(band, layers, "cpu", false)) / 2)
	args := []string{"render", "../scenes/cornell.glb", "--backend", "cpu", "--spp", "6", "--res", "1280x808", "--max-depth", "2",
		"--noise-threshold", "0.3", "--min-spp", "2", "-o"}
	whole, banded := filepath.Join(dir, "whole.exr"), filepath.Join(dir, "banded.exr")
	if code, _, errs := runCLI(t, append(args, whole)...); code != 0 || strings.Contains(errs, "in bands") {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	runtime.GC()
	if code, _, errs := runCLI(t, append(args, banded, "--memory-budget", budget)...); code != 0 || !strings.Contains(errs, "rendering it in bands of") {
		t.Fatalf("render --memory-budget %s: exit %d: %s", budget, code, errs)
	}
	_, _, want, _ := readEXR(t, whole)
	_, _, got, _ := readEXR(t, banded)
	stopped := 0
	for _, c := range want["samples.Y"] {
		if c < 6 {
			stopped++
		}
	}
	if len(want) != len(got) || stopped == 0 || stopped == len(want["samples.Y"]) {
		t.Fatalf("channels %d and %d; %d pixels stopped", len(want), len(got), stopped)
	}
	for name, w := range want {
		if !slices.Equal(w, got[name]) {
			t.Errorf("%s differs in bands", name)
		}
	}
}
