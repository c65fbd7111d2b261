package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mrjoshuak/go-openexr/exr"
)

// startCLI starts the command in a child process, its stderr collected.
func startCLI(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SERTRACE_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// waitFor polls until ok, failing the test (the child killed) after a
// minute.
func waitFor(t *testing.T, cmd *exec.Cmd, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no %s within a minute", what)
		}
	}
}

// exitOf waits for the child and gives its exit status.
func exitOf(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the command did not end within a minute of the signal")
	}
	return cmd.ProcessState.ExitCode()
}

// temporaries lists the hidden files being written beside out.
func temporaries(out string) []string {
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".*"))
	return m
}

// TestSignalWhileWriting: a render whose passes are all done and that is
// writing its image when SIGINT or SIGTERM comes (Ctrl-C, Slurm,
// Kubernetes) finishes writing it, says so and exits 0; a second signal
// aborts the write, saying so, and leaves neither the image nor its
// temporary file.
func TestSignalWhileWriting(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, c := range []struct {
		name    string
		res     string
		signals []os.Signal
		gap     time.Duration // between the signals
		code    int
		want    string
		written bool
	}{
		{"SIGINT", "1200x900", []os.Signal{syscall.SIGINT}, 0, 0, "interrupted: finishing writing", true},
		{"SIGTERM", "1200x900", []os.Signal{syscall.SIGTERM}, 0, 0, "SIGTERM: finishing writing", true},
		// One stop that a wrapper (timeout, srun) delivers twice is one.
		{"one stop delivered twice", "1200x900", []os.Signal{syscall.SIGTERM, syscall.SIGTERM}, 0, 0, "SIGTERM: finishing writing", true},
		// A write long enough for a second stop.
		{"twice", "2000x1500", []os.Signal{syscall.SIGTERM, syscall.SIGINT}, 2 * grace, 1, "interrupted again while writing", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "shot.exr")
			// Large enough that its write takes a while, fast to render.
			cmd, stderr := startCLI(t, "render", "../scenes/cornell.glb", "-o", out, "--spp", "1", "--max-depth", "1",
				"--res", c.res, "--aov", "albedo,normal,depth,diffuse", "--backend", "cpu", "--accel", "bvh")
			waitFor(t, cmd, "write", func() bool { return len(temporaries(out)) > 0 })
			for _, sig := range c.signals {
				cmd.Process.Signal(sig)
				time.Sleep(c.gap)
			}
			code := exitOf(t, cmd)
			if code != c.code || !strings.Contains(stderr.String(), c.want) {
				t.Fatalf("exit %d, want %d and %q:\n%s", code, c.code, c.want, stderr.String())
			}
			if _, err := os.Stat(out); (err == nil) != c.written {
				t.Errorf("the image is there: %v, want %v", err == nil, c.written)
			}
			if c.written && !strings.Contains(stderr.String(), "rendered ../scenes/cornell.glb") {
				t.Errorf("no summary line:\n%s", stderr.String())
			}
			if left := temporaries(out); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// TestKilledBandsContinue: a render in bands killed outright (SIGKILL:
// an out-of-memory kill, a scheduler's) after some of its bands keeps
// them: the next run of the same render continues from them, says so,
// and writes the image a render in one go writes, byte for byte. The
// killed run's file of another render is removed, said too.
func TestKilledBandsContinue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	args := func(out string) []string {
		return []string{"render", "../scenes/cornell.glb", "-o", out, "--spp", "4", "--res", "512x512", "--max-depth", "2",
			"--memory-budget", "8M", "--backend", "cpu", "--accel", "bvh", "--threads", "1"}
	}
	want := filepath.Join(dir, "whole.exr")
	// In a process of its own, as the runs below (the budget counts the
	// process's memory).
	whole, stderr := startCLI(t, args(want)...)
	if code := exitOf(t, whole); code != 0 || !strings.Contains(stderr.String(), "rendering it in bands of") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "shot.exr")
	cmd, _ := startCLI(t, args(out)...)
	// Killed once its file counts two bands done.
	waitFor(t, cmd, "bands", func() bool { return rowsDone(temporaries(out)) >= 32 })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	killed := temporaries(out)
	if len(killed) != 1 {
		t.Fatalf("the killed render left %v", killed)
	}
	// Kept for later, damaged in its rows.
	damaged, _ := os.ReadFile(killed[0])
	for i := 4096; i < len(damaged); i += 512 { // past the header, in every chunk
		damaged[i] ^= 0x5a
	}
	other := filepath.Join(dir, ".shot.exr.sertrace-777")
	os.WriteFile(other, []byte("another run's"), 0o644)
	again, stderr := startCLI(t, args(out)...)
	code := exitOf(t, again)
	errs := stderr.String()
	if code != 0 || !strings.Contains(errs, "continuing the render in bands that a killed run left in "+killed[0]) ||
		!strings.Contains(errs, "removed "+other) {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, _ := os.ReadFile(out)
	wantBytes, _ := os.ReadFile(want)
	if !bytes.Equal(got, wantBytes) {
		t.Errorf("the continued render (%d bytes) differs from the render in one go (%d bytes)", len(got), len(wantBytes))
	}
	if left := temporaries(out); len(left) > 0 {
		t.Errorf("files left: %v", left)
	}
	// A killed run's file that does not read is said, and the render
	// starts over to the same image.
	os.Remove(out)
	os.WriteFile(killed[0], damaged, 0o600)
	again, stderr = startCLI(t, args(out)...)
	if code := exitOf(t, again); code != 0 || !strings.Contains(stderr.String(), "that a killed run left in "+killed[0]+" does not read") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, wantBytes) {
		t.Errorf("the render started over (%d bytes) differs from the render in one go", len(got))
	}
	if left := temporaries(out); len(left) > 0 {
		t.Errorf("files left: %v", left)
	}
	// Interrupted once (SIGTERM), the render writes its bands done to the
	// image, marked partial; the next run continues from them.
	os.Remove(out)
	stopped, stderr := startCLI(t, args(out)...)
	waitFor(t, stopped, "bands", func() bool { return rowsDone(temporaries(out)) >= 32 })
	stopped.Process.Signal(syscall.SIGTERM)
	if code := exitOf(t, stopped); code != 1 || !strings.Contains(stderr.String(), "wrote a partial image") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	continued, stderr := startCLI(t, args(out)...)
	if code := exitOf(t, continued); code != 0 || !strings.Contains(stderr.String(), "continuing the render in bands that an interrupted run wrote to "+out) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, wantBytes) {
		t.Errorf("the render continued from a partial image differs from the render in one go")
	}

}

// TestInterruptedBands: SIGINT in a render in bands keeps the bands done
// in the file, marked partial, and says in one line which rows they are
// (no summary of a render that did not finish).
func TestInterruptedBands(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	out := filepath.Join(t.TempDir(), "shot.exr")
	cmd, stderr := startCLI(t, "render", "../scenes/cornell.glb", "-o", out, "--spp", "16", "--res", "512x512", "--max-depth", "2",
		"--memory-budget", "8M", "--backend", "cpu", "--accel", "bvh", "--threads", "1")
	waitFor(t, cmd, "bands", func() bool { return rowsDone(temporaries(out)) >= 32 })
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitOf(t, cmd); code != 1 || !strings.Contains(stderr.String(), "interrupted: wrote a partial image to "+out+", marked partial: rows 0..") ||
		strings.Contains(stderr.String(), "rendered ../scenes") {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	if left := temporaries(out); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// rowsDone is the count of rows written whole in the one unfinished file
// of a render in bands in tmp, or 0.
func rowsDone(tmp []string) int32 {
	if len(tmp) != 1 {
		return 0
	}
	f, err := exr.OpenFile(tmp[0])
	if err != nil {
		return 0
	}
	defer f.Close()
	if a := f.Header(0).Get("sertrace:rows_done"); a != nil {
		rows, _ := a.Value.(int32)
		return rows
	}
	return 0
}

// TestDurationNeverWraps: --checkpoint-every past what a time.Duration
// holds (9.2e9 s) is the longest one, not a negative one that became 60 s.
func TestDurationNeverWraps(t *testing.T) {
	for _, s := range []float64{9.3e9, 1e300, math.Inf(1)} {
		if d := duration(s); d != math.MaxInt64 {
			t.Errorf("%g s: %v", s, d)
		}
	}
	if d := duration(0.2); d != 200*time.Millisecond {
		t.Errorf("0.2 s: %v", d)
	}
}

// TestInterruptsStateMachine: what each signal does in a stage, in a
// write window and outside both, and that one stop delivered twice is one.
func TestInterruptsStateMachine(t *testing.T) {
	var said bytes.Buffer
	exited, aborts := -1, 0
	i := &interrupts{stderr: &said, exit: func(code int) { exited = code },
		abort: func() ([]string, []string) { aborts++; return []string{"a.exr"}, []string{".b.exr.sertrace-1"} }}
	later := func() { i.last = i.last.Add(-2 * grace) }

	ctx := i.stage("the render stops")
	i.take(syscall.SIGTERM)
	if ctx.Err() == nil || exited != -1 || !strings.Contains(said.String(), "SIGTERM: the render stops (interrupt again to stop at once)") {
		t.Fatalf("a stage's first signal: cancelled %v, exit %d, said %q", ctx.Err(), exited, said.String())
	}
	i.take(syscall.SIGTERM) // the same stop again, at once
	if exited != -1 || aborts != 0 {
		t.Fatalf("one stop delivered twice aborted")
	}
	later()
	done := i.write("shot.exr") // the partial image: the next signal aborts
	i.take(syscall.SIGINT)
	done()
	if exited != 1 || aborts != 1 || !strings.Contains(said.String(), "interrupted again while writing shot.exr: aborted; not written, as they were not finished: a.exr; left for the next run to continue: .b.exr.sertrace-1") {
		t.Fatalf("a signal after a stage's, in a write: exit %d, %d aborts, said %q", exited, aborts, said.String())
	}

	said.Reset()
	exited, aborts = -1, 0
	i = &interrupts{stderr: &said, exit: func(code int) { exited = code }, abort: func() ([]string, []string) { aborts++; return nil, nil }}
	done = i.write("shot.exr") // a finished render's image
	i.take(syscall.SIGINT)
	if exited != -1 || !strings.Contains(said.String(), "interrupted: finishing writing shot.exr (interrupt again to abort it)") {
		t.Fatalf("a write's first signal: exit %d, said %q", exited, said.String())
	}
	done()
	i.last = time.Time{}
	i.count = 0
	i.take(syscall.SIGINT) // outside a stage and a window
	if exited != 1 || aborts != 1 || !strings.Contains(said.String(), "interrupted: stopped") {
		t.Fatalf("a signal outside a stage: exit %d, said %q", exited, said.String())
	}
}
