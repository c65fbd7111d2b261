package batch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdaptiveJobContinuesToTheSameImage: a batch job sampled adaptively
// (noise_threshold), interrupted after some of its pixels stopped,
// continues from its checkpoint (which keeps where they stopped) and
// writes the same files, byte for byte, as an uninterrupted run: the
// beauty and its samples heatmap.
func TestAdaptiveJobContinuesToTheSameImage(t *testing.T) {
	text := `
output_dir: out
jobs:
  - name: box
    scene: SCENES/hairy-cornell.glb
    res: 48x32
    spp: 64
    max_depth: 4
    backend: cpu
    env_color: "0.3"
    noise_threshold: 0.1
    min_spp: 8
    outputs: [beauty.exr, samples.png]
`
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, text))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runUntil(cfg, 0.6); err == nil {
		t.Fatal("the interrupted run did not say so")
	}
	cp, err := readCheckpoint(filepath.Join(dir, "out", "box", "checkpoint.gob"))
	if err != nil || cp.Film.StoppedAt == nil || cp.Film.Active() == cp.Film.Width*cp.Film.Height || cp.Film.Samples >= 64 {
		t.Fatalf("the checkpoint: %v; want some pixels stopped, the render unfinished", err)
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
	for _, f := range []string{"beauty.exr", "samples.png"} {
		a, err1 := os.ReadFile(filepath.Join(dir, "out", "box", f))
		b, err2 := os.ReadFile(filepath.Join(fresh, "out", "box", f))
		if err1 != nil || err2 != nil || len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: resumed and uninterrupted differ (%v, %v)", f, err1, err2)
		}
	}
}
