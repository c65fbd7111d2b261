package batch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"sertrace/atomicfile"
	"sertrace/denoise"
	"sertrace/job"
	"sertrace/render"
)

// jobFor prepares the render of a job (slice K of it, or all of it for
// −1): the job, the AOVs of its outputs and the layers its film holds. A
// film over the memory budget is the *render.MemoryError, with the job;
// that and settings that do not fit the scene name the job.
func (r *Runner) jobFor(p *prepared, slice int) (*job.Job, []render.AOV, render.Layers, error) {
	jc := p.job
	if jc.Denoise {
		// Finished jobs are skipped without the network's weights; one to
		// render needs them before it starts.
		if err := denoise.Ready(jc.Denoiser); err != nil {
			return nil, nil, 0, err
		}
	}
	settings := jc.Settings
	if slice >= 0 {
		settings.Samples = p.samples(slice)
	}
	var aovs []render.AOV
	for _, o := range p.outputs {
		aovs = append(aovs, o.aov)
	}
	j, err := job.Prepare(job.Spec{Scene: p.scenePath, Settings: settings, Resolve: r.Config.resolve, AOVs: aovs, Note: r.note(jc.Name), QuietScene: slice > 0})
	var bad *job.OptionsError
	if errors.As(err, &bad) {
		return nil, nil, 0, fmt.Errorf("%s: %w", jc.Name, err)
	} else if err != nil {
		return nil, nil, 0, err
	}
	if j.Options.Threads == 0 {
		j.Options.Threads = allocatedCPUs()
	}
	layers, err := j.Layers(aovs, jc.Denoise, settings.MemoryBudget)
	if err != nil {
		return j, aovs, 0, fmt.Errorf("%s: %w", jc.Name, err) // over the budget: a *render.MemoryError
	}
	return j, aovs, layers, nil
}

// renderFilm renders job j's film of layers (slice K of the job, or all
// of it for −1), from its checkpoint at cpPath where one is current; an
// interrupted or failing render leaves a checkpoint of what it did.
func (r *Runner) renderFilm(ctx context.Context, p *prepared, j *job.Job, aovs []render.AOV, layers render.Layers, slice int, cpPath string) (*render.Film, render.Display, *render.Stats, error) {
	jc, cpKey := p.job, p.checkpointKey(slice)
	opts, display := &j.Options, j.Display
	// The film is the checkpoint's where it serves, else a new one: never
	// both at once.
	var film *render.Film
	// keep writes the film to the checkpoint for the next run; why says
	// what stopped this one, for the error if even that fails.
	keep := func(why string) error {
		if err := writeCheckpoint(cpPath, checkpoint{Key: cpKey, Film: film}); err != nil {
			return fmt.Errorf("%s, and the checkpoint could not be written: %w", why, err)
		}
		return nil
	}
	cp, cpErr := readCheckpoint(cpPath)
	current := cpErr == nil && cp.Key == cpKey && cp.Film.Width == opts.Width && cp.Film.Height == opts.Height
	switch {
	case current:
	case cpErr == nil:
		r.note(jc.Name)(fmt.Sprintf("its checkpoint (%d samples per pixel) is of other settings, scene files or sertrace build: starting over", cp.Film.Samples))
	case errors.Is(cpErr, fs.ErrNotExist):
	case errors.As(cpErr, new(*fs.PathError)):
		// A read that failed (EIO, a stale NFS handle) says nothing of the
		// checkpoint: starting over would write over a good one.
		return nil, render.Display{}, nil, fmt.Errorf("its checkpoint %s could not be read: %w", cpPath, unwrap(cpErr))
	default:
		r.note(jc.Name)(fmt.Sprintf("its checkpoint %s %v: starting over", cpPath, cpErr))
	}
	if current {
		// The split only improves the denoiser: a checkpoint without it
		// (an old one) still serves a denoised job, as long as no output
		// asks for the split itself.
		need := layers | render.BaseLayers
		if slice < 0 && jc.Denoise {
			need = render.LayersFor(aovs, false) | render.GuideLayers
		}
		if missing := need &^ cp.Film.Held(); missing != 0 {
			r.note(jc.Name)(fmt.Sprintf("its checkpoint (%d samples per pixel) lacks the %s layers the job now asks for: starting over", cp.Film.Samples, missing.Names()))
		} else {
			film = cp.Film
			film.Partial = false
			if film.Coverage != nil {
				film.Coverage.Cryptomatte = opts.Cryptomatte // the outputs' mattes now
			}
			r.note(jc.Name)(fmt.Sprintf("continuing from its checkpoint (%s)", film.SamplesHeld()))
		}
	}
	cp = checkpoint{} // a checkpoint not continued goes before the new film comes
	if film == nil {
		film = opts.NewFilm(opts.Width, opts.Height, layers)
	}
	var tick render.Progress
	if r.Tick != nil {
		tick = r.Tick
	}
	every, last := r.CheckpointEvery, time.Now()
	if every <= 0 {
		every = time.Minute
	}
	opts.AfterPass = func(f *render.Film) {
		if time.Since(last) >= every {
			if err := writeCheckpoint(cpPath, checkpoint{Key: cpKey, Film: f}); err != nil {
				r.note(jc.Name)("the checkpoint could not be written: " + err.Error())
			}
			last = time.Now()
		}
	}
	stats, rerr := j.Render(ctx, film, tick)
	if rerr != nil && !errors.Is(rerr, context.Canceled) {
		// A failure after some passes (a lost device) keeps them for the
		// next run, as an interruption does.
		if film.Partial && (film.Samples > 0 || film.Cut()) {
			if err := keep(rerr.Error()); err != nil {
				return film, display, stats, err
			}
			return film, display, stats, fmt.Errorf("%w; the %d samples per pixel before it are kept in the checkpoint", rerr, film.Samples)
		}
		return film, display, stats, rerr
	}
	if film.Partial {
		if err := keep("interrupted"); err != nil {
			return film, display, stats, err
		}
		return film, display, stats, ErrInterrupted
	}
	return film, display, stats, nil
}

// finishJob writes a job's outputs from its film: the noisy beauty and
// the denoised one where the job denoises (on the backend and device the
// film was rendered on), the other outputs, a thumbnail and the manifest.
// An interrupted denoiser leaves the film in the checkpoint at cpPath
// (where there is one).
func (r *Runner) finishJob(ctx context.Context, p *prepared, dir string, film *render.Film, display render.Display, ran string, device int, cpPath string) (written []string, err error) {
	jc := p.job
	if jc.Denoise {
		r.note(jc.Name)("denoising (" + jc.Denoiser + ")")
	}
	var outs []job.Output
	var aovs []render.AOV
	for _, o := range p.outputs {
		outs = append(outs, job.Output{Path: filepath.Join(dir, o.name), AOV: o.aov})
		aovs = append(aovs, o.aov)
	}
	film.Keep(render.LayersFor(aovs, jc.Denoise)) // merged slices hold every layer; the image what is asked
	paths, final, err := job.Write(ctx, film, display, outs, job.Denoise{On: jc.Denoise, Name: p.requested, Passes: jc.DenoisePasses}, ran, device, r.note(jc.Name))
	for _, path := range paths {
		written = append(written, filepath.Base(path))
	}
	if errors.Is(err, context.Canceled) {
		if cpPath == "" {
			return written, ErrInterrupted // the slices wait for the next run
		}
		// The whole film waits in the checkpoint for the next run.
		if err := writeCheckpoint(cpPath, checkpoint{Key: p.cpKey, Film: film}); err != nil {
			return written, fmt.Errorf("interrupted while denoising, and the checkpoint could not be written: %w", err)
		}
		return written, ErrInterrupted
	}
	if err != nil {
		return written, err
	}
	m := manifest{Key: p.key, Outputs: map[string]string{}, Samples: film.Samples}
	for _, o := range p.outputs {
		h, err := fileHash(filepath.Join(dir, o.name))
		if err != nil {
			return written, err
		}
		m.Outputs[o.name] = h
	}
	if err := writeThumbnail(filepath.Join(dir, "thumb.png"), final, display); err != nil {
		return written, err
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, "manifest.json"), m); err != nil {
		return written, err
	}
	if cpPath != "" {
		os.Remove(cpPath)
	}
	return written, nil
}

// keepRendered keeps a film whose outputs could not be written (a full
// disk, a folder where a file goes) in its checkpoint, so that the next
// run writes them without rendering again, and says so in the error.
func keepRendered(err error, cpPath, key string, film *render.Film) error {
	if errors.Is(err, ErrInterrupted) {
		return err // the checkpoint is written
	}
	if cerr := writeCheckpoint(cpPath, checkpoint{Key: key, Film: film}); cerr != nil {
		return fmt.Errorf("%w; and the film rendered could not be kept in a checkpoint either: %v", err, cerr)
	}
	return fmt.Errorf("%w; the film rendered (%d samples per pixel) is kept in its checkpoint: the next run writes the outputs without rendering again", err, film.Samples)
}
