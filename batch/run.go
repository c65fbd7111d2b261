package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"sertrace/render"
	"sertrace/render/backends"
)

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

// errBusy is runUnit's error when another process holds the unit.
var errBusy = errors.New("busy")

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
		res.Status, res.Error = Failed, err.Error() // a render in bands says what it kept
		if err == ErrInterrupted {
			res.Error = fmt.Sprintf("interrupted after %d samples per pixel: a checkpoint was written, the next run continues from it", res.Samples)
		}
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
	j, aovs, layers, err := r.jobFor(p, -1)
	var over *render.MemoryError
	if errors.As(err, &over) {
		samples, err := r.runBands(ctx, p, j, dir, err)
		if err != nil {
			return false, samples, err
		}
		return false, samples, writeStatus(dir, JobResult{Name: job.Name, Status: Done, Outputs: []string{p.outputs[0].name}, Samples: samples,
			Seconds: time.Since(start).Seconds(), Where: where(), Job: job})
	} else if err != nil {
		return false, 0, err
	}
	r.noteBandsLeft(p, dir)
	film, display, stats, err := r.renderFilm(ctx, p, j, aovs, layers, -1, filepath.Join(dir, "checkpoint.gob"))
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
	j, aovs, layers, err := r.jobFor(p, u.Slice)
	if err != nil {
		return false, 0, err // over the memory budget too: a slice holds the whole film's sums
	}
	film, display, stats, err := r.renderFilm(ctx, p, j, aovs, layers, u.Slice, checkpoint)
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
