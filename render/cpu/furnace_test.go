package cpu

import (
	"strings"
	"testing"

	"sertrace/render/internal/furnace"
)

// TestFurnaces: dense hair, interpenetrating strands, strands sunk into
// meshes and particles, particle clouds and glass under a uniform
// environment of 1 render 1 where nothing is lost and never more than 1
// (internal/furnace says each case and its answer).
func TestFurnaces(t *testing.T) {
	cases, err := furnace.Cases(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			res := furnace.Check(c, renderFilm(t, c.Scene, c.Options))
			t.Logf("mean %.4f ± %.4f, darkest %.4f, brightest %.4f", res.Mean, res.MeanError, res.Min, res.Max)
			for _, p := range res.Problems {
				t.Error(p)
			}
		})
		if strings.Contains(c.Name, "blended sheet") { // any-hit decisions are the tracer's: sertrace's BVH too
			t.Run(c.Name+", bvh", func(t *testing.T) {
				c.Options.Accel = "bvh"
				for _, p := range furnace.Check(c, renderFilm(t, c.Scene, c.Options)).Problems {
					t.Error(p)
				}
			})
		}
	}
}

// TestGlassRouletteByFlux: Russian roulette weighs a path inside glass by
// its flux, not its radiance (which refraction scales by 1/η²), so a path
// through a cloud of glass particles does not come out a firefly. On the
// glass-particle furnace at 32 samples the mean's standard error is 0.006
// (0.0125 when roulette went by radiance).
func TestGlassRouletteByFlux(t *testing.T) {
	cases, err := furnace.Cases(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Name != "particle cloud of "+furnace.Glass(0, false).Name {
			continue
		}
		res := furnace.Check(c, renderFilm(t, c.Scene, c.Options))
		if !(res.MeanError < 0.009) {
			t.Errorf("standard error of the mean %.4f, want under 0.009 (brightest pixel %.2f)", res.MeanError, res.Max)
		}
		return
	}
	t.Fatal("no glass-particle furnace")
}
