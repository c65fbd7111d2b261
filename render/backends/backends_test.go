package backends

import (
	"context"
	"errors"
	"strings"
	"testing"

	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/render/vulkan"
	"sertrace/scene"
)

// TestChoose: cpu and vulkan are taken as asked; auto says in one line what
// it picked and why, and never picks a software Vulkan device.
func TestChoose(t *testing.T) {
	var notes []string
	note := func(s string) { notes = append(notes, s) }
	if b, _ := Choose("cpu", "", note); b.Name() != "cpu" || len(notes) != 0 {
		t.Errorf("cpu: %s, notes %q", b.Name(), notes)
	}
	if b, _ := Choose("vulkan", "rt", note); b.(vulkan.Backend).Path != "rt" {
		t.Errorf("vulkan rt: %+v", b)
	}
	b, err := Choose("auto", "", note)
	if err != nil || len(notes) != 1 || !strings.HasPrefix(notes[0], "backend auto: ") {
		t.Fatalf("auto: %v, notes %q", err, notes)
	}
	devs, _ := vulkan.Devices()
	for _, d := range devs {
		if d.Type == "cpu" && b.Name() == "vulkan" {
			if fb, ok := b.(fallback); ok && fb.gpu.(vulkan.Backend).Device == d.Index {
				t.Errorf("auto picked the software device %s", d.Name)
			}
		}
	}
}

// TestFallbackToCPU: a Vulkan render that fails before its first launch
// (here: a path the device does not run) renders on the CPU instead, and
// says so.
func TestFallbackToCPU(t *testing.T) {
	devs, err := vulkan.Devices()
	if err != nil || len(devs) == 0 || devs[0].Paths[vulkan.PathSER].Available {
		t.Skip("needs a Vulkan device without SER")
	}
	sc, err := scene.Load("../../scenes/cornell.glb")
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	fb := fallback{gpu: vulkan.Backend{Path: vulkan.PathSER, Device: devs[0].Index}, note: func(s string) { notes = append(notes, s) }}
	opts := render.Options{Width: 8, Height: 6, SPP: 3, MaxDepth: 2}
	film := render.NewFilm(opts.Width, opts.Height)
	film.Samples = 1 // resumed from a checkpoint
	stats, err := render.Render(context.Background(), fb, sc, opts, film, nil)
	if err != nil || stats.Backend != (cpu.Backend{}).Name() || film.Samples != 3 {
		t.Fatalf("fallback: %v, %+v, %d samples", err, stats, film.Samples)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "rendering on the cpu instead") {
		t.Errorf("notes %q", notes)
	}
}

// failingGPU is a GPU backend whose sessions fail their first pass (a
// launch that fails), or every pass after some; with cut, the failing
// pass has finished half the pixels (launches of their rows) first.
type failingGPU struct {
	passes int
	cut    bool
}

func (failingGPU) Name() string { return "vulkan" }

func (g failingGPU) Prepare(ctx context.Context, sc *scene.Scene, opts render.Options) (render.Session, error) {
	return &failingSession{left: g.passes, cut: g.cut}, nil
}

type failingSession struct {
	left, closed int
	cut          bool
}

func (s *failingSession) MaxPass() int { return 1 }

func (s *failingSession) Pass(ctx context.Context, first, n int, film *render.Film, progress func(float64)) error {
	if s.left == 0 {
		for px := 0; s.cut && px < film.Width*film.Height/2; px++ {
			film.MarkAhead(px)
		}
		return errors.New("the launch failed")
	}
	s.left--
	return nil
}

func (s *failingSession) Finish(stats *render.Stats) error { stats.Backend = "vulkan"; return nil }
func (s *failingSession) Close()                           { s.closed++ }

// TestFallbackWhenTheFirstPassFails: a GPU whose first launch fails hands
// the render to the CPU, which renders every sample, once said; a GPU that
// fails after a pass keeps the render (and its error): the film holds its
// samples, and a CPU would give the pixels other numbers.
func TestFallbackWhenTheFirstPassFails(t *testing.T) {
	sc, err := scene.Generate("cornell")
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 8, Height: 6, SPP: 3, MaxDepth: 2}
	var notes []string
	fb := fallback{gpu: failingGPU{}, note: func(s string) { notes = append(notes, s) }}
	film := render.NewFilm(opts.Width, opts.Height)
	stats, err := render.Render(context.Background(), fb, sc, opts, film, nil)
	if err != nil || stats.Backend != (cpu.Backend{}).Name() || film.Samples != 3 || film.Sums[render.LayerBeauty].Value(0) == 0 {
		t.Fatalf("fallback: %v, %+v, %d samples", err, stats, film.Samples)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "the launch failed; rendering on the cpu instead") {
		t.Errorf("notes %q", notes)
	}
	if stats.BuildSeconds <= 0 || stats.RenderSeconds < 0 {
		t.Errorf("build %v s, render %v s", stats.BuildSeconds, stats.RenderSeconds)
	}
	notes = nil
	fb.gpu = failingGPU{passes: 1}
	film = render.NewFilm(opts.Width, opts.Height)
	if _, err := render.Render(context.Background(), fb, sc, opts, film, nil); err == nil || film.Samples != 1 || len(notes) != 0 {
		t.Errorf("a GPU failing after a pass: %v, %d samples, notes %q", err, film.Samples, notes)
	}
	// A first pass cut short is not completed on the CPU: a pass of pixels
	// from both.
	fb.gpu = failingGPU{cut: true}
	film = render.NewFilm(opts.Width, opts.Height)
	if _, err := render.Render(context.Background(), fb, sc, opts, film, nil); err == nil || !film.Cut() || !film.Partial || len(notes) != 0 {
		t.Errorf("a GPU failing in its first pass after some launches: %v, cut %v, partial %v, notes %q", err, film.Cut(), film.Partial, notes)
	}
}
