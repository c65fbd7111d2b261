package batch

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"sertrace/atomicfile"
)

// Submission is a batch submitted to Slurm: an array of tasks that render
// their shares of the units not done, and a finishing step after it.
type Submission struct {
	Array, Finish string // the Slurm job ids
	Tasks, Units  int
	Dir           string // output_dir/.slurm: the scripts, the list of units, the logs
	Submitted     time.Time
	// After a wait: how the finishing step and each array task ended
	// (squeue's states, by JOBID_TASK), where Slurm still says.
	FinishState string
	TaskStates  map[string]string
}

// Pending lists the units whose work is not done: a job whose outputs are
// not up to date, a slice that is not there (of a job not up to date).
func (r *Runner) Pending() []string {
	cfg := r.Config
	outDir := cfg.resolve(cfg.OutputDir)
	var out []string
	for _, u := range cfg.Units() {
		job := cfg.Jobs[u.Job]
		dir := filepath.Join(outDir, job.Name)
		// A job that cannot be prepared is pending: its run says why.
		if p, err := r.prepare(job); err == nil {
			if done, _, _ := p.upToDate(dir); done {
				continue
			}
			if u.Slice >= 0 {
				if _, done := p.sliceDone(dir, u.Slice); done {
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
// a task could not, writing the summary); submitted is told of them as soon
// as both are in Slurm's queue. With wait, it returns when the finishing
// step has ended. It returns a nil Submission when every unit is done. The
// options (the config's slurm key) go to sbatch as arguments, so that no
// name or path is parsed by a shell or by sbatch's script scanner.
func (r *Runner) Submit(ctx context.Context, configPath, exe string, tasks int, wait bool, submitted func(*Submission)) (*Submission, error) {
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
	sub := &Submission{Tasks: tasks, Units: len(pending), Dir: filepath.Join(outDir, ".slurm"), Submitted: time.Now()}
	if err := os.MkdirAll(sub.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: %w", sub.Dir, unwrap(err))
	}
	stamp := sub.Submitted.UTC().Format("20060102T150405.000000000")
	unitsFile := filepath.Join(sub.Dir, stamp+".units")
	if err := atomicfile.WriteBytes(unitsFile, []byte(strings.Join(pending, "\n")+"\n")); err != nil {
		return nil, err
	}
	options := func(jobName, output string) []string {
		args := []string{"--parsable", "--job-name=" + jobName, "--output=" + output}
		if s := cfg.Slurm.Partition; s != "" {
			args = append(args, "--partition="+s)
		}
		if s := cfg.Slurm.Time; s != "" {
			args = append(args, "--time="+s)
		}
		if n := cfg.Slurm.CPUsPerTask; n > 0 {
			args = append(args, "--cpus-per-task="+strconv.Itoa(n))
		}
		return append(args, cfg.Slurm.Extra...)
	}
	script := func(name string, lines ...string) (string, error) {
		path := filepath.Join(sub.Dir, stamp+"."+name+".sh")
		text := "#!/bin/sh\n# Written by sertrace batch --slurm; submitted with the config's slurm options.\n" + strings.Join(lines, "\n") + "\n"
		return path, atomicfile.WriteBytes(path, []byte(text))
	}
	arrayScript, err := script("array", "# Each task renders its share of the units listed (sertrace batch reads",
		"# SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT), with the submission's flags.",
		fmt.Sprintf("exec %s batch %s --units %s%s", shellQuote(exe), shellQuote(configPath), shellQuote(unitsFile), r.taskFlags()))
	if err != nil {
		return nil, err
	}
	name := "sertrace-" + cfg.Name
	args := append(options(name, filepath.Join(sub.Dir, "%A_%a.log")), fmt.Sprintf("--array=0-%d", tasks-1), arrayScript)
	if sub.Array, err = submit(ctx, sbatch, args); err != nil {
		return nil, err
	}
	// From here on, the array is in the queue: errors name it.
	queued := fmt.Sprintf("the array, Slurm job %s, is queued (scancel %s stops it)", sub.Array, sub.Array)
	finishScript, err := script("finish", fmt.Sprintf("exec %s batch %s --finish", shellQuote(exe), shellQuote(configPath)))
	if err != nil {
		return sub, fmt.Errorf("%v; %s", err, queued)
	}
	args = append(options(name+"-finish", filepath.Join(sub.Dir, "%j.log")), "--dependency=afterany:"+sub.Array, finishScript)
	if sub.Finish, err = submit(ctx, sbatch, args); err != nil {
		return sub, fmt.Errorf("%v; %s", err, queued)
	}
	if submitted != nil {
		submitted(sub)
	}
	if !wait {
		return sub, nil
	}
	if sub.FinishState, err = waitFor(ctx, sub.Finish); err != nil {
		return sub, err
	}
	sub.TaskStates = taskStates(sub.Array)
	return sub, nil
}

// waitFor polls squeue every second until job id has ended, and returns
// the state it ended in ("" once squeue no longer lists it). (sbatch --wait
// polls at up to ten-second intervals: it added 25 s to a 17 s batch.)
func waitFor(ctx context.Context, id string) (string, error) {
	squeue, err := exec.LookPath("squeue")
	if err != nil {
		return "", fmt.Errorf("--wait: squeue is not on the PATH (Slurm job %s goes on)", id)
	}
	for {
		out, err := exec.CommandContext(ctx, squeue, "-h", "-t", "all", "-j", id, "-o", "%T").Output()
		state := strings.TrimSpace(string(out))
		switch {
		case ctx.Err() != nil:
			return "", fmt.Errorf("stopped waiting for Slurm job %s, which goes on (scancel %s stops it)", id, id)
		case err != nil || state == "":
			return "", nil // gone from squeue: ended long enough ago
		case !slices.Contains([]string{"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"}, state):
			return state, nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// taskStates is how each task of an array ended, as squeue still says.
func taskStates(array string) map[string]string {
	out, err := exec.Command("squeue", "-h", "-t", "all", "-j", array, "-o", "%i %T").Output()
	states := map[string]string{}
	if err != nil {
		return states
	}
	for _, line := range strings.Split(string(out), "\n") {
		if id, state, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			states[id] = state
		}
	}
	return states
}

// taskFlags are the flags of the submitting batch that shape a task's
// work, as the array's command line carries them: how often a unit's film
// is saved (a killed task loses at most that).
func (r *Runner) taskFlags() string {
	if r.CheckpointEvery <= 0 {
		return ""
	}
	return " --checkpoint-every " + strconv.FormatFloat(r.CheckpointEvery.Seconds(), 'g', -1, 64)
}

// submit runs sbatch with args and returns the job id it prints.
func submit(ctx context.Context, sbatch string, args []string) (string, error) {
	cmd := exec.CommandContext(ctx, sbatch, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	id, _, _ := strings.Cut(strings.TrimSpace(stdout.String()), ";") // id;cluster
	if _, convErr := strconv.Atoi(id); err != nil || convErr != nil {
		why := strings.TrimSpace(stderr.String())
		if why == "" && err != nil {
			why = err.Error()
		}
		return "", fmt.Errorf("sbatch %s: %s", filepath.Base(args[len(args)-1]), oneLine(why))
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
	if len(out) == 0 {
		return nil, fmt.Errorf("--units %s: the list of units is empty", path)
	}
	return out, nil
}
