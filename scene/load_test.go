package scene

import (
	"bytes"
	"encoding/binary"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"

	"sertrace/internal/sharedscenes"
)

func TestTriangleStripAndFanKeepWinding(t *testing.T) {
	strip, _ := triangleList(gltf.PrimitiveTriangleStrip, []uint32{0, 1, 2, 3, 4})
	if want := []uint32{0, 1, 2, 1, 3, 2, 2, 3, 4}; !slices.Equal(strip, want) {
		t.Errorf("strip %v, want %v", strip, want)
	}
	fan, _ := triangleList(gltf.PrimitiveTriangleFan, []uint32{0, 1, 2, 3})
	if want := []uint32{1, 2, 0, 2, 3, 0}; !slices.Equal(fan, want) {
		t.Errorf("fan %v, want %v", fan, want)
	}
	list, dropped := triangleList(gltf.PrimitiveTriangles, []uint32{0, 1, 2, 3})
	if len(list) != 3 || dropped != 1 {
		t.Errorf("list %v dropped %d", list, dropped)
	}
}

func TestCurvesChainWhereSegmentsShareVertices(t *testing.T) {
	pos := []Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}}
	radii := []float32{0.4, 0.3, 0.2, 0.1}
	l := &loader{sc: &Scene{}, warned: map[string]bool{}}
	cases := []struct {
		mode     gltf.PrimitiveMode
		idx      []uint32
		segments []uint32
		joins    []uint8
		ends     [][2]int // the vertices each segment should run between
	}{
		{gltf.PrimitiveLineStrip, []uint32{0, 1, 2, 3}, []uint32{0, 1, 2}, []uint8{JoinedNext, JoinedPrev | JoinedNext, JoinedPrev}, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
		{gltf.PrimitiveLines, []uint32{0, 1, 1, 2, 3, 2}, []uint32{0, 1, 3}, []uint8{JoinedNext, JoinedPrev, 0}, [][2]int{{0, 1}, {1, 2}, {3, 2}}},
		// A loop's closing joint is not a join: its first segment keeps its start cap.
		{gltf.PrimitiveLineLoop, []uint32{0, 1, 2}, []uint32{0, 1, 2}, []uint8{JoinedNext, JoinedPrev | JoinedNext, JoinedPrev}, [][2]int{{0, 1}, {1, 2}, {2, 0}}},
	}
	for _, c := range cases {
		ref := l.addCurves(0, 0, "c", c.mode, pos, radii, c.idx)
		cs := l.sc.CurveSets[ref.Index]
		if !slices.Equal(cs.Segments, c.segments) || !slices.Equal(cs.Joins, c.joins) {
			t.Errorf("%v: segments %v joins %v, want %v %v", c.mode, cs.Segments, cs.Joins, c.segments, c.joins)
		}
		// Every segment's end points and radii are the ones the indices named.
		for k, s := range cs.Segments {
			e := c.ends[k]
			if cs.Positions[s] != pos[e[0]] || cs.Positions[s+1] != pos[e[1]] || cs.Radii[s] != radii[e[0]] || cs.Radii[s+1] != radii[e[1]] {
				t.Errorf("%v: segment %d runs %v..%v, want vertices %v", c.mode, k, cs.Positions[s], cs.Positions[s+1], e)
			}
		}
		if want := (Bounds{Vec3{-0.4, -0.4, -0.4}, Vec3{2.2, 0.4, 0.4}}); c.mode == gltf.PrimitiveLineLoop && cs.Bounds != want {
			t.Errorf("bounds %v, want %v", cs.Bounds, want)
		}
	}
}

// TestLineLoopJoinsFollowIndexOrder: a LINE_LOOP of four vertices, loaded
// from a glTF document, is four segments chained in index order, as native
// swept spheres and Embree chain them: every JoinedPrev is on a segment
// whose start is segment i−1's end vertex, every JoinedNext on one whose
// end is segment i+1's start; the first segment keeps its start cap and
// the last its end cap, where the loop closes, on the same sphere.
func TestLineLoopJoinsFollowIndexOrder(t *testing.T) {
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, [12]float32{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}) // a unit square
	binary.Write(&buf, binary.LittleEndian, [4]float32{0.1, 0.05, 0.05, 0.05})
	binary.Write(&buf, binary.LittleEndian, [4]uint16{2, 3, 0, 1}) // the loop starts at vertex 2
	doc := validDoc()
	doc["meshes"] = []any{map[string]any{"primitives": []any{map[string]any{
		"attributes": map[string]any{"POSITION": 0, "_RADIUS": 1}, "indices": 2, "mode": 2, // LINE_LOOP
	}}}}
	doc["accessors"] = []any{
		map[string]any{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": []any{0, 0, 0}, "max": []any{1, 1, 0}},
		map[string]any{"bufferView": 1, "componentType": 5126, "count": 4, "type": "SCALAR"},
		map[string]any{"bufferView": 2, "componentType": 5123, "count": 4, "type": "SCALAR"},
	}
	doc["bufferViews"] = []any{
		map[string]any{"buffer": 0, "byteOffset": 0, "byteLength": 48},
		map[string]any{"buffer": 0, "byteOffset": 48, "byteLength": 16},
		map[string]any{"buffer": 0, "byteOffset": 64, "byteLength": 8},
	}
	doc["buffers"] = []any{map[string]any{"byteLength": buf.Len(), "uri": dataURI(buf.Bytes())}}
	sc, err := Decode(encode(t, doc), "loop.gltf", NoResources)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.CurveSets) != 1 {
		t.Fatalf("%d curve sets, warnings %v", len(sc.CurveSets), sc.Warnings)
	}
	c := sc.CurveSets[0]
	if want := []uint8{JoinedNext, JoinedPrev | JoinedNext, JoinedPrev | JoinedNext, JoinedPrev}; !slices.Equal(c.Joins, want) {
		t.Errorf("joins %v, want %v", c.Joins, want)
	}
	n := len(c.Segments)
	if n != 4 {
		t.Fatalf("%d segments, want 4", n)
	}
	for i, s := range c.Segments {
		prev := i > 0 && c.Segments[i-1]+1 == s
		next := i+1 < n && c.Segments[i+1] == s+1
		if (c.Joins[i]&JoinedPrev != 0) != prev || (c.Joins[i]&JoinedNext != 0) != next {
			t.Errorf("segment %d: joins %b, but joined to segment %d: %v, to %d: %v", i, c.Joins[i], i-1, prev, i+1, next)
		}
	}
	// The loop closes: the last segment ends on the first one's start, the vertex the indices began at.
	first, last := c.Segments[0], c.Segments[n-1]
	if c.Positions[first] != (Vec3{1, 1, 0}) || c.Positions[last+1] != c.Positions[first] || c.Radii[last+1] != c.Radii[first] {
		t.Errorf("the loop starts at %v and closes at %v (radii %v, %v)", c.Positions[first], c.Positions[last+1], c.Radii[first], c.Radii[last+1])
	}
}

func TestGeneratedTangentsFollowU(t *testing.T) {
	// A quad in the XY plane facing +Z, u along +X, v along −Y (glTF's
	// texture origin is the top left), and its mirror image in u.
	for _, mirror := range []bool{false, true} {
		m := Mesh{
			Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}},
			Normals:   []Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
			UV0:       []Vec2{{0, 1}, {1, 1}, {1, 0}, {0, 0}},
			Indices:   []uint32{0, 1, 2, 0, 2, 3},
		}
		// glTF's bitangent N × T · w points to decreasing v: +Y here.
		wantT, wantW := Vec3{1, 0, 0}, float32(1)
		if mirror {
			for i := range m.UV0 {
				m.UV0[i].X = 1 - m.UV0[i].X
			}
			wantT, wantW = Vec3{-1, 0, 0}, -1
		}
		for i, tg := range GenerateTangents(&m) {
			if (Vec3{tg.X, tg.Y, tg.Z}).Sub(wantT).Length() > 1e-6 || tg.W != wantW {
				t.Errorf("mirror %v: tangent %d is %v, want %v w %v", mirror, i, tg, wantT, wantW)
			}
		}
	}
}

func TestTRSMatchesItsMatrix(t *testing.T) {
	// 90° about Y takes +X to −Z; scale 2 first, then move by (1, 2, 3).
	s, c := math.Sincos(math.Pi / 4)
	m := TRS([3]float64{1, 2, 3}, [4]float64{0, s, 0, c}, [3]float64{2, 2, 2})
	if p := m.Point(Vec3{1, 0, 0}); p.Sub(Vec3{1, 2, 1}).Length() > 1e-6 {
		t.Errorf("got %v", p)
	}
	if d := m.Mul(Identity); d != m {
		t.Error("m · I ≠ m")
	}
}

func TestTextureTransformMatrix(t *testing.T) {
	// KHR_texture_transform's example: offset, then rotation, then scale.
	m := uvTransform([2]float64{0.5, 0.25}, math.Pi/2, [2]float64{2, 3})
	for _, c := range []struct{ uv, want Vec2 }{
		// scale → (2, 0); the extension's rotation takes (x, y) to (x cos + y sin, −x sin + y cos) → (0, −2); offset.
		{Vec2{1, 0}, Vec2{0.5, -1.75}},
		// scale → (0, 3); rotate → (3, 0); offset.
		{Vec2{0, 1}, Vec2{3.5, 0.25}},
	} {
		got := Vec2{m[0]*c.uv.X + m[1]*c.uv.Y + m[2], m[3]*c.uv.X + m[4]*c.uv.Y + m[5]}
		if !close32(got.X, c.want.X) || !close32(got.Y, c.want.Y) {
			t.Errorf("uv %v: got %v, want %v", c.uv, got, c.want)
		}
	}
}

// TestTextureTransformOutOfRange: a KHR_texture_transform whose offset or
// scale passes ±1e6 (3e38 and 1e300 overflow float32, and the material
// rendered black) is dropped, the texture mapped without it, with a
// warning naming the material, the slot and the values; one within the
// bounds is kept.
func TestTextureTransformOutOfRange(t *testing.T) {
	doc := texturedDoc(dataURI(pngBytes(t, 2, 2)))
	transform := func(tt map[string]any) map[string]any {
		return map[string]any{"index": 0, "extensions": map[string]any{"KHR_texture_transform": tt}}
	}
	doc["materials"] = []any{map[string]any{"name": "tiles",
		"pbrMetallicRoughness": map[string]any{
			"baseColorTexture":         transform(map[string]any{"scale": []any{1e300, 1}}),
			"metallicRoughnessTexture": transform(map[string]any{"offset": []any{1e6, -1e6}, "scale": []any{-1e6, 0}, "rotation": 1e9}),
		},
		"emissiveTexture": transform(map[string]any{"offset": []any{0, 3e38}, "scale": []any{2e6, 1}}),
	}}
	doc["extensionsUsed"] = []any{"KHR_texture_transform"}
	sc, err := Decode(encode(t, doc), "transform.gltf", NoResources)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"material 0 (tiles): baseColorTexture's KHR_texture_transform scale [1e+300, 1] is not finite or past ±1e+06, where float32 UVs keep nothing of the texture: the texture is mapped without it",
		"material 0 (tiles): emissiveTexture's KHR_texture_transform offset [0, 3e+38] and scale [2e+06, 1] are not finite or past ±1e+06, where float32 UVs keep nothing of the texture: the texture is mapped without it",
	}
	if !slices.Equal(sc.Warnings, want) {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(sc.Warnings, "\n"), strings.Join(want, "\n"))
	}
	m := sc.Materials[0]
	if m.BaseColorTexture.Transform != NoTexture.Transform || m.EmissiveTexture.Transform != NoTexture.Transform || !m.BaseColorTexture.Valid() {
		t.Errorf("the dropped transforms: %v, %v", m.BaseColorTexture.Transform, m.EmissiveTexture.Transform)
	}
	if got, want := m.MetallicRoughnessTex.Transform, uvTransform([2]float64{1e6, -1e6}, 1e9, [2]float64{-1e6, 0}); got != want {
		t.Errorf("a transform within the bounds: %v, want %v", got, want)
	}
}

// TestFramingCameraSeesTheScene: every corner of the bounds projects inside
// the default camera's view.
func TestFramingCameraSeesTheScene(t *testing.T) {
	b := Bounds{Vec3{-3, 0, -1}, Vec3{5, 2, 0.5}}
	c := FramingCamera(b)
	x, y, z, eye := c.Transform.Column(0), c.Transform.Column(1), c.Transform.Column(2), c.Transform.Column(3)
	tanHalf := float32(math.Tan(float64(c.YFov) / 2))
	for i := 0; i < 8; i++ {
		p := b.Corner(i)
		d := p.Sub(eye)
		depth := -d.Dot(z)
		if depth <= 0 || math.Abs(float64(d.Dot(y)/depth)) > float64(tanHalf) || math.Abs(float64(d.Dot(x)/depth)) > float64(tanHalf) {
			t.Errorf("corner %v is outside the view", p)
		}
	}
}

// TestNormalizedAndSparseAccessors reads UVs stored as normalised bytes and
// a position changed by a sparse accessor.
func TestNormalizedAndSparseAccessors(t *testing.T) {
	doc := validDoc()
	var buf bytes.Buffer
	buf.Write(triangleBuffer([9]float32{0, 0, 0, 1, 0, 0, 0, 1, 0}))
	buf.Write([]byte{0, 0, 255, 0, 0, 255, 0, 0})               // 44: three VEC2 UBYTE normalised (+2 padding)
	binary.Write(&buf, binary.LittleEndian, []uint16{2, 0})     // 52: sparse index 2
	binary.Write(&buf, binary.LittleEndian, []float32{0, 5, 0}) // 56: its new value
	at(doc, "buffers", 0)["uri"] = dataURI(buf.Bytes())
	at(doc, "buffers", 0)["byteLength"] = buf.Len()
	doc["bufferViews"] = append(doc["bufferViews"].([]any),
		map[string]any{"buffer": 0, "byteOffset": 44, "byteLength": 6},
		map[string]any{"buffer": 0, "byteOffset": 52, "byteLength": 2},
		map[string]any{"buffer": 0, "byteOffset": 56, "byteLength": 12})
	doc["accessors"] = append(doc["accessors"].([]any),
		map[string]any{"bufferView": 2, "componentType": 5121, "normalized": true, "count": 3, "type": "VEC2"})
	at(doc, "accessors", 0)["sparse"] = map[string]any{"count": 1,
		"indices": map[string]any{"bufferView": 3, "componentType": 5123}, "values": map[string]any{"bufferView": 4}}
	at(doc, "meshes", 0, "primitives", 0, "attributes")["TEXCOORD_0"] = 2
	sc, err := Decode(encode(t, doc), "sparse.gltf", NoResources)
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Meshes[0]
	if m.Positions[2] != (Vec3{0, 5, 0}) || m.Positions[1] != (Vec3{1, 0, 0}) {
		t.Errorf("positions %v", m.Positions)
	}
	if !slices.Equal(m.UV0, []Vec2{{0, 0}, {1, 0}, {0, 1}}) {
		t.Errorf("uvs %v", m.UV0)
	}
	if m.Normals != nil {
		t.Error("a mesh without NORMAL must be flat-shaded (nil normals)")
	}
}

// TestGeneratedSceneDetails checks what the generators promise: the sun's
// direction, hair parameters, HDR emission.
func TestGeneratedSceneDetails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hair.glb")
	if err := WriteGLB(HairBall(), path); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Lights) != 1 || sc.Lights[0].Kind != DirectionalLight ||
		sc.Lights[0].Direction.Sub(Vec3{-0.4, -1, -0.5}.Normalize()).Length() > 1e-5 {
		t.Errorf("sun %+v", sc.Lights)
	}
	var hair *Hair
	for _, m := range sc.Materials {
		if m.Hair != nil {
			hair = m.Hair
		}
	}
	if hair == nil || hair.Eumelanin == nil || *hair.Eumelanin != 1.3 || hair.Color != nil {
		t.Errorf("hair parameters %+v", hair)
	}
	c := Cornell()
	path = filepath.Join(t.TempDir(), "cornell.glb")
	if err := WriteGLB(c, path); err != nil {
		t.Fatal(err)
	}
	if sc, err = Load(path); err != nil {
		t.Fatal(err)
	}
	lights := 0
	for _, m := range sc.Materials {
		if m.Name == "light" {
			lights++
			if !closeVec(m.Emissive, Vec3{17, 12, 4}) {
				t.Errorf("light emits %v, want (17, 12, 4)", m.Emissive)
			}
		}
	}
	if lights != 1 {
		t.Errorf("%d materials named light, want 1", lights)
	}
}

// TestGeneratedTangentsMatchAuthoredOnes: on a real normal-mapped mesh that
// ships its tangents (mirrored UVs included), the generated ones point the
// same way with the same handedness.
func TestGeneratedTangentsMatchAuthoredOnes(t *testing.T) {
	sc, err := Load(sharedscenes.Path(t, "NormalTangentMirrorTest/NormalTangentMirrorTest.glb"))
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Meshes[0]
	authored := m.Tangents
	m.Tangents = nil
	generated := GenerateTangents(&m)
	same, along := 0, 0
	for i, a := range authored {
		g := generated[i]
		if a.W == g.W {
			same++
		}
		if (Vec3{a.X, a.Y, a.Z}).Dot(Vec3{g.X, g.Y, g.Z}) > 0.9 {
			along++
		}
	}
	if n := len(authored); same < n*95/100 || along < n*90/100 {
		t.Errorf("of %d tangents, %d have the authored handedness and %d its direction", n, same, along)
	}
}

// TestUnusableExtrasRadiusIsSaid: a node's extras.radius that is there but
// not a positive number (negative, zero, a string) is named in a warning
// as such, beside the line primitive skipped for want of a radius.
func TestUnusableExtrasRadiusIsSaid(t *testing.T) {
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, [6]float32{0, 0, 0, 1, 0, 0})
	for _, r := range []any{-1, 0, "thick"} {
		doc := validDoc()
		doc["nodes"] = []any{map[string]any{"mesh": 0, "name": "strand", "extras": map[string]any{"radius": r}}}
		doc["meshes"] = []any{map[string]any{"primitives": []any{map[string]any{"attributes": map[string]any{"POSITION": 0}, "mode": 1}}}}
		doc["accessors"] = []any{map[string]any{"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3", "min": []any{0, 0, 0}, "max": []any{1, 0, 0}}}
		doc["bufferViews"] = []any{map[string]any{"buffer": 0, "byteOffset": 0, "byteLength": 24}}
		doc["buffers"] = []any{map[string]any{"byteLength": buf.Len(), "uri": dataURI(buf.Bytes())}}
		sc, err := Decode(encode(t, doc), "strand.gltf", NoResources)
		if err != nil {
			t.Fatalf("radius %v: %v", r, err)
		}
		said := strings.Join(sc.Warnings, "\n")
		if !strings.Contains(said, "node 0 (strand): extras.radius") || !strings.Contains(said, "is not a positive number") || len(sc.CurveSets) != 0 {
			t.Errorf("radius %v: warnings %q, %d curve sets", r, sc.Warnings, len(sc.CurveSets))
		}
	}
}

// TestSceneBeyondReachIsRefused: finite values that put geometry or a
// camera past scene.MaxReach in world space (a translation of 1e300, a
// scale of 1e20, a camera 1e19 away) are refused by name, never loaded
// into an image that would be black or wrong.
func TestSceneBeyondReachIsRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		nodes []any
		says  string
	}{
		{"translation", []any{map[string]any{"mesh": 0, "translation": []any{1e300, 0, 0}}}, "node 0 (): its geometry reaches"},
		{"scale", []any{map[string]any{"mesh": 0, "scale": []any{1e20, 1e20, 1e20}}}, "node 0 (): its geometry reaches"},
		{"camera", []any{map[string]any{"mesh": 0}, map[string]any{"camera": 0, "translation": []any{0, 0, 1e19}}}, "camera"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := validDoc()
			doc["nodes"] = c.nodes
			doc["scenes"] = []any{map[string]any{"nodes": []any{0, len(c.nodes) - 1}}}
			if c.name != "camera" {
				doc["scenes"] = []any{map[string]any{"nodes": []any{0}}}
			}
			doc["cameras"] = []any{map[string]any{"type": "perspective", "perspective": map[string]any{"yfov": 0.7, "znear": 0.1}}}
			_, err := Decode(encode(t, doc), "far.gltf", NoResources)
			if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "beyond the 1e+18 sertrace renders") {
				t.Errorf("%v, want an error saying %q", err, c.says)
			}
		})
	}
}
