package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"sertrace/batch"
)

func newBatchCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "batch CONFIG.yaml",
		Short: "Render every job of a YAML config, skipping finished ones and resuming interrupted ones",
		Long: `Render every job of a batch config (see configs/batch-example.yaml): output_dir,
defaults, and jobs, each with a name, a scene, outputs and any render setting
under its flag's name (spp, res, max_depth, seed, camera, backend, env,
env_color, env_rotation, env_intensity, exposure, tonemap, filter,
aperture_radius, focus_distance, threads), and split: K to cut its samples
into K slices that render apart and merge bit for bit. Outputs go to
output_dir/NAME/. A job whose outputs match its settings and scene
(manifest.json) is skipped; Ctrl-C writes a checkpoint that the next run
continues from. summary.json and summary.html (a contact sheet) are written at
the end; the exit status is 1 if any job failed.

Several runs may share one output folder at once: each unit of work (a job, or
a slice) is locked while it renders. --shard I/N renders the I-th of N shares
of the units (also read from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT,
or from Kubernetes' JOB_COMPLETION_INDEX with --shards N); --slurm N submits
the units not done to Slurm as an array of N tasks and a finishing step (the
config's slurm: partition, time, cpus_per_task, extra), and --wait waits for
them and exits as a local batch would.`,
		Args: exactArgs("CONFIG.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error { return runBatch(cmd, v, args[0]) },
	}
	f := cmd.Flags()
	f.String("shard", "", "render only share I of N (I from 0) of the batch's units, as I/N")
	f.Int("shards", 0, "the number of shares when JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) gives this run's")
	f.Int("slurm", 0, "submit the units not done to Slurm as an array of this many tasks, and print its job ids")
	f.Bool("wait", false, "with --slurm: wait for the array and its finishing step, and exit as a local batch would")
	f.Bool("finish", false, "merge the split jobs whose slices are all done and write the summary (a submission's last step)")
	f.String("units", "", "render only the units listed in this file (a submission writes it)")
	f.String("progress", "auto", "how progress is told: auto (a bar on a terminal, else a line every 10 s on stderr) or json (JSON lines on stdout: unit, progress, done, error; see the guide)")
	f.Float64("checkpoint-every", 60, "save a unit's film this often (seconds) while it renders, so that a process killed outright loses at most that")
	f.MarkHidden("finish")
	f.MarkHidden("units")
	return cmd
}

func runBatch(cmd *cobra.Command, v *viper.Viper, configPath string) (err error) {
	stderr := cmd.ErrOrStderr()
	var jsonBar *progressBar
	switch mode := v.GetString("progress"); mode {
	case "auto":
	case "json":
		jsonBar = newJSONProgress(cmd.OutOrStdout(), stderr, 0)
		defer func() { jsonBar.failed(err) }()
	default:
		return usagef("--progress %q: want %s", mode, strings.Join(progressModes, " or "))
	}
	cfg, err := batch.Load(configPath)
	if err != nil {
		return err
	}
	// A first interrupt stops each unit at its next pass with a checkpoint,
	// and lets a job's outputs being written finish; a second stops at once.
	stops := "each unit stops at its next pass and keeps a checkpoint; outputs being written are finished"
	if v.GetInt("slurm") != 0 || v.GetBool("wait") {
		stops = "sertrace stops; what was submitted goes on in Slurm (scancel stops it)"
	}
	ctx := interruptsOf(cmd).stage(stops)
	bar := newProgressBar(stderr)
	if jsonBar != nil {
		bar = jsonBar
	}
	var unitIndex, unitCount int
	r := &batch.Runner{
		Config: cfg,
		Log:    stderr,
		Job: func(name string, i, n int) {
			unitIndex, unitCount = i, n
			if jsonBar != nil {
				jsonBar.event(jsonLine{Event: "unit", Name: name, Unit: i + 1, Units: n})
				return
			}
			bar.finish()
			bar = newProgressBar(stderr)
			bar.label = fmt.Sprintf("unit %d/%d %s", i+1, n, name)
		},
		Tick:            func(done float64) { bar.update((float64(unitIndex) + done) / float64(unitCount)) },
		CheckpointEvery: duration(v.GetFloat64("checkpoint-every")),
	}
	if every := v.GetFloat64("checkpoint-every"); !(every > 0) {
		return usagef("--checkpoint-every %v: want seconds, more than 0", every)
	}
	out := filepath.Join(filepath.Dir(configPath), cfg.OutputDir)
	if filepath.IsAbs(cfg.OutputDir) {
		out = cfg.OutputDir
	}
	summary := filepath.Join(out, "summary.html")

	if n := v.GetInt("slurm"); n != 0 || v.GetBool("wait") {
		if v.GetString("shard") != "" || v.GetBool("finish") || v.GetString("units") != "" {
			return usagef("--slurm submits every share: it takes no --shard, --units or --finish")
		}
		if n < 1 {
			return usagef("--slurm %d: want one task or more (--wait waits for a --slurm N submission)", n)
		}
		return submitBatch(ctx, cmd.OutOrStdout(), stderr, r, configPath, n, v.GetBool("wait"), summary)
	}
	if v.GetBool("finish") {
		sum, err := r.Finish(ctx)
		if err != nil {
			return fmt.Errorf("batch %s: %w", configPath, err)
		}
		return batchOutcome(stderr, configPath, sum, summary)
	}
	if path := v.GetString("units"); path != "" {
		if r.Units, err = batch.ReadUnits(path); err != nil {
			return err
		}
	}
	shard := ""
	if s := v.GetString("shard"); s != "" {
		i, n, ok := strings.Cut(s, "/")
		r.Shard, err = strconv.Atoi(i)
		var err2 error
		r.Shards, err2 = strconv.Atoi(n)
		if !ok || err != nil || err2 != nil || r.Shards < 1 || r.Shard < 0 || r.Shard >= r.Shards {
			return usagef("--shard %q: want I/N with 0 <= I < N, as 0/3", s)
		}
		shard = s
	} else {
		var inArray bool
		r.Shard, r.Shards, inArray, err = batch.ShareFromEnv(v.GetInt("shards"), os.Getenv)
		if err != nil {
			return err
		}
		if inArray {
			shard = fmt.Sprintf("%d/%d", r.Shard, r.Shards)
		}
	}
	sum, err := r.Run(ctx)
	bar.finish()
	if sum == nil {
		return err
	}
	if errors.Is(err, batch.ErrInterrupted) {
		return fmt.Errorf("batch %s: interrupted: a checkpoint was written; run it again to continue", configPath)
	}
	if err != nil {
		return fmt.Errorf("batch %s: %w", configPath, err)
	}
	jobs, failed := len(sum.Jobs), sum.Failed()
	jsonBar.event(jsonLine{Event: "done", Files: []string{summary, strings.TrimSuffix(summary, ".html") + ".json"}, Jobs: &jobs, Failed: &failed})
	if shard == "" && r.Units == nil {
		return batchOutcome(stderr, configPath, sum, summary)
	}
	// A share answers for its own units; the summary is the batch's so far.
	fmt.Fprintf(stderr, "batch %s, share %s: %d units, %d failed; the batch so far: %d jobs, %d failed, %d pending; summary in %s\n",
		configPath, orDefault(shard, "of the listed units"), len(sum.Units), sum.UnitsFailed(), len(sum.Jobs), sum.Failed(), sum.Pending(), summary)
	if n := sum.UnitsFailed(); n > 0 {
		return fmt.Errorf("batch %s: %d of this share's %d units failed (see summary.json)", configPath, n, len(sum.Units))
	}
	return nil
}

// duration is seconds as a time.Duration, the longest one past its range
// (2^63 ns, 292 years), never a wrapped-around one.
func duration(seconds float64) time.Duration {
	if seconds >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(seconds * float64(time.Second))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// batchOutcome reports a whole batch's summary: exit status 1 if a job
// failed or is not rendered, 3 if nothing failed but units were busy in
// another live run (named in the line).
func batchOutcome(stderr io.Writer, configPath string, sum *batch.Summary, summary string) error {
	fmt.Fprintf(stderr, "batch %s: %d jobs, %d failed; summary in %s\n", configPath, len(sum.Jobs), sum.Failed(), summary)
	if n := sum.Failed(); n > 0 {
		return fmt.Errorf("batch %s: %d of %d jobs failed (see summary.json)", configPath, n, len(sum.Jobs))
	}
	var busy []string
	for _, u := range sum.Units {
		if u.Status == batch.Busy {
			busy = append(busy, u.Name)
		}
	}
	if n := sum.Pending(); n > 0 && len(busy) > 0 {
		return busyError{fmt.Errorf("batch %s: nothing failed, but %d of %d jobs are not rendered yet: another batch run is rendering %s; run this again after it to finish",
			configPath, n, len(sum.Jobs), strings.Join(busy, ", "))}
	}
	if n := sum.Pending(); n > 0 {
		return fmt.Errorf("batch %s: %d of %d jobs are not rendered yet (see summary.json)", configPath, n, len(sum.Jobs))
	}
	return nil
}

// submitBatch submits the batch to Slurm and prints the array's job id as
// soon as it is queued; with wait it waits for the finishing step and
// reports the batch as a local run would, each failed job with where it
// ran, and each task that did not end well.
func submitBatch(ctx context.Context, stdout, stderr io.Writer, r *batch.Runner, configPath string, tasks int, wait bool, summary string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	sub, err := r.Submit(ctx, configPath, exe, tasks, wait, func(sub *batch.Submission) {
		fmt.Fprintf(stderr, "batch %s: submitted %d units as Slurm job %s (%d tasks; scripts and logs in %s) and its finishing step %s\n",
			configPath, sub.Units, sub.Array, sub.Tasks, sub.Dir, sub.Finish)
		fmt.Fprintln(stdout, sub.Array)
	})
	if err != nil {
		return err
	}
	if sub == nil {
		fmt.Fprintf(stderr, "batch %s: every job is done: nothing submitted\n", configPath)
		sum, err := r.Finish(ctx)
		if err != nil {
			return err
		}
		return batchOutcome(stderr, configPath, sum, summary)
	}
	if !wait {
		return nil
	}
	// Tasks that ended otherwise than by finishing their share (a time
	// limit, a lost node, an out-of-memory kill, a command that did not
	// start) are named with their logs.
	var broken []string
	for id, state := range sub.TaskStates {
		if state != "COMPLETED" && state != "FAILED" {
			broken = append(broken, id)
			fmt.Fprintf(stderr, "Slurm task %s ended %s (its log: %s)\n", id, state, filepath.Join(sub.Dir, id+".log"))
		}
	}
	st, err := os.Stat(filepath.Join(filepath.Dir(summary), "summary.json"))
	if err != nil || st.ModTime().Before(sub.Submitted) {
		return fmt.Errorf("batch %s: the finishing step, Slurm job %s, ended %s and wrote no summary: its log is %s",
			configPath, sub.Finish, orDefault(sub.FinishState, "unseen"), filepath.Join(sub.Dir, sub.Finish+".log"))
	}
	sum, err := r.ReadSummary()
	if err != nil {
		return fmt.Errorf("batch %s: %s: %v", configPath, filepath.Join(filepath.Dir(summary), "summary.json"), err)
	}
	for _, j := range sum.Jobs {
		if j.Status == batch.Failed || j.Status == batch.Pending {
			fmt.Fprintf(stderr, "%s: %s on %s: %s\n", j.Name, j.Status, orDefault(j.Where, "no machine"), j.Error)
		}
	}
	if err := batchOutcome(stderr, configPath, sum, summary); err != nil {
		return err
	}
	if len(broken) > 0 {
		return fmt.Errorf("batch %s: %d Slurm tasks did not end well (%s)", configPath, len(broken), strings.Join(broken, ", "))
	}
	return nil
}
