package cpu

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"sertrace/render"
	"sertrace/scene"
)

// adaptiveOpts is a small adaptive render of the hairy Cornell box whose
// pixels stop at several checks (some early, some late, some never).
func adaptiveOpts() render.Options {
	return render.Options{Width: 48, Height: 48, SPP: 40, MaxDepth: 6, Seed: 5, Threads: 2,
		EnvColor: [3]float32{0.3, 0.3, 0.3}, Adaptive: render.Adaptive{Threshold: 0.12, MinSPP: 8}}
}

// sameFilm fails the test where two films' exact layers (every one but
// the SIMT efficiency, a statistic of the waves) or their pixels' sample
// counts differ in rows [y0, y0+b.Height) of a.
func sameFilm(t *testing.T, what string, a, b *render.Film, y0 int) {
	t.Helper()
	for l := range render.NumLayers {
		if l == render.LayerSIMT || !a.Has(l) {
			continue
		}
		n := render.FilmLayers[l].Channels * a.Width
		got, want := b.Floats(l), a.Floats(l)[y0*n:(y0+b.Height)*n]
		if !slices.Equal(got, want) {
			t.Fatalf("%s: the %s layer differs", what, render.FilmLayers[l].Name)
		}
	}
	for px := range b.Width * b.Height {
		if got, want := b.SamplesAt(px), a.SamplesAt(y0*a.Width+px); got != want {
			t.Fatalf("%s: pixel %d holds %d samples, want %d", what, y0*a.Width+px, got, want)
		}
	}
}

// TestAdaptiveIsAPureFunction: an adaptive render is the same image, bit
// for bit (its sums and where each pixel stopped), on one thread and two,
// cancelled mid-pass and resumed from a checkpoint (gob), and in bands of
// 16 and 32 rows: which pixels stop is a function of the film's exact
// sums at counts the settings fix.
func TestAdaptiveIsAPureFunction(t *testing.T) {
	sc, err := scene.Load(filepath.Join("..", "..", "scenes", "hairy-cornell.glb"))
	if err != nil {
		t.Fatal(err)
	}
	opts := adaptiveOpts()
	whole := renderFilm(t, sc, opts)
	counts := map[int]int{}
	for px := range opts.Width * opts.Height {
		counts[whole.SamplesAt(px)]++
	}
	if len(counts) < 4 || counts[opts.SPP] == 0 || counts[8] == 0 {
		t.Fatalf("pixels by samples taken %v: want some stopped at the minimum, some later and some never", counts)
	}
	t.Logf("pixels by samples taken: %v", counts)

	one := opts
	one.Threads = 1
	sameFilm(t, "on one thread", whole, renderFilm(t, sc, one), 0)

	// Cancelled in a pass after the first check, kept and resumed.
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	film := render.NewFilm(opts.Width, opts.Height)
	stats, err := render.Render(ctx, Backend{}, sc, opts, film, func(f float64) {
		if f > 0.6 {
			once.Do(cancel)
		}
	})
	cancel()
	if err == nil || !stats.Partial || film.StoppedAt == nil {
		t.Fatalf("the render was not cut after a check: %v (%s)", err, film.SamplesHeld())
	}
	t.Logf("cut: %s", film.SamplesHeld())
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(film); err != nil {
		t.Fatal(err)
	}
	var resumed render.Film
	if err := gob.NewDecoder(&b).Decode(&resumed); err != nil || !resumed.Whole() {
		t.Fatalf("the cut film does not come back from gob whole: %v", err)
	}
	resumed.Partial = false
	if _, err := render.Render(context.Background(), Backend{}, sc, opts, &resumed, nil); err != nil {
		t.Fatal(err)
	}
	sameFilm(t, "resumed", whole, &resumed, 0)

	// Cancelled as a pass that ends on a check completes (every tile
	// done, the pass counted whole): the check is made before the film is
	// kept, as an uncut render makes it.
	for _, k := range []int{4, 5, 6} { // the passes ending at 8 (the first check), 12 and 16 samples
		film := render.NewFilm(opts.Width, opts.Height)
		if _, err := render.Render(context.Background(), cancelAfter{Backend{}, k}, sc, opts, film, nil); err == nil || film.Cut() {
			t.Fatalf("cancelled after pass %d: %v, %s", k, err, film.SamplesHeld())
		}
		if film.StoppedAt == nil {
			t.Fatalf("cancelled as pass %d ended at a check (%s): no pixel was checked", k, film.SamplesHeld())
		}
		film.Partial = false
		if _, err := render.Render(context.Background(), Backend{}, sc, opts, film, nil); err != nil {
			t.Fatal(err)
		}
		sameFilm(t, fmt.Sprintf("cancelled as pass %d ended, resumed", k), whole, film, 0)
	}

	for _, rows := range []int{16, 32} {
		_, err := render.RenderBands(context.Background(), Backend{}, sc, opts, render.AllLayers, rows, func(band *render.Film) error {
			sameFilm(t, "in bands", whole, band, band.Y0)
			return nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestAdaptiveStopsWhatIsClean: a bright emitter seen directly (no noise)
// and the constant background stop at the minimum, while a diffuse
// sphere lit by the sky goes on; the samples AOV says so; the stats count
// them; and the diffuse sphere's mean agrees with a fixed render's.
func TestAdaptiveStopsWhatIsClean(t *testing.T) {
	emitter := scene.DefaultMaterial()
	emitter.BaseColor = scene.Vec4{W: 1}
	emitter.Emissive = scene.Vec3{X: 8, Y: 8, Z: 8}
	sc := &scene.Scene{
		SphereSets: []scene.SphereSet{
			{Centers: []scene.Vec3{{X: -1.1}}, Radii: []float32{1}, Bounds: scene.Bounds{Min: scene.Vec3{X: -2.1, Y: -1, Z: -1}, Max: scene.Vec3{X: -0.1, Y: 1, Z: 1}}},
			{Centers: []scene.Vec3{{X: 1.1}}, Radii: []float32{1}, Bounds: scene.Bounds{Min: scene.Vec3{X: 0.1, Y: -1, Z: -1}, Max: scene.Vec3{X: 2.1, Y: 1, Z: 1}}}},
		Instances: []scene.Instance{
			{Geometry: scene.GeometryRef{Kind: scene.Spheres}, Transform: scene.Identity, Material: 0},
			{Geometry: scene.GeometryRef{Kind: scene.Spheres, Index: 1}, Transform: scene.Identity, Material: 1}},
		Materials: []scene.Material{emitter, lambert(0.5)},
		Bounds:    scene.Bounds{Min: scene.Vec3{X: -2.1, Y: -1, Z: -1}, Max: scene.Vec3{X: 2.1, Y: 1, Z: 1}},
	}
	sc.Cameras = []scene.Camera{{Name: "front", YFov: 0.6, Transform: scene.LookAt(scene.Vec3{Z: 7}, scene.Vec3{}, scene.Vec3{Y: 1})}}
	opts := render.Options{Width: 64, Height: 32, SPP: 256, MaxDepth: 4, EnvColor: [3]float32{0.5, 0.5, 0.5},
		Adaptive: render.Adaptive{Threshold: 0.02}}
	film := render.NewFilmOf(opts.Width, opts.Height, render.LayersFor([]render.AOV{render.AOVSamples}, false))
	stats, err := render.Render(context.Background(), Backend{}, sc, opts, film, nil)
	if err != nil {
		t.Fatal(err)
	}
	samples, _ := film.Resolve(render.AOVSamples)
	minSPP := opts.Adaptive.Min(opts.SPP)
	// The middle of each sphere (a disc of radius 4 pixels about its
	// centre: away from the silhouettes, which mix the background in) and
	// the corners' background.
	centre := func(cx int) (px []int) {
		for y := 12; y < 20; y++ {
			for x := cx - 4; x < cx+4; x++ {
				px = append(px, y*opts.Width+x)
			}
		}
		return px
	}
	cx := int(float64(opts.Width)/2 + 1.1/(7*math.Tan(0.3))*float64(opts.Height)/2)
	bright, diffuse := centre(opts.Width-cx), centre(cx)
	mean := func(px []int) float64 {
		s := 0.0
		for _, p := range px {
			s += float64(samples[p])
		}
		return s / float64(len(px))
	}
	for _, p := range append(bright, 0, opts.Width-1, (opts.Height-1)*opts.Width) {
		if samples[p] != float32(minSPP) {
			t.Fatalf("pixel %d of the emitter or the background took %v samples, want the minimum %d", p, samples[p], minSPP)
		}
	}
	if m := mean(diffuse); !(m > 2*float64(minSPP)) {
		t.Errorf("the diffuse sphere's middle took %.1f samples on average: it should go on well past the minimum %d", m, minSPP)
	}
	a := stats.Adaptive
	if a == nil || a.Stopped == 0 || a.Stopped > a.Pixels || a.MinSPP != minSPP || !(a.MeanSamples > float64(minSPP) && a.MeanSamples < float64(opts.SPP)) {
		t.Errorf("stats %+v", a)
	}
	// The diffuse sphere's light against a fixed render of the same
	// samples.
	fixed := opts
	fixed.Adaptive = render.Adaptive{}
	ref := renderFilm(t, sc, fixed)
	got, _ := film.Resolve(render.AOVBeauty)
	want, _ := ref.Resolve(render.AOVBeauty)
	var g, w float64
	for _, p := range diffuse {
		g += float64(got[3*p])
		w += float64(want[3*p])
	}
	g, w = g/float64(len(diffuse)), w/float64(len(diffuse))
	if !(w > 0.05) || math.Abs(g-w) > 0.02*w {
		t.Errorf("the diffuse sphere reads %.4f adaptively, %.4f at %d samples", g, w, opts.SPP)
	}
}

// TestAdaptiveFurnace: a white Lambertian sphere in a uniform
// environment of radiance 1 reads 1 with a noise threshold on.
func TestAdaptiveFurnace(t *testing.T) {
	sc := furnaceScene(lambert(1))
	opts := render.Options{Width: 48, Height: 48, SPP: 512, MaxDepth: 16, EnvColor: [3]float32{1, 1, 1},
		Adaptive: render.Adaptive{Threshold: 0.03}}
	film := renderFilm(t, sc, opts)
	pix, _ := film.Resolve(render.AOVBeauty)
	var sum, taken float64
	n := 0
	for y := range opts.Height {
		for x := range opts.Width {
			if _, ok := onSphere(sc, opts, x, y); ok {
				sum += float64(pix[3*(y*opts.Width+x)])
				taken += float64(film.SamplesAt(y*opts.Width + x))
				n++
			}
		}
	}
	if n < 500 {
		t.Fatalf("only %d pixels on the sphere", n)
	}
	if mean := sum / float64(n); math.Abs(mean-1) > 0.004 {
		t.Errorf("the white furnace reads %.4f with a threshold, want 1", mean)
	}
	if taken /= float64(n); !(taken < 0.75*float64(opts.SPP)) {
		t.Errorf("the sphere's pixels took %.1f samples on average, of %d: too few stopped for the test to mean anything", taken, opts.SPP)
	}
	t.Logf("the sphere's pixels took %.1f samples on average", taken)
}

// cancelAfter is a backend whose sessions' k-th pass renders whole and
// then says it was cancelled, as a cancellation arriving as the pass's
// last tile ends does.
type cancelAfter struct {
	render.Backend
	k int
}

func (c cancelAfter) Prepare(ctx context.Context, sc *scene.Scene, opts render.Options) (render.Session, error) {
	s, err := c.Backend.Prepare(ctx, sc, opts)
	return &cancelSession{Session: s, k: c.k}, err
}

type cancelSession struct {
	render.Session
	k, passes int
}

func (s *cancelSession) Pass(ctx context.Context, first, n int, film *render.Film, progress func(float64)) error {
	if err := s.Session.Pass(ctx, first, n, film, progress); err != nil {
		return err
	}
	if s.passes++; s.passes == s.k {
		return context.Canceled
	}
	return nil
}

// TestCancelledAsTheLastPassEndsIsDone: a render cancelled as its last
// pass ends whole holds every sample: it is done, not partial, and says
// no error.
func TestCancelledAsTheLastPassEndsIsDone(t *testing.T) {
	sc := furnaceScene(lambert(0.5))
	opts := render.Options{Width: 16, Height: 16, SPP: 4, MaxDepth: 2, EnvColor: [3]float32{1, 1, 1}}
	film := render.NewFilm(opts.Width, opts.Height)
	stats, err := render.Render(context.Background(), cancelAfter{Backend{}, 3}, sc, opts, film, nil) // passes of 1, 2 and 1
	if err != nil || stats.Partial || film.Partial || film.Samples != opts.SPP {
		t.Errorf("cancelled as the last pass ended: %v, partial %v, %s", err, film.Partial, film.SamplesHeld())
	}
	film = render.NewFilm(opts.Width, opts.Height)
	if _, err := render.Render(context.Background(), cancelAfter{Backend{}, 2}, sc, opts, film, nil); err == nil || !film.Partial {
		t.Errorf("cancelled as the second of three passes ended: %v, partial %v", err, film.Partial)
	}
}
