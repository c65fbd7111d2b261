package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrjoshuak/go-openexr/exr"

	"sertrace/render"
)

// writeEXR writes a float EXR of width×height holding channels.
func writeEXR(t *testing.T, path string, width, height int, channels map[string][]float32) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := exr.NewScanlineHeader(width, height)
	list := exr.NewChannelList()
	fb := exr.NewFrameBuffer()
	for name, values := range channels {
		list.Add(exr.Channel{Name: name, Type: exr.PixelTypeFloat, XSampling: 1, YSampling: 1})
		fb.Insert(name, exr.NewSliceFromFloat32(values, width, height))
	}
	h.SetChannels(list)
	w, err := exr.NewScanlineWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	w.SetFrameBuffer(fb)
	if err := w.WritePixels(0, height-1); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDenoiseNamesDamagedPixels: an EXR whose beauty holds NaN, infinite
// or negative pixels (or a guide NaN) is denoised with them taken as 0,
// each layer's said in one warning naming the file, the first pixel and
// its value, whichever denoiser runs; the output is finite and not
// negative. A beauty with nothing finite is refused in one line.
func TestDenoiseNamesDamagedPixels(t *testing.T) {
	eachDenoiser(t, testDenoiseNamesDamagedPixels)
}

func testDenoiseNamesDamagedPixels(t *testing.T, denoiser string) {
	const w, h = 8, 8
	dir := t.TempDir()
	plane := func(v float32) []float32 {
		p := make([]float32, w*h)
		for i := range p {
			p[i] = v
		}
		return p
	}
	r, g, b := plane(0.5), plane(0.5), plane(0.5)
	r[5*w+3] = float32(math.NaN())
	g[6*w+1] = float32(math.Inf(1))
	r[7*w+7], g[7*w+7], b[7*w+7] = -1e30, -1e30, -1e30
	in := filepath.Join(dir, "in.exr")
	writeEXR(t, in, w, h, map[string][]float32{"R": r, "G": g, "B": b})
	albedo := filepath.Join(dir, "albedo.exr")
	ar := plane(0.8)
	ar[2] = float32(math.NaN())
	writeEXR(t, albedo, w, h, map[string][]float32{"R": ar, "G": plane(0.8), "B": plane(0.8)})
	out := filepath.Join(dir, "out.exr")
	code, _, errs := runCLI(t, "denoise", in, "--albedo", albedo, "-o", out, "--denoiser", denoiser)
	if code != 0 {
		t.Fatalf("denoise: exit %d %s", code, errs)
	}
	for _, want := range []string{
		"warning: " + in + ": 3 of the beauty's 64 pixels are not finite or negative (the first at x=3,y=5: NaN): taken as 0\n",
		"warning: " + albedo + ": 1 of the albedo's 64 pixels is not finite (at x=2,y=0: NaN): taken as 0\n",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	_, _, got, err := render.ReadEXR(out, "R", "G", "B")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"R", "G", "B"} {
		for i, v := range got[c] {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("pixel %d %s: %v, want a radiance about 0.5", i, c, v)
			}
		}
	}
	nothing := filepath.Join(dir, "nan.exr")
	nan := plane(float32(math.NaN()))
	writeEXR(t, nothing, w, h, map[string][]float32{"R": nan, "G": nan, "B": nan})
	out = filepath.Join(dir, "none.exr")
	code, _, errs = runCLI(t, "denoise", nothing, "-o", out, "--denoiser", denoiser)
	if want := nothing + ": all 64 of the beauty's pixels are not finite (the first at x=0,y=0: NaN): nothing to denoise"; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("an image of NaN: exit %d %q, want 1 and %q", code, errs, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an image of NaN was denoised")
	}
}
