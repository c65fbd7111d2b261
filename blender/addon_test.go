// Package blender holds sertrace's Blender add-on (sertrace_render, in
// Python) and, here, the tests that run it in Blender headless: Debian's
// Blender 3.4, which CI installs.
package blender

import (
	"archive/zip"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sertrace/internal/longtest"
)

// blender is the Blender the tests run: $SERTRACE_TEST_BLENDER (a
// command, as ../shared/tools/blender4.sh for Blender 4.3) or blender on
// PATH. Without one the tests skip, except under CI, which installs it.
func blender(t *testing.T) []string {
	t.Helper()
	if cmd := os.Getenv("SERTRACE_TEST_BLENDER"); cmd != "" {
		return strings.Fields(cmd)
	}
	if _, err := exec.LookPath("blender"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("blender is not installed (apt-get install blender python3-numpy); CI installs it")
		}
		t.Skip("blender is not installed: apt-get install blender python3-numpy")
	}
	return []string{"blender"}
}

// setup builds sertrace and the test scene (make_scene.py) into a scratch
// folder, once per test binary.
var built struct {
	dir, sertrace, scene string
	err                  string
}

func setup(t *testing.T) (sertrace, blend string) {
	t.Helper()
	b := blender(t)
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "sertrace-blender-test-")
		if err != nil {
			t.Fatal(err)
		}
		built.dir = dir
		built.sertrace = filepath.Join(dir, "sertrace")
		if out, err := exec.Command("go", "build", "-o", built.sertrace, "../app").CombinedOutput(); err != nil {
			built.err = "go build: " + string(out)
		} else {
			built.scene = filepath.Join(dir, "scene.blend")
			if out, err := runBlender(b, "", "tests/make_scene.py", built.scene); err != nil {
				built.err = "make_scene.py: " + err.Error() + "\n" + out
			}
		}
	}
	if built.err != "" {
		t.Fatal(built.err)
	}
	return built.sertrace, built.scene
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// runBlender runs script in Blender headless (on blend, if not ""), with
// args after "--", and returns its output.
func runBlender(b []string, blend, script string, args ...string) (string, error) {
	abs, _ := filepath.Abs(script)
	cmdline := append([]string{}, b[1:]...)
	cmdline = append(cmdline, "-b")
	if blend != "" {
		cmdline = append(cmdline, blend)
	}
	cmdline = append(cmdline, "--factory-startup", "--python-exit-code", "1", "-P", abs, "--")
	cmd := exec.Command(b[0], append(cmdline, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// runCase runs one case of a test script in Blender on the test scene.
func runCase(t *testing.T, script, name string) {
	t.Helper()
	sertrace, blend := setup(t)
	out, err := runBlender(blender(t), blend, script, name, sertrace, t.TempDir())
	if err != nil || !strings.Contains(out, script[strings.LastIndex(script, "/")+1:]+" "+name+": ok") {
		t.Fatalf("%s %s: %v\n%s", script, name, err, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "ratio") || strings.HasPrefix(line, "sertrace:") || strings.Contains(line, ": ok") {
			t.Log(line)
		}
	}
}

// The export: hair as chained swept spheres with Blender's radii and its
// material's hair model, lights, camera, world, nothing of the user's
// data changed (tests/test_export.py).
func TestExport(t *testing.T) {
	sertrace, blend := setup(t)
	out, err := runBlender(blender(t), blend, "tests/test_export.py", sertrace, t.TempDir())
	if err != nil {
		t.Fatalf("test_export.py: %v\n%s", err, out)
	}
}

// A missing binary, one too old, none on PATH and a scene with nothing to
// render each end the render with their line, and Blender goes on.
func TestMessages(t *testing.T) { runCase(t, "tests/test_engine.py", "messages") }

// The comparison's figures name a region made to differ, and only it.
func TestCompareFigures(t *testing.T) { runCase(t, "tests/test_engine.py", "figures") }

// The Normal pass, in Blender's axes.
func TestPasses(t *testing.T) { runCase(t, "tests/test_engine.py", "passes") }

// The frame's size in Blender's arithmetic, and a render region cropped to.
func TestFrame(t *testing.T) { runCase(t, "tests/test_engine.py", "frame") }

// Noise Threshold reaches sertrace, and its adaptive image comes back.
func TestAdaptive(t *testing.T) { runCase(t, "tests/test_engine.py", "adaptive") }

// The engine's image is sertrace's own render of its export, byte for
// byte, and within the stated tolerances of Cycles'; the comparison
// operator writes its images and figures.
func TestRenderAgainstCycles(t *testing.T) {
	longtest.Skip(t)
	runCase(t, "tests/test_engine.py", "render")
}

// A render stopped after its first pass keeps it.
func TestCancel(t *testing.T) {
	longtest.Skip(t)
	runCase(t, "tests/test_engine.py", "cancel")
}

// The zip of sertrace_render installs in a fresh Blender as an add-on
// that offers the engine (tests/test_install.py).
func TestInstallFromZip(t *testing.T) {
	b := blender(t)
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "sertrace_render.zip")
	if err := zipFolder("sertrace_render", zipPath); err != nil {
		t.Fatal(err)
	}
	cmd := append([]string{}, b...)
	out, err := runBlenderEnv(cmd, []string{"BLENDER_USER_SCRIPTS=" + filepath.Join(dir, "scripts")}, "tests/test_install.py", zipPath)
	if err != nil || !strings.Contains(out, "test_install.py: ok") {
		t.Fatalf("test_install.py: %v\n%s", err, out)
	}
}

func runBlenderEnv(b []string, env []string, script string, args ...string) (string, error) {
	abs, _ := filepath.Abs(script)
	cmdline := append(append([]string{}, b[1:]...), "-b", "--factory-startup", "--python-exit-code", "1", "-P", abs, "--")
	cmd := exec.Command(b[0], append(cmdline, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// zipFolder writes folder (a path relative to here) into a zip whose
// entries start with the folder's name, as Blender's add-on installer
// expects; Python's caches are left out.
func zipFolder(folder, zipPath string) error {
	f, err := os.Create(zipPath)
	if err != nil {
		return err
	}
	z := zip.NewWriter(f)
	err = filepath.WalkDir(folder, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, "__pycache__") {
			return err
		}
		w, err := z.Create(filepath.ToSlash(path))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if cerr := z.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
