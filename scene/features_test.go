package scene

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
)

func close32(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 }

func closeVec(a, b Vec3) bool { return a.Sub(b).Length() < 1e-5 }

// featureDoc exercises what the sample scenes leave out: interleaved
// attributes, a node matrix over a TRS child with non-uniform scale and GPU
// instancing, a scaled and turned camera, a spot light, and a material
// using every slot and extension.
func featureDoc(t *testing.T) []byte {
	// Interleaved: position (12) + normal (12) + uv (8) = 32 bytes a vertex.
	var buf bytes.Buffer
	verts := []struct {
		p, n [3]float32
		uv   [2]float32
	}{
		{[3]float32{0, 0, 0}, [3]float32{0, 0, 2}, [2]float32{0, 1}},
		{[3]float32{1, 0, 0}, [3]float32{0, 0, 2}, [2]float32{1, 1}},
		{[3]float32{0, 2, 0}, [3]float32{0, 0, 2}, [2]float32{0, 0}},
	}
	for _, v := range verts {
		binary.Write(&buf, binary.LittleEndian, v)
	}
	// 96: instance translations, 2 × VEC3.
	binary.Write(&buf, binary.LittleEndian, []float32{10, 0, 0, 0, 10, 0})
	// 120: instance rotations as normalised shorts: identity, 180° about Y.
	binary.Write(&buf, binary.LittleEndian, []int16{0, 0, 0, 32767, 0, 32767, 0, 0})
	png := pngBytes(t, 2, 2)
	doc := validDoc()
	doc["buffers"] = []any{map[string]any{"byteLength": buf.Len(), "uri": dataURI(buf.Bytes())}}
	doc["bufferViews"] = []any{
		map[string]any{"buffer": 0, "byteOffset": 0, "byteLength": 96, "byteStride": 32},
		map[string]any{"buffer": 0, "byteOffset": 96, "byteLength": 24},
		map[string]any{"buffer": 0, "byteOffset": 120, "byteLength": 16},
	}
	doc["accessors"] = []any{
		map[string]any{"bufferView": 0, "byteOffset": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
		map[string]any{"bufferView": 0, "byteOffset": 12, "componentType": 5126, "count": 3, "type": "VEC3"},
		map[string]any{"bufferView": 0, "byteOffset": 24, "componentType": 5126, "count": 3, "type": "VEC2"},
		map[string]any{"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"},
		map[string]any{"bufferView": 2, "componentType": 5122, "normalized": true, "count": 2, "type": "VEC4"},
	}
	doc["meshes"] = []any{map[string]any{"primitives": []any{map[string]any{
		"attributes": map[string]any{"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "material": 0,
	}}}}
	tex := func(i int, extra map[string]any) map[string]any {
		m := map[string]any{"index": i}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	doc["materials"] = []any{map[string]any{
		"pbrMetallicRoughness": map[string]any{
			"baseColorTexture":         tex(0, map[string]any{"extensions": map[string]any{"KHR_texture_transform": map[string]any{"offset": []any{0.5, 0}, "texCoord": 1}}}),
			"metallicRoughnessTexture": tex(0, nil),
		},
		"normalTexture":    tex(0, map[string]any{"scale": 0.5}),
		"occlusionTexture": tex(0, map[string]any{"strength": 0.25}),
		"emissiveTexture":  tex(1, nil),
		"emissiveFactor":   []any{1, 0.5, 0},
		"alphaMode":        "MASK", "alphaCutoff": 0.3, "doubleSided": true,
		"extensions": map[string]any{
			"KHR_materials_emissive_strength": map[string]any{"emissiveStrength": 4},
			"KHR_materials_transmission":      map[string]any{"transmissionFactor": 0.8},
			"KHR_materials_ior":               map[string]any{"ior": 1.33},
			"KHR_materials_volume":            map[string]any{"thicknessFactor": 0.1, "attenuationDistance": 2, "attenuationColor": []any{1, 0.5, 0.25}},
		},
	}}
	doc["textures"] = []any{map[string]any{"source": 0, "sampler": 0}, map[string]any{"source": 0}}
	doc["samplers"] = []any{map[string]any{"magFilter": 9728, "wrapS": 33071, "wrapT": 33648}}
	doc["images"] = []any{map[string]any{"uri": dataURI(png)}}
	doc["cameras"] = []any{map[string]any{"type": "perspective", "perspective": map[string]any{"yfov": 0.5, "znear": 0.1},
		"extras": map[string]any{"sertrace": map[string]any{"aperture_radius": 0.02, "focus_distance": 3}}}}
	doc["extensionsUsed"] = []any{"KHR_materials_emissive_strength", "KHR_materials_transmission", "KHR_materials_ior",
		"KHR_materials_volume", "KHR_texture_transform", "KHR_lights_punctual", "EXT_mesh_gpu_instancing"}
	doc["extensions"] = map[string]any{"KHR_lights_punctual": map[string]any{"lights": []any{
		map[string]any{"type": "spot", "intensity": 5, "color": []any{1, 0.5, 0.5}},
	}}}
	// Node 0: matrix moving everything by +5 in y; node 1 (its child):
	// scale (2, 3, 4) then 90° about Z, instanced twice; node 2: a camera
	// scaled by 7 and turned 90° about Y; node 3: the spot light at (0, 0, 9).
	s := math.Sqrt(0.5)
	doc["nodes"] = []any{
		map[string]any{"matrix": []any{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 5, 0, 1}, "children": []any{1, 2, 3}},
		map[string]any{"mesh": 0, "rotation": []any{0, 0, s, s}, "scale": []any{2, 3, 4},
			"extensions": map[string]any{"EXT_mesh_gpu_instancing": map[string]any{"attributes": map[string]any{"TRANSLATION": 3, "ROTATION": 4}}}},
		map[string]any{"camera": 0, "rotation": []any{0, s, 0, s}, "scale": []any{7, 7, 7}},
		map[string]any{"translation": []any{0, 0, 9}, "extensions": map[string]any{"KHR_lights_punctual": map[string]any{"light": 0}}},
	}
	return encode(t, doc)
}

func TestLoaderFeatures(t *testing.T) {
	sc, err := Decode(featureDoc(t), "features.gltf", NoResources)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Warnings) != 0 {
		t.Errorf("warnings %q", sc.Warnings)
	}
	m := sc.Meshes[0]
	t.Run("interleaved attributes", func(t *testing.T) {
		if m.Positions[2] != (Vec3{0, 2, 0}) || m.UV0[0] != (Vec2{0, 1}) || m.Normals[1] != (Vec3{0, 0, 1}) {
			t.Errorf("positions %v uvs %v normals %v (normals must come back unit length)", m.Positions, m.UV0, m.Normals)
		}
		if m.Tangents == nil {
			t.Error("the normal map needs tangents and none were generated")
		}
	})
	t.Run("transform order", func(t *testing.T) {
		if len(sc.Instances) != 2 {
			t.Fatalf("%d instances", len(sc.Instances))
		}
		// Vertex (1, 0, 0): instance rotation, then translation, then the
		// node's scale (2, 3, 4) and 90° about Z, then +5 in y.
		// Instance 0: identity rotation, +10 x: (11, 0, 0) → scaled (22, 0, 0) → rotated (0, 22, 0) → (0, 27, 0).
		// Instance 1: 180° about Y: (−1, 0, 0) + (0, 10, 0) → (−2, 30, 0) → (−30, −2, 0) → (−30, 3, 0).
		want := []Vec3{{0, 27, 0}, {-30, 3, 0}}
		for i, in := range sc.Instances {
			if p := in.Transform.Point(Vec3{1, 0, 0}); !closeVec(p, want[i]) {
				t.Errorf("instance %d puts (1, 0, 0) at %v, want %v", i, p, want[i])
			}
		}
	})
	t.Run("camera", func(t *testing.T) {
		c := sc.Cameras[0]
		x, y, z, at := c.Transform.Column(0), c.Transform.Column(1), c.Transform.Column(2), c.Transform.Column(3)
		// Turned 90° about Y, the camera looks down world −X; its scale is gone.
		if !closeVec(z.Scale(-1), Vec3{-1, 0, 0}) || !closeVec(y, Vec3{0, 1, 0}) || !closeVec(x.Cross(y), z) || !closeVec(at, Vec3{0, 5, 0}) {
			t.Errorf("camera basis x %v y %v z %v at %v", x, y, z, at)
		}
		if c.YFov != 0.5 || c.Name != "camera 0" || c.ApertureRadius != 0.02 || c.FocusDistance != 3 {
			t.Errorf("camera %+v", c)
		}
	})
	t.Run("spot light", func(t *testing.T) {
		l := sc.Lights[0]
		if l.Kind != SpotLight || l.Position != (Vec3{0, 5, 9}) || !closeVec(l.Direction, Vec3{0, 0, -1}) ||
			l.Intensity != 5 || l.Color != (Vec3{1, 0.5, 0.5}) || l.InnerCone != 0 || !close32(l.OuterCone, math.Pi/4) {
			t.Errorf("light %+v", l)
		}
	})
	t.Run("material", func(t *testing.T) {
		mat := sc.Materials[0]
		if mat.Metallic != 1 || mat.Roughness != 1 || mat.BaseColor != (Vec4{1, 1, 1, 1}) {
			t.Errorf("factors default to 1: metallic %v roughness %v base %v", mat.Metallic, mat.Roughness, mat.BaseColor)
		}
		if mat.BaseColorTexture.TexCoord != 1 || mat.BaseColorTexture.Transform != [6]float32{1, 0, 0.5, 0, 1, 0} {
			t.Errorf("texture transform %+v", mat.BaseColorTexture)
		}
		space := func(r TextureRef) ColorSpace { return sc.Textures[r.Texture].ColorSpace }
		if space(mat.BaseColorTexture) != SRGB || space(mat.EmissiveTexture) != SRGB || space(mat.MetallicRoughnessTex) != Linear ||
			space(mat.NormalTexture) != Linear || space(mat.OcclusionTexture) != Linear {
			t.Error("colour textures must be sRGB and data textures linear")
		}
		if mat.NormalScale != 0.5 || mat.OcclusionStrength != 0.25 || mat.AlphaMode != AlphaMask || !close32(mat.AlphaCutoff, 0.3) || !mat.DoubleSided {
			t.Errorf("slots %+v", mat)
		}
		if mat.Emissive != (Vec3{4, 2, 0}) || !close32(mat.Transmission, 0.8) || !close32(mat.IOR, 1.33) {
			t.Errorf("emissive %v transmission %v ior %v", mat.Emissive, mat.Transmission, mat.IOR)
		}
		if !mat.Volume || !close32(mat.Thickness, 0.1) || mat.AttenuationDistance != 2 || mat.AttenuationColor != (Vec3{1, 0.5, 0.25}) {
			t.Errorf("volume %+v", mat)
		}
		tx := sc.Textures[mat.BaseColorTexture.Texture]
		if !tx.Nearest || tx.WrapS != WrapClamp || tx.WrapT != WrapMirror {
			t.Errorf("sampler: nearest %v wrap %v %v", tx.Nearest, tx.WrapS, tx.WrapT)
		}
		if e := sc.Textures[mat.EmissiveTexture.Texture]; e.Nearest || e.WrapS != WrapRepeat {
			t.Error("a texture without a sampler repeats and filters linearly")
		}
	})
}

func TestNormalizedComponents(t *testing.T) {
	cases := []struct {
		b    []byte
		ct   gltf.ComponentType
		want float32
	}{
		{[]byte{127}, gltf.ComponentByte, 1}, {[]byte{0x81}, gltf.ComponentByte, -1}, {[]byte{0x80}, gltf.ComponentByte, -1},
		{[]byte{0xC1}, gltf.ComponentByte, -63.0 / 127}, {[]byte{255}, gltf.ComponentUbyte, 1}, {[]byte{51}, gltf.ComponentUbyte, 0.2},
		{[]byte{0xFF, 0x7F}, gltf.ComponentShort, 1}, {[]byte{0x00, 0x80}, gltf.ComponentShort, -1},
		{[]byte{0x00, 0x40}, gltf.ComponentShort, 16384.0 / 32767}, {[]byte{0xFF, 0xFF}, gltf.ComponentUshort, 1},
	}
	for _, c := range cases {
		if got := component(c.b, c.ct, true); !close32(got, c.want) {
			t.Errorf("%v as %d: %v, want %v", c.b, c.ct, got, c.want)
		}
	}
}

// TestSpecularGlossiness: a material with KHR_materials_pbrSpecularGlossiness
// is read from it, its metallic-roughness fallback ignored: the diffuse
// colour and texture as the base's, the specular colour and the
// specular-glossiness texture (sRGB; A, the glossiness, stays linear) in
// the specular colour's slots; the defaults where the file says nothing;
// a factor that is not finite refused.
func TestSpecularGlossiness(t *testing.T) {
	load := func(sg map[string]any) (*Scene, error) {
		var doc map[string]any
		if err := json.Unmarshal(featureDoc(t), &doc); err != nil {
			t.Fatal(err)
		}
		doc["materials"] = []any{map[string]any{
			"pbrMetallicRoughness": map[string]any{"baseColorFactor": []any{0.1, 0.1, 0.1, 1}, "metallicFactor": 1, "roughnessFactor": 0.2,
				"metallicRoughnessTexture": map[string]any{"index": 0}},
			"extensions": map[string]any{"KHR_materials_pbrSpecularGlossiness": sg,
				"KHR_materials_specular": map[string]any{"specularColorFactor": []any{0.5, 0.5, 0.5}}},
		}}
		doc["extensionsUsed"] = append(doc["extensionsUsed"].([]any), "KHR_materials_pbrSpecularGlossiness", "KHR_materials_specular")
		return Decode(encode(t, doc), "specgloss.gltf", NoResources)
	}
	sc, err := load(map[string]any{"diffuseFactor": []any{0.8, 0.6, 0.4, 0.5}, "diffuseTexture": map[string]any{"index": 0},
		"specularFactor": []any{1, 0.766, 0.336}, "glossinessFactor": 0.9, "specularGlossinessTexture": map[string]any{"index": 1}})
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Materials[0]
	if !m.SpecularGlossiness || m.BaseColor != (Vec4{0.8, 0.6, 0.4, 0.5}) || m.SpecularColor != (Vec3{1, 0.766, 0.336}) || m.Glossiness != 0.9 {
		t.Errorf("material %+v", m)
	}
	// The fallback's metallic-roughness texture is not decoded; the
	// specular extension beside it is said to be ignored.
	if !m.BaseColorTexture.Valid() || !m.SpecularColorTexture.Valid() || sc.Textures[m.BaseColorTexture.Texture].ColorSpace != SRGB ||
		sc.Textures[m.SpecularColorTexture.Texture].ColorSpace != SRGB || len(sc.Textures) != 2 || m.MetallicRoughnessTex.Valid() {
		t.Errorf("textures %v %v %v (%d decoded)", m.BaseColorTexture, m.SpecularColorTexture, m.MetallicRoughnessTex, len(sc.Textures))
	}
	if len(sc.Warnings) != 1 || !strings.Contains(sc.Warnings[0], "KHR_materials_specular is ignored") {
		t.Errorf("warnings %q", sc.Warnings)
	}
	if sc, err = load(map[string]any{}); err != nil {
		t.Fatal(err)
	} else if m := sc.Materials[0]; !m.SpecularGlossiness || m.BaseColor != (Vec4{1, 1, 1, 1}) || m.SpecularColor != (Vec3{1, 1, 1}) ||
		m.Glossiness != 1 || m.BaseColorTexture.Valid() || m.SpecularColorTexture.Valid() {
		t.Errorf("the extension's defaults: %+v", m)
	}
	if _, err := load(map[string]any{"glossinessFactor": "much"}); err == nil {
		t.Error("a malformed extension loads")
	}
}

// A hair material's sigma_a is read, and one that is negative refused
// with the material's extras named.
func TestHairSigmaAFromExtras(t *testing.T) {
	h, err := hairFromExtras(map[string]any{"sertrace": map[string]any{"hair": map[string]any{"sigma_a": []any{0.5, 0.9, 1.7}, "beta_m": 0.3}}})
	if err != nil || h == nil || h.SigmaA == nil || *h.SigmaA != (Vec3{X: 0.5, Y: 0.9, Z: 1.7}) {
		t.Fatalf("sigma_a read as %+v, %v", h, err)
	}
	_, err = hairFromExtras(map[string]any{"sertrace": map[string]any{"hair": map[string]any{"sigma_a": []any{0.5, -1, 1.7}}}})
	if err == nil || !strings.Contains(err.Error(), "sigma_a") {
		t.Errorf("a negative sigma_a: %v", err)
	}
}
