package shaders

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The committed SPIR-V must be what build.sh makes of the sources now.
// Without glslangValidator the test skips, except in CI, which installs it.
func TestSPIRVIsCurrent(t *testing.T) {
	for _, tool := range []string{"glslangValidator", "spirv-val"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed (Debian: glslang-tools, spirv-tools)", tool)
			}
			t.Skipf("%s is not installed (Debian: glslang-tools, spirv-tools)", tool)
		}
	}
	dir := t.TempDir()
	// Build a copy, so the test never rewrites the committed modules.
	files, _ := filepath.Glob("*")
	generated, _ := filepath.Glob("generated/*.glsl")
	for _, f := range append(files, generated...) {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("bash", filepath.Join(dir, "build.sh")).CombinedOutput()
	if err != nil {
		t.Fatalf("build.sh: %v\n%s", err, out)
	}
	built, _ := filepath.Glob(filepath.Join(dir, "spv", "*.spv"))
	committed, _ := filepath.Glob("spv/*.spv")
	if len(built) != len(committed) {
		t.Fatalf("build.sh makes %d modules, %d are committed: run shaders/build.sh", len(built), len(committed))
	}
	for _, f := range built {
		want, _ := os.ReadFile(f)
		name := strings.TrimSuffix(filepath.Base(f), ".spv")
		got, err := SPIRV(name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("spv/%s.spv is stale: run shaders/build.sh", name)
		}
	}
}
