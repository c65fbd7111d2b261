package bench

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sertrace/internal/longtest"
)

// TestSmokeSuite runs configs/bench-smoke.yaml and checks the structure and
// sanity of what it writes: every cell present, times positive, speedups
// finite, the baseline's speedup 1; never a speed. The quick suite runs
// the CPU emulator and the rt path; the long one every path of the config.
func TestSmokeSuite(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("..", "configs", "bench-smoke.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !longtest.Enabled {
		cfg.Backends = slices.DeleteFunc(cfg.Backends, func(b string) bool { return b != "cpu" && b != "vulkan:rt" })
	}
	res, err := Run(context.Background(), cfg, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Write(dir, res); err != nil {
		t.Fatal(err)
	}
	var onDisk struct {
		Device map[string]any `json:"device"`
		Cells  []Cell         `json:"cells"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if err := json.Unmarshal(b, &onDisk); err != nil {
		t.Fatal(err)
	}
	perScene := 0
	for _, b := range cfg.Backends {
		skipped := false
		for _, s := range res.Skipped {
			skipped = skipped || strings.HasPrefix(s, b+":")
		}
		switch {
		case skipped && (b == "vulkan:rt" || b == "vulkan:rt-sorted") && os.Getenv("CI") != "":
			t.Errorf("CI has lavapipe, yet %s was skipped: %v", b, res.Skipped)
		case skipped:
		case b == "vulkan:rt":
			perScene++
		default:
			perScene += len(cfg.Reorder) // the other paths run every scheme
		}
	}
	if want := len(cfg.Scenes) * perScene; len(onDisk.Cells) != want {
		t.Fatalf("%d cells, want %d (skipped: %v)", len(onDisk.Cells), want, res.Skipped)
	}
	if onDisk.Device["name"] == "" || onDisk.Device["reorder_mode"] == nil {
		t.Errorf("device %v", onDisk.Device)
	}
	for _, c := range onDisk.Cells {
		if !(c.MinMS > 0 && c.MinMS <= c.MedianMS && c.MedianMS <= c.MaxMS) || c.Runs != cfg.Repeats ||
			!(c.SamplesPerS > 0) || !(c.RaysPerS > 0) || math.IsNaN(c.Speedup) || math.IsInf(c.Speedup, 0) || !(c.Predicted >= 1) {
			t.Errorf("cell %+v", c)
		}
		if c.Reorder == "none" && (c.Speedup != 1 || c.Predicted != 1) {
			t.Errorf("the baseline's speedup: %+v", c)
		}
		if !(c.SpeedupMin <= c.Speedup && c.Speedup <= c.SpeedupMax) {
			t.Errorf("speedup %v outside its range %v..%v", c.Speedup, c.SpeedupMin, c.SpeedupMax)
		}
		// Sorting by shader must pack the particles' many materials into
		// fewer shader passes than launch order does: the prediction sees it.
		if c.Scene == "particles.glb" && c.Reorder == "shader" && !(c.Predicted > 1.05) {
			t.Errorf("no predicted gain from sorting the particle cloud by shader: %+v", c)
		}
	}
	rays := map[string]float64{}
	for _, c := range onDisk.Cells {
		r := c.RaysPerS * c.MedianMS
		key := c.Scene + " " + c.Backend + " " + c.Path
		if prev, ok := rays[key]; ok && math.Abs(prev-r) > 1e-6*r {
			t.Errorf("%s: schemes traced different rays (%v vs %v): the image must not depend on them", key, prev, r)
		}
		rays[key] = r
		if want := map[string]string{"cpu": "wall", "vulkan": "gpu"}[c.Backend]; c.Timer != want || !(c.WallMS > 0) {
			t.Errorf("%s: timer %q, wall %v", key, c.Timer, c.WallMS)
		}
	}
	// Beside rt, every GPU cell has its ratio over rt, and the report
	// sets the reordering paths side by side.
	ranRT := slices.ContainsFunc(onDisk.Cells, func(c Cell) bool { return c.Path == "rt" })
	for _, c := range onDisk.Cells {
		if ranRT && c.Backend == "vulkan" && !(c.OverRT > 0) || c.Backend == "cpu" && c.OverRT != 0 {
			t.Errorf("%s %s %s: over rt %v", c.Scene, c.Path, c.Reorder, c.OverRT)
		}
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if sorted := slices.ContainsFunc(onDisk.Cells, func(c Cell) bool { return c.Path == "rt-sorted" }); ranRT && sorted &&
		!strings.Contains(string(report), "| particles.glb | material:16 |") {
		t.Errorf("the report sets no rt-sorted cell beside ser and rt:\n%s", report)
	}
	for _, f := range []string{"results.csv", "report.md", "speedup.png", "cost-cornell.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestConfigRefusesUnknownSchemes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.yaml")
	os.WriteFile(p, []byte("scenes: [x.glb]\nreorder: [sorted]\n"), 0o644)
	if _, err := LoadConfig(p); err == nil {
		t.Error("an unknown scheme was accepted")
	}
	os.WriteFile(p, []byte("scenes: [x.glb]\nrepeat: 3\n"), 0o644)
	if _, err := LoadConfig(p); err == nil {
		t.Error("an unknown key was accepted")
	}
}

// TestChartNamesItsDevices: the chart's title names the GPU for GPU cells
// and the CPU for the emulator's, not the CPU for both.
func TestChartNamesItsDevices(t *testing.T) {
	res := &Results{Device: Device{Name: "Intel(R) Xeon(R) Processor"}, GPU: &Device{Name: "NVIDIA H200"}}
	for _, c := range []struct {
		backends []string
		want     string
	}{
		{[]string{"cpu"}, "Intel(R) Xeon(R) Processor"},
		{[]string{"vulkan"}, "NVIDIA H200"},
		{[]string{"cpu", "vulkan"}, "cpu: Intel(R) Xeon(R) Processor; vulkan: NVIDIA H200"},
	} {
		res.Cells = nil
		for _, b := range c.backends {
			res.Cells = append(res.Cells, Cell{Backend: b})
		}
		if got := chartDevices(res); got != c.want {
			t.Errorf("cells on %v: the chart names %q, want %q", c.backends, got, c.want)
		}
	}
}
