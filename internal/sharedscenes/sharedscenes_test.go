package sharedscenes

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB whose Skipf and Fatalf record the message and
// end the goroutine, as the real ones do, without ending the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls check on a goroutine of its own, as a test would.
func run(t *testing.T, dir, rel string, ci bool) (*recorder, string) {
	r := &recorder{TB: t}
	var got string
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = check(r, dir, nil, rel, ci)
	}()
	<-done
	return r, got
}

// TestAbsentSkipsOrFailsInCI: a folder that is not there skips the test
// with the usual message, and fails it in CI, saying where the scenes
// must be.
func TestAbsentSkipsOrFailsInCI(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "shared", "scenes")
	r, _ := run(t, missing, "Cube/Cube.gltf", false)
	if r.failed != "" || !strings.Contains(r.skipped, "is absent (../shared/scenes is not beside the checkout)") {
		t.Errorf("outside CI: skipped %q, failed %q", r.skipped, r.failed)
	}
	r, _ = run(t, missing, "", true)
	if r.skipped != "" || !strings.Contains(r.failed, "in CI the shared scenes must be beside the checkout, at ../shared/scenes") {
		t.Errorf("in CI: skipped %q, failed %q", r.skipped, r.failed)
	}
}

// TestPresentReturnsThePath: a folder that is there, and a file in it,
// come back as paths, in CI or not; a file it lacks skips.
func TestPresentReturnsThePath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.gltf"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ci := range []bool{false, true} {
		if r, got := run(t, dir, "", ci); got != dir || r.skipped != "" || r.failed != "" {
			t.Errorf("CI %v: the folder gave %q (skipped %q, failed %q)", ci, got, r.skipped, r.failed)
		}
		if r, got := run(t, dir, "a.gltf", ci); got != filepath.Join(dir, "a.gltf") || r.skipped != "" || r.failed != "" {
			t.Errorf("CI %v: the file gave %q (skipped %q, failed %q)", ci, got, r.skipped, r.failed)
		}
	}
	if r, _ := run(t, dir, "b.gltf", false); r.skipped == "" {
		t.Error("a file the folder lacks did not skip")
	}
}

// TestLocatesBesideTheModule: the folder is ../shared/scenes beside the
// folder that holds go.mod, from any package's folder.
func TestLocatesBesideTheModule(t *testing.T) {
	dir, err := locate()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("..", "..", "..", "shared", "scenes") // from internal/sharedscenes
	if dir != want {
		t.Errorf("located %q, want %q", dir, want)
	}
	got, ok := Find()
	if _, err := os.Stat(want); (err == nil) != ok || got != want {
		t.Errorf("Find gave %q, %v; the folder's stat: %v", got, ok, err)
	}
}

// TestSharedScenesAreThere: beside this checkout, the scenes are found
// (skipped where they are absent, failed in CI).
func TestSharedScenesAreThere(t *testing.T) {
	if _, err := os.Stat(filepath.Join(Dir(t), "Cube", "Cube.gltf")); err != nil {
		t.Error(err)
	}
}
