package vulkan

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"sertrace/internal/longtest"
	"sertrace/render"
	"sertrace/render/layout"
	"sertrace/scene"
)

// TestLaunchesFitTheDevicesMemory: where the device's memory left after
// the scene holds fewer rows than the image's (deviceMemoryForTests
// stands for it), each pass is several launches of the rows it holds,
// and the image is the one-launch render's bit for bit, on every path. A
// device lost halfway through a pass keeps the launches done (a cut
// pass), which a render on a fresh device completes to the same image,
// except in a slice's whole passes, which keep the passes done alone; a
// device that holds no row refuses the render in one line, and goes back
// to the pool.
func TestLaunchesFitTheDevicesMemory(t *testing.T) {
	dev := deviceFor(t, PathRT)
	sc, err := scene.Load("../../scenes/hairy-cornell.glb")
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 40, Height: 54, SPP: 4, MaxDepth: 6, Seed: 3}
	layers := render.BaseLayers | render.GuideLayers | render.SplitLayers
	paths := []string{PathRT}
	if longtest.Enabled {
		paths = append(paths, PathRayQuery, PathRTSorted)
	}
	defer func() { deviceMemoryForTests, loseDeviceAfter = 0, 0 }()
	for _, path := range paths {
		if !dev.Paths[path].Available {
			continue
		}
		b := Backend{Path: path, Device: dev.Index, Validation: os.Getenv("SERTRACE_VULKAN_VALIDATION") != "0"}
		renderWith := func(o render.Options, film *render.Film) (*render.Stats, error) {
			stats, err := render.Render(context.Background(), b, sc, o, film, nil)
			if verr := ValidationErrors(); verr != nil {
				t.Fatal(verr)
			}
			return stats, err
		}
		render1 := func(film *render.Film) (*render.Stats, error) { return renderWith(opts, film) }
		whole := render.NewFilmOf(opts.Width, opts.Height, layers)
		stats, err := render1(whole)
		// Passes of 1, 2 and 1 samples, a launch each.
		if err != nil || stats.Launches != 3 || stats.LaunchRows != opts.Height {
			t.Fatalf("%s: %v; %d launches of %d rows, want 3 of the image's %d", path, err, stats.Launches, stats.LaunchRows, opts.Height)
		}
		sum := 0.0
		for _, v := range whole.Floats(render.LayerBeauty) {
			sum += v
		}
		if !(sum > 0) {
			t.Fatalf("%s: the whole render is black (%v)", path, sum)
		}

		// Memory for about 7 rows: each row's read-back sums and its
		// paths' slots for a pass's samples.
		_, floats := render.GPUFilmLayout(layers, false, 1)
		wave := isWavefront(path)
		row := uint64(opts.Width) * (4*uint64(floats) + slotBytes(wave, 0)*uint64(passSamples(opts, wave)))
		deviceMemoryForTests = 7*row/9*10 + row
		split := render.NewFilmOf(opts.Width, opts.Height, layers)
		stats, err = render1(split)
		if err != nil || stats.LaunchRows < 1 || stats.LaunchRows >= opts.Height || stats.Launches <= 3 {
			t.Fatalf("%s, memory for 7 rows: %v; %d launches of %d rows", path, err, stats.Launches, stats.LaunchRows)
		}
		t.Logf("%s: %d launches of %d rows", path, stats.Launches, stats.LaunchRows)
		sameFilms(t, path+" in launches of fewer rows", split, whole)

		// Lost after the first pass's fourth launch: rows 0..27 are done.
		loseDeviceAfter = 4
		cut := render.NewFilmOf(opts.Width, opts.Height, layers)
		if _, err := render1(cut); !errors.Is(err, ErrDeviceLost) || !cut.Cut() || cut.Samples != 0 || !cut.Partial {
			t.Fatalf("%s, the device lost mid-pass: %v; cut %v, %d samples, partial %v", path, err, cut.Cut(), cut.Samples, cut.Partial)
		}
		if got := cut.SamplesAt(4*stats.LaunchRows*opts.Width - 1); got != 1 {
			t.Fatalf("%s: the last pixel of the fourth launch holds %d samples, want the cut pass's 1", path, got)
		}
		loseDeviceAfter = 0
		if _, err := render1(cut); err != nil || cut.Samples != opts.SPP || cut.Cut() {
			t.Fatalf("%s, completing the cut render: %v; %d samples, cut %v", path, err, cut.Samples, cut.Cut())
		}
		sameFilms(t, path+" completed after a lost device", cut, whole)

		// A slice's passes are whole (Options.WholePasses): its launches
		// add to a film of their own until the pass is done. Lost in the
		// second pass (its fourth launch), the film holds the first alone.
		o := opts
		o.WholePasses = true
		wholePasses := func(film *render.Film) (*render.Stats, error) { return renderWith(o, film) }
		slice := render.NewFilmOf(opts.Width, opts.Height, layers)
		if _, err := wholePasses(slice); err != nil {
			t.Fatal(err)
		}
		sameFilms(t, path+" in whole passes of several launches", slice, whole)
		launches := (opts.Height + stats.LaunchRows - 1) / stats.LaunchRows
		loseDeviceAfter = launches + 4
		slice = render.NewFilmOf(opts.Width, opts.Height, layers)
		if _, err := wholePasses(slice); !errors.Is(err, ErrDeviceLost) || slice.Cut() || slice.Samples != 1 {
			t.Fatalf("%s, whole passes, the device lost mid-pass: %v; cut %v, %d samples", path, err, slice.Cut(), slice.Samples)
		}
		loseDeviceAfter = 0

		deviceMemoryForTests = 1
		if _, err := render1(render.NewFilmOf(opts.Width, opts.Height, layers)); err == nil ||
			!strings.Contains(err.Error(), "the device's memory holds no launch of one row: a row of 40 pixels takes") ||
			strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s, no memory left: %v", path, err)
		}
		if idleDevice() == nil {
			t.Errorf("%s: the device refused for its memory left did not go back to the pool", path)
		}
		deviceMemoryForTests = 0
	}
}

// sameFilms holds got's layers to want's, bit for bit (the GPU's cost
// layer aside: its shader clock's, where it has one).
func sameFilms(t *testing.T, what string, got, want *render.Film) {
	t.Helper()
	for l := range render.NumLayers {
		if !want.Has(l) || l == render.LayerCost {
			continue
		}
		if !got.Sums[l].Equal(&want.Sums[l]) {
			t.Fatalf("%s: the %s layer differs from the one-launch render's", what, render.FilmLayers[l].Name)
		}
	}
}

// TestDeviceMemoryLeft: the memory a device has left is its
// VK_EXT_memory_budget budget less the process's use where it has the
// extension (lavapipe does), else three quarters of the heap less the
// blocks sertrace holds in it, which a new block lessens.
func TestDeviceMemoryLeft(t *testing.T) {
	dev := deviceFor(t, PathRT)
	d, err := openDevice(PathRT, dev.Index, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.destroy()
	h := d.heapOf(memDevice)
	budget, use, ok := d.heapBudget(h)
	if !ok && os.Getenv("CI") != "" {
		t.Fatal("CI's lavapipe should have VK_EXT_memory_budget")
	}
	if room := d.heapRoom(h); ok && (room != budget-use || room > d.heapSize(h) || room == 0) {
		t.Fatalf("heap %d of %d bytes: %d left, from a budget of %d and a use of %d", h, d.heapSize(h), room, budget, use)
	}
	d.extensions = slices.DeleteFunc(d.extensions, func(e string) bool { return e == memoryBudgetExtension })
	before := d.heapRoom(h)
	if !(before > 0 && before <= d.heapSize(h)/4*3) {
		t.Fatalf("without the budget, heap %d of %d bytes: %d left", h, d.heapSize(h), before)
	}
	const size = 256 << 20
	if _, err := d.newBuffer(size, 0, memDevice, false); err != nil {
		t.Fatal(err)
	}
	if after := d.heapRoom(h); after != before-size {
		t.Errorf("without the budget, %d bytes left before a block of %d, %d after", before, size, after)
	}
}

// TestLaunchesStayWithinTheShadersIndex: an image of more pixels than the
// shaders index in 32 bits (render.MaxFilePixels) renders in launches of
// the rows they index, whatever the memory.
func TestLaunchesStayWithinTheShadersIndex(t *testing.T) {
	dev := deviceFor(t, PathRT)
	d, err := openDevice(PathRT, dev.Index, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.destroy()
	defer func() { deviceMemoryForTests = 0 }()
	deviceMemoryForTests, d.info.maxBuffer = 1<<50, 1<<50 // the index alone limits
	opts := render.Options{Width: 16384, Height: 16384}
	for _, wave := range []bool{false, true} {
		plan, err := d.planLaunches(opts, 6, wave, 1)
		if err != nil || plan.rows != render.MaxFilePixels/opts.Width || plan.paths != plan.rows*opts.Width {
			t.Errorf("16384x16384, wavefront %v: launches of %d rows, %d paths (%v), want %d rows", wave, plan.rows, plan.paths, err, render.MaxFilePixels/opts.Width)
		}
	}
	if _, err := d.planLaunches(render.Options{Width: render.MaxFilePixels + 1, Height: 1}, 6, false, 1); err == nil || !strings.Contains(err.Error(), "use --backend cpu") {
		t.Errorf("a row past the shaders' index: %v", err)
	}
	// Within the largest buffer the device makes: the paths' slots are
	// the largest here (184 bytes a path).
	d.info.maxBuffer = 1 << 30
	slot := uint64(unsafe.Sizeof(layout.Path{}))
	for _, wave := range []bool{false, true} {
		plan, err := d.planLaunches(opts, 6, wave, 1)
		if want := int((1 << 30) / (uint64(opts.Width) * slot)); err != nil || plan.rows != want || uint64(plan.paths)*slot > 1<<30 {
			t.Errorf("16384x16384, wavefront %v, buffers of 1 GiB at most: launches of %d rows, %d paths (%v), want %d rows", wave, plan.rows, plan.paths, err, want)
		}
	}
	d.info.maxBuffer = 1 << 20
	if _, err := d.planLaunches(opts, 6, false, 1); err == nil || !strings.Contains(err.Error(), "buffers of at most") {
		t.Errorf("a row past the largest buffer: %v", err)
	}
}
