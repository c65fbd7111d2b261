package batch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sertrace/atomicfile"
	"sertrace/denoise"
	"sertrace/render"
	"sertrace/render/backends"
	"sertrace/scene"
)

// Job statuses in summary.json.
const (
	Done    = "done"
	Skipped = "skipped" // its outputs were up to date
	Failed  = "failed"
)

// JobResult is one job's line in summary.json.
type JobResult struct {
	Name    string   `json:"name"`
	Status  string   `json:"status"`
	Error   string   `json:"error,omitempty"`
	Seconds float64  `json:"seconds"`
	Outputs []string `json:"outputs"`
	Samples int      `json:"samples_per_pixel,omitempty"`
	Job     Job      `json:"settings"`
}

// Summary is summary.json.
type Summary struct {
	Jobs []JobResult `json:"jobs"`
}

// Failed counts the jobs that failed.
func (s *Summary) Failed() int {
	n := 0
	for _, j := range s.Jobs {
		if j.Status == Failed {
			n++
		}
	}
	return n
}

// Runner runs a config's jobs.
type Runner struct {
	Config *Config
	Log    io.Writer                   // one line per job
	Job    func(name string, i, n int) // a job starts (for progress)
	Tick   func(done float64)          // the current job's progress
}

// manifest records what a job's outputs were made from.
type manifest struct {
	Key     string            `json:"key"` // hash of the settings and the scene's content
	Outputs map[string]string `json:"outputs"`
	Samples int               `json:"samples_per_pixel"`
}

// checkpoint is an interrupted job's accumulation.
type checkpoint struct {
	Key  string
	Film *render.Film
}

// ErrInterrupted is Run's error when a cancellation stopped a job.
var ErrInterrupted = errors.New("interrupted")

// Run renders every job, one after another. A cancelled ctx (SIGINT,
// SIGTERM) stops the job in progress, which writes a checkpoint; the jobs
// after it are not started. summary.json and summary.html are written
// whatever happens.
func (r *Runner) Run(ctx context.Context) (*Summary, error) {
	cfg := r.Config
	outDir := cfg.resolve(cfg.OutputDir)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: %w", outDir, unwrap(err))
	}
	lock := filepath.Join(outDir, "batch.lock")
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("output folder %s is in use by another batch (remove %s if none is running)", outDir, lock)
	}
	fmt.Fprintf(f, "%d\n", os.Getpid())
	f.Close()
	defer os.Remove(lock)
	sum := &Summary{}
	interrupted := false
	for i, job := range cfg.Jobs {
		res := JobResult{Name: job.Name, Job: job, Outputs: []string{}}
		if interrupted {
			res.Status, res.Error = Failed, "not started: the batch was interrupted"
			sum.Jobs = append(sum.Jobs, res)
			continue
		}
		if r.Job != nil {
			r.Job(job.Name, i, len(cfg.Jobs))
		}
		start := time.Now()
		skipped, outputs, samples, err := r.runJob(ctx, job, filepath.Join(outDir, job.Name))
		res.Seconds, res.Outputs, res.Samples = time.Since(start).Seconds(), outputs, samples
		switch {
		case errors.Is(err, ErrInterrupted):
			res.Status, res.Error = Failed, fmt.Sprintf("interrupted after %d samples per pixel: a checkpoint was written, the next run continues from it", samples)
			interrupted = true
		case err != nil:
			res.Status, res.Error = Failed, err.Error()
		case skipped:
			res.Status = Skipped
		default:
			res.Status = Done
		}
		if r.Log != nil {
			line := fmt.Sprintf("%s: %s in %.1f s", job.Name, res.Status, res.Seconds)
			if res.Error != "" {
				line += ": " + res.Error
			}
			fmt.Fprintln(r.Log, line)
		}
		sum.Jobs = append(sum.Jobs, res)
	}
	if err := writeSummary(outDir, sum); err != nil {
		return sum, err
	}
	if interrupted {
		return sum, ErrInterrupted
	}
	return sum, nil
}

// output is one file a job writes: which AOV, in which format.
type output struct {
	name string
	aov  render.AOV
}

func parseOutputs(names []string) ([]output, error) {
	if len(names) == 0 {
		return nil, errors.New("no outputs")
	}
	var out []output
	for _, n := range names {
		base, ext := strings.TrimSuffix(n, filepath.Ext(n)), strings.ToLower(filepath.Ext(n))
		a := render.AOV(base)
		switch {
		case ext != ".exr" && ext != ".pfm" && ext != ".png":
			return nil, fmt.Errorf("output %q: the format must be .exr, .pfm or .png", n)
		case !slices.Contains(render.AOVs, a):
			return nil, fmt.Errorf("output %q: unknown output %q (%s)", n, base, render.AOVNames(render.AOVs))
		}
		out = append(out, output{n, a})
	}
	return out, nil
}

// runJob renders one job into dir unless its outputs are up to date.
func (r *Runner) runJob(ctx context.Context, job Job, dir string) (skipped bool, written []string, samples int, err error) {
	outputs, err := parseOutputs(job.Outputs)
	if err != nil {
		return false, nil, 0, err
	}
	// The key holds what the images depend on: auto's choice, which
	// differs with what is installed, and passes only for the network.
	requested := job.Denoiser
	if job.Denoise {
		if err := denoise.CheckChoice(job.Denoiser, job.DenoisePasses); err != nil {
			return false, nil, 0, err
		}
		job.Denoiser = denoise.Resolve(job.Denoiser)
		if job.Denoiser != "network" {
			job.DenoisePasses = 1
		}
	} else {
		job.Denoiser, job.DenoisePasses = "", 1
	}
	scenePath := r.Config.resolve(job.Scene)
	content, err := r.contentHash(job, scenePath)
	if err != nil {
		return false, nil, 0, err
	}
	key := jobKey(job, content)
	// A checkpoint holds the noisy film, whatever denoises it after.
	undenoised := job
	undenoised.Denoise, undenoised.Denoiser, undenoised.DenoisePasses = false, "", 1
	cpKey := jobKey(undenoised, content)
	if m, ok := readManifest(dir); ok && m.Key == key && outputsMatch(dir, m, outputs) {
		for _, o := range outputs {
			written = append(written, o.name)
		}
		return true, written, m.Samples, nil
	}
	if job.Denoise {
		// Finished jobs are skipped without the network's weights; one to
		// render needs them before it starts.
		if err := denoise.Ready(job.Denoiser); err != nil {
			return false, nil, 0, err
		}
	}
	sc, err := scene.Load(scenePath)
	if err != nil {
		return false, nil, 0, err
	}
	opts, display, err := job.Settings.Options(sc, r.Config.resolve)
	if err != nil {
		return false, nil, 0, fmt.Errorf("%s: %w", job.Name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, nil, 0, fmt.Errorf("output folder %s: %w", dir, unwrap(err))
	}
	film := render.NewFilm(opts.Width, opts.Height)
	cpPath := filepath.Join(dir, "checkpoint.gob")
	// keep writes the film to the checkpoint for the next run; why says
	// what stopped this one, for the error if even that fails.
	keep := func(why string) error {
		if err := writeCheckpoint(cpPath, checkpoint{Key: cpKey, Film: film}); err != nil {
			return fmt.Errorf("%s, and the checkpoint could not be written: %w", why, err)
		}
		return nil
	}
	if cp, ok := readCheckpoint(cpPath); ok && cp.Key == cpKey && cp.Film.Width == opts.Width && cp.Film.Height == opts.Height {
		film = cp.Film
		film.Partial = false
	}
	var tick render.Progress
	if r.Tick != nil {
		tick = r.Tick
	}
	note := func(line string) {
		if r.Log != nil {
			fmt.Fprintf(r.Log, "%s: %s\n", job.Name, line)
		}
	}
	backend, err := backends.Choose(job.Settings.Backend, job.Settings.Path, note)
	if err != nil {
		return false, nil, 0, err
	}
	stats, rerr := render.Render(ctx, backend, sc, opts, film, tick)
	if rerr != nil && !errors.Is(rerr, context.Canceled) {
		// A failure after some passes (a lost device) keeps them for the
		// next run, as an interruption does.
		if film.Partial && film.Samples > 0 {
			if err := keep(rerr.Error()); err != nil {
				return false, nil, film.Samples, err
			}
			return false, nil, film.Samples, fmt.Errorf("%w; the %d samples per pixel before it are kept in the checkpoint", rerr, film.Samples)
		}
		return false, nil, film.Samples, rerr
	}
	if film.Partial {
		if err := keep("interrupted"); err != nil {
			return false, nil, film.Samples, err
		}
		return false, nil, film.Samples, ErrInterrupted
	}
	m := manifest{Key: key, Outputs: map[string]string{}, Samples: film.Samples}
	final := film
	if job.Denoise {
		ran, device := "cpu", -1
		if stats != nil {
			ran, device = stats.Backend, stats.DeviceIndex
		}
		method, err := denoise.Choose(requested, job.DenoisePasses, ran, device, note)
		if err != nil {
			return false, nil, film.Samples, err
		}
		// The noisy beauty is kept beside the denoised one, written first.
		for _, o := range outputs {
			if o.aov != render.AOVBeauty {
				continue
			}
			name := "beauty.noisy" + filepath.Ext(o.name)
			if err := render.WriteAOV(filepath.Join(dir, name), film, o.aov, display); err != nil {
				return false, written, film.Samples, err
			}
			written = append(written, name)
		}
		note("denoising (" + job.Denoiser + ")")
		if final, err = denoise.Film(ctx, film, method); err != nil {
			if ctx.Err() != nil {
				// The whole film waits in the checkpoint for the next run.
				if err := keep("interrupted while denoising"); err != nil {
					return false, written, film.Samples, err
				}
				return false, written, film.Samples, ErrInterrupted
			}
			return false, written, film.Samples, err
		}
	}
	for _, o := range outputs {
		p := filepath.Join(dir, o.name)
		if err := render.WriteAOV(p, final, o.aov, display); err != nil {
			return false, written, film.Samples, err
		}
		h, err := fileHash(p)
		if err != nil {
			return false, written, film.Samples, err
		}
		m.Outputs[o.name] = h
		written = append(written, o.name)
	}
	if err := writeThumbnail(filepath.Join(dir, "thumb.png"), final, display); err != nil {
		return false, written, film.Samples, err
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, "manifest.json"), m); err != nil {
		return false, written, film.Samples, err
	}
	os.Remove(cpPath)
	return false, written, film.Samples, nil
}

// jobKey hashes what a job's result depends on: the renderer's build, the
// job's settings (not the thread count, which changes nothing), and the
// content of its files (contentHash).
func jobKey(job Job, content string) string {
	h := sha256.New()
	h.Write([]byte(render.BuildID()))
	job.Threads = 0
	settings, _ := json.Marshal(job)
	h.Write(settings)
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}

// contentHash hashes the bytes of a job's scene, the buffers and images it
// refers to, and its environment (scene.ContentHash).
func (r *Runner) contentHash(job Job, scenePath string) (string, error) {
	var extra []string
	if job.Env != "" {
		extra = append(extra, r.Config.resolve(job.Env))
	}
	h, err := scene.ContentHash(scenePath, extra...)
	if err != nil {
		return "", fmt.Errorf("load %s: %w", scenePath, unwrap(err))
	}
	return h, nil
}

func readManifest(dir string) (manifest, bool) {
	var m manifest
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	return m, err == nil && json.Unmarshal(b, &m) == nil
}

func outputsMatch(dir string, m manifest, outputs []output) bool {
	for _, o := range outputs {
		h, err := fileHash(filepath.Join(dir, o.name))
		if err != nil || h != m.Outputs[o.name] {
			return false
		}
	}
	return true
}

func fileHash(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:]), nil
}

func readCheckpoint(path string) (checkpoint, bool) {
	var cp checkpoint
	b, err := os.ReadFile(path)
	if err != nil || gob.NewDecoder(bytes.NewReader(b)).Decode(&cp) != nil || cp.Film == nil {
		return cp, false
	}
	cp.Film.FillResiduals()
	return cp, cp.Film.Whole()
}

func writeCheckpoint(path string, cp checkpoint) error {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(cp); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, b.Bytes())
}

// writeThumbnail writes a copy of the beauty at most 240 pixels wide.
func writeThumbnail(path string, film *render.Film, display render.Display) error {
	step := max(1, (film.Width+239)/240)
	w, h := film.Width/step, film.Height/step
	small := render.NewFilm(max(w, 1), max(h, 1))
	small.Samples = 1
	pix, _ := film.Resolve(render.AOVBeauty)
	for y := 0; y < small.Height; y++ {
		for x := 0; x < small.Width; x++ {
			for c := 0; c < 3; c++ {
				var sum float64
				for dy := 0; dy < step; dy++ {
					for dx := 0; dx < step; dx++ {
						sum += float64(pix[3*((y*step+dy)*film.Width+x*step+dx)+c])
					}
				}
				small.Beauty[3*(y*small.Width+x)+c] = sum / float64(step*step)
			}
		}
	}
	return render.Write(path, small, display)
}
