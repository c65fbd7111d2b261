package backends

import (
	"context"
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
			if fb, ok := b.(fallback); ok && fb.gpu.Device == d.Index {
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
	film.Samples = 1 // resumed from a checkpoint: the fall back must still happen
	stats, err := render.Render(context.Background(), fb, sc, opts, film, nil)
	if err != nil || stats.Backend != (cpu.Backend{}).Name() || film.Samples != 3 {
		t.Fatalf("fallback: %v, %+v, %d samples", err, stats, film.Samples)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "rendering on the cpu instead") {
		t.Errorf("notes %q", notes)
	}
}
