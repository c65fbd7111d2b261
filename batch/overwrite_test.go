package batch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sertrace/internal/sharedscenes"
)

// TestJobNeverOverwritesWhatItReads: a job whose output would be a file
// its scene reads (a texture in its output folder, named like the output)
// fails before it renders, naming both, and the texture stays.
func TestJobNeverOverwritesWhatItReads(t *testing.T) {
	src := sharedscenes.Path(t, "Cube")
	gltf, err := os.ReadFile(sharedscenes.Path(t, filepath.Join("Cube", "Cube.gltf")))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	job := filepath.Join(dir, "out", "cube")
	os.MkdirAll(job, 0o755)
	texture := filepath.Join(job, "beauty.png")
	for _, name := range []string{"Cube.bin", "Cube_MetallicRoughness.png"} {
		b, _ := os.ReadFile(filepath.Join(src, name))
		os.WriteFile(filepath.Join(job, name), b, 0o644)
	}
	pixels, _ := os.ReadFile(filepath.Join(src, "Cube_BaseColor.png"))
	os.WriteFile(texture, pixels, 0o644)
	os.WriteFile(filepath.Join(job, "Cube.gltf"), bytes.ReplaceAll(gltf, []byte("Cube_BaseColor.png"), []byte("beauty.png")), 0o644)
	cfg, err := Load(writeConfig(t, dir, "output_dir: out\njobs:\n  - {name: cube, scene: out/cube/Cube.gltf, res: 8x8, spp: 1, outputs: [beauty.png]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := (&Runner{Config: cfg}).Run(context.Background())
	if got := sum.Jobs[0]; got.Status != Failed || !strings.Contains(got.Error, "beauty.png would overwrite "+texture+", which it reads") {
		t.Errorf("the job: %s %q", got.Status, got.Error)
	}
	if b, _ := os.ReadFile(texture); !bytes.Equal(b, pixels) {
		t.Error("the texture was written over")
	}
}

// TestUnwrittenOutputsKeepTheFilm: a job whose outputs cannot be written
// once it has rendered (a full disk; here a folder where the file goes)
// fails saying its film is kept in its checkpoint, and the next run
// writes the same image from it without rendering again.
func TestUnwrittenOutputsKeepTheFilm(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, boxJob))
	if err != nil {
		t.Fatal(err)
	}
	blocked := filepath.Join(dir, "out", "box", "beauty.pfm")
	os.MkdirAll(blocked, 0o755)
	sum, _ := (&Runner{Config: cfg}).Run(context.Background())
	if got := sum.Jobs[0]; got.Status != Failed || !strings.Contains(got.Error, "the film rendered (16 samples per pixel) is kept in its checkpoint") {
		t.Fatalf("the job: %s %q", got.Status, got.Error)
	}
	os.Remove(blocked)
	var log strings.Builder
	sum, err = (&Runner{Config: cfg, Log: &log}).Run(context.Background())
	if err != nil || sum.Jobs[0].Status != Done || !strings.Contains(log.String(), "continuing from its checkpoint (16 samples per pixel)") {
		t.Fatalf("the next run: %v %+v\n%s", err, sum.Jobs[0], log.String())
	}
	got, _ := os.ReadFile(blocked)
	fresh := t.TempDir()
	again, _ := Load(writeConfig(t, fresh, boxJob))
	if sum, err := (&Runner{Config: again}).Run(context.Background()); err != nil || sum.Jobs[0].Status != Done {
		t.Fatal(err)
	}
	if want, _ := os.ReadFile(filepath.Join(fresh, "out", "box", "beauty.pfm")); len(got) == 0 || !bytes.Equal(got, want) {
		t.Errorf("the image written from the checkpoint (%d bytes) is not the one a render writes (%d bytes)", len(got), len(want))
	}
}
