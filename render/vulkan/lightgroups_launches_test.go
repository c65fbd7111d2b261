package vulkan

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"sertrace/render"
	"sertrace/scene"
)

// TestLightGroupsInLaunchesAndBands: a render's light groups and
// Cryptomatte counts are the same, bit for bit, in one launch, in
// launches of a few rows (the device's memory left holding 7, its groups
// and IDs counted), completed after a device lost mid-pass, in a slice's
// whole passes, and in bands of 16 rows, on every path (rt at one
// invocation a pixel too): the launches' pixel offsets place the groups
// and counts.
func TestLightGroupsInLaunchesAndBands(t *testing.T) {
	dev := deviceFor(t, PathRT)
	sc, groups := bulbCornell(t, "lamp")
	opts := render.Options{Width: 40, Height: 54, SPP: 4, MaxDepth: 6, Seed: 3, LightGroups: groups}
	layers := render.BaseLayers | render.GroupLayers | render.CoverageLayers
	for _, c := range batchCases(dev) {
		path := c.path
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(rtBatchVariable, c.batch)
			defer func() { deviceMemoryForTests, loseDeviceAfter = 0, 0 }()
			b := Backend{Path: path, Device: dev.Index, Validation: os.Getenv("SERTRACE_VULKAN_VALIDATION") != "0"}
			renderWith := func(o render.Options, film *render.Film) (*render.Stats, error) {
				t.Helper()
				stats, err := render.Render(context.Background(), b, sc, o, film, nil)
				if verr := ValidationErrors(); verr != nil {
					t.Fatal(verr)
				}
				return stats, err
			}
			newFilm := func() *render.Film { return opts.NewFilm(opts.Width, opts.Height, layers) }
			whole := newFilm()
			if stats, err := renderWith(opts, whole); err != nil {
				t.Fatal(err)
			} else if stats.LaunchRows != opts.Height {
				t.Fatalf("launches of %d rows, want the image's %d", stats.LaunchRows, opts.Height)
			}
			for g, name := range groups.Names {
				sum := 0.0
				for _, v := range whole.Groups[g].Floats() {
					sum += v
				}
				if !(sum > 0) {
					t.Fatalf("group %s is black (%v)", name, sum)
				}
			}
			if whole.Coverage.Pixel(0, nil) == nil {
				t.Fatal("pixel 0 counts nothing")
			}

			// Memory for about 7 rows, the groups' and IDs' bytes counted.
			groupCount, _ := renderExtras(render.Options{Layers: layers, LightGroups: groups})
			_, _, floats := filmLayout(layers, false, 1, groupCount)
			wave := isWavefront(path)
			maxPass := passSamples(opts, wave)
			row := uint64(opts.Width) * (4*uint64(floats) + idBytes*uint64(maxPass) + slotBytes(wave, groupCount)*uint64(maxPass))
			deviceMemoryForTests = 7*row/9*10 + row
			split := newFilm()
			stats, err := renderWith(opts, split)
			if err != nil {
				t.Fatalf("memory for 7 rows: %v", err)
			} else if stats.LaunchRows < 1 || stats.LaunchRows >= 8 {
				t.Fatalf("memory for 7 rows: launches of %d rows", stats.LaunchRows)
			}
			t.Logf("%d launches of %d rows", stats.Launches, stats.LaunchRows)
			sameExtras(t, "in launches of fewer rows", split, whole, 0)

			// Lost after the first pass's fourth launch, then completed in
			// launches of every row: the pixels the cut pass holds are
			// left out of the first.
			loseDeviceAfter = 4
			cut := newFilm()
			if _, err := renderWith(opts, cut); !errors.Is(err, ErrDeviceLost) || !cut.Cut() {
				t.Fatalf("the device lost mid-pass: %v; cut %v", err, cut.Cut())
			}
			loseDeviceAfter, deviceMemoryForTests = 0, 0
			if _, err := renderWith(opts, cut); err != nil || cut.Samples != opts.SPP {
				t.Fatalf("completing the cut render: %v; %d samples", err, cut.Samples)
			}
			sameExtras(t, "completed after a lost device", cut, whole, 0)

			deviceMemoryForTests = 7*row/9*10 + row
			o := opts
			o.WholePasses = true
			slice := newFilm()
			if _, err := renderWith(o, slice); err != nil {
				t.Fatal(err)
			}
			sameExtras(t, "in whole passes of several launches", slice, whole, 0)
			deviceMemoryForTests = 0

			next := 0
			_, err = render.RenderBands(context.Background(), b, sc, opts, layers, 16, func(band *render.Film) error {
				if band.Y0 != next {
					t.Fatalf("band from row %d where row %d comes next", band.Y0, next)
				}
				sameExtras(t, "in bands", band, whole, band.Y0)
				next += band.Height
				return nil
			}, nil)
			if err != nil || next != opts.Height {
				t.Fatalf("bands: %v, %d rows", err, next)
			}
		})
	}
}

// bulbCornell is the Cornell box with two light groups: its ceiling's
// lamp (named lamp) and a point light, bulb, in front of the short box.
func bulbCornell(t *testing.T, lamp string) (*scene.Scene, *render.LightGroups) {
	t.Helper()
	sc, err := scene.Load("../../scenes/cornell.glb")
	if err != nil {
		t.Fatal(err)
	}
	sc.Nodes[sc.Instances[6].Node].LightGroup = lamp
	sc.Nodes = append(sc.Nodes, scene.Node{Name: "bulb", Root: len(sc.Nodes), LightGroup: "bulb"})
	c := sc.Bounds.Min.Add(sc.Bounds.Max).Scale(0.5)
	sc.Lights = append(sc.Lights, scene.Light{Name: "bulb", Node: len(sc.Nodes) - 1, Kind: scene.PointLight, Color: scene.Vec3{X: 0.3, Y: 0.6, Z: 1},
		Intensity: 2, Position: c.Add(sc.Bounds.Max.Sub(c).Scale(0.5))})
	groups, err := render.NewLightGroups(sc, "", false)
	if err != nil || len(groups.Names) != 2 {
		t.Fatalf("groups %v (%v), want bulb and %s", groups, err, lamp)
	}
	return sc, groups
}

// TestKeptSceneFollowsTheLightGroups: a device keeps a scene's buffers
// for the next render of the same scene, but not for one whose light
// groups number its emitters otherwise: the lamp, group 1 of (bulb,
// lamp), is group 0 of (a-lamp, bulb), and its light follows it.
func TestKeptSceneFollowsTheLightGroups(t *testing.T) {
	dev := deviceFor(t, PathRT)
	sc, groups := bulbCornell(t, "lamp")
	b := Backend{Path: PathRT, Device: dev.Index, Validation: os.Getenv("SERTRACE_VULKAN_VALIDATION") != "0"}
	opts := render.Options{Width: 16, Height: 12, SPP: 2, MaxDepth: 3, LightGroups: groups}
	layers := render.BaseLayers | render.GroupLayers
	first := opts.NewFilm(opts.Width, opts.Height, layers)
	if _, err := render.Render(context.Background(), b, sc, opts, first, nil); err != nil {
		t.Fatal(err)
	}
	d := idleDevice()
	if d == nil || d.scene == nil || d.scene.sc != sc {
		t.Fatal("the device was not kept with the scene")
	}
	acc := d.scene.acc
	// The same scene, its groups renamed: its lamp is group 0.
	sc.Nodes[sc.Instances[6].Node].LightGroup = "a-lamp"
	regrouped, err := render.NewLightGroups(sc, "", false)
	if err != nil || regrouped.InstanceGroup(6) != 0 || regrouped.PunctualGroup(0) != 1 {
		t.Fatalf("groups %v (%v)", regrouped, err)
	}
	opts.LightGroups = regrouped
	second := opts.NewFilm(opts.Width, opts.Height, layers)
	if _, err := render.Render(context.Background(), b, sc, opts, second, nil); err != nil {
		t.Fatal(err)
	}
	if err := ValidationErrors(); err != nil {
		t.Fatal(err)
	}
	if d := idleDevice(); d == nil || d.scene == nil || d.scene.acc == acc {
		t.Error("the scene kept for other light groups served the render")
	}
	if !second.Groups[0].Equal(&first.Groups[1]) || !second.Groups[1].Equal(&first.Groups[0]) {
		t.Error("the lamp's and the bulb's light did not follow their groups")
	}
}

// sameExtras holds got's beauty, light groups and Cryptomatte counts to
// those of want's rows from y0 on, bit for bit.
func sameExtras(t *testing.T, what string, got, want *render.Film, y0 int) {
	t.Helper()
	px0, n := y0*want.Width, got.Width*got.Height
	same := func(a, b *render.LayerSums) bool {
		for i := range 3 * n {
			if a.Value(i) != b.Value(3*px0+i) {
				return false
			}
		}
		return true
	}
	if !same(&got.Sums[render.LayerBeauty], &want.Sums[render.LayerBeauty]) {
		t.Fatalf("%s: the beauty differs", what)
	}
	if len(got.Groups) != len(want.Groups) {
		t.Fatalf("%s: %d groups, want %d", what, len(got.Groups), len(want.Groups))
	}
	for g := range want.Groups {
		if !same(&got.Groups[g], &want.Groups[g]) {
			t.Fatalf("%s: group %s differs", what, want.GroupNames[g])
		}
	}
	var a, b []uint64
	for px := range n {
		a, b = got.Coverage.Pixel(px, a[:0]), want.Coverage.Pixel(px0+px, b[:0])
		slices.Sort(a)
		slices.Sort(b)
		if len(a) == 0 || !slices.Equal(a, b) {
			t.Fatalf("%s: pixel %d counts %x, want %x", what, px0+px, a, b)
		}
	}
}
