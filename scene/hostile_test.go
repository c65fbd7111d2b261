package scene

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// triangleBuffer is three float32 positions then three uint16 indices (and
// two bytes of padding): 44 bytes.
func triangleBuffer(positions [9]float32) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, positions)
	binary.Write(&b, binary.LittleEndian, [4]uint16{0, 1, 2, 0})
	return b.Bytes()
}

// validDoc is a one-triangle scene, as a JSON object the tests then break.
func validDoc() map[string]any {
	buf := triangleBuffer([9]float32{0, 0, 0, 1, 0, 0, 0, 1, 0})
	return map[string]any{
		"asset":  map[string]any{"version": "2.0"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []any{0}}},
		"nodes":  []any{map[string]any{"mesh": 0}},
		"meshes": []any{map[string]any{"primitives": []any{map[string]any{
			"attributes": map[string]any{"POSITION": 0}, "indices": 1,
		}}}},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
			map[string]any{"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"},
		},
		"bufferViews": []any{
			map[string]any{"buffer": 0, "byteOffset": 0, "byteLength": 36},
			map[string]any{"buffer": 0, "byteOffset": 36, "byteLength": 6},
		},
		"buffers": []any{map[string]any{"byteLength": len(buf),
			"uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(buf)}},
	}
}

func encode(t testing.TB, doc map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// at returns doc[path...] as a JSON object, for editing.
func at(doc map[string]any, path ...any) map[string]any {
	var cur any = doc
	for _, p := range path {
		switch k := p.(type) {
		case string:
			cur = cur.(map[string]any)[k]
		case int:
			cur = cur.([]any)[k]
		}
	}
	return cur.(map[string]any)
}

func dataURI(b []byte) string {
	return "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(b)
}

func pngBytes(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// texturedDoc adds a material with a base colour texture from image uri.
func texturedDoc(uri string) map[string]any {
	doc := validDoc()
	at(doc, "meshes", 0, "primitives", 0)["material"] = 0
	doc["materials"] = []any{map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorTexture": map[string]any{"index": 0}}}}
	doc["textures"] = []any{map[string]any{"source": 0}}
	doc["images"] = []any{map[string]any{"uri": uri}}
	return doc
}

// glb wraps JSON and a BIN chunk in a GLB container.
func glb(jsonChunk, bin []byte) []byte {
	for len(jsonChunk)%4 != 0 {
		jsonChunk = append(jsonChunk, ' ')
	}
	var b bytes.Buffer
	total := 12 + 8 + len(jsonChunk)
	if bin != nil {
		total += 8 + len(bin)
	}
	binary.Write(&b, binary.LittleEndian, []uint32{glbMagic, 2, uint32(total), uint32(len(jsonChunk)), glbChunkJSON})
	b.Write(jsonChunk)
	if bin != nil {
		binary.Write(&b, binary.LittleEndian, []uint32{uint32(len(bin)), glbChunkBIN})
		b.Write(bin)
	}
	return b.Bytes()
}

func TestValidDocLoads(t *testing.T) {
	sc, err := Decode(encode(t, validDoc()), "valid.gltf", NoResources)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Meshes) != 1 || sc.Meshes[0].TriangleCount() != 1 || len(sc.Instances) != 1 {
		t.Fatalf("%+v", sc.Summarize())
	}
}

type hostileCase struct {
	name string
	file func(t testing.TB) []byte
	want string
}

// TestHostileInput: every malformed file fails with one line that names the
// file and the problem, and never panics.
func TestHostileInput(t *testing.T) {
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.file(t), "bad.gltf", NoResources)
			checkOneLineError(t, err, "bad.gltf", c.want)
		})
	}
}

func hostileCases() []hostileCase {
	nan := float32(math.NaN())
	return []hostileCase{
		{"empty file", func(t testing.TB) []byte { return nil }, "file is empty"},
		{"not glTF", func(t testing.TB) []byte { return []byte("PK\x03\x04 zip") }, "neither glTF JSON nor a GLB"},
		{"invalid JSON", func(t testing.TB) []byte { return []byte(`{"asset": {"version": "2.0"`) }, "invalid glTF JSON"},
		{"glTF 1.0", func(t testing.TB) []byte { return []byte(`{"asset": {"version": "1.0"}}`) }, "version \"1.0\""},
		{"index out of range", func(t testing.TB) []byte {
			doc := validDoc()
			buf := triangleBuffer([9]float32{0, 0, 0, 1, 0, 0, 0, 1, 0})
			binary.LittleEndian.PutUint16(buf[38:], 7)
			at(doc, "buffers", 0)["uri"] = dataURI(buf)
			return encode(t, doc)
		}, "index 7 at position 1 is out of range (3 vertices)"},
		{"accessor overruns its view", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "accessors", 0)["count"] = 4
			return encode(t, doc)
		}, "overrun bufferView 0"},
		{"declared count far larger than the data", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "accessors", 0)["count"] = 2_000_000_000
			return encode(t, doc)
		}, "2000000000 elements"},
		{"view overruns its buffer", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "bufferViews", 1)["byteLength"] = 600
			return encode(t, doc)
		}, "overrun buffer 0"},
		{"negative view offset", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "bufferViews", 1)["byteOffset"] = -8
			return encode(t, doc)
		}, "overrun buffer 0"},
		{"stride not a multiple of 4", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "bufferViews", 0)["byteStride"] = 6
			return encode(t, doc)
		}, "byteStride 6"},
		{"stride smaller than the element", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "bufferViews", 0)["byteStride"] = 8
			return encode(t, doc)
		}, "smaller than the 12-byte element"},
		{"NaN position", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "buffers", 0)["uri"] = dataURI(triangleBuffer([9]float32{0, 0, 0, nan, 0, 0, 0, 1, 0}))
			return encode(t, doc)
		}, "POSITION: element 1 is not finite"},
		{"infinite position", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "buffers", 0)["uri"] = dataURI(triangleBuffer([9]float32{0, 0, 0, 1, 0, 0, 0, float32(math.Inf(1)), 0}))
			return encode(t, doc)
		}, "not finite"},
		{"node that is its own child", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "nodes", 0)["children"] = []any{0}
			return encode(t, doc)
		}, "cycle"},
		{"cycle through two nodes", func(t testing.TB) []byte {
			doc := validDoc()
			doc["nodes"] = []any{map[string]any{"mesh": 0, "children": []any{1}}, map[string]any{"children": []any{0}}}
			return encode(t, doc)
		}, "cycle"},
		{"cycle that no scene reaches", func(t testing.TB) []byte {
			doc := validDoc()
			doc["nodes"] = append(doc["nodes"].([]any), map[string]any{"children": []any{2}}, map[string]any{"children": []any{1}})
			return encode(t, doc)
		}, "cycle"},
		{"child that does not exist", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "nodes", 0)["children"] = []any{-3}
			return encode(t, doc)
		}, "child -3 does not exist"},
		{"hierarchy deeper than the limit", func(t testing.TB) []byte {
			doc := validDoc()
			var nodes []any
			for i := 0; i < 3000; i++ {
				nodes = append(nodes, map[string]any{"children": []any{i + 1}})
			}
			doc["nodes"] = append(nodes, map[string]any{"mesh": 0})
			return encode(t, doc)
		}, "deeper than 1024"},
		{"node graph that expands exponentially", func(t testing.TB) []byte {
			doc := validDoc()
			var nodes []any
			for i := 0; i < 40; i++ {
				nodes = append(nodes, map[string]any{"children": []any{i + 1, i + 1}})
			}
			nodes = append(nodes, map[string]any{"mesh": 0})
			doc["nodes"] = nodes
			return encode(t, doc)
		}, "node 0 lists child 1 twice"},
		{"node with two parents", func(t testing.TB) []byte {
			doc := validDoc()
			doc["nodes"] = []any{map[string]any{"children": []any{2}}, map[string]any{"children": []any{2}}, map[string]any{"mesh": 0}}
			at(doc, "scenes", 0)["nodes"] = []any{0, 1}
			return encode(t, doc)
		}, "node 2 has two parents"},
		{"root listed twice", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "scenes", 0)["nodes"] = []any{0, 0}
			return encode(t, doc)
		}, "node 0 is reached twice"},
		{"missing node", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "scenes", 0)["nodes"] = []any{5}
			return encode(t, doc)
		}, "node 5 does not exist"},
		{"missing mesh", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "nodes", 0)["mesh"] = 3
			return encode(t, doc)
		}, "mesh 3 does not exist"},
		{"missing material", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "meshes", 0, "primitives", 0)["material"] = 2
			return encode(t, doc)
		}, "material 2 does not exist"},
		{"buffer URI outside the folder", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "buffers", 0)["uri"] = "../secret.bin"
			return encode(t, doc)
		}, `"../secret.bin" points outside the scene's folder`},
		{"absolute buffer URI", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "buffers", 0)["uri"] = "/etc/passwd"
			return encode(t, doc)
		}, "points outside the scene's folder"},
		{"percent-encoded escape", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "buffers", 0)["uri"] = "%2e%2e/secret.bin"
			return encode(t, doc)
		}, "points outside the scene's folder"},
		{"remote URI", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "buffers", 0)["uri"] = "https://example.com/x.bin"
			return encode(t, doc)
		}, "only files beside the scene"},
		{"buffer shorter than byteLength", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "buffers", 0)["byteLength"] = 4000
			return encode(t, doc)
		}, "byteLength is 4000 but only 44 bytes"},
		{"image that does not decode", func(t testing.TB) []byte {
			return encode(t, texturedDoc(dataURI([]byte("\x89PNG\r\n\x1a\nnot really"))))
		}, "does not decode"},
		{"image that claims to be enormous", func(t testing.TB) []byte {
			p := pngBytes(t, 1, 1)
			binary.BigEndian.PutUint32(p[16:], 100000) // IHDR width
			binary.BigEndian.PutUint32(p[20:], 100000)
			binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
			return encode(t, texturedDoc(dataURI(p)))
		}, "outside the supported"},
		{"unknown required extension", func(t testing.TB) []byte {
			doc := validDoc()
			doc["extensionsRequired"] = []any{"KHR_draco_mesh_compression"}
			doc["extensionsUsed"] = []any{"KHR_draco_mesh_compression"}
			return encode(t, doc)
		}, "requires extension KHR_draco_mesh_compression"},
		{"malformed known extension", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "meshes", 0, "primitives", 0)["material"] = 0
			doc["materials"] = []any{map[string]any{"extensions": map[string]any{"KHR_materials_ior": "glass"}}}
			return encode(t, doc)
		}, "KHR_materials_ior is malformed"},
		{"thin film of index below 1", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "meshes", 0, "primitives", 0)["material"] = 0
			doc["materials"] = []any{map[string]any{"extensions": map[string]any{"KHR_materials_iridescence": map[string]any{"iridescenceFactor": 1, "iridescenceIor": 0.5}}}}
			return encode(t, doc)
		}, "iridescenceIor 0.5 must be at least 1"},
		{"camera with zero field of view", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "nodes", 0)["camera"] = 0
			doc["cameras"] = []any{map[string]any{"type": "perspective", "perspective": map[string]any{"yfov": 0, "znear": 0.1}}}
			return encode(t, doc)
		}, "yfov 0"},
		{"negative lens radius", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "nodes", 0)["camera"] = 0
			doc["cameras"] = []any{map[string]any{"type": "perspective", "perspective": map[string]any{"yfov": 0.5, "znear": 0.1},
				"extras": map[string]any{"sertrace": map[string]any{"aperture_radius": -1}}}}
			return encode(t, doc)
		}, "extras.sertrace.aperture_radius must be a finite number"},
		{"projective node matrix", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "nodes", 0)["matrix"] = []any{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1}
			return encode(t, doc)
		}, "not affine"},
		{"sparse accessor with a huge count and no data", func(t testing.TB) []byte {
			doc := validDoc()
			doc["accessors"] = append(doc["accessors"].([]any), map[string]any{
				"componentType": 5126, "count": 1 << 30, "type": "VEC3",
				"sparse": map[string]any{"count": 1, "indices": map[string]any{"bufferView": 1, "componentType": 5123},
					"values": map[string]any{"bufferView": 0}},
			})
			at(doc, "meshes", 0, "primitives", 0, "attributes")["POSITION"] = 2
			delete(at(doc, "meshes", 0, "primitives", 0), "indices")
			return encode(t, doc)
		}, "decoding it would take more memory than the file's"},
		{"sparse index out of range", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "accessors", 0)["sparse"] = map[string]any{"count": 3,
				"indices": map[string]any{"bufferView": 1, "componentType": 5123}, "values": map[string]any{"bufferView": 0}}
			buf := triangleBuffer([9]float32{0, 0, 0, 1, 0, 0, 0, 1, 0})
			binary.LittleEndian.PutUint16(buf[40:], 9)
			at(doc, "buffers", 0)["uri"] = dataURI(buf)
			return encode(t, doc)
		}, "sparse: index 9 is out of range"},
		{"negative radius", func(t testing.TB) []byte {
			doc := validDoc()
			prim := at(doc, "meshes", 0, "primitives", 0)
			prim["mode"] = 0
			prim["attributes"].(map[string]any)["_RADIUS"] = 2
			// Three floats from the positions: 0, 0, 0 ... then -1 below.
			buf := triangleBuffer([9]float32{0, 0, 0, 1, 0, 0, -1, 1, 0})
			at(doc, "buffers", 0)["uri"] = dataURI(buf)
			doc["accessors"] = append(doc["accessors"].([]any), map[string]any{"bufferView": 0, "byteOffset": 24, "componentType": 5126, "count": 3, "type": "SCALAR"})
			return encode(t, doc)
		}, "_RADIUS: radius 0 is -1"},
		{"instancing with a huge accessor on many nodes", func(t testing.TB) []byte {
			doc := validDoc()
			doc["accessors"] = append(doc["accessors"].([]any), map[string]any{"componentType": 5126, "count": 4 << 20, "type": "VEC3"})
			var nodes, roots []any
			for i := 0; i < 8; i++ {
				nodes = append(nodes, map[string]any{"mesh": 0, "extensions": map[string]any{
					"EXT_mesh_gpu_instancing": map[string]any{"attributes": map[string]any{"TRANSLATION": 2}}}})
				roots = append(roots, i)
			}
			doc["nodes"], at(doc, "scenes", 0)["nodes"] = nodes, roots
			return encode(t, doc)
		}, "decoding it would take more memory"},
		{"many primitives with huge synthesized accessors", func(t testing.TB) []byte {
			doc := validDoc()
			var prims []any
			for i := 0; i < 100; i++ {
				doc["accessors"] = append(doc["accessors"].([]any), map[string]any{"componentType": 5126, "count": 16 << 20, "type": "VEC3"})
				prims = append(prims, map[string]any{"attributes": map[string]any{"POSITION": 2 + i}})
			}
			at(doc, "meshes", 0)["primitives"] = prims
			return encode(t, doc)
		}, "decoding it would take more memory"},
		{"byte offset that overflows", func(t testing.TB) []byte {
			doc := validDoc()
			at(doc, "accessors", 0)["byteOffset"] = int64(9223372036854775800)
			return encode(t, doc)
		}, "overrun bufferView 0"},
		{"sparse index that only a float would wrap", func(t testing.TB) []byte {
			doc := validDoc()
			buf := triangleBuffer([9]float32{0, 0, 0, 1, 0, 0, 0, 1, 0})
			buf = binary.LittleEndian.AppendUint32(buf[:44], 0)     // 44: sparse index 0
			buf = binary.LittleEndian.AppendUint32(buf, 0xFFFFFFFF) // 48: its value
			at(doc, "buffers", 0)["uri"], at(doc, "buffers", 0)["byteLength"] = dataURI(buf), len(buf)
			doc["bufferViews"] = append(doc["bufferViews"].([]any),
				map[string]any{"buffer": 0, "byteOffset": 44, "byteLength": 4},
				map[string]any{"buffer": 0, "byteOffset": 48, "byteLength": 4})
			doc["accessors"] = append(doc["accessors"].([]any), map[string]any{"bufferView": 1, "componentType": 5125, "count": 1, "type": "SCALAR"})
			at(doc, "accessors", 1)["componentType"] = 5125
			at(doc, "accessors", 1)["count"] = 1
			at(doc, "accessors", 1)["sparse"] = map[string]any{"count": 1,
				"indices": map[string]any{"bufferView": 2, "componentType": 5125}, "values": map[string]any{"bufferView": 3}}
			at(doc, "meshes", 0, "primitives", 0)["mode"] = 0
			at(doc, "meshes", 0, "primitives", 0, "attributes")["_RADIUS"] = 0
			return encode(t, doc)
		}, "index 4294967295 at position 0 is out of range"},
		{"truncated GLB", func(t testing.TB) []byte {
			return glb(encode(t, validDoc()), nil)[:30]
		}, "GLB file is truncated"},
		{"GLB chunk longer than the file", func(t testing.TB) []byte {
			b := glb(encode(t, validDoc()), nil)
			binary.LittleEndian.PutUint32(b[12:], 1<<30)
			return b
		}, "GLB chunk 0 is truncated"},
		{"GLB buffer without its BIN chunk", func(t testing.TB) []byte {
			doc := validDoc()
			delete(at(doc, "buffers", 0), "uri")
			return glb(encode(t, doc), nil)
		}, "has no uri and is not the GLB's BIN chunk"},
	}
}

func checkOneLineError(t *testing.T, err error, file, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("loaded without error; want %q", want)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || strings.Contains(msg, "internal error") {
		t.Fatalf("not one clean line: %s", msg)
	}
	if !strings.HasPrefix(msg, "load "+file+": ") || !strings.Contains(msg, want) {
		t.Fatalf("error %q does not name %s and %q", msg, file, want)
	}
}

// TestResourcesStayInTheFolder: files beside the scene load; a missing file,
// and a symbolic link that leads out of the folder, fail with a clear line.
func TestResourcesStayInTheFolder(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	buf := triangleBuffer([9]float32{0, 0, 0, 1, 0, 0, 0, 1, 0})
	if err := os.WriteFile(filepath.Join(dir, "tri.bin"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.bin"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.bin"), filepath.Join(dir, "link.bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tex.png"), pngBytes(t, 4, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, uri, image string) string {
		doc := validDoc()
		if image != "" {
			doc = texturedDoc(image)
		}
		at(doc, "buffers", 0)["uri"] = uri
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, encode(t, doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sc, err := Load(write("ok.gltf", "tri.bin", "tex.png"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Textures) != 1 || sc.Textures[0].Width != 4 || sc.Textures[0].Height != 2 {
		t.Errorf("texture from file: %+v", sc.Textures)
	}
	p := write("missing.gltf", "nothere.bin", "")
	_, err = Load(p)
	checkOneLineError(t, err, p, `uri "nothere.bin": file not found beside the scene`)
	p = write("link.gltf", "link.bin", "")
	_, err = Load(p)
	checkOneLineError(t, err, p, `uri "link.bin"`)
	p = write("missingimage.gltf", "tri.bin", "nothere.png")
	_, err = Load(p)
	checkOneLineError(t, err, p, `image 0: uri "nothere.png": file not found`)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.bin"), 0o644); err != nil {
		t.Fatal(err)
	}
	p = write("pipe.gltf", "pipe.bin", "")
	_, err = Load(p)
	checkOneLineError(t, err, p, "pipe.bin is not a regular file")
	_, err = Load(filepath.Join(dir, "absent.glb"))
	checkOneLineError(t, err, filepath.Join(dir, "absent.glb"), "no such file")
}
