package vulkan_test

import (
	"strings"
	"testing"

	"sertrace/internal/longtest"
	"sertrace/render"
	"sertrace/render/internal/furnace"
	"sertrace/render/vulkan"
)

// TestFurnaces: the CPU backend's furnaces (internal/furnace), on every GPU
// path, at a quarter of its samples: 1 where nothing is lost, never above 1.
// The quick tests leave out the particle clouds (two minutes a path on
// lavapipe; the CPU's furnaces run them).
func TestFurnaces(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	cases, err := furnace.Cases(0.25)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range gpuPaths(t, d) {
		for _, c := range cases {
			if !longtest.Enabled && strings.HasPrefix(c.Name, "particle cloud") {
				continue
			}
			t.Run(path+"/"+c.Name, func(t *testing.T) {
				res := furnace.Check(c, renderOn(t, onPath(d, path), c.Scene, c.Options))
				t.Logf("mean %.4f ± %.4f, darkest %.4f, brightest %.4f", res.Mean, res.MeanError, res.Min, res.Max)
				for _, p := range res.Problems {
					t.Error(p)
				}
			})
		}
	}
}

// A straight strand drawn as a chain of segments renders as the same strand
// drawn as one segment on every GPU path (furnace.BandsScene: depth 1, lit
// from behind): the intersection shader's strand rule makes the chain one
// tube, as the CPU's does; without it the joints show dark bands.
func TestChainedStrandHasNoBands(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	one, opts := furnace.BandsScene(1)
	chain, _ := furnace.BandsScene(8)
	opts.SPP = 32
	for _, path := range gpuPaths(t, d) {
		t.Run(path, func(t *testing.T) {
			worst, col, mean := furnace.BandColumns(renderOn(t, onPath(d, path), one, opts), renderOn(t, onPath(d, path), chain, opts))
			t.Logf("the strand's columns sum to %.2f on average; the worst column (%d of %d) differs by %.1fσ", mean, col, opts.Width, worst)
			if !(worst <= 5) {
				t.Errorf("column %d of the chained strand differs from the single segment's by %.1fσ: bands at the joints", col, worst)
			}
		})
	}
}

// TestFurnacesAdaptive: the furnaces read 1 (or at most 1) sampled
// adaptively (a noise threshold, pixels checked every few samples from a
// quarter of them): the pixels that stop keep their own samples, and those
// still sampling take theirs alone. The quick tests run rt (every path
// takes two and a half minutes on lavapipe; -tags long runs them).
func TestFurnacesAdaptive(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	cases, err := furnace.Cases(0.25)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range gpuPaths(t, d) {
		stopped := 0
		for _, c := range cases {
			if strings.HasPrefix(c.Name, "particle cloud") {
				continue
			}
			c.Options.Adaptive = render.Adaptive{Threshold: 0.05, MinSPP: max(2, c.Options.SPP/4)}
			t.Run(path+"/"+c.Name, func(t *testing.T) {
				film := renderOn(t, onPath(d, path), c.Scene, c.Options)
				res := furnace.Check(c, film)
				n := film.Width * film.Height
				stopped += n - film.Active()
				t.Logf("mean %.4f ± %.4f, darkest %.4f, brightest %.4f; %d of %d pixels stopped", res.Mean, res.MeanError, res.Min, res.Max, n-film.Active(), n)
				for _, p := range res.Problems {
					t.Error(p)
				}
			})
		}
		if stopped == 0 {
			t.Errorf("%s: no pixel stopped: the test checks nothing adaptive", path)
		}
	}
}
