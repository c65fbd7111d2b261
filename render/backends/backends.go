// Package backends chooses the backend a render runs on: the Vulkan
// backend where a device can run a ray-tracing pipeline, the CPU backend
// otherwise (or when asked).
package backends

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/render/vulkan"
	"sertrace/scene"
)

// ChoiceNote begins the line Choose says under auto: which device and path
// it picked, or why the CPU. The line is the machine's, the same for every
// render (a batch says it once); a job's own fallback to the CPU is said
// otherwise.
const ChoiceNote = "backend auto: "

// Choose returns the backend for a --backend name (auto, cpu, vulkan) and
// --path. Under auto, it says in one line through note which device and
// path it picked, or why it renders on the CPU.
func Choose(name, path string, note func(string)) (render.Backend, error) {
	switch name {
	case "cpu":
		return cpu.Backend{}, nil
	case "vulkan":
		return vulkan.Backend{Path: path, Device: -1, Validation: vulkan.ValidationRequested()}, nil
	}
	devs, err := vulkan.Devices()
	if err != nil {
		note(ChoiceNote + fmt.Sprintf("%v; rendering on the cpu", err))
		return cpu.Backend{}, nil
	}
	var why []string
	for _, d := range devs {
		if d.Type == "cpu" {
			// lavapipe and its kind emulate a GPU on the CPU, many times
			// slower than the cpu backend; they are for tests (--backend vulkan).
			why = append(why, fmt.Sprintf("%s is a software Vulkan device, slower than the cpu backend", d.Name))
			continue
		}
		if p := d.Best(); path == "" && p != "" {
			note(ChoiceNote + fmt.Sprintf("rendering on %s, path %s (%s: %s)", d.Name, p, d.Auto.Source, d.Auto.Why))
			return fallback{vulkan.Backend{Path: p, Device: d.Index, Validation: vulkan.ValidationRequested()}, note}, nil
		}
		if path != "" && d.Paths[path].Available {
			note(ChoiceNote + fmt.Sprintf("rendering on %s, path %s (as asked)", d.Name, path))
			return fallback{vulkan.Backend{Path: path, Device: d.Index, Validation: vulkan.ValidationRequested()}, note}, nil
		}
		asked := vulkan.PathRayQuery
		if path != "" {
			asked = path
		}
		why = append(why, fmt.Sprintf("%s: %s", d.Name, d.Paths[asked].Reason))
	}
	if len(devs) == 0 {
		note(ChoiceNote + "the Vulkan loader lists no device; rendering on the cpu")
	} else {
		note(ChoiceNote + fmt.Sprintf("no GPU runs a ray-tracing pipeline or ray queries (%s); rendering on the cpu", strings.Join(why, "; ")))
	}
	return cpu.Backend{}, nil
}

// fallback renders on a Vulkan device and, when that fails before any
// sample is accumulated (out of device memory, a pipeline that does not
// build, a first launch that fails), on the CPU instead. A first pass
// whose launches added some rows before one failed (a cut pass) is not
// completed on the CPU: its error stands, the rows kept.
type fallback struct {
	gpu  render.Backend // a vulkan.Backend
	note func(string)
}

func (f fallback) Name() string { return f.gpu.Name() }

func (f fallback) Prepare(ctx context.Context, sc *scene.Scene, opts render.Options) (render.Session, error) {
	s, err := f.gpu.Prepare(ctx, sc, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		cpuSession, _, cerr := f.toCPU(ctx, sc, opts, err)
		return cpuSession, cerr
	}
	return &fallbackSession{Session: s, f: f, sc: sc, opts: opts}, nil
}

// toCPU says why the GPU failed and prepares the render on the CPU, in
// the time it returns.
func (f fallback) toCPU(ctx context.Context, sc *scene.Scene, opts render.Options, gpuErr error) (render.Session, time.Duration, error) {
	f.note(fmt.Sprintf("the GPU render failed: %v; rendering on the cpu instead", gpuErr))
	start := time.Now()
	s, err := cpu.Backend{}.Prepare(ctx, sc, opts)
	if err != nil {
		return nil, 0, errors.Join(gpuErr, err)
	}
	return s, time.Since(start), nil
}

// fallbackSession renders on the GPU session, or on the CPU from the first
// pass on when the GPU's first pass fails.
type fallbackSession struct {
	render.Session
	f        fallback
	sc       *scene.Scene
	opts     render.Options
	rendered bool
	cpuBuild time.Duration // preparing the CPU's render, inside a pass
}

func (s *fallbackSession) Pass(ctx context.Context, first, n int, film *render.Film, progress func(float64)) error {
	err := s.Session.Pass(ctx, first, n, film, progress)
	if err == nil || s.rendered || ctx.Err() != nil || film.Cut() {
		s.rendered = s.rendered || err == nil
		return err
	}
	cpuSession, build, err := s.f.toCPU(ctx, s.sc, s.opts, err)
	if err != nil {
		return err
	}
	s.Session.Close()
	s.Session, s.rendered, s.cpuBuild = cpuSession, true, build
	return s.Session.Pass(ctx, first, n, film, progress)
}

// Finish counts the CPU's preparation, made during the first pass, as
// building, not rendering.
func (s *fallbackSession) Finish(stats *render.Stats) error {
	stats.BuildSeconds += s.cpuBuild.Seconds()
	stats.RenderSeconds -= s.cpuBuild.Seconds()
	return s.Session.Finish(stats)
}
