package vulkan

import (
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"testing"

	"sertrace/render"
	"sertrace/scene"
)

// TestStoppedPixelsTakeNothing: on every path, a film whose pixels stop
// after a first pass (8×8 blocks in a checkerboard, scattered single
// pixels, and a band of whole rows) takes a second pass on the others
// alone: the stopped pixels' sums (every layer, the light groups, the
// Cryptomatte counts) are unchanged bit for bit, the others' are bit for
// bit those of the same two passes with no pixel stopped, and the second
// pass's rays are the sampled pixels' alone. The same in launches of a
// few rows, where the launches of the pixels still sampling
// take more rows, and fewer launches, than those of every pixel.
func TestStoppedPixelsTakeNothing(t *testing.T) {
	dev := deviceFor(t, PathRT)
	sc, groups := bulbCornell(t, "lamp")
	opts := render.Options{Width: 40, Height: 54, SPP: 8, MaxDepth: 6, Seed: 5, LightGroups: groups,
		Adaptive: render.Adaptive{Threshold: 0.05, MinSPP: 2}}
	layers := render.AllLayers | render.GroupLayers | render.CoverageLayers
	const first, second = 2, 3 // the passes' samples
	stopped := func(x, y int) bool {
		switch {
		case y >= 24 && y < 37: // whole rows
			return true
		case (x*7+y*13)%11 == 0: // single pixels
			return true
		}
		return (x/8+y/8)%2 == 0
	}
	for _, c := range batchCases(dev) {
		path := c.path
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(rtBatchVariable, c.batch)
			defer func() { deviceMemoryForTests = 0 }()
			b := Backend{Path: path, Device: dev.Index, Validation: os.Getenv("SERTRACE_VULKAN_VALIDATION") != "0"}
			for _, fewRows := range []bool{false, true} {
				deviceMemoryForTests = 0
				if fewRows {
					deviceMemoryForTests = memoryForRows(opts, layers, path, 7)
				}
				// Two sessions, one whose film's pixels stop after the
				// first pass, one whose do not.
				var rays [2][2]render.RayCounts
				var launches [2][2]int
				var films [2]*render.Film
				var before *render.Film // the film to stop, after the first pass
				for i := range films {
					o := opts
					o.Layers = layers
					s, err := b.Prepare(context.Background(), sc, o)
					if err != nil {
						t.Fatal(err)
					}
					film := o.NewFilm(o.Width, o.Height, layers)
					for p, n := range []int{first, second} {
						if p == 1 && i == 0 {
							before = copyFilm(film)
							film.StoppedAt = make([]uint32, o.Width*o.Height)
							for px := range film.StoppedAt {
								if stopped(px%o.Width, px/o.Width) {
									film.StoppedAt[px] = first
								}
							}
						}
						if err := s.Pass(context.Background(), film.Samples, n, film, nil); err != nil {
							t.Fatal(err)
						}
						film.Samples += n
						film.SumGroups()
						var stats render.Stats
						if err := s.Finish(&stats); err != nil {
							t.Fatal(err)
						}
						rays[i][p], launches[i][p] = stats.Rays, stats.Launches
						if fewRows && stats.LaunchRows >= 8 {
							t.Fatalf("memory for 7 rows: launches of %d rows", stats.LaunchRows)
						}
					}
					s.Close()
					films[i] = film
				}
				got, want := films[0], films[1]
				active := got.Active()
				if active == 0 || active > got.Width*got.Height/2 {
					t.Fatalf("%d pixels still sample: the test checks little", active)
				}
				var stoppedRays, wantRays int64 // the second pass's, without a stop
				for px := range got.Width * got.Height {
					ref := want
					if got.Stopped(px) {
						ref = before
					}
					samePixel(t, got, ref, px)
					if d := want.Sums[render.LayerCost].Value(px) - before.Sums[render.LayerCost].Value(px); !got.Stopped(px) {
						wantRays += int64(d)
					} else {
						stoppedRays += int64(d)
					}
				}
				masked, whole := rays[0][1], rays[1][1]
				masked.Camera -= rays[0][0].Camera
				masked.Extension -= rays[0][0].Extension
				masked.Shadow -= rays[0][0].Shadow
				if masked.Camera != int64(active*second) || masked.Total() != wantRays || whole.Total()-rays[1][0].Total() != wantRays+stoppedRays {
					t.Errorf("the second pass traced %+v (%d rays), want %d camera rays and %d in all", masked, masked.Total(), active*second, wantRays)
				}
				l0, l1 := launches[0][1]-launches[0][0], launches[1][1]-launches[1][0]
				t.Logf("few rows %v: %d of %d pixels still sample; the second pass in %d launches (%d with every pixel sampling)", fewRows, active, got.Width*got.Height, l0, l1)
				if fewRows && !(l0 < l1) {
					t.Errorf("%s launched the pixels still sampling in %d launches, every pixel in %d", path, l0, l1)
				}
			}
			if verr := ValidationErrors(); verr != nil {
				t.Fatal(verr)
			}
		})
	}
}

// memoryForRows is the device memory left, in each heap, that holds
// launches of about rows rows of a render of opts into layers on path,
// its light groups', Cryptomatte IDs' and list of pixels still sampling
// counted.
func memoryForRows(opts render.Options, layers render.Layers, path string, rows int) uint64 {
	opts.Layers = layers
	groups, _ := renderExtras(opts)
	_, _, floats := filmLayout(layers, false, 1, groups)
	wave := isWavefront(path)
	maxPass := passSamples(opts, wave)
	row := uint64(opts.Width) * (4*uint64(floats) + idBytes*uint64(maxPass) + activeBytes + slotBytes(wave, groups)*uint64(maxPass))
	return uint64(rows)*row/9*10 + row
}

// copyFilm is a copy of a film's sums, light groups and Cryptomatte
// counts.
func copyFilm(f *render.Film) *render.Film {
	c := *f
	for l := range c.Sums {
		s := &c.Sums[l]
		s.Fixed, s.Narrow, s.Plain = slices.Clone(s.Fixed), slices.Clone(s.Narrow), slices.Clone(s.Plain)
		s.High = cloneMap(s.High)
	}
	c.Groups = slices.Clone(c.Groups)
	for g := range c.Groups {
		s := &c.Groups[g]
		s.Fixed, s.High = slices.Clone(s.Fixed), cloneMap(s.High)
	}
	if f.Coverage != nil {
		more := map[int][]uint64{}
		for px, counts := range f.Coverage.More {
			more[px] = slices.Clone(counts)
		}
		c.Coverage = &render.Coverage{Dense: slices.Clone(f.Coverage.Dense), More: more, Cryptomatte: f.Coverage.Cryptomatte}
	}
	return &c
}

func cloneMap[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return nil
	}
	c := make(M, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// samePixel holds pixel px of got to want's, bit for bit: every layer's
// sums, the light groups' and the Cryptomatte counts.
func samePixel(t *testing.T, got, want *render.Film, px int) {
	t.Helper()
	same := func(a, b *render.LayerSums, channels int) bool {
		for i := channels * px; i < channels*(px+1); i++ {
			if sumBits(a, i) != sumBits(b, i) {
				return false
			}
		}
		return true
	}
	for l, info := range render.FilmLayers {
		if got.Has(render.Layer(l)) && !same(&got.Sums[l], &want.Sums[l], info.Channels) {
			t.Fatalf("pixel %d (stopped %v): the %s layer is %v, want %v", px, got.Stopped(px), info.Name,
				got.Sums[l].Value(info.Channels*px), want.Sums[l].Value(info.Channels*px))
		}
	}
	for g := range want.Groups {
		if !same(&got.Groups[g], &want.Groups[g], 3) {
			t.Fatalf("pixel %d (stopped %v): light group %s differs", px, got.Stopped(px), want.GroupNames[g])
		}
	}
	a, b := got.Coverage.Pixel(px, nil), want.Coverage.Pixel(px, nil)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Fatalf("pixel %d (stopped %v): counts %x, want %x", px, got.Stopped(px), a, b)
	}
}

// sumBits is element i of a layer's sums as it holds them.
func sumBits(s *render.LayerSums, i int) [3]int64 {
	var b [3]int64
	b[0] = s.High[i]
	switch {
	case s.Plain != nil:
		b[1] = int64(math.Float64bits(s.Plain[i]))
	case s.Narrow != nil:
		b[1] = int64(s.Narrow[i])
	default:
		b[1] = s.Fixed[i]
	}
	return b
}

// BenchmarkStoppedPixels times, on every path, a pass of 8 samples of a
// film whose pixels mostly stopped (an adaptive render's at its end)
// against the same pass of every pixel, one after the other in each
// iteration (the machine's other load falls on both): stopped-ms and
// every-ms are the device's milliseconds a pass, stopped/every their
// ratio. The scenes: the Cornell box (its walls stop) and strands against
// a white environment (the environment's pixels stop at the first check).
func BenchmarkStoppedPixels(b *testing.B) {
	dev := deviceFor(b, PathRT)
	for _, name := range []string{"cornell", "strands"} {
		sc, err := scene.Load("../../scenes/" + name + ".glb")
		if err != nil {
			b.Fatal(err)
		}
		opts := render.Options{Width: 64, Height: 48, SPP: 64, MaxDepth: 8, Seed: 1,
			Adaptive: render.Adaptive{Threshold: 0.05, MinSPP: 16}}
		if name == "strands" {
			opts.EnvColor = [3]float32{1, 1, 1}
		}
		for _, path := range []string{PathRT, PathRayQuery, PathRTSorted, PathSER} {
			if !dev.Paths[path].Available {
				continue
			}
			b.Run(name+"/"+path, func(b *testing.B) {
				be := Backend{Path: path, Device: dev.Index}
				film := opts.NewFilm(opts.Width, opts.Height, render.BaseLayers)
				if _, err := render.Render(context.Background(), be, sc, opts, film, nil); err != nil {
					b.Fatal(err)
				}
				stoppedAt := film.StoppedAt
				s, err := be.Prepare(context.Background(), sc, opts)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				var gpu [2]float64
				var rays [2]int64
				pass := func(k int, stopped []uint32) {
					var before, after render.Stats
					film.StoppedAt = stopped
					err := errors.Join(s.Finish(&before), s.Pass(context.Background(), opts.SPP, 8, film, nil), s.Finish(&after))
					if err != nil {
						b.Fatal(err)
					}
					gpu[k] += after.GPUSeconds - before.GPUSeconds
					rays[k] += after.Rays.Total() - before.Rays.Total()
				}
				pass(0, stoppedAt) // the pipelines warm
				pass(1, nil)
				gpu, rays = [2]float64{}, [2]int64{}
				b.ResetTimer()
				for range b.N {
					pass(0, stoppedAt)
					pass(1, nil)
				}
				n := float64(b.N)
				b.ReportMetric(1e3*gpu[0]/n, "stopped-ms")
				b.ReportMetric(1e3*gpu[1]/n, "every-ms")
				b.ReportMetric(gpu[0]/gpu[1], "stopped/every")
				b.ReportMetric(float64(rays[0])/float64(rays[1]), "rays-stopped/every")
				film.StoppedAt = stoppedAt
				b.ReportMetric(100*(1-float64(film.Active())/float64(opts.Width*opts.Height)), "%stopped")
			})
		}
	}
}

// TestAdaptiveRenderCutAndResumed: an adaptive render in launches of a
// few rows, its device lost at its last launch (a pass with stopped
// pixels, cut short where it has launches done), then resumed, is the
// render made in one go, bit for bit, stopped pixels and all, on every
// path: a cut pass's launches leave out the pixels it holds already.
func TestAdaptiveRenderCutAndResumed(t *testing.T) {
	dev := deviceFor(t, PathRT)
	sc, err := scene.Load("../../scenes/cornell.glb")
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 40, Height: 30, SPP: 32, MaxDepth: 4, Seed: 9,
		Adaptive: render.Adaptive{Threshold: 0.025, MinSPP: 8}}
	layers := render.BaseLayers | render.CoverageLayers
	for _, path := range []string{PathRT, PathRayQuery, PathRTSorted, PathSER} {
		if !dev.Paths[path].Available {
			continue
		}
		t.Run(path, func(t *testing.T) {
			defer func() { deviceMemoryForTests, loseDeviceAfter = 0, 0 }()
			b := Backend{Path: path, Device: dev.Index, Validation: os.Getenv("SERTRACE_VULKAN_VALIDATION") != "0"}
			render1 := func(film *render.Film) (*render.Stats, error) {
				stats, err := render.Render(context.Background(), b, sc, opts, film, nil)
				if verr := ValidationErrors(); verr != nil {
					t.Fatal(verr)
				}
				return stats, err
			}
			whole := opts.NewFilm(opts.Width, opts.Height, layers)
			if _, err := render1(whole); err != nil {
				t.Fatal(err)
			}
			deviceMemoryForTests = memoryForRows(opts, layers, path, 7)
			split := opts.NewFilm(opts.Width, opts.Height, layers)
			stats, err := render1(split)
			if err != nil {
				t.Fatal(err)
			}
			sameFilm(t, "in launches of a few rows", split, whole)
			loseDeviceAfter = stats.Launches - 1
			cut := opts.NewFilm(opts.Width, opts.Height, layers)
			if _, err := render1(cut); !errors.Is(err, ErrDeviceLost) || cut.StoppedAt == nil {
				t.Fatalf("the device lost at the last launch: %v; stopped pixels %v", err, cut.StoppedAt != nil)
			}
			t.Logf("%d launches of %d rows; lost at the last, the pass cut %v", stats.Launches, stats.LaunchRows, cut.Cut())
			if !cut.Cut() {
				t.Error("the last pass was not cut: the test checks little")
			}
			loseDeviceAfter = 0
			if _, err := render1(cut); err != nil {
				t.Fatal(err)
			}
			sameFilm(t, "cut and resumed", cut, whole)
		})
	}
}

// sameFilm holds got to want bit for bit: the samples each pixel took and
// every pixel's sums.
func sameFilm(t *testing.T, what string, got, want *render.Film) {
	t.Helper()
	if got.Samples != want.Samples || !slices.Equal(got.StoppedAt, want.StoppedAt) || got.Cut() {
		t.Fatalf("%s: %d samples, cut %v, %d pixels still sampling; want %d samples, %d pixels", what, got.Samples, got.Cut(),
			got.Active(), want.Samples, want.Active())
	}
	for px := range got.Width * got.Height {
		samePixel(t, got, want, px)
	}
}
