package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestInspectJSON: the keys the contract promises, with the right counts.
func TestInspectJSON(t *testing.T) {
	code, out, errs := runCLI(t, "inspect", "../scenes/hairy-cornell.glb", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"meshes", "triangles", "instanced_triangles", "spheres", "lss_segments", "instances",
		"materials", "textures", "lights", "cameras", "bounds", "warnings"} {
		if _, ok := got[k]; !ok {
			t.Errorf("key %q is missing", k)
		}
	}
	if got["spheres"] != 6000.0 || got["lss_segments"] != 57600.0 || got["cameras"] != 1.0 {
		t.Errorf("counts %v %v %v", got["spheres"], got["lss_segments"], got["cameras"])
	}
	b := got["bounds"].(map[string]any)
	if _, ok := b["min"]; !ok {
		t.Error("bounds has no min")
	}
	// Each hair instance: its strands (chains), segments, radii and model,
	// as scene.HairyCornell makes them (24-segment strands, tips a fifth
	// of the roots); each particle instance its spheres.
	hair, _ := got["hair"].([]any)
	if len(hair) != 2 {
		t.Fatalf("hair: %v, want the two instances of strands", got["hair"])
	}
	h := hair[0].(map[string]any)
	model, _ := h["model"].(map[string]any)
	if h["strands"] != 1200.0 || h["segments"] != 28800.0 || h["material"] != "brown hair" || model["eumelanin"] != 1.3 ||
		math.Abs(h["radius_max"].(float64)/h["radius_min"].(float64)-5) > 1e-4 {
		t.Errorf("hair[0] = %v", h)
	}
	parts, _ := got["particles"].([]any)
	spheres := 0.0
	for _, p := range parts {
		spheres += p.(map[string]any)["spheres"].(float64)
	}
	if spheres != 6000 {
		t.Errorf("particles %v hold %v spheres, not 6000", parts, spheres)
	}
}

// TestOptionsFromConfigAndEnvironment: --json can come from a YAML config or
// from SERTRACE_JSON; unknown config keys are refused.
func TestOptionsFromConfigAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte("json: true\n"), 0o644)
	if code, out, errs := runCLI(t, "inspect", "../scenes/cornell.glb", "--config", cfg); code != 0 || !strings.HasPrefix(out, "{") {
		t.Errorf("config: exit %d, out %.40q, err %s", code, out, errs)
	}
	t.Setenv("SERTRACE_JSON", "true")
	if code, out, _ := runCLI(t, "inspect", "../scenes/cornell.glb"); code != 0 || !strings.HasPrefix(out, "{") {
		t.Errorf("environment: exit %d, out %.40q", code, out)
	}
	t.Setenv("SERTRACE_JSON", "")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("jsn: true\n"), 0o644)
	if code, _, errs := runCLI(t, "inspect", "../scenes/cornell.glb", "--config", bad); code != 2 || !strings.Contains(errs, `unknown key "jsn"`) {
		t.Errorf("unknown key: exit %d, %s", code, errs)
	}
}

// TestExitStatus: 0 done, 1 failed with one line, 2 bad usage.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.gltf")
	os.WriteFile(broken, []byte(`{"asset":{"version":"2.0"},"nodes":[{"children":[0]}]}`), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"inspect", "../scenes/cornell.glb"}, 0, ""},
		{[]string{"inspect", broken}, 1, "sertrace: load " + broken + ": node 0: the node graph has a cycle"},
		{[]string{"inspect", filepath.Join(dir, "absent.glb")}, 1, "no such file or directory"},
		{[]string{"inspect"}, 2, "expected 1 argument(s) (SCENE), got 0"},
		{[]string{"inspect", "a", "b"}, 2, "expected 1 argument(s)"},
		{[]string{"inspect", "--no-such-flag", "x"}, 2, "unknown flag"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"gen", "teapot", "-o", filepath.Join(dir, "t.glb")}, 2, `unknown scene kind "teapot"`},
		{[]string{"gen", "cornell"}, 2, "needs -o"},
		{[]string{"gen", "cornell", "-o", filepath.Join(dir, "no", "such", "dir", "c.glb")}, 1, "no such file"},
		{[]string{"render", "../scenes/cornell.glb", "--accel", "optix", "-o", filepath.Join(dir, "a.png")}, 2, `--accel: unknown tracer "optix"`},
		{[]string{"bench", "--accel", "optix"}, 2, `--accel: unknown tracer "optix" (auto, embree or bvh)`},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
		if code == 1 && strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: a failure must be one line, got %q", c.args, errs)
		}
	}
}

// TestGenWritesEveryKind: gen writes each scene, which inspect then reads.
func TestGenWritesEveryKind(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"hair", "particles", "cornell", "hairy-cornell"} {
		out := filepath.Join(dir, kind+".glb")
		if code, _, errs := runCLI(t, "gen", kind, "-o", out); code != 0 {
			t.Fatalf("gen %s: exit %d: %s", kind, code, errs)
		}
		if code, _, errs := runCLI(t, "inspect", out); code != 0 {
			t.Fatalf("inspect %s: exit %d: %s", kind, code, errs)
		}
	}
}
