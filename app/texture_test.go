package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// writeTransformedTextureScene writes a large unlit quad whose base colour
// is a white texture under a KHR_texture_transform of scale 1e300.
func writeTransformedTextureScene(t *testing.T, dir string) string {
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, []float32{-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0})
	binary.Write(&buf, binary.LittleEndian, []float32{0, 0, 1, 0, 1, 1, 0, 1})
	binary.Write(&buf, binary.LittleEndian, []uint16{0, 1, 2, 0, 2, 3})
	uri := "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	white := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	for i := range 4 {
		white.Set(i%2, i/2, color.White)
	}
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, white); err != nil {
		t.Fatal(err)
	}
	gltf := `{"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
"extensionsUsed": ["KHR_materials_unlit", "KHR_texture_transform"],
"materials": [{"name": "tiles", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0,
  "extensions": {"KHR_texture_transform": {"scale": [1e300, 1]}}}}, "extensions": {"KHR_materials_unlit": {}}}],
"textures": [{"source": 0}],
"images": [{"uri": "data:image/png;base64,` + base64.StdEncoding.EncodeToString(pngBuf.Bytes()) + `"}],
"meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
"accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-10, -10, 0], "max": [10, 10, 0]},
 {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
 {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}],
"bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48}, {"buffer": 0, "byteOffset": 48, "byteLength": 32},
 {"buffer": 0, "byteOffset": 80, "byteLength": 12}],
"buffers": [{"byteLength": 92, "uri": "` + uri + `"}]}`
	path := filepath.Join(dir, "transform.gltf")
	if err := os.WriteFile(path, []byte(gltf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTextureTransformPastFloat32: a texture transform whose scale
// overflows float32 rendered its material black on both backends, without
// a word; it is dropped, said in inspect's warnings, and the texture is
// seen (white).
func TestTextureTransformPastFloat32(t *testing.T) {
	dir := t.TempDir()
	path := writeTransformedTextureScene(t, dir)
	code, out, errs := runCLI(t, "inspect", path, "--json")
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, errs)
	}
	var summary struct{ Warnings []string }
	if err := json.Unmarshal([]byte(out), &summary); err != nil {
		t.Fatal(err)
	}
	want := "material 0 (tiles): baseColorTexture's KHR_texture_transform scale [1e+300, 1] is not finite or past ±1e+06, where float32 UVs keep nothing of the texture: the texture is mapped without it"
	if !slices.Contains(summary.Warnings, want) {
		t.Errorf("inspect --json warnings %q, want %q", summary.Warnings, want)
	}
	for _, backend := range []string{"cpu", "vulkan"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "vulkan" {
				needVulkanRT(t)
			}
			img := filepath.Join(dir, backend+".pfm")
			if code, _, errs := runCLI(t, "render", path, "--backend", backend, "--res", "8x6", "--spp", "1", "-o", img); code != 0 {
				t.Fatalf("render: exit %d: %s", code, errs)
			}
			if got := centrePixel(t, img); got != [3]float32{1, 1, 1} {
				t.Errorf("centre %v, want the white texture", got)
			}
		})
	}
}
