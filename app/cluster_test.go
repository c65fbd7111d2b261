package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"sertrace/batch"
	"sertrace/internal/longtest"
)

// clusterBatch is a batch with a split job, a broken one and a plain one.
const clusterBatch = `output_dir: out
defaults: {res: 40x30, max_depth: 5, outputs: [beauty.pfm, beauty.png]}
jobs:
  - {name: box, scene: SCENES/hairy-cornell.glb, spp: 12, split: 3, accel: bvh}
  - {name: broken, scene: SCENES/nosuch.glb}
  - {name: hair, scene: SCENES/hair.glb, spp: 2, accel: bvh}
`

func writeBatch(t *testing.T, dir, text string) string {
	t.Helper()
	scenes, _ := filepath.Abs("../scenes")
	p := filepath.Join(dir, "shots.yaml")
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "SCENES", scenes)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// oneMachineBox renders clusterBatch's split job with sertrace render.
func oneMachineBox(t *testing.T, dir string) []byte {
	t.Helper()
	out := filepath.Join(dir, "one.pfm")
	if code, _, errs := runCLI(t, "render", "../scenes/hairy-cornell.glb", "--res", "40x30", "--max-depth", "5", "--spp", "12", "--accel", "bvh", "-o", out); code != 0 {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(out)
	return b
}

func readSummary(t *testing.T, path string) map[string]batch.JobResult {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum batch.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	out := map[string]batch.JobResult{}
	for _, j := range sum.Jobs {
		out[j.Name] = j
	}
	return out
}

// TestBatchOnSlurm: on a Slurm cluster (.ci/slurm-up starts a one-node one;
// CI runs it), batch --slurm 3 --wait renders the batch as an array of 3
// tasks and a finishing step (the tasks with the submission's
// --checkpoint-every), reports the broken job with its Slurm job and
// task, and exits 1; the split job's image is byte for byte the one a
// render on one machine makes; a second submission redoes nothing done.
func TestBatchOnSlurm(t *testing.T) {
	longtest.Skip(t)
	if testing.Short() {
		t.Skip("submits Slurm jobs")
	}
	if err := exec.Command("sinfo", "-h").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no Slurm cluster under CI (sinfo: %v): .ci/run starts one with .ci/slurm-up", err)
		}
		t.Skipf("no Slurm cluster here (sinfo: %v): start one with .ci/slurm-up", err)
	}
	// The tasks run this test binary as sertrace (TestMain); sbatch passes
	// them the environment.
	t.Setenv("SERTRACE_TEST_MAIN", "1")
	dir := t.TempDir()
	cfg := writeBatch(t, dir, clusterBatch)
	start := time.Now()
	code, stdout, errs := runCLI(t, "batch", cfg, "--slurm", "3", "--wait", "--checkpoint-every", "7.5")
	t.Logf("--slurm 3 --wait: %.1f s", time.Since(start).Seconds())
	// The tasks run with the submission's flags.
	scripts, _ := filepath.Glob(filepath.Join(dir, "out", ".slurm", "*.array.sh"))
	if len(scripts) != 1 {
		t.Fatalf("array scripts: %v", scripts)
	}
	if b, _ := os.ReadFile(scripts[0]); !strings.Contains(string(b), "--checkpoint-every 7.5") {
		t.Errorf("the array's script drops --checkpoint-every:\n%s", b)
	}
	if code != 1 || !strings.Contains(errs, "1 of 3 jobs failed") || !regexp.MustCompile(`broken: failed on .*Slurm job \d+ task \d: .*nosuch.glb`).MatchString(errs) {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	if !regexp.MustCompile(`^\d+\n$`).MatchString(stdout) || !strings.Contains(errs, "submitted 5 units as Slurm job") || !strings.Contains(errs, "(3 tasks") {
		t.Errorf("the submission's report: stdout %q, stderr %s", stdout, errs)
	}
	jobs := readSummary(t, filepath.Join(dir, "out", "summary.json"))
	if jobs["box"].Status != batch.Done || jobs["hair"].Status != batch.Done || jobs["broken"].Status != batch.Failed {
		t.Fatalf("summary: %+v", jobs)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "out", "box", "beauty.pfm"))
	if want := oneMachineBox(t, dir); len(got) == 0 || !bytes.Equal(got, want) {
		t.Errorf("the split job's image (%d bytes) differs from the one-machine render (%d bytes)", len(got), len(want))
	}
	before, _ := os.Stat(filepath.Join(dir, "out", "box", "beauty.pfm"))

	code, _, errs = runCLI(t, "batch", cfg, "--slurm", "3", "--wait")
	if code != 1 || !strings.Contains(errs, "submitted 1 units as Slurm job") || !strings.Contains(errs, "(1 tasks") {
		t.Fatalf("second submission: exit %d, stderr:\n%s", code, errs)
	}
	after, _ := os.Stat(filepath.Join(dir, "out", "box", "beauty.pfm"))
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("the second submission rendered the split job again")
	}
}

// TestBatchByHandShares: the same batch as three shares run by hand at
// once (--shard I/N), and as a Kubernetes Indexed Job's indices, give the
// one-machine image for the split job and the whole summary.
func TestBatchByHandShares(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, how := range []string{"shard", "kubernetes"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeBatch(t, dir, clusterBatch)
			var cmds []*exec.Cmd
			var logs []*bytes.Buffer
			for i := range 3 {
				cmd := exec.Command(os.Args[0], "batch", cfg)
				cmd.Env = append(os.Environ(), "SERTRACE_TEST_MAIN=1")
				if how == "shard" {
					cmd.Args = append(cmd.Args, "--shard", []string{"0/3", "1/3", "2/3"}[i])
				} else {
					cmd.Args = append(cmd.Args, "--shards", "3")
					cmd.Env = append(cmd.Env, "JOB_COMPLETION_INDEX="+string(rune('0'+i)))
				}
				var log bytes.Buffer
				cmd.Stderr = &log
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds, logs = append(cmds, cmd), append(logs, &log)
			}
			failed := 0
			for i, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					failed++
					if !strings.Contains(logs[i].String(), "1 failed") {
						t.Errorf("share %d: %v: %s", i, err, logs[i])
					}
				}
			}
			if failed != 1 { // the share with the broken job
				t.Errorf("%d shares failed, want the broken job's one", failed)
			}
			jobs := readSummary(t, filepath.Join(dir, "out", "summary.json"))
			if jobs["box"].Status != batch.Done || jobs["hair"].Status != batch.Done || jobs["broken"].Status != batch.Failed {
				t.Fatalf("summary: %+v\n%s%s%s", jobs, logs[0], logs[1], logs[2])
			}
			got, _ := os.ReadFile(filepath.Join(dir, "out", "box", "beauty.pfm"))
			if want := oneMachineBox(t, dir); len(got) == 0 || !bytes.Equal(got, want) {
				t.Errorf("the split job's image (%d bytes) differs from the one-machine render (%d bytes)", len(got), len(want))
			}
		})
	}
}

// TestBatchKilledResumes: a batch killed outright (SIGKILL: an out-of-memory
// kill, a lost node, a time limit) leaves no lock that blocks the next run,
// which continues from the last periodic checkpoint.
func TestBatchKilledResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	cfg := writeBatch(t, dir, "output_dir: out\njobs:\n  - {name: long, scene: SCENES/hairy-cornell.glb, res: 64x48, spp: 100000, outputs: [beauty.pfm]}\n")
	cmd := exec.Command(os.Args[0], "batch", cfg, "--checkpoint-every", "0.2")
	cmd.Env = append(os.Environ(), "SERTRACE_TEST_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "out", "long", "checkpoint.gob")
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(cp); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no periodic checkpoint within a minute")
		}
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// The same job with fewer samples would not match the checkpoint: run
	// the same config, stopped by SIGINT once it has resumed.
	again := exec.Command(os.Args[0], "batch", cfg)
	again.Env = append(os.Environ(), "SERTRACE_TEST_MAIN=1")
	var log bytes.Buffer
	again.Stderr = &log
	if err := again.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	again.Process.Signal(syscall.SIGINT)
	again.Wait()
	m := regexp.MustCompile(`long: continuing from its checkpoint \((\d+) samples per pixel\)`).FindStringSubmatch(log.String())
	if strings.Contains(log.String(), "in use") || m == nil || m[1] == "0" || !strings.Contains(log.String(), "interrupted after") {
		t.Fatalf("the run after the kill did not go on from the checkpoint:\n%s", log.String())
	}
}

// TestBatchBusyUnitExitStatus: a plain batch that finds a unit held by
// another live run renders the rest, fails nothing, names the busy job and
// exits 3, not 1; run again once the other is gone, it finishes with 0.
func TestBatchBusyUnitExitStatus(t *testing.T) {
	dir := t.TempDir()
	cfg := writeBatch(t, dir, `output_dir: out
defaults: {res: 16x12, spp: 1, max_depth: 2, outputs: [beauty.pfm], accel: bvh}
jobs:
  - {name: box, scene: SCENES/cornell.glb}
  - {name: hair, scene: SCENES/hair.glb}
`)
	// Another run holds hair's lock (an flock, as batch takes it).
	if err := os.MkdirAll(filepath.Join(dir, "out", "hair"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "out", "hair", ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "batch", cfg)
	if code != 3 || !strings.Contains(errs, "nothing failed") || !strings.Contains(errs, "another batch run is rendering hair") {
		t.Fatalf("with hair busy: exit %d, stderr:\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "box", "beauty.pfm")); err != nil {
		t.Errorf("the job that was not busy was not rendered: %v", err)
	}
	f.Close() // the other run ends
	if code, _, errs := runCLI(t, "batch", cfg); code != 0 {
		t.Fatalf("after the other run: exit %d, stderr:\n%s", code, errs)
	}
}

// TestBatchJobFolderIsAFile: a file where a job's folder goes is refused
// before anything renders, naming it, instead of a unit that fails while
// the summary says nothing failed.
func TestBatchJobFolderIsAFile(t *testing.T) {
	dir := t.TempDir()
	cfg := writeBatch(t, dir, `output_dir: out
defaults: {res: 8x6, spp: 1, max_depth: 1, outputs: [beauty.pfm], accel: bvh}
jobs:
  - {name: box, scene: SCENES/cornell.glb}
`)
	os.MkdirAll(filepath.Join(dir, "out"), 0o755)
	os.WriteFile(filepath.Join(dir, "out", "box"), []byte("mine"), 0o644)
	code, _, errs := runCLI(t, "batch", cfg)
	if code != 1 || !strings.Contains(errs, `job "box"`) || !strings.Contains(errs, "is a file, not its folder") {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out", "box")); string(b) != "mine" {
		t.Error("the file was touched")
	}
}
