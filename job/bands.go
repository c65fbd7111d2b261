package job

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sertrace/atomicfile"
	"sertrace/render"
	"sertrace/scene"
)

// A job whose film does not fit its memory budget renders in bands of
// rows streamed into one EXR, as sertrace render and a batch job alike
// choose: Plan says whether it can and how many rows a band takes, Bands
// renders them into the file.

// WhyNotBands says why the job cannot render in bands into out (a
// render.BandWriter), or "": it writes an EXR alone, with no denoiser
// and no heatmap (both read the whole image), as a whole render.
func (j *Job) WhyNotBands(out string, aovs []render.AOV, denoised bool) string {
	s := j.spec.Settings
	switch {
	case !strings.EqualFold(filepath.Ext(out), ".exr"):
		return "a render in bands writes an EXR alone: use -o NAME.exr"
	case denoised && j.Options.Width*j.Options.Height > render.MaxFilePixels:
		return "the denoiser reads the whole image"
	case denoised:
		return "the denoiser reads the whole image: denoise the EXR afterwards (sertrace denoise)"
	case slices.ContainsFunc(aovs, func(a render.AOV) bool { return slices.Contains(render.Heatmaps, a) }):
		return "a heatmap (--aov " + render.AOVNames(render.Heatmaps) + ") reads the whole image"
	case s.Samples != "":
		return "a slice holds the whole film's sums"
	case s.TimeBudget > 0:
		return "a time budget needs the whole image's passes: leave out --time-budget"
	}
	return ""
}

// Plan is how the job renders in bands into out, where its film is over
// the memory budget that budget names (over, Layers' *render.MemoryError):
// the layers the file holds and the rows of a band. It is over itself,
// said with the reason, where the job cannot render in bands; over as it
// is where not even a band of 16 rows fits.
func (j *Job) Plan(out string, aovs []render.AOV, denoised bool, budget string, over error) (layers render.Layers, rows int, err error) {
	layers = j.layersFor(aovs, false)
	rows, err = j.BandRows(layers, budget)
	if err != nil || rows == 0 {
		return 0, 0, over
	}
	if why := j.WhyNotBands(out, aovs, denoised); why != "" {
		return 0, 0, fmt.Errorf("%w (rendered in bands of rows it would fit, but %s)", over, why)
	}
	return layers, rows, nil
}

// Bands renders the job in bands of rows, each written to out (an EXR) as
// it is done: the file is committed, marked partial, when the render is
// cut short after its first band's first pass, and not at all before. It
// continues a render of the same key that was killed (its unfinished file
// beside out, which an abort and a failed write also leave) or
// interrupted (out itself, marked partial) from the rows it wrote whole.
// It returns the render's stats and error, the rows rendered whole, and
// an error that kept the file from being written. Once the render is
// over, the rest of the file is written between writing(out) and the
// function it returns (an interrupt's window; nil: none).
func (j *Job) Bands(ctx context.Context, out string, layers render.Layers, rows int, progress render.Progress, writing func(string) func()) (stats *render.Stats, renderErr error, done int, err error) {
	key, err := j.bandsKey(layers, rows)
	if err != nil {
		return nil, nil, 0, err
	}
	src := continuable(out, key, j.note)
	defer src.close()
	// begin starts the file: an abort leaves it for the next run, as a
	// kill does.
	begin := func() (*atomicfile.Temp, *render.BandWriter, error) {
		t, err := atomicfile.Create(out)
		if err != nil {
			return nil, nil, err
		}
		t.Keep = true
		bw, err := render.NewBandWriter(t, j.Options.Width, j.Options.Height, layers, j.Options.NamesFor(layers), j.Display.HalfFloat, j.Options.SPP, key)
		if err != nil {
			t.Discard()
			return nil, nil, fmt.Errorf("write %s: %w", out, err)
		}
		return t, bw, nil
	}
	t, bw, err := begin()
	if err != nil {
		return nil, nil, 0, err
	}
	if src.f != nil {
		if cerr := bw.Copy(src.f, src.size, src.rows); cerr == nil {
			j.note(fmt.Sprintf("%s: continuing the render in bands that %s: its rows 0..%d are kept", out, src.what, src.rows-1))
		} else {
			j.note(fmt.Sprintf("%s: the render in bands that %s does not read (%v): starting over", out, src.what, cerr))
			t.Discard()
			src.rows = 0
			if t, bw, err = begin(); err != nil {
				return nil, nil, 0, err
			}
		}
	}
	done = src.rows
	rendered := done > 0
	stats, renderErr = j.RenderBands(ctx, layers, rows, done, func(band *render.Film) error {
		rendered = rendered || band.Samples > 0
		if band.Samples == j.Options.SPP && !band.Partial {
			done = band.Y0 + band.Height
		}
		return bw.Write(band)
	}, progress)
	var failed error
	switch {
	case stats == nil:
		failed = renderErr // the scene's preparation: no file
	case !rendered && renderErr != nil && !errors.Is(renderErr, context.Canceled):
		failed = renderErr
	case !rendered:
		failed = fmt.Errorf("interrupted before the first pass finished: nothing written")
	}
	if failed != nil {
		t.Discard()
		return nil, nil, 0, failed // as it is, not as a failure to write
	}
	if writing != nil {
		defer writing(out)()
	}
	start := time.Now()
	if err = bw.Close(stats.Partial); err == nil {
		err = t.Commit()
	} else {
		t.Leave() // its rows done count: the next run continues them
		err = fmt.Errorf("write %s: %w; what it holds is left in %s for the next run to continue", out, err, t.Name())
	}
	if err == nil {
		src.done()
	}
	stats.WriteSeconds += time.Since(start).Seconds()
	return stats, renderErr, done, err
}

// bandsSource is the file a render in bands continues: a killed run's
// temporary (claimed, so that no write removes it before its rows are
// copied) or an interrupted run's image.
type bandsSource struct {
	f    *os.File
	rows int
	size int64
	what string // for the messages
	temp bool   // a temporary, removed once its rows are in the new file
}

// continuable finds the file with the most rows of the render key among
// out's killed temporaries and out itself, if it is a partial image of
// it; those of the render that do not read are said.
func continuable(out, key string, note func(string)) bandsSource {
	var best bandsSource
	try := func(f *os.File, what string, temp bool) {
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return
		}
		n, err := render.BandsDone(f, fi.Size(), key)
		if err != nil && !errors.Is(err, render.ErrOtherRender) {
			note(fmt.Sprintf("%s: the render in bands that %s does not read (%v): it is not continued", out, what, err))
		}
		if err != nil || n <= best.rows {
			f.Close()
			return
		}
		best.close()
		best = bandsSource{f: f, rows: n, size: fi.Size(), what: what, temp: temp}
	}
	for _, p := range atomicfile.Stale(out) {
		if f, err := atomicfile.Claim(p); err == nil {
			try(f, "a killed run left in "+p, true)
		}
	}
	if f, err := os.Open(out); err == nil {
		if fi, err := f.Stat(); err == nil && render.IsPartial(f, fi.Size()) {
			try(f, "an interrupted run wrote to "+out, false)
		} else {
			f.Close()
		}
	}
	return best
}

// done removes a temporary whose rows are in the new file, and closes it.
func (b *bandsSource) done() {
	if b.f != nil && b.temp {
		os.Remove(b.f.Name())
	}
	b.close()
}

func (b *bandsSource) close() {
	if b.f != nil {
		b.f.Close()
		b.f = nil
	}
}

// bandsKey names a render in bands in its file, for a run that would
// continue it: what its pixels depend on (the build, the settings, the
// scene's and environment's bytes, the backend, the layers; on the GPU
// the band's rows), not the threads or the memory budget. (Not the
// tracer auto picks either: a machine with Embree and one without render
// the same image, not the same bits.) sertrace render and a batch job of
// the same settings and scene name their file alike.
func (j *Job) bandsKey(layers render.Layers, rows int) (string, error) {
	s := j.spec.Settings
	var env []string
	if s.Env != "" {
		env = append(env, j.resolve(s.Env))
	}
	content, err := scene.ContentHash(j.spec.Scene, env...)
	if err != nil {
		return "", err
	}
	s.Threads, s.MemoryBudget = 0, ""
	if s.Env != "" {
		s.Env = filepath.Base(s.Env) // its bytes are in content: not the path it was named by
	}
	// The scheme as parsed: "material", "sort" and "" are one.
	s.Reorder, s.ReorderHint = fmt.Sprintf("%s:%d", j.Options.Reorder.Mode, j.Options.Reorder.Bits), false
	settings, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	if j.Backend.Name() != "vulkan" {
		rows = 0 // a GPU sums each launch, a band's rows, in float32: the CPU's bands are exact
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n%d\n%d\n", render.BuildID(), settings, content, j.Backend.Name(), layers, rows)
	return hex.EncodeToString(h.Sum(nil)), nil
}
