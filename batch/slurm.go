package batch

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sertrace/atomicfile"
	"sertrace/render"
)

// Submission is a batch submitted to Slurm: an array of tasks that render
// their shares of the units not done, and a finishing step after it.
type Submission struct {
	Array, Finish string // the Slurm job ids
	Tasks, Units  int
	Script        string // the array's sbatch script
}

// Pending lists the units whose work is not done: a job whose outputs are
// not up to date, a slice that is not there (of a job not up to date).
func (r *Runner) Pending() []string {
	cfg := r.Config
	outDir := cfg.resolve(cfg.OutputDir)
	var out []string
	prepared := map[int]*prepared{}
	for _, u := range cfg.Units() {
		job := cfg.Jobs[u.Job]
		dir := filepath.Join(outDir, job.Name)
		p, ok := prepared[u.Job]
		if !ok {
			p, _ = r.prepare(job) // a job that cannot be prepared is pending: its run says why
			prepared[u.Job] = p
		}
		if p != nil {
			if done, _, _ := p.upToDate(dir); done {
				continue
			}
			if u.Slice >= 0 {
				first, count := sliceRange(job.SPP, u.Slice, job.Split)
				info, err := render.ReadSliceInfo(filepath.Join(dir, "slices", fmt.Sprintf("%d.exr", u.Slice)))
				if err == nil && sameSlice(info, p.sliceInfo(first, count)) {
					continue
				}
			}
		}
		out = append(out, cfg.UnitName(u))
	}
	return out
}

// Submit submits the units not done as a Slurm array of at most tasks
// tasks, each running exe's batch on configPath for its share, and a
// finishing step that runs after the array however it ends (merging what
// a task could not, writing the summary). With wait, it returns when the
// finishing step has ended. It returns a nil Submission when every unit
// is done.
func (r *Runner) Submit(ctx context.Context, configPath, exe string, tasks int, wait bool) (*Submission, error) {
	cfg := r.Config
	if tasks < 1 {
		return nil, fmt.Errorf("--slurm %d: want one task or more", tasks)
	}
	sbatch, err := exec.LookPath("sbatch")
	if err != nil {
		return nil, fmt.Errorf("--slurm: sbatch is not on the PATH: run on a Slurm cluster's submit host, or share the batch out with --shard I/N")
	}
	configPath, err = filepath.Abs(configPath)
	if err != nil {
		return nil, err
	}
	outDir, err := filepath.Abs(cfg.resolve(cfg.OutputDir))
	if err != nil {
		return nil, err
	}
	pending := r.Pending()
	if len(pending) == 0 {
		return nil, nil
	}
	tasks = min(tasks, len(pending))
	slurmDir := filepath.Join(outDir, ".slurm")
	if err := os.MkdirAll(slurmDir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: %w", slurmDir, unwrap(err))
	}
	stamp := time.Now().UTC().Format("20060102T150405.000000000")
	unitsFile := filepath.Join(slurmDir, stamp+".units")
	if err := atomicfile.WriteBytes(unitsFile, []byte(strings.Join(pending, "\n")+"\n")); err != nil {
		return nil, err
	}
	name := "sertrace-" + cfg.Name
	header := func(jobName, output string) []string {
		lines := []string{"#!/bin/sh", "#SBATCH --job-name=" + jobName, "#SBATCH --output=" + output}
		if s := cfg.Slurm.Partition; s != "" {
			lines = append(lines, "#SBATCH --partition="+s)
		}
		if s := cfg.Slurm.Time; s != "" {
			lines = append(lines, "#SBATCH --time="+s)
		}
		if n := cfg.Slurm.CPUsPerTask; n > 0 {
			lines = append(lines, "#SBATCH --cpus-per-task="+strconv.Itoa(n))
		}
		for _, e := range cfg.Slurm.Extra {
			lines = append(lines, "#SBATCH "+e)
		}
		return lines
	}
	array := append(header(name, filepath.Join(slurmDir, "%A_%a.log")), fmt.Sprintf("#SBATCH --array=0-%d", tasks-1),
		"# Each task renders its share of the units listed (sertrace batch reads", "# SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT).",
		fmt.Sprintf("exec %s batch %s --units %s", shellQuote(exe), shellQuote(configPath), shellQuote(unitsFile)))
	arrayScript := filepath.Join(slurmDir, stamp+".array.sh")
	if err := atomicfile.WriteBytes(arrayScript, []byte(strings.Join(array, "\n")+"\n")); err != nil {
		return nil, err
	}
	sub := &Submission{Tasks: tasks, Units: len(pending), Script: arrayScript}
	if sub.Array, err = submit(ctx, sbatch, arrayScript); err != nil {
		return nil, err
	}
	finish := append(header(name+"-finish", filepath.Join(slurmDir, "%j.log")), "#SBATCH --dependency=afterany:"+sub.Array,
		fmt.Sprintf("exec %s batch %s --finish", shellQuote(exe), shellQuote(configPath)))
	finishScript := filepath.Join(slurmDir, stamp+".finish.sh")
	if err := atomicfile.WriteBytes(finishScript, []byte(strings.Join(finish, "\n")+"\n")); err != nil {
		return sub, err
	}
	if sub.Finish, err = submit(ctx, sbatch, finishScript); err != nil {
		return sub, err
	}
	if wait {
		return sub, waitFor(ctx, sub.Finish)
	}
	return sub, nil
}

// waitFor polls squeue every second until job id has ended (sbatch --wait
// polls at up to ten-second intervals: it added 25 s to a 17 s batch).
func waitFor(ctx context.Context, id string) error {
	squeue, err := exec.LookPath("squeue")
	if err != nil {
		return fmt.Errorf("--wait: squeue is not on the PATH")
	}
	for {
		out, err := exec.CommandContext(ctx, squeue, "-h", "-t", "all", "-j", id, "-o", "%T").Output()
		state := strings.TrimSpace(string(out))
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("stopped waiting for Slurm job %s, which goes on (scancel %s stops it)", id, id)
		case err != nil || state == "":
			return nil // gone from squeue: ended long enough ago
		case state != "PENDING" && state != "RUNNING" && state != "CONFIGURING" && state != "COMPLETING" && state != "SUSPENDED" && state != "REQUEUED":
			return nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// submit runs sbatch --parsable and returns the job id it prints.
func submit(ctx context.Context, sbatch string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, sbatch, append([]string{"--parsable"}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	id, _, _ := strings.Cut(strings.TrimSpace(stdout.String()), ";") // id;cluster
	if _, convErr := strconv.Atoi(id); convErr != nil {
		why := strings.TrimSpace(stderr.String())
		if why == "" && err != nil {
			why = err.Error()
		}
		return "", fmt.Errorf("sbatch %s: %s", args[len(args)-1], oneLine(why))
	}
	if err != nil {
		return id, fmt.Errorf("sbatch %s: %v", args[len(args)-1], err)
	}
	return id, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// ShareFromEnv is this process's share of a batch as an array engine says
// it: Slurm's array task (its index from the array's first) and count, or
// Kubernetes' Indexed Job completion index, whose count (shards) the
// caller gives. ok is false outside an array.
func ShareFromEnv(shards int, getenv func(string) string) (shard, count int, ok bool, err error) {
	if id := getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		i, err1 := strconv.Atoi(id)
		low, err2 := strconv.Atoi(cmp.Or(getenv("SLURM_ARRAY_TASK_MIN"), "0"))
		n, err3 := strconv.Atoi(getenv("SLURM_ARRAY_TASK_COUNT"))
		if err1 != nil || err2 != nil || err3 != nil || n < 1 || i-low < 0 || i-low >= n {
			return 0, 0, false, fmt.Errorf("SLURM_ARRAY_TASK_ID %q, SLURM_ARRAY_TASK_MIN %q and SLURM_ARRAY_TASK_COUNT %q do not make a share of the array",
				id, getenv("SLURM_ARRAY_TASK_MIN"), getenv("SLURM_ARRAY_TASK_COUNT"))
		}
		return i - low, n, true, nil
	}
	if id := getenv("JOB_COMPLETION_INDEX"); id != "" {
		i, err := strconv.Atoi(id)
		if err != nil || i < 0 {
			return 0, 0, false, fmt.Errorf("JOB_COMPLETION_INDEX %q is not an index", id)
		}
		if shards < 1 {
			return 0, 0, false, fmt.Errorf("JOB_COMPLETION_INDEX is set: give the number of shares with --shards N (the Job's completions)")
		}
		if i >= shards {
			return 0, 0, false, fmt.Errorf("JOB_COMPLETION_INDEX %d is not below --shards %d", i, shards)
		}
		return i, shards, true, nil
	}
	return 0, 0, false, nil
}

// ReadUnits reads a submission's list of units, one name per line.
func ReadUnits(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--units %s: %w", path, unwrap(err))
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out, nil
}
