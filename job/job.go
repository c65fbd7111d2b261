// Package job is one render job, as sertrace render and every batch job run
// it, the one path of a frame from its settings to its files: the scene
// loaded, its settings resolved into options, a backend chosen; the render
// run into a film (a new one or a checkpoint's), or in bands streamed into
// its EXR where the film is over the memory budget (bands.go); then the
// film's outputs written, the beauty denoised where the job asks
// (outputs.go: the denoiser is a transform of the film).
package job

import (
	"context"
	"math"
	"runtime/debug"
	"slices"

	"sertrace/render"
	"sertrace/render/backends"
	"sertrace/scene"
)

// Spec is what a job is made of.
type Spec struct {
	Scene    string // the glTF file
	Settings render.Settings
	// Resolve maps a file the settings name (the environment map) to its
	// path; nil takes them as they are.
	Resolve func(string) string
	// AOVs are the job's outputs: a cost heatmap is the GPU's shader clock
	// where the render runs on one.
	AOVs []render.AOV
	// Note is told, a line each, the scene's warnings and the backend's
	// choice; nil drops them.
	Note func(string)
	// QuietScene leaves the scene's warnings out (a split job's slices
	// after its first, which would repeat them).
	QuietScene bool
}

// OptionsError is settings that do not fit the job's scene (what
// Settings.Options refused): a *render.SettingError or another error,
// which it wraps.
type OptionsError struct{ Err error }

func (e *OptionsError) Error() string { return e.Err.Error() }
func (e *OptionsError) Unwrap() error { return e.Err }

// Job is a job prepared to render.
type Job struct {
	Scene   *scene.Scene
	Options render.Options // the caller may still set Threads and AfterPass
	Display render.Display
	Backend render.Backend
	spec    Spec
	resolve func(string) string
	note    func(string)
}

// Prepare loads the job's scene, resolves its settings against it and
// chooses its backend. Settings that do not fit the scene are an
// *OptionsError.
func Prepare(s Spec) (*Job, error) {
	note := s.Note
	if note == nil {
		note = func(string) {}
	}
	resolve := s.Resolve
	if resolve == nil {
		resolve = func(p string) string { return p }
	}
	sc, err := scene.Load(s.Scene, scene.WithVariant(s.Settings.Variant))
	if err != nil {
		return nil, err
	}
	opts, display, err := s.Settings.Options(sc, resolve)
	if err != nil {
		return nil, &OptionsError{err}
	}
	opts.GPUCost = slices.Contains(s.AOVs, render.AOVCost)
	for _, a := range s.AOVs {
		if slices.Contains(render.CryptoAOVs, a) {
			opts.Cryptomatte.Mattes = append(opts.Cryptomatte.Mattes, a)
		}
	}
	backend, err := backends.Choose(s.Settings.Backend, s.Settings.Path, note)
	if err != nil {
		return nil, err
	}
	for _, w := range sc.Warnings {
		if !s.QuietScene {
			note("warning: " + s.Scene + ": " + w)
		}
	}
	return &Job{Scene: sc, Options: opts, Display: display, Backend: backend, spec: s, resolve: resolve, note: note}, nil
}

// Render renders the job into film (a new one, or one to continue), telling
// progress its fraction done. Its statistics are nil where it failed
// before the first pass; after that, a failure or a cancelled ctx returns
// them with the film marked partial.
func (j *Job) Render(ctx context.Context, film *render.Film, progress render.Progress) (*render.Stats, error) {
	stats, err := render.Render(ctx, j.Backend, j.Scene, j.Options, film, progress)
	j.noteWarnings(stats)
	return stats, err
}

// noteWarnings says the render's warnings, where it has stats.
func (j *Job) noteWarnings(stats *render.Stats) {
	if stats != nil {
		for _, w := range stats.Warnings {
			j.note("warning: " + w)
		}
	}
}

// Layers is what the job's film holds: every layer for a slice (its merge
// may be asked for any output), else what the outputs aovs and, where
// denoised, the denoiser read (render.LayersFor). It refuses a render of
// them past the memory budget that budget names (render.CheckMemory, ""
// for the machine's), and tells the Go collector that budget.
func (j *Job) Layers(aovs []render.AOV, denoised bool, budget string) (render.Layers, error) {
	layers := render.AllLayers | render.CoverageLayers
	if j.Options.Count == 0 {
		layers = j.layersFor(aovs, denoised)
	} else if j.Options.LightGroups != nil {
		layers |= render.GroupLayers
	}
	limit, err := render.CheckMemory(j.Options, layers, j.Backend.Name(), denoised && j.Options.Count == 0, budget)
	if err != nil {
		return 0, err
	}
	limitCollector(limit)
	return layers, nil
}

// layersFor is what a film of the job holds to write the outputs aovs
// (render.LayersFor), and its light groups where it has them.
func (j *Job) layersFor(aovs []render.AOV, denoised bool) render.Layers {
	layers := render.LayersFor(aovs, denoised)
	if j.Options.LightGroups != nil {
		layers |= render.GroupLayers
	}
	if j.Options.Adaptive.On() {
		layers |= render.SamplesLayers // an adaptive render's EXR says each pixel's samples
	}
	return layers
}

// limitCollector tells the Go collector a render's memory budget (0:
// none), so that it works harder near it, never above the limit the
// process started with.
func limitCollector(budget uint64) {
	if budget > 0 {
		debug.SetMemoryLimit(min(int64(min(budget, math.MaxInt64)), processMemoryLimit))
	}
}

// processMemoryLimit is the Go collector's limit as the process started
// (GOMEMLIMIT, else none): a job's budget may lower it, never raise it, and
// each job of a batch starts from it again.
var processMemoryLimit = debug.SetMemoryLimit(-1)

// RenderBands renders the job band by band from row from on
// (render.RenderBandsFrom), giving each finished band to band.
func (j *Job) RenderBands(ctx context.Context, layers render.Layers, rows, from int, band func(*render.Film) error, progress render.Progress) (*render.Stats, error) {
	stats, err := render.RenderBandsFrom(ctx, j.Backend, j.Scene, j.Options, layers, rows, from, band, progress)
	j.noteWarnings(stats)
	return stats, err
}

// BandRows is how many rows at a time a render of the job in bands takes
// within the memory budget (render.BandRows), and tells the Go collector
// that budget; 0 where not even 16 rows fit.
func (j *Job) BandRows(layers render.Layers, budget string) (int, error) {
	rows, limit, err := render.BandRows(j.Options, layers, j.Backend.Name(), budget)
	if err != nil || rows == 0 {
		return rows, err
	}
	limitCollector(limit)
	return rows, nil
}
