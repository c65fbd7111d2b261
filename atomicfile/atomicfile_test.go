package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFailedWriteKeepsTheOldFile: a writer that fails halfway leaves the
// previous file whole and no temporary file behind.
func TestFailedWriteKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "image.png")
	if err := WriteBytes(p, []byte("good")); err != nil {
		t.Fatal(err)
	}
	err := Write(p, func(w io.WriteSeeker) error {
		w.Write([]byte("trunc"))
		return errors.New("disk full")
	})
	if err == nil {
		t.Fatal("the failure was lost")
	}
	if b, _ := os.ReadFile(p); string(b) != "good" {
		t.Errorf("the old file became %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if err := WriteBytes(filepath.Join(dir, "no", "such", "dir", "x"), nil); err == nil {
		t.Error("a missing folder was not reported")
	}
}

// TestWriteJSON: indented JSON with a newline; a value that cannot be
// encoded (NaN) is an error naming the file, and the old file stays.
func TestWriteJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "stats.json")
	if err := WriteJSON(p, map[string]int{"spp": 16}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{\n  \"spp\": 16\n}\n" {
		t.Errorf("wrote %q", b)
	}
	err := WriteJSON(p, map[string]float64{"x": math.NaN()})
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("error %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{\n  \"spp\": 16\n}\n" {
		t.Errorf("the old file became %q", b)
	}
}

// TestModeFollowsTheUmaskAndTheOldFile: a new file gets the umask's mode,
// a replaced one keeps its own.
func TestModeFollowsTheUmaskAndTheOldFile(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o077)
	umask = 0o077
	defer func() { syscall.Umask(old); umask = os.FileMode(old) }()
	p := filepath.Join(dir, "new.exr")
	if err := WriteBytes(p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("a new file under umask 077 is %v, not 0600", fi.Mode().Perm())
	}
	kept := filepath.Join(dir, "kept.exr")
	os.WriteFile(kept, []byte("old"), 0o640)
	os.Chmod(kept, 0o640)
	umask = 0
	if err := WriteBytes(kept, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(kept); fi.Mode().Perm() != 0o640 {
		t.Errorf("a replaced 0640 file became %v", fi.Mode().Perm())
	}
}

// TestSymlinkWritesItsTarget: writing through a symbolic link (to a file,
// to a file not there yet, through a chain) writes where it leads and
// leaves the link.
func TestSymlinkWritesItsTarget(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	target := filepath.Join(dir, "real", "shot.exr")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "shot.exr")
	os.Symlink("real/shot.exr", link)
	chain := filepath.Join(dir, "chain.exr")
	os.Symlink("shot.exr", chain)
	for _, p := range []string{link, chain} {
		if err := WriteBytes(p, []byte("new "+p)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(target); string(b) != "new "+p {
			t.Errorf("%s: the target holds %q", p, b)
		}
		if fi, _ := os.Lstat(p); fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link", p)
		}
	}
	dangling := filepath.Join(dir, "later.exr")
	os.Symlink("real/later.exr", dangling)
	if err := WriteBytes(dangling, []byte("made")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "real", "later.exr")); string(b) != "made" {
		t.Errorf("a link to a file not there yet: its target holds %q", b)
	}
	// A relative link in a linked folder leads from the folder it is
	// really in: work/lnk/out.exr -> ../x.exr is data/a/x.exr.
	os.MkdirAll(filepath.Join(dir, "data", "a", "b"), 0o755)
	os.MkdirAll(filepath.Join(dir, "work"), 0o755)
	os.Symlink(filepath.Join(dir, "data", "a", "b"), filepath.Join(dir, "work", "lnk"))
	os.Symlink("../x.exr", filepath.Join(dir, "data", "a", "b", "out.exr"))
	if err := WriteBytes(filepath.Join(dir, "work", "lnk", "out.exr"), []byte("there")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "data", "a", "x.exr")); string(b) != "there" {
		t.Errorf("a link in a linked folder: data/a/x.exr holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "work", "x.exr")); err == nil {
		t.Error("a link in a linked folder wrote beside the folder's link")
	}
	if !SameFile(filepath.Join(dir, "work", "lnk", "out.exr"), filepath.Join(dir, "data", "a", "x.exr")) {
		t.Error("SameFile misses a link in a linked folder")
	}
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := WriteBytes(loop, nil); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a link loop: %v", err)
	}
	if err := WriteBytes(dir, nil); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a folder: %v", err)
	}
}

// TestStaleTemporariesAreRemoved: the temporary a killed writer left (no
// lock held) is removed once the next write of the file is done, said
// once; one a live writer holds, and files that only look alike (another
// program's, an older sertrace's), stay.
func TestStaleTemporariesAreRemoved(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "shot.exr")
	stale := filepath.Join(dir, ".shot.exr.sertrace-123456")
	os.WriteFile(stale, make([]byte, 3<<20), 0o644)
	alike := []string{".shot.exr.123456", ".shot.exr.sertrace-", ".shot.exr.sertrace-12x", "shot.exr.sertrace-123", ".other.exr.sertrace-123"}
	for _, name := range alike {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	live, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := Stale(p); len(got) != 1 || got[0] != stale {
		t.Errorf("Stale found %v", got)
	}
	var said []string
	Removed = func(path string, size int64) { said = append(said, fmt.Sprint(path, " ", size)) }
	defer func() { Removed = nil }()
	if err := WriteBytes(p, []byte("done")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a write left the stale temporary")
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Error("a write removed the temporary another writer holds")
	}
	live.Discard()
	for _, name := range alike {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed", name)
		}
	}
	if len(said) != 1 || said[0] != fmt.Sprint(stale, " ", 3<<20) {
		t.Errorf("said %q", said)
	}
	// A write that fails removes nothing: the killed run's work stays.
	os.WriteFile(stale, nil, 0o644)
	Write(p, func(io.WriteSeeker) error { return errors.New("disk full") })
	if _, err := os.Stat(stale); err != nil {
		t.Error("a failed write removed the stale temporary")
	}
}

// TestKeptTemporariesOutliveAbortAndFailure: a temporary to Keep (a
// render in bands') is closed, not removed, by Abort, and Leave leaves
// one: either is then stale, for the next run.
func TestKeptTemporariesOutliveAbortAndFailure(t *testing.T) {
	defer func() { mu.Lock(); aborted = false; mu.Unlock() }()
	dir := t.TempDir()
	p := filepath.Join(dir, "shot.exr")
	left, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	left.Leave()
	kept, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	kept.Keep = true
	if _, k := Abort(); len(k) != 1 || k[0] != kept.Name() {
		t.Errorf("Abort kept %v", k)
	}
	if got := Stale(p); len(got) != 2 {
		t.Errorf("after Leave and Abort, the stale temporaries are %v", got)
	}
}

// TestAbortRemovesTheWritesInProgress: Abort ends the writes under way,
// their temporaries gone and their targets as they were, and refuses new
// ones.
func TestAbortRemovesTheWritesInProgress(t *testing.T) {
	defer func() { mu.Lock(); aborted = false; mu.Unlock() }()
	dir := t.TempDir()
	p := filepath.Join(dir, "shot.exr")
	os.WriteFile(p, []byte("old"), 0o644)
	tmp, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	tmp.Write([]byte("half"))
	if removed, kept := Abort(); len(removed) != 1 || removed[0] != p || len(kept) != 0 {
		t.Errorf("Abort ended %v, kept %v", removed, kept)
	}
	if err := tmp.Commit(); err == nil {
		t.Error("an aborted write was committed")
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("the target became %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	if err := WriteBytes(filepath.Join(dir, "later"), nil); err == nil {
		t.Error("a write after Abort went ahead")
	}
}

// TestSameFile: one file through ./, a symbolic link (also to a file not
// there yet, and through a linked folder) and a hard link; two files not.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.png")
	os.WriteFile(a, nil, 0o644)
	os.Symlink("a.png", filepath.Join(dir, "link.png"))
	os.Link(a, filepath.Join(dir, "hard.png"))
	os.Symlink("later.png", filepath.Join(dir, "tolater.png"))
	os.Symlink(dir, filepath.Join(dir, "dirlink"))
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{a, dir + "/./a.png", true},
		{a, filepath.Join(dir, "link.png"), true},
		{a, filepath.Join(dir, "hard.png"), true},
		{filepath.Join(dir, "later.png"), filepath.Join(dir, "tolater.png"), true},
		{filepath.Join(dir, "later.png"), filepath.Join(dir, "dirlink", "later.png"), true},
		{a, filepath.Join(dir, "b.png"), false},
		{filepath.Join(dir, "later.png"), filepath.Join(dir, "other.png"), false},
	} {
		if got := SameFile(c.a, c.b); got != c.same {
			t.Errorf("SameFile(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
