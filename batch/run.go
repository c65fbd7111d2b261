package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"sertrace/atomicfile"
	"sertrace/denoise"
	jobs "sertrace/job"
	"sertrace/render"
	"sertrace/render/backends"
	"sertrace/scene"
)

// Job statuses in summary.json.
const (
	Done    = "done"
	Skipped = "skipped" // its outputs were up to date
	Failed  = "failed"
	Pending = "pending" // not rendered yet: another share's, or a split job with slices to go
	Busy    = "busy"    // another process holds it (a unit's status in this run only)
)

// JobResult is one job's line in summary.json.
type JobResult struct {
	Name    string   `json:"name"`
	Status  string   `json:"status"`
	Error   string   `json:"error,omitempty"`
	Seconds float64  `json:"seconds"`
	Outputs []string `json:"outputs"`
	Samples int      `json:"samples_per_pixel,omitempty"`
	Where   string   `json:"where,omitempty"` // the host (and Slurm job and task) that last worked on it
	Job     Job      `json:"settings"`
}

// Summary is summary.json: every job of the batch, as its folder records
// it, whichever share or run did the work.
type Summary struct {
	Jobs []JobResult `json:"jobs"`
	// Units are what this run did, unit by unit (not in summary.json).
	Units []UnitResult `json:"-"`
}

// UnitResult is what a run did with one unit of work.
type UnitResult struct {
	Name, Status, Error string
	Seconds             float64
	Samples             int
	err                 error
}

// Failed counts the jobs that failed.
func (s *Summary) Failed() int { return s.count(Failed) }

// Pending counts the jobs not rendered yet.
func (s *Summary) Pending() int { return s.count(Pending) }

func (s *Summary) count(status string) int {
	n := 0
	for _, j := range s.Jobs {
		if j.Status == status {
			n++
		}
	}
	return n
}

// UnitsFailed counts the units of this run that failed.
func (s *Summary) UnitsFailed() int {
	n := 0
	for _, u := range s.Units {
		if u.Status == Failed {
			n++
		}
	}
	return n
}

// Runner runs a config's jobs, or its share of them.
type Runner struct {
	Config *Config
	Log    io.Writer                   // one line per unit
	Job    func(name string, i, n int) // a unit starts (for progress)
	Tick   func(done float64)          // the current unit's progress
	// Shard of Shards (0 ≤ Shard < Shards) is this run's share of the
	// units: Shard, Shard+Shards, Shard+2·Shards, …; Shards 0 is all of them.
	Shard, Shards int
	// Units, when not nil, are the units to share out, by name (UnitName),
	// in order: a Slurm submission fixes them so that its tasks agree.
	Units []string
	// CheckpointEvery is how often a unit's film is saved while it renders
	// (after the pass that ends this long after the last save), so that a
	// process killed outright (kill -9, an out-of-memory kill, a lost
	// node, Slurm's time limit) loses at most this much; 0 is a minute.
	CheckpointEvery time.Duration

	hashes map[string]string // contentHash's, by scene and environment
	mu     sync.Mutex
	said   map[string]bool // the lines said once a run (note)
}

// Unit is a unit of a batch's work: a job, or one slice of a split job.
type Unit struct {
	Job   int // index in Config.Jobs
	Slice int // the slice, or −1: the whole job
}

// Units lists a config's units in order: each job, or its slices.
func (c *Config) Units() []Unit {
	var out []Unit
	for i, job := range c.Jobs {
		if job.Split > 1 {
			for k := range job.Split {
				out = append(out, Unit{i, k})
			}
			continue
		}
		out = append(out, Unit{i, -1})
	}
	return out
}

// UnitName names a unit: the job's name, and #K for slice K.
func (c *Config) UnitName(u Unit) string {
	if u.Slice < 0 {
		return c.Jobs[u.Job].Name
	}
	return fmt.Sprintf("%s#%d", c.Jobs[u.Job].Name, u.Slice)
}

// sliceRange is the samples of slice k of a job split in n: [first, first+count).
func sliceRange(spp, k, n int) (first, count int) {
	first = k * spp / n
	return first, (k+1)*spp/n - first
}

// share is this run's units.
func (r *Runner) share() ([]Unit, error) {
	cfg := r.Config
	all := cfg.Units()
	if r.Units != nil {
		byName := map[string]Unit{}
		for _, u := range all {
			byName[cfg.UnitName(u)] = u
		}
		var listed []Unit
		for _, name := range r.Units {
			u, ok := byName[name]
			if !ok {
				return nil, fmt.Errorf("unit %q of the list to render is not one of %s's (was the config edited after the submission?)", name, cfg.path)
			}
			listed = append(listed, u)
		}
		all = listed
	}
	if r.Shards == 0 {
		return all, nil
	}
	if r.Shard < 0 || r.Shard >= r.Shards {
		return nil, fmt.Errorf("share %d of %d does not exist (0..%d)", r.Shard, r.Shards, r.Shards-1)
	}
	var mine []Unit
	for i := r.Shard; i < len(all); i += r.Shards {
		mine = append(mine, all[i])
	}
	return mine, nil
}

// ErrInterrupted is Run's error when a cancellation stopped a job.
var ErrInterrupted = errors.New("interrupted")

// Run renders this run's units, one after another: each takes a lock of
// its own (the kernel's, released when a process dies however it dies), so
// runs that share an output folder (the shares of a batch, on one machine
// or many) never render the same unit twice at once, and a unit another
// holds is passed over. A split job's slices are merged, and its outputs
// written, by whichever run finds them all done. A cancelled ctx (SIGINT,
// SIGTERM) stops the unit in progress, which writes a checkpoint; the units
// after it are not started. summary.json and summary.html, the whole
// batch's as its folders record it, are written whatever happens.
func (r *Runner) Run(ctx context.Context) (*Summary, error) {
	cfg := r.Config
	outDir := cfg.resolve(cfg.OutputDir)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: %w", outDir, unwrap(err))
	}
	// A job's folder that is a file would fail its unit and leave the
	// summary unable to say so: refuse the run, naming it.
	for _, job := range cfg.Jobs {
		if st, err := os.Stat(filepath.Join(outDir, job.Name)); err == nil && !st.IsDir() {
			return nil, fmt.Errorf("job %q: %s is a file, not its folder: move the file or rename the job", job.Name, filepath.Join(outDir, job.Name))
		}
	}
	units, err := r.share()
	if err != nil {
		return nil, err
	}
	sum := &Summary{}
	interrupted := false
	for i, u := range units {
		res := UnitResult{Name: cfg.UnitName(u)}
		if interrupted {
			// Its record stays what it was: a job done stays done.
			res.Status, res.Error = Failed, "not started: the batch was interrupted"
			sum.Units = append(sum.Units, res)
			continue
		}
		if r.Job != nil {
			r.Job(res.Name, i, len(units))
		}
		res = r.runUnit(ctx, u, outDir)
		if errors.Is(res.err, ErrInterrupted) {
			interrupted = true
		}
		if r.Log != nil {
			line := fmt.Sprintf("%s: %s in %.1f s", res.Name, res.Status, res.Seconds)
			if res.Error != "" {
				line += ": " + res.Error
			}
			fmt.Fprintln(r.Log, line)
		}
		if u.Slice >= 0 && res.Status != Busy && !interrupted {
			// The job may be whole now: settle merges it if this was its
			// last slice, else records its progress (or a failure).
			merged, _, err := r.settle(ctx, u.Job, filepath.Join(outDir, cfg.Jobs[u.Job].Name), res.Status == Skipped)
			switch {
			case errors.Is(err, ErrInterrupted):
				interrupted = true
			case err != nil && !errors.Is(err, errBusy):
				res.Status, res.Error = Failed, err.Error()
				if r.Log != nil {
					fmt.Fprintf(r.Log, "%s: %v\n", cfg.Jobs[u.Job].Name, err)
				}
			case merged && r.Log != nil:
				fmt.Fprintf(r.Log, "%s: merged its %d slices\n", cfg.Jobs[u.Job].Name, cfg.Jobs[u.Job].Split)
			}
		}
		sum.Units = append(sum.Units, res)
	}
	whole, err := r.summarize(outDir)
	if err != nil {
		return sum, err
	}
	sum.Jobs = whole.Jobs
	if interrupted {
		return sum, ErrInterrupted
	}
	return sum, nil
}

// Finish merges the split jobs whose slices are all done (a submission's
// last step, for slices whose own run could not) and writes the summary.
func (r *Runner) Finish(ctx context.Context) (*Summary, error) {
	cfg := r.Config
	outDir := cfg.resolve(cfg.OutputDir)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: %w", outDir, unwrap(err))
	}
	for i, job := range cfg.Jobs {
		if _, err := os.Stat(filepath.Join(outDir, job.Name, "slices")); err != nil {
			continue // no slice of it was rendered
		}
		if job.Split > 1 {
			if _, _, err := r.settle(ctx, i, filepath.Join(outDir, job.Name), false); err != nil && !errors.Is(err, errBusy) && r.Log != nil {
				fmt.Fprintf(r.Log, "%s: %v\n", job.Name, err)
			}
		}
	}
	return r.summarize(outDir)
}

// where names this process's machine, and its Slurm job and task if any.
func where() string {
	host, _ := os.Hostname()
	if id := os.Getenv("SLURM_ARRAY_JOB_ID"); id != "" {
		return fmt.Sprintf("%s, Slurm job %s task %s", host, id, os.Getenv("SLURM_ARRAY_TASK_ID"))
	}
	if id := os.Getenv("SLURM_JOB_ID"); id != "" {
		return fmt.Sprintf("%s, Slurm job %s", host, id)
	}
	return host
}

// allocatedCPUs is how many CPUs Slurm gave this task (which it does not
// enforce without cgroups), or 0: all of the machine's.
func allocatedCPUs() int {
	for _, v := range []string{"SLURM_CPUS_PER_TASK", "SLURM_CPUS_ON_NODE"} {
		if n, err := strconv.Atoi(os.Getenv(v)); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// record writes a unit's result where the summary reads it: a whole job's
// in its status.json (a split job's is settle's, from its slices').
func (r *Runner) record(outDir string, u Unit, res UnitResult) {
	job := r.Config.Jobs[u.Job]
	dir := filepath.Join(outDir, job.Name)
	if u.Slice >= 0 {
		if os.MkdirAll(filepath.Join(dir, "slices"), 0o755) == nil {
			atomicfile.WriteJSON(sliceFile(dir, u.Slice, "json"), sliceStatus{res.Status, res.Error, res.Seconds, where()})
		}
		return
	}
	if res.Status == Done || res.Status == Skipped {
		return // runJob wrote it, with the outputs
	}
	writeStatus(dir, JobResult{Name: job.Name, Status: res.Status, Error: res.Error, Seconds: res.Seconds, Samples: res.Samples, Outputs: []string{}, Where: where(), Job: job})
}

// sliceStatus is a slice's record: slices/K.json.
type sliceStatus struct {
	Status  string  `json:"status"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
	Where   string  `json:"where"`
}

func writeStatus(dir string, res JobResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteJSON(filepath.Join(dir, "status.json"), res)
}

// summarize writes summary.json and summary.html from every job's
// status.json, under a lock that orders the runs that finish together.
func (r *Runner) summarize(outDir string) (*Summary, error) {
	unlock, err := lock(filepath.Join(outDir, ".summary.lock"), true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	sum := &Summary{}
	for _, job := range r.Config.Jobs {
		res := JobResult{Name: job.Name, Status: Pending, Error: "not rendered yet", Outputs: []string{}, Job: job}
		if b, err := os.ReadFile(filepath.Join(outDir, job.Name, "status.json")); err == nil {
			var rec JobResult
			if json.Unmarshal(b, &rec) == nil && rec.Status != "" {
				res = rec
				res.Job = job
				if res.Outputs == nil {
					res.Outputs = []string{}
				}
			}
		}
		// A record of outputs made for other settings or another scene
		// (the config or the files changed since) is not this batch's.
		if res.Status == Done || res.Status == Skipped {
			if p, err := r.prepare(job); err == nil {
				if ok, _, _ := p.upToDate(filepath.Join(outDir, job.Name)); !ok {
					res.Status, res.Error = Pending, "not rendered yet with the config's settings and the scene's files as they are now"
				}
			}
		}
		sum.Jobs = append(sum.Jobs, res)
	}
	return sum, writeSummary(outDir, sum)
}

// ReadSummary reads the batch's summary.json, as the last run wrote it.
func (r *Runner) ReadSummary() (*Summary, error) {
	b, err := os.ReadFile(filepath.Join(r.Config.resolve(r.Config.OutputDir), "summary.json"))
	if err != nil {
		return nil, unwrap(err)
	}
	var sum Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, err
	}
	return &sum, nil
}

// errBusy is runUnit's error when another process holds the unit.
var errBusy = errors.New("busy")

// prepared is a job made ready to render: its outputs, keys and scene path.
type prepared struct {
	job       Job
	requested string // the denoiser the config asked for (auto resolves)
	outputs   []output
	scenePath string
	content   string
	key       string // the manifest's: the outputs' settings and content
	cpKey     string // the checkpoint's: the noisy film's
}

func (r *Runner) prepare(job Job) (*prepared, error) {
	outputs, err := parseOutputs(job.Outputs)
	if err != nil {
		return nil, err
	}
	p := &prepared{job: job, requested: job.Denoiser, outputs: outputs, scenePath: r.Config.resolve(job.Scene)}
	// The key holds what the images depend on: auto's choice, which
	// differs with what is installed, and passes only for the network.
	if p.job.Denoise {
		if err := denoise.CheckChoice(job.Denoiser, job.DenoisePasses); err != nil {
			return nil, err
		}
		p.job.Denoiser = denoise.Resolve(job.Denoiser)
		if p.job.Denoiser != "network" {
			p.job.DenoisePasses = 1
		}
	} else {
		p.job.Denoiser, p.job.DenoisePasses = "", 1
	}
	if p.content, err = r.contentHash(p.job, p.scenePath); err != nil {
		return nil, err
	}
	p.key = jobKey(p.job, p.content)
	// A checkpoint holds the noisy film, whatever denoises it after.
	undenoised := p.job
	undenoised.Denoise, undenoised.Denoiser, undenoised.DenoisePasses = false, "", 1
	p.cpKey = jobKey(undenoised, p.content)
	return p, nil
}

// overwrites refuses a job whose files in dir (its outputs, the noisy
// images, its manifest, checkpoint and thumbnail) would be one of the
// files it reads: its scene, the files the scene names, its environment,
// the config.
func (r *Runner) overwrites(p *prepared, dir string) error {
	inputs := []string{p.scenePath, r.Config.path}
	if p.job.Env != "" {
		inputs = append(inputs, r.Config.resolve(p.job.Env))
	}
	resources, _ := scene.Resources(p.scenePath)
	for _, res := range resources {
		inputs = append(inputs, filepath.Join(filepath.Dir(p.scenePath), res))
	}
	names := []string{"manifest.json", "checkpoint.gob", "thumb.png"}
	for _, o := range p.outputs {
		names = append(names, o.name, denoise.NoisyPath(o.name))
	}
	for _, name := range names {
		for _, in := range inputs {
			if out := filepath.Join(dir, name); atomicfile.SameFile(out, in) {
				return fmt.Errorf("its file %s would overwrite %s, which it reads: give the job another name or output_dir", out, in)
			}
		}
	}
	return nil
}

// upToDate reports whether a job's outputs match its manifest, and lists them.
func (p *prepared) upToDate(dir string) (bool, []string, int) {
	m, ok := readManifest(dir)
	if !ok || m.Key != p.key || !outputsMatch(dir, m, p.outputs) {
		return false, nil, 0
	}
	var names []string
	for _, o := range p.outputs {
		names = append(names, o.name)
	}
	return true, names, m.Samples
}

// runUnit renders one unit unless its work is done, holding its lock,
// under which it records the unit's start (so that a run killed outright
// leaves a trace of where it was) and its end.
func (r *Runner) runUnit(ctx context.Context, u Unit, outDir string) UnitResult {
	res := UnitResult{Name: r.Config.UnitName(u)}
	job := r.Config.Jobs[u.Job]
	dir := filepath.Join(outDir, job.Name)
	lockPath := filepath.Join(dir, ".lock")
	if u.Slice >= 0 {
		lockPath = sliceFile(dir, u.Slice, "lock")
	}
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o755); err != nil {
		res.Status, res.Error, res.err = Failed, fmt.Sprintf("output folder %s: %v", filepath.Dir(lockPath), unwrap(err)), err
		return res
	}
	unlock, err := lock(lockPath, false)
	if errors.Is(err, errBusy) {
		res.Status, res.Error, res.err = Busy, "another batch is rendering it", err
		return res
	}
	if err != nil {
		res.Status, res.Error, res.err = Failed, err.Error(), err
		return res
	}
	defer unlock()
	r.record(outDir, u, UnitResult{Status: Pending, Error: "started at " + time.Now().UTC().Format(time.RFC3339) + ", not finished"})
	start := time.Now()
	var skipped bool
	if u.Slice < 0 {
		skipped, res.Samples, err = r.runJob(ctx, u.Job, dir)
	} else {
		skipped, res.Samples, err = r.runSlice(ctx, u, dir)
	}
	res.Seconds, res.err = time.Since(start).Seconds(), err
	switch {
	case errors.Is(err, ErrInterrupted):
		res.Status, res.Error = Failed, fmt.Sprintf("interrupted after %d samples per pixel: a checkpoint was written, the next run continues from it", res.Samples)
	case err != nil:
		res.Status, res.Error = Failed, err.Error()
	case skipped:
		res.Status = Skipped
	default:
		res.Status = Done
	}
	r.record(outDir, u, res)
	return res
}

// runJob renders a whole job into dir unless its outputs are up to date.
func (r *Runner) runJob(ctx context.Context, index int, dir string) (skipped bool, samples int, err error) {
	job := r.Config.Jobs[index]
	p, err := r.prepare(job)
	if err != nil {
		return false, 0, err
	}
	if err := r.overwrites(p, dir); err != nil {
		return false, 0, err
	}
	if ok, names, n := p.upToDate(dir); ok {
		return true, n, writeStatus(dir, JobResult{Name: job.Name, Status: Skipped, Outputs: names, Samples: n, Where: where(), Job: job})
	}
	start := time.Now()
	film, display, stats, err := r.renderFilm(ctx, p, -1, filepath.Join(dir, "checkpoint.gob"))
	if err != nil {
		if film != nil {
			samples = film.Samples
		}
		return false, samples, err
	}
	ran, device := "cpu", -1
	if stats != nil {
		ran, device = stats.Backend, stats.DeviceIndex
	}
	written, err := r.finishJob(ctx, p, dir, film, display, ran, device, filepath.Join(dir, "checkpoint.gob"))
	if err != nil {
		return false, film.Samples, keepRendered(err, filepath.Join(dir, "checkpoint.gob"), p.checkpointKey(-1), film)
	}
	return false, film.Samples, writeStatus(dir, JobResult{Name: job.Name, Status: Done, Outputs: written, Samples: film.Samples,
		Seconds: time.Since(start).Seconds(), Where: where(), Job: job})
}

// runSlice renders slice u.Slice of a split job into dir/slices/K.exr,
// unless it is there or the job's outputs are up to date.
func (r *Runner) runSlice(ctx context.Context, u Unit, dir string) (skipped bool, samples int, err error) {
	job := r.Config.Jobs[u.Job]
	p, err := r.prepare(job)
	if err != nil {
		return false, 0, err
	}
	if err := r.overwrites(p, dir); err != nil {
		return false, 0, err
	}
	if ok, _, n := p.upToDate(dir); ok {
		return true, n, nil
	}
	want := p.sliceInfo(u.Slice)
	if _, ok := p.sliceDone(dir, u.Slice); ok {
		return true, want.Count, nil
	}
	checkpoint := sliceFile(dir, u.Slice, "checkpoint.gob")
	film, display, stats, err := r.renderFilm(ctx, p, u.Slice, checkpoint)
	if err != nil {
		if film != nil {
			samples = film.Samples
		}
		return false, samples, err
	}
	want.Tracer = render.Tracer(stats)
	if err := render.WriteSlice(sliceFile(dir, u.Slice, "exr"), film, want, display); err != nil {
		return false, film.Samples, keepRendered(err, checkpoint, p.checkpointKey(u.Slice), film)
	}
	os.Remove(checkpoint)
	return false, film.Samples, nil
}

// samples is slice k's samples, as --samples gives them.
func (p *prepared) samples(k int) string {
	first, count := sliceRange(p.job.SPP, k, p.job.Split)
	return fmt.Sprintf("%d:%d", first, count)
}

// checkpointKey is what the checkpoint of slice k (−1: the whole job) is
// of.
func (p *prepared) checkpointKey(k int) string {
	if k < 0 {
		return p.cpKey
	}
	return p.cpKey + p.samples(k)
}

// sliceInfo is what slice k of the job is a slice of.
func (p *prepared) sliceInfo(k int) render.SliceInfo {
	first, count := sliceRange(p.job.SPP, k, p.job.Split)
	return render.SliceInfo{Scene: p.job.Scene, Content: p.content, Build: render.BuildID(), Settings: p.job.Settings.ForSlice(),
		SPP: p.job.SPP, First: first, Count: count}
}

// sliceFile is a file of slice k of the job in dir: its EXR, record
// (json), lock or checkpoint (checkpoint.gob).
func sliceFile(dir string, k int, ext string) string {
	return filepath.Join(dir, "slices", fmt.Sprintf("%d.%s", k, ext))
}

// sliceDone reports whether slice k of the job is rendered in dir, for the
// job's settings and scene as they are (whatever rendered it), and what its
// header says.
func (p *prepared) sliceDone(dir string, k int) (render.SliceInfo, bool) {
	info, err := render.ReadSliceInfo(sliceFile(dir, k, "exr"))
	return info, err == nil && sameSlice(info, p.sliceInfo(k))
}

// sameSlice reports whether a slice on disk is the one wanted (whatever
// rendered it).
func sameSlice(have, want render.SliceInfo) bool {
	return have.Content == want.Content && have.Build == want.Build && have.Settings == want.Settings &&
		have.SPP == want.SPP && have.First == want.First && have.Count == want.Count
}

// settle brings a split job's record up to date with its slices, under the
// job's lock: when every slice is there it merges them and writes the
// outputs (merged reports it), else it records the slices' progress or
// failure in status.json.
//
// A job already up to date is recorded as skipped when recordSkip is set
// (a run's slice found it so), else its record is kept.
func (r *Runner) settle(ctx context.Context, index int, dir string, recordSkip bool) (merged bool, samples int, err error) {
	job := r.Config.Jobs[index]
	unlock, err := lock(filepath.Join(dir, ".lock"), true)
	if err != nil {
		return false, 0, err
	}
	defer unlock()
	p, err := r.prepare(job)
	if err != nil {
		return false, 0, writeStatus(dir, JobResult{Name: job.Name, Status: Failed, Error: err.Error(), Outputs: []string{}, Where: where(), Job: job})
	}
	if ok, names, n := p.upToDate(dir); ok {
		if rec, _ := readStatus(dir); !recordSkip || rec.Status == Done {
			return false, n, nil // a merge's record is kept
		}
		return false, n, writeStatus(dir, JobResult{Name: job.Name, Status: Skipped, Outputs: names, Samples: n, Where: where(), Job: job})
	}
	var paths, failures []string
	var infos []render.SliceInfo
	var seconds float64
	for k := range job.Split {
		var st sliceStatus
		if b, err := os.ReadFile(sliceFile(dir, k, "json")); err == nil {
			json.Unmarshal(b, &st)
		}
		seconds += st.Seconds
		if info, ok := p.sliceDone(dir, k); ok {
			paths, infos = append(paths, sliceFile(dir, k, "exr")), append(infos, info)
			continue
		}
		if st.Status == Failed {
			want := p.sliceInfo(k)
			failures = append(failures, fmt.Sprintf("slice %d (samples %d:%d, on %s): %s", k, want.First, want.Count, st.Where, st.Error))
		}
	}
	record := func(status, why string) error {
		return writeStatus(dir, JobResult{Name: job.Name, Status: status, Error: why, Outputs: []string{}, Seconds: seconds, Where: where(), Job: job})
	}
	if len(failures) > 0 {
		return false, 0, record(Failed, strings.Join(failures, "; "))
	}
	if len(paths) < job.Split {
		return false, 0, record(Pending, fmt.Sprintf("%d of %d slices rendered", len(paths), job.Split))
	}
	// Slices from different tracers (backend auto on a mixed cluster, two
	// Embree versions) do not merge bit for bit: the most common tracer's
	// stay, the others are rendered again by the next runs.
	counts := map[string]int{}
	for _, info := range infos {
		counts[info.Tracer]++
	}
	keep := infos[0].Tracer
	for tracer, n := range counts {
		if n > counts[keep] || (n == counts[keep] && tracer < keep) {
			keep = tracer
		}
	}
	if len(counts) > 1 {
		var redo []string
		for i, info := range infos {
			if info.Tracer != keep {
				os.Remove(paths[i])
				redo = append(redo, fmt.Sprintf("%d (%s)", i, info.Tracer))
			}
		}
		return false, 0, record(Pending, fmt.Sprintf("slices %s were rendered on another tracer than %s: they are rendered again", strings.Join(redo, ", "), keep))
	}
	start := time.Now()
	var film *render.Film
	for i, path := range paths {
		part, _, err := render.ReadSlice(path)
		if err == nil && film == nil {
			film = part
			continue
		}
		if err == nil {
			if err = film.Add(part); err == nil {
				film.Samples += part.Samples
				continue
			}
		}
		// A slice that does not read back is rendered again.
		os.Remove(path)
		return false, 0, record(Pending, fmt.Sprintf("slice %d does not read back (%v): it is rendered again", i, err))
	}
	film.First = 0
	display := render.Display{Exposure: job.Exposure, ToneMap: job.ToneMap, HalfFloat: job.EXRPrecision == "half"}
	ran, _, _ := strings.Cut(keep, " ")
	written, err := r.finishJob(ctx, p, dir, film, display, ran, -1, "")
	if err == nil {
		os.RemoveAll(filepath.Join(dir, "slices")) // the outputs and the manifest say it all now
		return true, film.Samples, writeStatus(dir, JobResult{Name: job.Name, Status: Done, Outputs: written, Samples: film.Samples,
			Seconds: seconds + time.Since(start).Seconds(), Where: where(), Job: job})
	}
	if errors.Is(err, ErrInterrupted) {
		return false, 0, err
	}
	err = fmt.Errorf("merging its slices: %w", err)
	if werr := record(Failed, err.Error()); werr != nil {
		return false, 0, werr
	}
	return false, 0, err
}

// readStatus reads a job's status.json.
func readStatus(dir string) (JobResult, error) {
	var rec JobResult
	b, err := os.ReadFile(filepath.Join(dir, "status.json"))
	if err == nil {
		err = json.Unmarshal(b, &rec)
	}
	return rec, err
}

// renderFilm renders a job's film (slice K of it, or all of it for −1),
// from its checkpoint at cpPath where one is current; an interrupted or
// failing render leaves a checkpoint of what it did.
func (r *Runner) renderFilm(ctx context.Context, p *prepared, slice int, cpPath string) (*render.Film, render.Display, *render.Stats, error) {
	job := p.job
	if job.Denoise {
		// Finished jobs are skipped without the network's weights; one to
		// render needs them before it starts.
		if err := denoise.Ready(job.Denoiser); err != nil {
			return nil, render.Display{}, nil, err
		}
	}
	settings, cpKey := job.Settings, p.checkpointKey(slice)
	if slice >= 0 {
		settings.Samples = p.samples(slice)
	}
	var aovs []render.AOV
	for _, o := range p.outputs {
		aovs = append(aovs, o.aov)
	}
	j, err := jobs.Prepare(jobs.Spec{Scene: p.scenePath, Settings: settings, Resolve: r.Config.resolve, AOVs: aovs, Note: r.note(job.Name), QuietScene: slice > 0})
	var bad *jobs.OptionsError
	if errors.As(err, &bad) {
		return nil, render.Display{}, nil, fmt.Errorf("%s: %w", job.Name, err)
	} else if err != nil {
		return nil, render.Display{}, nil, err
	}
	opts, display := &j.Options, j.Display
	if opts.Threads == 0 {
		opts.Threads = allocatedCPUs()
	}
	layers, err := j.Layers(aovs, job.Denoise, settings.MemoryBudget)
	if err != nil {
		return nil, render.Display{}, nil, fmt.Errorf("%s: %w", job.Name, err)
	}
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
		r.note(job.Name)(fmt.Sprintf("its checkpoint (%d samples per pixel) is of other settings, scene files or sertrace build: starting over", cp.Film.Samples))
	case errors.Is(cpErr, fs.ErrNotExist):
	case errors.As(cpErr, new(*fs.PathError)):
		// A read that failed (EIO, a stale NFS handle) says nothing of the
		// checkpoint: starting over would write over a good one.
		return nil, render.Display{}, nil, fmt.Errorf("its checkpoint %s could not be read: %w", cpPath, unwrap(cpErr))
	default:
		r.note(job.Name)(fmt.Sprintf("its checkpoint %s %v: starting over", cpPath, cpErr))
	}
	if current {
		// The split only improves the denoiser: a checkpoint without it
		// (an old one) still serves a denoised job, as long as no output
		// asks for the split itself.
		need := layers | render.BaseLayers
		if slice < 0 && job.Denoise {
			need = render.LayersFor(aovs, false) | render.GuideLayers
		}
		if missing := need &^ cp.Film.Held(); missing != 0 {
			r.note(job.Name)(fmt.Sprintf("its checkpoint (%d samples per pixel) lacks the %s layers the job now asks for: starting over", cp.Film.Samples, missing.Names()))
		} else {
			film = cp.Film
			film.Partial = false
			r.note(job.Name)(fmt.Sprintf("continuing from its checkpoint (%s)", film.SamplesHeld()))
		}
	}
	cp = checkpoint{} // a checkpoint not continued goes before the new film comes
	if film == nil {
		film = render.NewFilmOf(opts.Width, opts.Height, layers)
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
				r.note(job.Name)("the checkpoint could not be written: " + err.Error())
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

func (r *Runner) note(name string) func(string) {
	return func(line string) {
		if r.Log == nil {
			return
		}
		// Which backend auto picks, and why, is the machine's: said for
		// the first job that asks, not for every one.
		if strings.HasPrefix(line, backends.ChoiceNote) {
			r.mu.Lock()
			said := r.said[line]
			if r.said == nil {
				r.said = map[string]bool{}
			}
			r.said[line] = true
			r.mu.Unlock()
			if said {
				return
			}
		}
		fmt.Fprintf(r.Log, "%s: %s\n", name, line)
	}
}

// finishJob writes a job's outputs from its film: the noisy beauty and
// the denoised one where the job denoises (on the backend and device the
// film was rendered on), the other outputs, a thumbnail and the manifest.
// An interrupted denoiser leaves the film in the checkpoint at cpPath
// (where there is one).
func (r *Runner) finishJob(ctx context.Context, p *prepared, dir string, film *render.Film, display render.Display, ran string, device int, cpPath string) (written []string, err error) {
	job := p.job
	if job.Denoise {
		r.note(job.Name)("denoising (" + job.Denoiser + ")")
	}
	var outs []denoise.Output
	var aovs []render.AOV
	for _, o := range p.outputs {
		outs = append(outs, denoise.Output{Path: filepath.Join(dir, o.name), AOV: o.aov})
		aovs = append(aovs, o.aov)
	}
	film.Keep(render.LayersFor(aovs, job.Denoise)) // merged slices hold every layer; the image what is asked
	paths, final, err := jobs.Write(ctx, film, display, outs, jobs.Denoise{On: job.Denoise, Name: p.requested, Passes: job.DenoisePasses}, ran, device, r.note(job.Name))
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

// manifest records what a job's outputs were made from.
type manifest struct {
	Key     string            `json:"key"` // hash of the settings and the scene's content
	Outputs map[string]string `json:"outputs"`
	Samples int               `json:"samples_per_pixel"`
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

// jobKey hashes what a job's result depends on: the renderer's build, the
// job's settings (not the thread count or the memory budget, which change
// nothing), and the content of its files (contentHash).
func jobKey(job Job, content string) string {
	h := sha256.New()
	h.Write([]byte(render.BuildID()))
	job.Threads, job.Split, job.MemoryBudget = 0, 0, "" // a split job's image is the same bit for bit
	settings, _ := json.Marshal(job)
	h.Write(settings)
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}

// contentHash hashes the bytes of a job's scene, the buffers and images it
// refers to, and its environment (scene.ContentHash).
// A run hashes each scene once: its units and its summary ask again.
func (r *Runner) contentHash(job Job, scenePath string) (string, error) {
	var extra []string
	if job.Env != "" {
		extra = append(extra, r.Config.resolve(job.Env))
	}
	key := scenePath + "\x00" + strings.Join(extra, "\x00")
	if h, ok := r.hashes[key]; ok {
		return h, nil
	}
	h, err := scene.ContentHash(scenePath, extra...)
	if err != nil {
		return "", fmt.Errorf("load %s: %w", scenePath, unwrap(err))
	}
	if r.hashes == nil {
		r.hashes = map[string]string{}
	}
	r.hashes[key] = h
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

// writeThumbnail writes a copy of the beauty at most 240 pixels wide.
func writeThumbnail(path string, film *render.Film, display render.Display) error {
	step := max(1, (film.Width+239)/240)
	w, h := film.Width/step, film.Height/step
	small := render.NewFilmOf(max(w, 1), max(h, 1), render.BaseLayers)
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
				small.Sums[render.LayerBeauty].Set(3*(y*small.Width+x)+c, sum/float64(step*step))
			}
		}
	}
	return render.Write(path, small, display)
}
