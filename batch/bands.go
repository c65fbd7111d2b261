package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sertrace/atomicfile"
	"sertrace/job"
	"sertrace/render"
)

// runBands renders a whole job whose film is over its memory budget
// (over, with the job j prepared) in bands streamed into its one EXR
// output, as sertrace render does (job.Plan, job.Bands): the same file.
// Interrupted, the bands done are in the output, marked partial; killed,
// in its temporary beside it; the next run continues from them. It
// returns the samples per pixel of the image written whole.
func (r *Runner) runBands(ctx context.Context, p *prepared, j *job.Job, dir string, over error) (samples int, err error) {
	jc := p.job
	if len(p.outputs) != 1 || p.outputs[0].aov != render.AOVBeauty {
		return 0, fmt.Errorf("%w (rendered in bands of rows it would fit, but a render in bands writes one EXR: outputs: [beauty.exr])", over)
	}
	name := p.outputs[0].name
	out := filepath.Join(dir, name)
	layers, rows, err := j.Plan(out, nil, jc.Denoise, jc.MemoryBudget, over)
	if err != nil {
		return 0, err // over names the job
	}
	if _, err := os.Stat(filepath.Join(dir, "checkpoint.gob")); err == nil {
		r.note(jc.Name)("its checkpoint is of a whole film, which the memory budget no longer holds: it is not continued, and is removed once the bands are done")
	}
	w, h := j.Options.Width, j.Options.Height
	r.note(jc.Name)(fmt.Sprintf("%dx%d does not fit the memory budget in one film: rendering it in bands of %d rows, each written to %s as it is done", w, h, rows, out))
	var tick render.Progress
	if r.Tick != nil {
		tick = r.Tick
	}
	stats, renderErr, done, err := j.Bands(ctx, out, layers, rows, tick, nil)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", jc.Name, err)
	}
	kept := fmt.Sprintf("rows 0..%d of %d, the bands rendered whole, are kept in %s: the next run continues from them", done-1, h, out)
	if done == 0 {
		kept = fmt.Sprintf("no band was finished: the next run starts %s over", out)
	}
	switch {
	case renderErr != nil && !errors.Is(renderErr, context.Canceled):
		return 0, fmt.Errorf("%s: %w; %s", jc.Name, renderErr, kept)
	case stats.Partial || renderErr != nil:
		return 0, fmt.Errorf("%w: %s", ErrInterrupted, kept)
	}
	hash, err := fileHash(out)
	if err != nil {
		return 0, err
	}
	// No thumbnail (the contact sheet shows none): the image is larger
	// than a film of it the budget holds. What an earlier render of the
	// job left is not this image's.
	os.Remove(filepath.Join(dir, "thumb.png"))
	os.Remove(filepath.Join(dir, "checkpoint.gob"))
	m := manifest{Key: p.key, Outputs: map[string]string{name: hash}, Samples: j.Options.SPP}
	if err := atomicfile.WriteJSON(filepath.Join(dir, "manifest.json"), m); err != nil {
		return 0, err
	}
	return j.Options.SPP, nil
}

// noteBandsLeft says where a job that renders a whole film finds the bands
// an earlier render of it in bands left (its output marked partial, or a
// killed run's temporary): a film does not continue them, and they are
// replaced when its outputs are written.
func (r *Runner) noteBandsLeft(p *prepared, dir string) {
	for _, o := range p.outputs {
		out := filepath.Join(dir, o.name)
		left := atomicfile.Stale(out)
		if f, err := os.Open(out); err == nil {
			if fi, err := f.Stat(); err == nil && render.IsPartial(f, fi.Size()) {
				left = append(left, out)
			}
			f.Close()
		}
		if len(left) > 0 {
			r.note(p.job.Name)(fmt.Sprintf("the film fits the memory budget now: the rows an earlier render in bands left in %s are not continued, and are replaced when the outputs are written", strings.Join(left, ", ")))
		}
	}
}
