package atomicfile

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
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
