package batch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckpointKeepsGroupsAndCryptomatte: a job with light groups and a
// Cryptomatte output, interrupted, checkpoints its groups and its counts,
// and the run that continues it writes the files an uninterrupted run
// writes, byte for byte (the sums are exact, the counts integers).
func TestCheckpointKeepsGroupsAndCryptomatte(t *testing.T) {
	text := `
output_dir: out
jobs:
  - name: box
    scene: SCENES/cornell.glb
    res: 40x30
    spp: 64
    max_depth: 4
    backend: cpu
    light_groups: true
    outputs: [beauty.exr, cryptomatte_object.exr]
`
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, text))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runUntil(cfg, 0.2); err == nil {
		t.Fatal("the interrupted run did not say so")
	}
	cp, err := readCheckpoint(filepath.Join(dir, "out", "box", "checkpoint.gob"))
	if err != nil || cp.Film.Coverage == nil || len(cp.Film.Groups) != 1 || cp.Film.GroupNames[0] != "unassigned" || cp.Film.Samples < 1 || cp.Film.Samples >= 64 {
		t.Fatalf("the checkpoint: %v; coverage %v, groups %v", err, cp.Film != nil && cp.Film.Coverage != nil, cp.Film.GroupNames)
	}
	var log strings.Builder
	sum, err := (&Runner{Config: cfg, Log: &log}).Run(context.Background())
	if err != nil || sum.Jobs[0].Status != Done || !strings.Contains(log.String(), "continuing from its checkpoint") {
		t.Fatalf("the resumed run: %v %+v\n%s", err, sum.Jobs[0], log.String())
	}
	fresh := t.TempDir()
	cfg2, err := Load(writeConfig(t, fresh, text))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&Runner{Config: cfg2}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"beauty.exr", "cryptomatte_object.exr"} {
		a, err1 := os.ReadFile(filepath.Join(dir, "out", "box", f))
		b, err2 := os.ReadFile(filepath.Join(fresh, "out", "box", f))
		if err1 != nil || err2 != nil || len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: resumed and uninterrupted differ (%v, %v)", f, err1, err2)
		}
	}
}

// TestLayerOutputsNeedAnEXR: Cryptomatte and light groups are EXR layers:
// a job that asks for them where no EXR holds them is refused by name.
func TestLayerOutputsNeedAnEXR(t *testing.T) {
	for _, c := range []struct{ job, want string }{
		{"outputs: [cryptomatte_object.png]", "Cryptomatte is written as EXR layers"},
		{"light_groups: true\n    outputs: [beauty.png]", "light_groups"},
	} {
		dir := t.TempDir()
		_, err := Load(writeConfig(t, dir, `
output_dir: out
jobs:
  - name: box
    scene: SCENES/cornell.glb
    `+c.job+"\n"))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: %v", c.job, err)
		}
	}
}
