package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeVariantsScene writes a large unlit quad whose material is white, or
// red or blue in its KHR_materials_variants variants "red" and "blue".
func writeVariantsScene(t *testing.T, dir string) string {
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, []float32{-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0})
	binary.Write(&buf, binary.LittleEndian, []uint16{0, 1, 2, 0, 2, 3})
	uri := "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	gltf := `{"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
"extensionsUsed": ["KHR_materials_variants", "KHR_materials_unlit"],
"extensions": {"KHR_materials_variants": {"variants": [{"name": "red"}, {"name": "blue"}]}},
"materials": [
 {"name": "white", "pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1]}, "extensions": {"KHR_materials_unlit": {}}},
 {"name": "red", "pbrMetallicRoughness": {"baseColorFactor": [1, 0, 0, 1]}, "extensions": {"KHR_materials_unlit": {}}},
 {"name": "blue", "pbrMetallicRoughness": {"baseColorFactor": [0, 0, 1, 1]}, "extensions": {"KHR_materials_unlit": {}}}],
"meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0,
 "extensions": {"KHR_materials_variants": {"mappings": [{"material": 1, "variants": [0]}, {"material": 2, "variants": [1]}]}}}]}],
"accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-10, -10, 0], "max": [10, 10, 0]},
 {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}],
"bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48}, {"buffer": 0, "byteOffset": 48, "byteLength": 12}],
"buffers": [{"byteLength": 60, "uri": "` + uri + `"}]}`
	path := filepath.Join(dir, "variants.gltf")
	if err := os.WriteFile(path, []byte(gltf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// centrePixel reads a PFM's middle pixel.
func centrePixel(t *testing.T, path string) [3]float32 {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w, h int
	var scale float64
	var header string
	for i, lines := 0, 0; i < len(b) && lines < 3; i++ {
		if b[i] == '\n' {
			lines++
			if lines == 3 {
				header, b = string(b[:i+1]), b[i+1:]
			}
		}
	}
	if _, err := fmt.Sscanf(header, "PF\n%d %d\n%f", &w, &h, &scale); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	k := 12 * ((h/2)*w + w/2)
	var px [3]float32
	for c := range 3 {
		px[c] = math.Float32frombits(binary.LittleEndian.Uint32(b[k+4*c:]))
	}
	return px
}

// TestVariants: inspect lists a file's variants; render --variant and a
// batch job's variant key render that variant's materials; an unknown one
// is refused naming the ones there are.
func TestVariants(t *testing.T) {
	dir := t.TempDir()
	path := writeVariantsScene(t, dir)
	code, out, errs := runCLI(t, "inspect", path)
	if code != 0 || !strings.Contains(out, `variants    ["red" "blue"]`) {
		t.Fatalf("inspect: exit %d, %s%s", code, out, errs)
	}
	for _, c := range []struct {
		variant string
		want    [3]float32
	}{{"", [3]float32{1, 1, 1}}, {"red", [3]float32{1, 0, 0}}, {"blue", [3]float32{0, 0, 1}}} {
		img := filepath.Join(dir, "v"+c.variant+".pfm")
		code, _, errs := runCLI(t, "render", path, "--backend", "cpu", "--res", "8x6", "--spp", "2", "--variant", c.variant, "-o", img)
		if code != 0 {
			t.Fatalf("variant %q: exit %d: %s", c.variant, code, errs)
		}
		if got := centrePixel(t, img); got != c.want {
			t.Errorf("variant %q: centre %v, want %v", c.variant, got, c.want)
		}
	}
	code, _, errs = runCLI(t, "render", path, "--backend", "cpu", "--variant", "green", "-o", filepath.Join(dir, "g.pfm"))
	if code == 0 || !strings.Contains(errs, `variant "green" is not one of the file's: ["red" "blue"]`) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
		t.Errorf("an unknown variant: exit %d, %q", code, errs)
	}
	cfg := filepath.Join(dir, "batch.yaml")
	os.WriteFile(cfg, []byte("output_dir: out\ndefaults: {res: 8x6, spp: 2, backend: cpu, outputs: [beauty.pfm]}\njobs:\n  - name: blue\n    scene: variants.gltf\n    variant: blue\n"), 0o644)
	if code, _, errs := runCLI(t, "batch", cfg); code != 0 {
		t.Fatalf("batch: exit %d: %s", code, errs)
	}
	if got := centrePixel(t, filepath.Join(dir, "out", "blue", "beauty.pfm")); got != [3]float32{0, 0, 1} {
		t.Errorf("batch job with variant blue: centre %v", got)
	}
}
