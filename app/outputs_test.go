package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sertrace/internal/sharedscenes"
)

// copyScene copies a scene folder of ../shared/scenes into a temporary
// folder (the test may not write beside the shared one), skipping the
// test where it is absent and failing it in CI.
func copyScene(t *testing.T, name string) string {
	t.Helper()
	src := sharedscenes.Path(t, name)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(src, e.Name())); err == nil && e.Type().IsRegular() {
			os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644)
		}
	}
	return dir
}

// TestOutputsNeverOverwriteInputs: an output that is the scene, one of
// the files it reads, the config, or another output (through ./, a
// symbolic link, a hard link) is refused before anything is read or
// written, in one line naming both; so is an output in a folder that is
// not there, or that is a folder.
func TestOutputsNeverOverwriteInputs(t *testing.T) {
	dir := copyScene(t, "Cube")
	scenePath := filepath.Join(dir, "Cube.gltf")
	texture := filepath.Join(dir, "Cube_BaseColor.png")
	os.Symlink("Cube_BaseColor.png", filepath.Join(dir, "link.json"))
	if err := os.Link(filepath.Join(dir, "Cube.bin"), filepath.Join(dir, "hard.json")); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "opts.yaml")
	os.WriteFile(cfg, []byte("spp: 1\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "folder.png"), 0o755)
	shot := filepath.Join(dir, "shot.png")
	before := map[string][]byte{}
	for _, f := range []string{scenePath, texture, filepath.Join(dir, "Cube.bin"), cfg} {
		before[f], _ = os.ReadFile(f)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", shot, "--stats", scenePath}, "--stats " + scenePath + " is the scene " + scenePath},
		{[]string{"-o", shot, "--cpuprofile", dir + "/./Cube.gltf"}, "--cpuprofile " + dir + "/./Cube.gltf is the scene"},
		{[]string{"-o", texture}, "-o " + texture + " is the scene's file " + texture},
		{[]string{"-o", shot, "--stats", filepath.Join(dir, "link.json")}, "is the scene's file " + texture},
		{[]string{"-o", shot, "--stats", filepath.Join(dir, "hard.json")}, "is the scene's file " + filepath.Join(dir, "Cube.bin")},
		{[]string{"-o", shot, "--stats", shot}, "--stats " + shot + " is also -o " + shot},
		{[]string{"-o", shot, "--denoise", "--stats", filepath.Join(dir, "shot.noisy.png")}, "is also the noisy image of -o"},
		{[]string{"-o", filepath.Join(dir, "shot.exr"), "--aov", "cost", "--stats", filepath.Join(dir, "shot.cost.png")}, "is also --aov cost"},
		{[]string{"-o", shot, "--config", cfg, "--stats", cfg}, "--stats " + cfg + " is --config " + cfg},
		{[]string{"-o", filepath.Join(dir, "no", "such", "shot.png")}, "the folder " + filepath.Join(dir, "no", "such") + " does not exist"},
		{[]string{"-o", filepath.Join(dir, "folder.png")}, "is a folder: name the file to write"},
	} {
		code, _, errs := runCLI(t, append([]string{"render", scenePath, "--spp", "1", "--res", "8x8", "--backend", "cpu"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	for f, b := range before {
		if got, _ := os.ReadFile(f); !bytes.Equal(got, b) {
			t.Errorf("%s was written over", f)
		}
	}
	if _, err := os.Stat(shot); err == nil {
		t.Error("a refused render wrote its image")
	}
	// Told apart, the same render goes ahead.
	if code, _, errs := runCLI(t, "render", scenePath, "--spp", "1", "--res", "8x8", "--backend", "cpu", "-o", shot, "--stats", filepath.Join(dir, "stats.json")); code != 0 {
		t.Errorf("exit %d: %s", code, errs)
	}
}
