package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDevicesJSON: the keys the contract promises, for every device, and
// an explanation for every path that is not offered.
func TestDevicesJSON(t *testing.T) {
	code, out, errs := runCLI(t, "devices", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var devs []map[string]any
	if err := json.Unmarshal([]byte(out), &devs); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if len(devs) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI has lavapipe, but devices lists nothing: %s", errs)
		}
		t.Skipf("no Vulkan device: %s", errs)
	}
	for _, d := range devs {
		for _, k := range []string{"name", "vendor_device", "driver", "api_version", "reorder_mode", "spheres", "lss", "memory_budget", "paths", "auto"} {
			if _, ok := d[k]; !ok {
				t.Errorf("%v: key %q is missing", d["name"], k)
			}
		}
		if b, _ := d["device_local_bytes"].(float64); !(b >= 1<<28) {
			t.Errorf("%v: %v bytes of device-local memory", d["name"], d["device_local_bytes"])
		}
		paths, _ := d["paths"].(map[string]any)
		for _, p := range []string{"ser", "rt", "rayquery"} {
			st, ok := paths[p].(map[string]any)
			if !ok {
				t.Errorf("%v: path %s is missing", d["name"], p)
				continue
			}
			if st["available"] == false && st["reason"] == "" {
				t.Errorf("%v: path %s is not available and says not why", d["name"], p)
			}
		}
		auto, _ := d["auto"].(map[string]any)
		if p, _ := auto["path"].(string); p != "" {
			if st, _ := paths[p].(map[string]any); st["available"] != true {
				t.Errorf("%v: auto takes %s, which it does not offer", d["name"], p)
			}
		}
		if auto["why"] == "" || auto["why"] == nil {
			t.Errorf("%v: auto says not why: %v", d["name"], auto)
		}
	}
}

// TestDevicesCalibrate: devices --calibrate measures every path the device
// offers (lavapipe, at a tiny size), keeps the figures beside the
// pipeline cache, and devices then says auto takes the fastest, calibrated;
// a render on the device without --path takes the path the calibration
// says is fastest, which --path overrides.
func TestDevicesCalibrate(t *testing.T) {
	needVulkanRT(t)
	cache := t.TempDir()
	t.Setenv("SERTRACE_CACHE_DIR", cache)
	code, out, errs := runCLI(t, "devices", "--calibrate", "--device", "0", "--calibrate-res", "16x12", "--calibrate-spp", "1", "--calibrate-runs", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "calibrated ") || !strings.Contains(out, "auto: ") || !strings.Contains(out, "— calibrated ") {
		t.Errorf("devices --calibrate says:\n%s\n%s", out, errs)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "calibration", "*.json"))
	if len(files) != 1 {
		t.Fatalf("calibration files %v", files)
	}
	var cal struct {
		NsPerSample map[string]float64 `json:"ns_per_sample"`
	}
	data, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(data, &cal); err != nil {
		t.Fatal(err)
	}
	var devs []struct {
		Paths map[string]struct{ Available bool }
		Auto  struct{ Path, Source, Why string }
	}
	_, out, _ = runCLI(t, "devices", "--json")
	if err := json.Unmarshal([]byte(out), &devs); err != nil {
		t.Fatal(err)
	}
	d := devs[0]
	fastest := ""
	for p, st := range d.Paths {
		if st.Available {
			if cal.NsPerSample[p] <= 0 {
				t.Errorf("path %s offered, not calibrated: %v", p, cal.NsPerSample)
			} else if fastest == "" || cal.NsPerSample[p] < cal.NsPerSample[fastest] {
				fastest = p
			}
		}
	}
	if d.Auto.Path != fastest || d.Auto.Source != "calibrated" {
		t.Errorf("auto %+v, the calibration's fastest %s (%v)", d.Auto, fastest, cal.NsPerSample)
	}

	// Say rt-sorted is the fastest: a render without --path takes it.
	for p := range cal.NsPerSample {
		cal.NsPerSample[p] = 100
	}
	cal.NsPerSample["rt-sorted"] = 1
	var raw map[string]any
	json.Unmarshal(data, &raw)
	raw["ns_per_sample"] = cal.NsPerSample
	data, _ = json.Marshal(raw)
	if err := os.WriteFile(files[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{{"", "rt-sorted"}, {"rt", "rt"}} {
		stats := filepath.Join(t.TempDir(), "stats.json")
		args := []string{"render", "../scenes/cornell.glb", "--backend", "vulkan", "--res", "8x6", "--spp", "1", "-o", filepath.Join(t.TempDir(), "c.png"), "--stats", stats}
		if tc.path != "" {
			args = append(args, "--path", tc.path)
		}
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("render, path %q: exit %d: %s", tc.path, code, errs)
		}
		var st struct{ Path string }
		b, _ := os.ReadFile(stats)
		json.Unmarshal(b, &st)
		if st.Path != tc.want {
			t.Errorf("render with --path %q ran path %q, want %s", tc.path, st.Path, tc.want)
		}
	}

	// A corrupt calibration: devices still lists, and says why it ignores it.
	os.WriteFile(files[0], []byte("{"), 0o644)
	code, out, errs = runCLI(t, "devices")
	if code != 0 || !strings.Contains(out, "calibration is ignored") || !strings.Contains(out, files[0]) {
		t.Errorf("a corrupt calibration: exit %d:\n%s\n%s", code, out, errs)
	}
}

// TestRenderOnVulkan: --backend vulkan --path rt renders where a device
// can; --path ser on a device without SER fails with the missing extension
// named; and an unknown path is bad usage.
func TestRenderOnVulkan(t *testing.T) {
	if code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "--path", "warp", "-o", filepath.Join(t.TempDir(), "x.png")); code != 2 || !strings.Contains(errs, "--path") {
		t.Errorf("--path warp: exit %d, %q", code, errs)
	}
	reorderMode := needVulkanRT(t)
	dir := t.TempDir()
	img := filepath.Join(dir, "cornell.exr")
	code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "--backend", "vulkan", "--path", "rt", "--res", "32x24", "--spp", "4", "-o", img)
	if code != 0 {
		t.Fatalf("rt: exit %d: %s", code, errs)
	}
	if st, err := os.Stat(img); err != nil || st.Size() == 0 {
		t.Fatalf("rt wrote no image: %v", err)
	}
	if reorderMode == nil {
		code, _, errs = runCLI(t, "render", "../scenes/cornell.glb", "--backend", "vulkan", "--path", "ser", "--res", "8x8", "--spp", "1", "-o", filepath.Join(dir, "ser.png"))
		if code != 1 || !strings.Contains(errs, "VK_NV_ray_tracing_invocation_reorder") {
			t.Errorf("ser without SER: exit %d, %q", code, errs)
		}
	}
}

// needVulkanRT skips the test where no Vulkan device runs the rt path (and
// fails it in CI, whose lavapipe does); it returns the first device's
// reorder mode (nil: no SER).
func needVulkanRT(t *testing.T) (reorderMode *string) {
	t.Helper()
	_, out, _ := runCLI(t, "devices", "--json")
	var devs []struct {
		ReorderMode *string `json:"reorder_mode"`
		Paths       map[string]struct{ Available bool }
	}
	json.Unmarshal([]byte(out), &devs)
	if len(devs) == 0 || !devs[0].Paths["rt"].Available {
		if os.Getenv("CI") != "" {
			t.Fatal("CI has lavapipe, but no device runs the rt path")
		}
		t.Skip("no Vulkan device runs the rt path")
	}
	return devs[0].ReorderMode
}
