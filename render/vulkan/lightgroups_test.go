package vulkan_test

import (
	"context"
	"math"
	"os"
	"slices"
	"testing"

	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/render/vulkan"
	"sertrace/scene"
)

// allPaths are every path of d, whatever the tests' length: rt,
// rayquery, rt-sorted (CI's lavapipe runs them all) and ser where the
// device offers it.
func allPaths(t *testing.T, d vulkan.Device) []string {
	t.Helper()
	var out []string
	for _, p := range []string{vulkan.PathRT, vulkan.PathRayQuery, vulkan.PathRTSorted, vulkan.PathSER} {
		if d.Paths[p].Available {
			out = append(out, p)
		} else if os.Getenv("CI") != "" && p != vulkan.PathSER {
			t.Errorf("CI's lavapipe should run path %s: %s", p, d.Paths[p].Reason)
		}
	}
	return out
}

// groupedFeatureScene is the feature scene with three light groups: its
// emissive card ("lamp", an instance's emission), its spot light ("spot",
// a punctual light) and the environment ("sky").
func groupedFeatureScene(t *testing.T) (*scene.Scene, *render.LightGroups) {
	t.Helper()
	sc := featureScene()
	sc.Nodes = make([]scene.Node, len(sc.Instances)+1)
	for i := range sc.Instances {
		sc.Instances[i].Node = i
		sc.Nodes[i].Name = sc.MaterialName(sc.Instances[i].Material)
		if sc.Materials[sc.Instances[i].Material].GivesLight() { // emissive or unlit
			sc.Nodes[i].LightGroup = "lamp"
		}
	}
	spot := len(sc.Instances)
	sc.Nodes[spot] = scene.Node{Name: "spot", Root: spot, LightGroup: "spot"}
	sc.Lights[0].Node = spot
	groups, err := render.NewLightGroups(sc, "sky", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups.Names) != 3 {
		t.Fatalf("groups %v, want lamp, sky and spot", groups.Names)
	}
	return sc, groups
}

// renderFilm renders into film, failing the test on an error or a
// validation message.
func renderFilm(t *testing.T, b render.Backend, sc *scene.Scene, opts render.Options, film *render.Film) *render.Film {
	t.Helper()
	if _, err := render.Render(context.Background(), b, sc, opts, film, nil); err != nil {
		t.Fatalf("%s: %v", b.Name(), err)
	}
	if err := vulkan.ValidationErrors(); err != nil {
		t.Fatal(err)
	}
	return film
}

// TestLightGroupsMatchCPU: on every path, the light groups of a scene lit
// by an emissive surface, a spot light and the environment (each its own
// group) each hold light and differ; the beauty is their sum, exactly
// (render.SumGroups), and, to float32 rounding, the beauty of a render
// without groups (no light is left out of them); and each group agrees
// with the CPU's, its mean with the same random streams within half the
// beauty's standard error (matchesCPU's tolerance), pixel by pixel but
// where the backends' float arithmetic parts a path.
func TestLightGroupsMatchCPU(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	sc, groups := groupedFeatureScene(t)
	opts := render.Options{Width: 32, Height: 24, SPP: 16, MaxDepth: 6, EnvColor: [3]float32{0.2, 0.25, 0.3}, LightGroups: groups}
	layers := render.BaseLayers | render.GroupLayers | render.CoverageLayers
	want := renderFilm(t, cpu.Backend{}, sc, opts, opts.NewFilm(opts.Width, opts.Height, layers))
	_, se := imageMean(want)
	for _, path := range allPaths(t, d) {
		t.Run(path, func(t *testing.T) {
			b := onPath(d, path)
			got := renderFilm(t, b, sc, opts, opts.NewFilm(opts.Width, opts.Height, layers))
			plain := renderFilm(t, b, sc, opts, render.NewFilmOf(opts.Width, opts.Height, render.BaseLayers))
			checkGroupsSum(t, got, plain)
			n := 3 * opts.Width * opts.Height
			far := 0
			for g, name := range groups.Names {
				gs, cs := &got.Groups[g], &want.Groups[g]
				var mg, mc float64
				for i := range n {
					a, c := gs.Value(i), cs.Value(i)
					mg += a
					mc += c
					if !(math.Abs(a-c) <= 1e-3*max(float64(opts.SPP), math.Abs(c))) {
						far++
					}
				}
				// Luminance-free means a pixel and sample: the three channels'.
				mg /= float64(n / 3 * opts.SPP * 3)
				mc /= float64(n / 3 * opts.SPP * 3)
				if !(mg > 0) {
					t.Errorf("group %s holds no light (mean %v)", name, mg)
				}
				if !(math.Abs(mg-mc) <= 0.5*se+1e-4*mc) {
					t.Errorf("group %s: mean cpu %.5f, vulkan %.5f (the beauty's standard error %.5f)", name, mc, mg, se)
				}
				for h := range g {
					if got.Groups[h].Equal(gs) {
						t.Errorf("groups %s and %s are the same", groups.Names[h], name)
					}
				}
				t.Logf("group %s: mean cpu %.5f, vulkan %.5f", name, mc, mg)
			}
			// The same streams part where float rounding sends a path
			// elsewhere: a few pixels' values.
			if limit := len(groups.Names) * n / 50; far > limit {
				t.Errorf("%d of %d group values differ from the CPU's by more than 1e-3 a sample (at most %d)", far, len(groups.Names)*n, limit)
			}
			t.Logf("%d of %d group values differ from the CPU's by more than 1e-3 a sample", far, len(groups.Names)*n)
			// Cryptomatte through alpha-masked holes and past the scene
			// (misses counted by none): the same streams' counts.
			counted := 0
			for px := range n / 3 {
				for _, w := range got.Coverage.Pixel(px, nil) {
					counted += int(uint32(w))
				}
			}
			if seen := n / 3 * opts.SPP; !(counted > seen/2 && counted < seen) {
				t.Errorf("%d of %d samples counted: the camera sees the scene and past it", counted, seen)
			}
			if differ := coverageDiffers(got, want); differ > n/3/50 {
				t.Errorf("%d of %d pixels' coverage differs from the CPU's", differ, n/3)
			} else {
				t.Logf("%d of %d pixels' coverage differs from the CPU's", differ, n/3)
			}
		})
	}
}

// checkGroupsSum holds a film's beauty to the exact sum of its groups, and
// to the beauty of the same render without groups (plain) to float32
// rounding.
func checkGroupsSum(t *testing.T, got, plain *render.Film) {
	t.Helper()
	beauty := &got.Sums[render.LayerBeauty]
	off := 0
	for i := range beauty.Len() {
		var hi, lo int64
		for g := range got.Groups {
			s := &got.Groups[g]
			render.AddFixed(&hi, &lo, s.High[i], s.Fixed[i])
		}
		if hi != beauty.High[i] || lo != beauty.Fixed[i] {
			t.Fatalf("beauty value %d: %v, the groups' sum %v", i, beauty.Value(i), (float64(hi)*0x1p64+float64(lo))*render.Quantum)
		}
		v, w := beauty.Value(i), plain.Sums[render.LayerBeauty].Value(i)
		if !(math.Abs(v-w) <= 1e-4*max(1, math.Abs(w))) {
			off++
			if off < 5 {
				t.Errorf("beauty value %d: the groups' sum %v, a render without groups %v", i, v, w)
			}
		}
	}
	if off > 0 {
		t.Errorf("%d of %d beauty values are not the groups' sum", off, beauty.Len())
	}
}

// TestCoverageMatchesCPU: on every path, in a closed scene (the Cornell
// box: every camera ray hits), each pixel's Cryptomatte counts add up to
// its samples, name the scene's instances, and the instance most of its
// samples saw first is the CPU's on nearly every pixel (all but 1%, where
// the backends' float arithmetic parts a ray at an edge; none on
// lavapipe), as are, with the same random streams, the counts (all but
// 2%; none on lavapipe).
func TestCoverageMatchesCPU(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	sc := loadScene(t, "cornell")
	opts := render.Options{Width: 32, Height: 24, SPP: 8, MaxDepth: 2}
	layers := render.BaseLayers | render.CoverageLayers
	want := renderFilm(t, cpu.Backend{}, sc, opts, opts.NewFilm(opts.Width, opts.Height, layers))
	wantTop := dominant(t, "cpu", want, len(sc.Instances), opts.SPP)
	for _, path := range allPaths(t, d) {
		t.Run(path, func(t *testing.T) {
			got := renderFilm(t, onPath(d, path), sc, opts, opts.NewFilm(opts.Width, opts.Height, layers))
			top := dominant(t, path, got, len(sc.Instances), opts.SPP)
			differ, seen := 0, map[uint32]bool{}
			for px := range top {
				seen[top[px]] = true
				if top[px] != wantTop[px] {
					differ++
				}
			}
			if len(seen) < 5 {
				t.Errorf("the pixels see %d instances: the test checks little", len(seen))
			}
			if limit := len(top) / 100; differ > limit {
				t.Errorf("%d of %d pixels' dominant instance differs from the CPU's (at most %d)", differ, len(top), limit)
			}
			t.Logf("%d of %d pixels' dominant instance differs from the CPU's", differ, len(top))
			// The same random streams: the same counts, but at edges.
			if differ := coverageDiffers(got, want); differ > len(top)/50 {
				t.Errorf("%d of %d pixels' counts differ from the CPU's (at most %d)", differ, len(top), len(top)/50)
			} else {
				t.Logf("%d of %d pixels' counts differ from the CPU's", differ, len(top))
			}
		})
	}
}

// dominant checks each pixel's counts (every sample counted, once, by an
// instance of the scene) and returns the instance + 1 most of its samples
// saw first (the lowest of a tie).
func dominant(t *testing.T, what string, f *render.Film, instances, spp int) []uint32 {
	t.Helper()
	if f.Coverage == nil {
		t.Fatalf("%s: the film counts no coverage", what)
	}
	top := make([]uint32, f.Width*f.Height)
	var buf []uint64
	for px := range top {
		buf = f.Coverage.Pixel(px, buf[:0])
		total, best := 0, uint64(0)
		ids := map[uint32]bool{}
		for _, w := range buf {
			id, n := uint32(w>>32), uint32(w)
			if id < 1 || int(id) > instances || n == 0 || ids[id] {
				t.Fatalf("%s, pixel %d: counts %x", what, px, buf)
			}
			ids[id] = true
			total += int(n)
			if n > uint32(best) || n == uint32(best) && id < top[px] {
				best, top[px] = uint64(n), id
			}
		}
		if total != spp {
			t.Fatalf("%s, pixel %d: %d samples counted, want %d (%x)", what, px, total, spp, buf)
		}
	}
	return top
}

// coverageDiffers is how many pixels' counts differ between two films.
func coverageDiffers(a, b *render.Film) int {
	differ := 0
	var pa, pb []uint64
	for px := range a.Width * a.Height {
		pa, pb = a.Coverage.Pixel(px, pa[:0]), b.Coverage.Pixel(px, pb[:0])
		slices.Sort(pa)
		slices.Sort(pb)
		if !slices.Equal(pa, pb) {
			differ++
		}
	}
	return differ
}
