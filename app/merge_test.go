package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sertrace/render"
)

// TestMergedSlicesAreTheRender: a render cut into slices of any sizes,
// rendered apart with other thread counts (so other pass sizes) and merged
// in any order, writes the same bytes as the render in one go, in every
// format; for the hairy Cornell box (triangles, hair, glass) on both CPU
// tracers.
func TestMergedSlicesAreTheRender(t *testing.T) {
	for _, accel := range []string{"bvh", "embree"} {
		t.Run(accel, func(t *testing.T) {
			dir := t.TempDir()
			common := []string{"../scenes/hairy-cornell.glb", "--backend", "cpu", "--accel", accel, "--spp", "11", "--res", "40x30", "--max-depth", "6"}
			code, _, errs := runCLI(t, append([]string{"render", "-o", filepath.Join(dir, "one.exr"), "--threads", "2"}, common...)...)
			if code != 0 {
				if accel == "embree" && strings.Contains(errs, "embree") {
					t.Skip(errs)
				}
				t.Fatalf("render: exit %d: %s", code, errs)
			}
			if code, _, errs := runCLI(t, append([]string{"render", "-o", filepath.Join(dir, "one.pfm"), "--threads", "2"}, common...)...); code != 0 {
				t.Fatalf("render: exit %d: %s", code, errs)
			}
			var parts []string
			for i, s := range []string{"7:4", "0:1", "1:6"} { // out of order
				p := filepath.Join(dir, "part"+string(rune('a'+i))+".exr")
				code, _, errs := runCLI(t, append([]string{"render", "-o", p, "--samples", s, "--threads", "1"}, common...)...)
				if code != 0 {
					t.Fatalf("render --samples %s: exit %d: %s", s, code, errs)
				}
				parts = append(parts, p)
			}
			for _, ext := range []string{".exr", ".pfm"} {
				out := filepath.Join(dir, "merged"+ext)
				if code, _, errs := runCLI(t, append([]string{"merge", "-o", out}, parts...)...); code != 0 {
					t.Fatalf("merge: exit %d: %s", code, errs)
				}
				want, _ := os.ReadFile(filepath.Join(dir, "one"+ext))
				got, _ := os.ReadFile(out)
				if len(want) == 0 || !bytes.Equal(got, want) {
					t.Errorf("merged %s (%d bytes) differs from the render in one go (%d bytes)", ext, len(got), len(want))
				}
			}
			checkNotBlack(t, filepath.Join(dir, "merged.pfm"))
			// The images agree to float32; the sums themselves, float64,
			// agree bit for bit with a slice of every sample.
			whole := filepath.Join(dir, "whole.exr")
			if code, _, errs := runCLI(t, append([]string{"render", "-o", whole, "--samples", "0:11", "--threads", "2"}, common...)...); code != 0 {
				t.Fatalf("render --samples 0:11: exit %d: %s", code, errs)
			}
			want, _, err := render.ReadSlice(whole)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := render.MergeSlices(parts)
			if err != nil {
				t.Fatal(err)
			}
			for l, layer := range render.FilmLayers {
				if !layer.Exact {
					continue
				}
				w, g := &want.Sums[l], &got.Sums[l]
				if !w.Equal(g) {
					t.Fatalf("%s sums: merged and in one go differ", layer.Name)
				}
			}
		})
	}
}

// TestMergeRefusesWhatIsNotOneRender: gaps, overlaps, other settings,
// other sizes and files that are no slices are each refused, naming them.
func TestMergeRefusesWhatIsNotOneRender(t *testing.T) {
	dir := t.TempDir()
	slice := func(name, samples string, extra ...string) string {
		p := filepath.Join(dir, name)
		args := append([]string{"render", "../scenes/cornell.glb", "--backend", "cpu", "--spp", "8", "--res", "16x12", "--samples", samples, "-o", p}, extra...)
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("render %s: exit %d: %s", name, code, errs)
		}
		return p
	}
	a, b, c := slice("a.exr", "0:4"), slice("b.exr", "4:4"), slice("c.exr", "2:4")
	seeded, small := slice("seeded.exr", "4:4", "--seed", "9"), slice("small.exr", "4:4", "--res", "16x8")
	if code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "--backend", "cpu", "--spp", "8", "--res", "16x12", "-o", filepath.Join(dir, "whole.exr")); code != 0 {
		t.Fatal(errs)
	}
	out := filepath.Join(dir, "out.png")
	for _, tc := range []struct {
		slices []string
		want   string
	}{
		{[]string{a}, "samples 4:4 (FIRST:COUNT) of the 8, after " + a + ", are in none of the slices"},
		{[]string{b}, "samples 0:4 (FIRST:COUNT) of the 8, before " + b + ", are in none of the slices"},
		{[]string{a, b, c}, "c.exr (samples 2:4) overlaps"},
		{[]string{a, seeded}, "settings seed 0 against 9"},
		{[]string{a, small}, "16x12 pixels against 16x8"},
		{[]string{a, filepath.Join(dir, "whole.exr")}, "whole.exr is not a slice"},
	} {
		code, _, errs := runCLI(t, append([]string{"merge", "-o", out}, tc.slices...)...)
		if code != 1 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("merge %v: exit %d, %q; want exit 1 and one line saying %q", tc.slices, code, errs, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused merge wrote an image")
	}
	// A merge never writes over one of its slices.
	if code, _, errs := runCLI(t, "merge", "-o", a, a, b); code != 2 || !strings.Contains(errs, "is one of the slices") {
		t.Errorf("merge -o onto a slice: exit %d, %q", code, errs)
	}
	if _, _, err := render.ReadSlice(a); err != nil {
		t.Errorf("the slice was written over: %v", err)
	}
	if code, _, errs := runCLI(t, "merge", "-o", out); code != 2 || !strings.Contains(errs, "SLICE.exr") {
		t.Errorf("merge without slices: exit %d, %q", code, errs)
	}
	for _, tc := range []struct{ args, want string }{
		{"--samples 6:4", "6:4 goes past the 8 samples per pixel"},
		{"--samples 4", "want FIRST:COUNT"},
		{"--samples 0:4 -o x.png", "a slice is written as an EXR"},
		{"--samples 0:4 --denoise", "a slice is not denoised"},
		{"--samples 0:4 --time-budget 1", "no time budget"},
	} {
		args := append([]string{"render", "../scenes/cornell.glb", "--backend", "cpu", "--spp", "8", "--res", "16x12", "-o", filepath.Join(dir, "x.exr")}, strings.Fields(tc.args)...)
		if code, _, errs := runCLI(t, args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("render %s: exit %d, %q; want exit 2 saying %q", tc.args, code, errs, tc.want)
		}
	}
}

// checkNotBlack fails a PFM that is not a lit, finite image.
func checkNotBlack(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w, h int
	var scale float64
	var header int
	for lines := 0; lines < 3; header++ {
		if data[header] == '\n' {
			lines++
		}
	}
	if _, err := fmt.Sscanf(string(data[:header]), "PF\n%d %d\n%g\n", &w, &h, &scale); err != nil || len(data) != header+12*w*h {
		t.Fatalf("%s is not an RGB PFM (%v)", path, err)
	}
	var sum float64
	for i := header; i < len(data); i += 4 {
		v := float64(math.Float32frombits(binary.LittleEndian.Uint32(data[i:])))
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Fatalf("%s has a pixel value %v", path, v)
		}
		sum += v
	}
	if mean := sum / float64(3*w*h); !(mean > 0.01) {
		t.Errorf("%s is black: mean %g", path, mean)
	}
}

// TestEditedSliceIsRefused: a slice copied and its header edited to claim
// other samples (the same bytes' length, so the EXR still reads), or its
// pixels' bytes damaged, is refused by merge, naming the file, instead of
// merged into a wrong image; the slices as written merge.
func TestEditedSliceIsRefused(t *testing.T) {
	dir := t.TempDir()
	common := []string{"../scenes/cornell.glb", "--backend", "cpu", "--accel", "bvh", "--spp", "4", "--res", "16x12", "--max-depth", "3"}
	first := filepath.Join(dir, "first.exr")
	if code, _, errs := runCLI(t, append([]string{"render", "-o", first, "--samples", "0:2"}, common...)...); code != 0 {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(first)
	if !bytes.Contains(b, []byte(`"first":0`)) {
		t.Fatalf("the slice's header has no \"first\":0")
	}
	forged := filepath.Join(dir, "forged.exr")
	os.WriteFile(forged, bytes.Replace(b, []byte(`"first":0`), []byte(`"first":2`), 1), 0o644)
	code, _, errs := runCLI(t, "merge", "-o", filepath.Join(dir, "m.pfm"), first, forged)
	if code != 1 || !strings.Contains(errs, forged) || !strings.Contains(errs, "do not match its checksum") {
		t.Errorf("merging a forged slice: exit %d: %s", code, errs)
	}
	second := filepath.Join(dir, "second.exr")
	if code, _, errs := runCLI(t, append([]string{"render", "-o", second, "--samples", "2:2"}, common...)...); code != 0 {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "merge", "-o", filepath.Join(dir, "m.pfm"), first, second); code != 0 {
		t.Fatalf("merging the slices as written: exit %d: %s", code, errs)
	}
}

// TestMergeOverItsMemoryIsRefused: a merge whose film would pass the memory
// budget is refused in one line before it reads a slice, with a merge's
// advice (it has no --res to make it smaller), and a budget that is not a
// size is a usage error.
func TestMergeOverItsMemoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	slice := filepath.Join(dir, "a.exr")
	if code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "-o", slice, "--backend", "cpu", "--spp", "2", "--samples", "0:2", "--res", "400x300"); code != 0 {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	out := filepath.Join(dir, "m.exr")
	code, _, errs := runCLI(t, "merge", "-o", out, "--memory-budget", "16M", slice)
	if code != 1 || !strings.Contains(errs, "merging "+slice+": a 400x300 merge of 1 slice needs about ") ||
		!strings.Contains(errs, "more than the memory budget of 16 MB (--memory-budget): merge on a machine with more memory, or give a larger --memory-budget") ||
		strings.Contains(errs, "--res") {
		t.Fatalf("merge --memory-budget 16M: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "merge", "-o", out, "--memory-budget", "1K", "--denoise", "--denoiser", "regression", slice); code != 1 ||
		!strings.Contains(errs, "a 400x300 merge of 1 slice, denoised, needs about ") || !strings.Contains(errs, "more than the memory budget of 1 KB (--memory-budget)") {
		t.Errorf("merge --memory-budget 1K --denoise: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the refused merge wrote its image")
	}
	if code, _, errs := runCLI(t, "merge", "-o", out, "--memory-budget", "lots", slice); code != 2 || !strings.Contains(errs, "--memory-budget") {
		t.Errorf("merge --memory-budget lots: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "merge", "-o", out, slice); code != 0 {
		t.Errorf("merge without a budget: exit %d, %s", code, errs)
	}
}
