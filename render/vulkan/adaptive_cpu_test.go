package vulkan_test

import (
	"context"
	"math"
	"testing"

	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/render/vulkan"
)

// TestAdaptiveMatchesCPU: a render sampled adaptively stops as many
// pixels on every path as on the CPU (the same random streams: nearly the
// same pixels), its image agrees with the CPU's within the noise, and its
// camera rays are the samples its pixels took.
func TestAdaptiveMatchesCPU(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	sc := loadScene(t, "cornell")
	opts := render.Options{Width: 48, Height: 36, SPP: 64, MaxDepth: 4, Seed: 7,
		Adaptive: render.Adaptive{Threshold: 0.025, MinSPP: 16}}
	layers := render.BaseLayers | render.CoverageLayers
	run := func(b render.Backend) (*render.Film, *render.Stats) {
		t.Helper()
		film := opts.NewFilm(opts.Width, opts.Height, layers)
		stats, err := render.Render(context.Background(), b, sc, opts, film, nil)
		if err != nil {
			t.Fatalf("%s: %v", b.Name(), err)
		}
		if err := vulkan.ValidationErrors(); err != nil {
			t.Fatal(err)
		}
		return film, stats
	}
	want, wantStats := run(cpu.Backend{})
	n := opts.Width * opts.Height
	wantStopped := float64(n-want.Active()) / float64(n)
	if wantStopped < 0.1 || wantStopped > 0.9 {
		t.Fatalf("%.0f%% of the CPU's pixels stopped: the test checks little", 100*wantStopped)
	}
	for _, path := range allPaths(t, d) {
		t.Run(path, func(t *testing.T) {
			got, stats := run(onPath(d, path))
			stopped := float64(n-got.Active()) / float64(n)
			differ := 0
			for px := range n {
				if got.SamplesAt(px) != want.SamplesAt(px) {
					differ++
				}
			}
			t.Logf("%.1f%% of the pixels stopped (the CPU's %.1f%%), %.1f samples a pixel (%.1f); %d pixels took other samples than the CPU's",
				100*stopped, 100*wantStopped, stats.Adaptive.MeanSamples, wantStats.Adaptive.MeanSamples, differ)
			if !(math.Abs(stopped-wantStopped) <= 0.03) {
				t.Errorf("%.1f%% of the pixels stopped, the CPU's %.1f%%", 100*stopped, 100*wantStopped)
			}
			if differ > n/20 {
				t.Errorf("%d of %d pixels took other samples than the CPU's", differ, n)
			}
			if taken := int64(got.SamplesTaken()); stats.Rays.Camera != taken {
				t.Errorf("%d camera rays, for %d samples taken", stats.Rays.Camera, taken)
			}
			compareTiles(t, want, got, 8)
			if !(stats.Adaptive.Stopped == n-got.Active()) {
				t.Errorf("the stats say %d pixels stopped, the film %d", stats.Adaptive.Stopped, n-got.Active())
			}
		})
	}
}

// TestSamplesAOVWithoutThreshold: a fixed render asked for the samples
// AOV (its film holds counts, none stopped) renders on the GPU as any
// other, every pixel taking every sample.
func TestSamplesAOVWithoutThreshold(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	sc := loadScene(t, "cornell")
	opts := render.Options{Width: 24, Height: 16, SPP: 4, MaxDepth: 3}
	film := opts.NewFilm(opts.Width, opts.Height, render.LayersFor([]render.AOV{render.AOVSamples}, false))
	if film.StoppedAt == nil {
		t.Fatal("the film holds no counts: the test checks nothing")
	}
	if _, err := render.Render(context.Background(), onPath(d, vulkan.PathRT), sc, opts, film, nil); err != nil {
		t.Fatal(err)
	}
	counts, _ := film.Resolve(render.AOVSamples)
	for px, c := range counts {
		if c != float32(opts.SPP) {
			t.Fatalf("pixel %d took %v samples, want %d", px, c, opts.SPP)
		}
	}
}
