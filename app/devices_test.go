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
		for _, k := range []string{"name", "driver", "api_version", "reorder_mode", "spheres", "lss", "memory_budget", "paths"} {
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
