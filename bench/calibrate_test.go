package bench

import (
	"math"
	"testing"

	"sertrace/render/vulkan"
)

// TestResultsCalibration: a benchmark's GPU cells become its device's
// calibration: per path, the geometric mean over the scenes of the time a
// sample with the scheme a render takes by default (material:16 is it),
// none standing in only for a path timed without it; the CPU's cells and
// the other schemes count for nothing; one path alone is no calibration.
func TestResultsCalibration(t *testing.T) {
	cell := func(scene, backend, path, scheme string, nsPerSample float64) Cell {
		return Cell{Scene: scene, Backend: backend, Path: path, Reorder: scheme, SamplesPerS: 1e9 / nsPerSample}
	}
	res := &Results{gpu: &vulkan.Device{Name: "NVIDIA H200", VendorDevice: "10de:2335"}, Date: "2026-12-06T07:00:00Z", Version: "test",
		Config: Config{Scenes: []string{"a.glb", "b.glb"}, Res: "320x240", SPP: 8, MaxDepth: 8, Warmup: 1, Repeats: 5},
		Cells: []Cell{
			cell("a.glb", "cpu", "emulated-ser", "none", 1),
			cell("a.glb", "vulkan", "rt", "none", 20),
			cell("b.glb", "vulkan", "rt", "none", 80),
			cell("a.glb", "vulkan", "rt-sorted", "none", 1), // not the default scheme, which was timed
			cell("a.glb", "vulkan", "rt-sorted", "material:16", 10),
			cell("b.glb", "vulkan", "rt-sorted", "material:16", 40),
			cell("b.glb", "vulkan", "rt-sorted", "coherence:16", 1),
			cell("a.glb", "vulkan", "ser", "none", 30),
			cell("b.glb", "vulkan", "ser", "none", 30),
			cell("a.glb", "vulkan", "ser", "shader", 1),
			cell("b.glb", "vulkan", "ser", "shader", 1),
		}}
	cal := res.Calibration()
	if cal == nil {
		t.Fatal("no calibration")
	}
	want := map[string]float64{"rt": 40, "rt-sorted": 20, "ser": 30}
	for p, ns := range want {
		if math.Abs(cal.NsPerSample[p]-ns) > 1e-9*ns {
			t.Errorf("%s: %v ns a sample, want %v", p, cal.NsPerSample[p], ns)
		}
	}
	if len(cal.NsPerSample) != len(want) || cal.Device != "NVIDIA H200" || cal.VendorDevice != "10de:2335" || cal.Date != res.Date {
		t.Errorf("calibration %+v", cal)
	}
	res.Cells = res.Cells[:3]
	if cal := res.Calibration(); cal != nil {
		t.Errorf("one GPU path made a calibration: %+v", cal)
	}
	res.gpu = nil
	if cal := res.Calibration(); cal != nil {
		t.Errorf("no GPU made a calibration: %+v", cal)
	}
}
