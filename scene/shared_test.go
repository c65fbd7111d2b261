package scene

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"testing"

	"sertrace/internal/sharedscenes"
)

// rawGLTF is an independent reading of a file's JSON, to count what the
// loader should find without sharing its code.
type rawGLTF struct {
	Scene  *int `json:"scene"`
	Scenes []struct {
		Nodes []int `json:"nodes"`
	} `json:"scenes"`
	Nodes []struct {
		Children   []int          `json:"children"`
		Mesh       *int           `json:"mesh"`
		Camera     *int           `json:"camera"`
		Extensions map[string]any `json:"extensions"`
	} `json:"nodes"`
	Meshes []struct {
		Primitives []struct {
			Attributes map[string]int `json:"attributes"`
			Indices    *int           `json:"indices"`
			Mode       *int           `json:"mode"`
		} `json:"primitives"`
	} `json:"meshes"`
	Accessors []struct {
		Count int `json:"count"`
	} `json:"accessors"`
	Materials []json.RawMessage `json:"materials"`
}

func readRaw(t *testing.T, path string) rawGLTF {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data[:4]) == "glTF" {
		n := binary.LittleEndian.Uint32(data[12:])
		data = data[20 : 20+n]
	}
	var r rawGLTF
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// triangles is the number of triangles of mesh m's triangle primitives.
func (r rawGLTF) triangles(m int) (n int) {
	for _, p := range r.Meshes[m].Primitives {
		mode := 4
		if p.Mode != nil {
			mode = *p.Mode
		}
		count := r.Accessors[p.Attributes["POSITION"]].Count
		if p.Indices != nil {
			count = r.Accessors[*p.Indices].Count
		}
		switch mode {
		case 4:
			n += count / 3
		case 5, 6:
			n += max(count-2, 0)
		}
	}
	return n
}

// instancedTriangles walks the default scene, counting triangles as drawn.
func (r rawGLTF) instancedTriangles() (n int) {
	var walk func(i int)
	walk = func(i int) {
		nd := r.Nodes[i]
		if nd.Mesh != nil {
			copies := 1
			if inst, ok := nd.Extensions["EXT_mesh_gpu_instancing"].(map[string]any); ok {
				for _, a := range inst["attributes"].(map[string]any) {
					copies = r.Accessors[int(a.(float64))].Count
				}
			}
			n += copies * r.triangles(*nd.Mesh)
		}
		for _, c := range nd.Children {
			walk(c)
		}
	}
	s := 0
	if r.Scene != nil {
		s = *r.Scene
	}
	for _, root := range r.Scenes[s].Nodes {
		walk(root)
	}
	return n
}

func (r rawGLTF) cameraNodes() (n int) {
	for _, nd := range r.Nodes {
		if nd.Camera != nil {
			n++
		}
	}
	return n
}

// TestSharedScenesLoad loads every real scene and checks its counts against
// an independent reading of the file.
func TestSharedScenesLoad(t *testing.T) {
	files := []string{
		"Box/Box.glb", "Box/glTF-Embedded/Box.gltf",
		"BoxTextured/BoxTextured.glb", "BoxTextured/glTF-Embedded/BoxTextured.gltf",
		"Cube/Cube.gltf", "Duck/Duck.glb", "CesiumMilkTruck/CesiumMilkTruck.glb",
		"MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb",
		"TextureCoordinateTest/TextureCoordinateTest.glb", "NormalTangentMirrorTest/NormalTangentMirrorTest.glb",
		"EmissiveStrengthTest/EmissiveStrengthTest.glb", "SimpleInstancing/SimpleInstancing.glb",
		"Cameras/Cameras.gltf", "MeshPrimitiveModes/MeshPrimitiveModes.gltf",
		"CornellBox/cornellBox-2.80-Eevee-gltf.gltf", "ClearCoatTest/ClearCoatTest.glb", "SheenCloth/SheenCloth.gltf", "UnlitTest/UnlitTest.glb",
		"AnisotropyStrengthTest/AnisotropyStrengthTest.glb", "StainedGlassLamp/StainedGlassLamp.gltf",
		"IridescenceSuzanne/IridescenceSuzanne.glb",
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			path := sharedscenes.Path(t, f)
			sc, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			raw := readRaw(t, path)
			sum := sc.Summarize()
			if want := raw.instancedTriangles(); sum.InstancedTriangles != want {
				t.Errorf("instanced triangles %d, the file draws %d", sum.InstancedTriangles, want)
			}
			if want := raw.cameraNodes(); sum.Cameras != want || sum.DefaultCamera != (want == 0) {
				t.Errorf("cameras %d (default %v), the file places %d", sum.Cameras, sum.DefaultCamera, want)
			}
			if sum.Bounds.Min.X >= sum.Bounds.Max.X || !sum.Bounds.Min.Finite() || !sum.Bounds.Max.Finite() {
				t.Errorf("bounds %v are empty or not finite", sum.Bounds)
			}
			for _, m := range sc.Meshes {
				for i, n := range m.Normals {
					if l := n.Length(); math.Abs(float64(l)-1) > 1e-4 && l != 0 {
						t.Fatalf("%s: normal %d has length %v", m.Name, i, l)
					}
				}
			}
		})
	}
}

// TestSharedSceneDetails checks facts of particular files.
func TestSharedSceneDetails(t *testing.T) {
	load := func(t *testing.T, rel string) *Scene {
		sc, err := Load(sharedscenes.Path(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	t.Run("ClearCoatTest reads every coat", func(t *testing.T) {
		sc := load(t, "ClearCoatTest/ClearCoatTest.glb")
		if len(sc.Warnings) > 0 {
			t.Errorf("warnings: %v", sc.Warnings)
		}
		coats, textured, rough, normal := 0, 0, 0, 0
		for _, m := range sc.Materials {
			if m.Clearcoat > 0 {
				coats++
			}
			if m.ClearcoatTexture.Valid() {
				textured++
			}
			if m.ClearcoatRoughnessTexture.Valid() {
				rough++
			}
			if m.ClearcoatNormalTexture.Valid() {
				normal++
			}
		}
		if coats != 6 || textured != 1 || rough != 1 || normal != 2 {
			t.Errorf("%d coats, %d with a coat texture, %d with a roughness texture, %d with a normal map; want 6, 1, 1, 2", coats, textured, rough, normal)
		}
		for _, in := range sc.Instances {
			if m := &sc.Materials[in.Material]; in.Geometry.Kind == Triangles && m.ClearcoatNormalTexture.Valid() && sc.Meshes[in.Geometry.Index].Tangents == nil {
				t.Errorf("%s: a coat normal map without tangents", m.Name)
			}
		}
	})
	t.Run("AnisotropyStrengthTest reads its strengths, with tangents", func(t *testing.T) {
		sc := load(t, "AnisotropyStrengthTest/AnisotropyStrengthTest.glb")
		strengths := map[float32]bool{}
		for _, m := range sc.Materials {
			strengths[m.AnisotropyStrength] = true
		}
		if len(sc.Warnings) > 0 || len(strengths) < 6 {
			t.Errorf("warnings %q; %d distinct strengths", sc.Warnings, len(strengths))
		}
		for _, in := range sc.Instances {
			if m := &sc.Materials[in.Material]; in.Geometry.Kind == Triangles && m.AnisotropyStrength > 0 && sc.Meshes[in.Geometry.Index].Tangents == nil {
				t.Fatalf("%s: anisotropic without tangents", m.Name)
			}
		}
	})
	t.Run("StainedGlassLamp's KTX2 textures decode", func(t *testing.T) {
		sc := load(t, "StainedGlassLamp/StainedGlassLamp.gltf")
		if len(sc.Warnings) > 0 || len(sc.Textures) < 19 {
			t.Fatalf("warnings %q, %d textures (the file has 19 KTX2 images)", sc.Warnings, len(sc.Textures))
		}
		for _, tex := range sc.Textures {
			// Each is a real image: its texels are not all one value.
			lo, hi := tex.Pixels[0], tex.Pixels[0]
			for _, p := range tex.Pixels {
				lo, hi = min(lo, p), max(hi, p)
			}
			if len(tex.Pixels) != 4*tex.Width*tex.Height || hi-lo < 16 {
				t.Errorf("%s: %d×%d, %d bytes ranging %d..%d", tex.Name, tex.Width, tex.Height, len(tex.Pixels), lo, hi)
			}
		}
	})
	t.Run("IridescenceSuzanne reads its films", func(t *testing.T) {
		sc := load(t, "IridescenceSuzanne/IridescenceSuzanne.glb")
		films, textured := 0, 0
		for _, m := range sc.Materials {
			if m.Iridescence == 1 && m.IridescenceIOR > 1 && m.IridescenceThicknessMax >= 400 {
				films++
			}
			if m.IridescenceThicknessTexture.Valid() && m.IridescenceThicknessMin == 200 && m.IridescenceThicknessMax == 600 && m.IridescenceIOR == 1.8 {
				textured++
			}
		}
		if len(sc.Warnings) > 0 || films != 3 || textured != 1 {
			t.Errorf("warnings %q, %d films (want 3), %d with a thickness texture of 200..600 nm and index 1.8 (want 1)", sc.Warnings, films, textured)
		}
	})
	t.Run("SheenCloth and UnlitTest read their extensions", func(t *testing.T) {
		sc := load(t, "SheenCloth/SheenCloth.gltf")
		m := sc.Materials[0]
		if len(sc.Warnings) > 0 || m.SheenColor != (Vec3{1, 1, 1}) || m.SheenRoughness != 1 || !m.SheenColorTexture.Valid() || !m.SheenRoughnessTexture.Valid() {
			t.Errorf("SheenCloth: warnings %q, sheen %v %v, textures %v %v", sc.Warnings, m.SheenColor, m.SheenRoughness, m.SheenColorTexture, m.SheenRoughnessTexture)
		}
		if sc.Textures[m.SheenColorTexture.Texture].ColorSpace != SRGB || sc.Textures[m.SheenRoughnessTexture.Texture].ColorSpace != Linear {
			t.Error("the sheen colour is sRGB, its roughness linear")
		}
		sc = load(t, "UnlitTest/UnlitTest.glb")
		unlit := 0
		for _, m := range sc.Materials {
			if m.Unlit {
				unlit++
			}
		}
		if len(sc.Warnings) > 0 || unlit == 0 {
			t.Errorf("UnlitTest: warnings %q, %d unlit materials", sc.Warnings, unlit)
		}
	})
	t.Run("Box is a unit cube turned Y-up", func(t *testing.T) {
		s := load(t, "Box/Box.glb").Summarize()
		if s.Triangles != 12 || s.Instances != 1 || s.Bounds != (Bounds{Vec3{-0.5, -0.5, -0.5}, Vec3{0.5, 0.5, 0.5}}) {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("GLB and embedded BoxTextured decode the same texture", func(t *testing.T) {
		a, b := load(t, "BoxTextured/BoxTextured.glb"), load(t, "BoxTextured/glTF-Embedded/BoxTextured.gltf")
		if len(a.Textures) != 1 || len(b.Textures) != 1 || string(a.Textures[0].Pixels) != string(b.Textures[0].Pixels) {
			t.Fatal("textures differ")
		}
		if tx := a.Textures[0]; tx.Width < 2 || tx.ColorSpace != SRGB || !a.Materials[0].BaseColorTexture.Valid() {
			t.Errorf("texture %dx%d %v", tx.Width, tx.Height, tx.ColorSpace)
		}
	})
	t.Run("Cube reads its .bin and PNGs from files", func(t *testing.T) {
		sc := load(t, "Cube/Cube.gltf")
		m := sc.Materials[0]
		if !m.BaseColorTexture.Valid() || !m.MetallicRoughnessTex.Valid() || len(sc.Textures) != 2 {
			t.Errorf("textures not resolved: %+v", m)
		}
		if sc.Textures[m.MetallicRoughnessTex.Texture].ColorSpace != Linear {
			t.Error("metallicRoughness texture must be linear")
		}
	})
	t.Run("SimpleInstancing draws 125 cubes", func(t *testing.T) {
		sc := load(t, "SimpleInstancing/SimpleInstancing.glb")
		if len(sc.Instances) != 125 || len(sc.Meshes) != 1 {
			t.Fatalf("%d instances of %d meshes", len(sc.Instances), len(sc.Meshes))
		}
		seen := map[Vec3]bool{}
		for _, in := range sc.Instances {
			seen[in.Transform.Column(3)] = true
		}
		if len(seen) != 125 {
			t.Errorf("%d distinct positions", len(seen))
		}
	})
	t.Run("Cameras has a perspective and an orthographic camera", func(t *testing.T) {
		sc := load(t, "Cameras/Cameras.gltf")
		if len(sc.Cameras) != 2 {
			t.Fatalf("%d cameras", len(sc.Cameras))
		}
		var persp, ortho int
		for _, c := range sc.Cameras {
			if c.Orthographic {
				ortho++
				if c.XMag != 1 || c.YMag != 1 {
					t.Errorf("xmag %v ymag %v", c.XMag, c.YMag)
				}
			} else {
				persp++
				if math.Abs(float64(c.YFov)-0.7) > 1e-6 || c.AspectRatio != 1 {
					t.Errorf("yfov %v aspect %v", c.YFov, c.AspectRatio)
				}
			}
		}
		if persp != 1 || ortho != 1 {
			t.Errorf("%d perspective, %d orthographic", persp, ortho)
		}
	})
	t.Run("MeshPrimitiveModes turns strips and fans into triangles and skips radius-less lines", func(t *testing.T) {
		s := load(t, "MeshPrimitiveModes/MeshPrimitiveModes.gltf").Summarize()
		// 18 indices / 3 + (6 − 2) strip + (8 − 2) fan.
		if s.Triangles != 6+4+6 || s.Meshes != 3 || len(s.Warnings) != 4 {
			t.Errorf("%d triangles in %d meshes, warnings %q", s.Triangles, s.Meshes, s.Warnings)
		}
	})
	t.Run("EmissiveStrengthTest multiplies emissive factor by strength", func(t *testing.T) {
		sc := load(t, "EmissiveStrengthTest/EmissiveStrengthTest.glb")
		var peak float32
		for _, m := range sc.Materials {
			peak = max(peak, m.Emissive.X, m.Emissive.Y, m.Emissive.Z)
		}
		if peak <= 1 {
			t.Errorf("brightest emission %v: emissive_strength was not applied", peak)
		}
	})
	t.Run("NormalTangentMirrorTest keeps its mirrored tangents", func(t *testing.T) {
		sc := load(t, "NormalTangentMirrorTest/NormalTangentMirrorTest.glb")
		var neg int
		for _, tg := range sc.Meshes[0].Tangents {
			if tg.W < 0 {
				neg++
			}
		}
		if neg == 0 || !sc.Materials[0].NormalTexture.Valid() {
			t.Errorf("%d tangents with w = −1", neg)
		}
	})
	t.Run("CornellBox has one emitter, two UV sets and no camera", func(t *testing.T) {
		sc := load(t, "CornellBox/cornellBox-2.80-Eevee-gltf.gltf")
		s := sc.Summarize()
		if s.EmissiveMaterials != 1 || !s.DefaultCamera || s.Materials != 13 {
			t.Errorf("%+v", s)
		}
		uv1 := false
		for _, m := range sc.Meshes {
			uv1 = uv1 || m.UV1 != nil
		}
		if !uv1 {
			t.Error("TEXCOORD_1 was not read")
		}
	})
	t.Run("MetalRoughSpheres shares accessors instead of copying them", func(t *testing.T) {
		s := load(t, "MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb").Summarize()
		if s.InstancedTriangles < 1_000_000 || s.Triangles*20 > s.InstancedTriangles {
			t.Errorf("%d triangles stored for %d drawn", s.Triangles, s.InstancedTriangles)
		}
	})
}
