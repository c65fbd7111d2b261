package vulkan

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"sertrace/render"
)

// TestSampleBatch: the batch is a divisor of the launch's samples, the
// largest not above what SERTRACE_RT_BATCH asks; automatic, the largest
// that still makes launchThreads invocations; one invocation a pixel in
// the clock variants.
func TestSampleBatch(t *testing.T) {
	for _, c := range []struct {
		spp, pixels, asked int
		clock              bool
		want               int
	}{
		{spp: 6, pixels: 320 * 240, asked: batchAuto, want: 1},     // 460,800 paths: every sample its own
		{spp: 54, pixels: 320 * 240, asked: batchAuto, want: 3},    // 4.1 M paths: 1.4 M invocations of 3
		{spp: 2, pixels: 1920 * 1080, asked: batchAuto, want: 2},   // the pixels alone fill the GPU
		{spp: 7, pixels: 320 * 240, asked: batchAuto, want: 1},     // a prime: 1 or all
		{spp: 64, pixels: 1024 * 1024, asked: batchAuto, want: 64}, // a pixel each is a million
		{spp: 6, pixels: 320 * 240, asked: batchPixel, want: 6},
		{spp: 6, pixels: 320 * 240, asked: 4, want: 3},
		{spp: 6, pixels: 320 * 240, asked: 10, want: 6},
		{spp: 6, pixels: 320 * 240, asked: 1, want: 1},
		{spp: 1, pixels: 320 * 240, asked: batchAuto, want: 1},
		{spp: 6, pixels: 320 * 240, asked: 1, clock: true, want: 6},
	} {
		if got := sampleBatch(c.spp, c.pixels, c.asked, c.clock); got != c.want {
			t.Errorf("%+v: batch %d, want %d", c, got, c.want)
		}
	}
	for v, want := range map[string]int{"": batchAuto, "auto": batchAuto, "pixel": batchPixel, "1": 1, "16": 16} {
		t.Setenv(rtBatchVariable, v)
		if got, err := rtBatchAsked(); err != nil || got != want {
			t.Errorf("%s=%q: %d (%v), want %d", rtBatchVariable, v, got, err, want)
		}
	}
	for _, v := range []string{"0", "-2", "two", "1.5"} {
		t.Setenv(rtBatchVariable, v)
		if _, err := rtBatchAsked(); err == nil || !strings.Contains(err.Error(), rtBatchVariable+"=") {
			t.Errorf("%s=%q: %v, want an error naming it", rtBatchVariable, v, err)
		}
	}
}

// batchCase is a path a test runs, at a sample batch (SERTRACE_RT_BATCH,
// "": automatic).
type batchCase struct{ name, path, batch string }

// batchCases are the paths the device runs, and rt again at one
// invocation a pixel (SERTRACE_RT_BATCH=pixel: the clock variants'
// launches) beside its automatic batch (at a test's sizes, 1).
func batchCases(dev Device) []batchCase {
	var out []batchCase
	for _, path := range []string{PathRT, PathRayQuery, PathRTSorted, PathSER} {
		if dev.Paths[path].Available {
			out = append(out, batchCase{path, path, ""})
		}
		if path == PathRT && dev.Paths[path].Available {
			out = append(out, batchCase{path + " batch pixel", path, "pixel"})
		}
	}
	return out
}

// TestSampleBatchesNeverChangeTheImage: the rt and ser paths trace a
// launch's paths a sample batch an invocation, into slots that the
// resolve sums in sample order, so every batch (one invocation a sample,
// several, a pixel's, automatic) makes the same film to the bit: every
// layer, the light groups (which the closest-hit shaders add into the
// slot of their invocation's path) and Cryptomatte's counts, over a pass
// of 6 samples, one of 4 from sample 6 with a third of the pixels stopped
// (a list of the pixels still sampling, batches of 2 and 4 out of step
// with the first sample) and one of 5 (a prime: 1 or 5). The launches are
// the invocations each batch asks for.
func TestSampleBatchesNeverChangeTheImage(t *testing.T) {
	dev := deviceFor(t, PathRT)
	sc, groups := bulbCornell(t, "lamp")
	opts := render.Options{Width: 20, Height: 15, MaxDepth: 6, Seed: 7, LightGroups: groups,
		Layers: render.AllLayers | render.GroupLayers | render.CoverageLayers, Adaptive: render.Adaptive{Threshold: 0.05, MinSPP: 2}}
	pixels := opts.Width * opts.Height
	const spp = 6
	for _, path := range []string{PathRT, PathSER} {
		if !dev.Paths[path].Available {
			continue
		}
		t.Run(path, func(t *testing.T) {
			b := Backend{Path: path, Device: dev.Index, Validation: os.Getenv("SERTRACE_VULKAN_VALIDATION") != "0"}
			var want *render.Film
			for _, batch := range []string{"pixel", "1", "2", "3", "4", "auto"} {
				t.Setenv(rtBatchVariable, batch)
				s, err := b.Prepare(context.Background(), sc, opts)
				if err != nil {
					t.Fatal(err)
				}
				film := opts.NewFilm(opts.Width, opts.Height, opts.Layers)
				var stats render.Stats
				for _, n := range []int{spp, 4, 5} {
					if n == 4 {
						film.StoppedAt = make([]uint32, pixels)
						for px := range pixels {
							if (px%opts.Width+px/opts.Width)%3 == 0 {
								film.StoppedAt[px] = spp
							}
						}
					}
					if err := s.Pass(context.Background(), film.Samples, n, film, nil); err != nil {
						t.Fatal(err)
					}
					film.Samples += n
					film.SumGroups()
					if err := s.Finish(&stats); err != nil {
						t.Fatal(err)
					}
					if n == spp { // the first pass's launch
						wantBatch := map[string]int{"pixel": spp, "1": 1, "2": 2, "3": 3, "4": 3, "auto": sampleBatch(spp, pixels, batchAuto, false)}[batch]
						t.Logf("batch %s: %d invocations of %d samples", batch, stats.LaunchThreads, stats.SampleBatch)
						if stats.SampleBatch != wantBatch || stats.LaunchThreads != pixels*spp/wantBatch {
							t.Fatalf("batch %s: a launch of %d invocations of %d samples, want %d of %d", batch, stats.LaunchThreads, stats.SampleBatch, pixels*spp/wantBatch, wantBatch)
						}
					}
				}
				s.Close()
				if want == nil {
					want = film
					if m := film.Sums[render.LayerBeauty].Value(3 * (pixels/2 + opts.Width/2)); !(m > 0) {
						t.Fatalf("the middle pixel's red is %v: the test checks nothing", m)
					}
					for g, name := range want.GroupNames {
						if v := want.Groups[g].Floats(); !slices.ContainsFunc(v, func(f float64) bool { return f > 0 }) {
							t.Fatalf("light group %s is black: the test checks nothing of the groups", name)
						}
					}
					continue
				}
				for px := range pixels {
					samePixel(t, film, want, px)
				}
			}
		})
	}
}
