package scene

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedScenesRoundTrip writes each generated scene and loads it back.
func TestGeneratedScenesRoundTrip(t *testing.T) {
	type want struct {
		spheres, segments, hairMaterials, emissive, minMaterials int
		closed                                                   bool
	}
	wants := map[string]want{
		"cornell":       {emissive: 1, minMaterials: 4, closed: true},
		"hair":          {segments: 3000 * 24, hairMaterials: 1, minMaterials: 3},
		"particles":     {spheres: 30000, emissive: 1, minMaterials: 8},
		"hairy-cornell": {spheres: 6000, segments: 2400 * 24, hairMaterials: 2, emissive: 2, minMaterials: 20, closed: true},
	}
	for _, name := range GeneratorNames() {
		t.Run(name, func(t *testing.T) {
			w, ok := wants[name]
			if !ok {
				t.Fatalf("no expectations for generator %s", name)
			}
			path := filepath.Join(t.TempDir(), name+".glb")
			if err := WriteGLB(Generators[name].Build(), path); err != nil {
				t.Fatal(err)
			}
			sc, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			s := sc.Summarize()
			if s.Spheres != w.spheres || s.LSSSegments != w.segments || s.HairMaterials != w.hairMaterials ||
				s.EmissiveMaterials != w.emissive || s.Materials < w.minMaterials || s.Cameras != 1 || len(s.Warnings) != 0 {
				t.Errorf("summary %+v", s)
			}
			checkWinding(t, sc)
			for _, c := range sc.CurveSets {
				checkStrands(t, c)
			}
			for _, ss := range sc.SphereSets {
				for i, r := range ss.Radii {
					if !(r > 0) {
						t.Fatalf("%s: sphere %d has radius %v", ss.Name, i, r)
					}
				}
			}
			if w.closed {
				checkClosedBox(t, sc)
			}
		})
	}
}

// checkWinding: every generated triangle's winding agrees with its vertex
// normals, so front faces face the way the normals say.
func checkWinding(t *testing.T, sc *Scene) {
	t.Helper()
	for _, m := range sc.Meshes {
		for tri := 0; tri < m.TriangleCount(); tri++ {
			fn := m.FaceNormal(tri)
			n := m.Normals[m.Indices[3*tri]].Add(m.Normals[m.Indices[3*tri+1]]).Add(m.Normals[m.Indices[3*tri+2]])
			if fn.Dot(n) <= 0 {
				t.Fatalf("%s: triangle %d winds against its normals", m.Name, tri)
			}
		}
	}
}

// checkStrands: strands chain (interior segments join both neighbours), the
// radius tapers, and there are a few dozen segments to a strand.
func checkStrands(t *testing.T, c CurveSet) {
	t.Helper()
	strands, length := 0, 0
	for i, j := range c.Joins {
		if j&JoinedPrev == 0 {
			strands++
			length = 0
		}
		length++
		if j&JoinedNext == 0 && (length < 12 || length > 48) {
			t.Fatalf("%s: strand ending at segment %d has %d segments", c.Name, i, length)
		}
		s := c.Segments[i]
		if j&JoinedPrev != 0 && c.Segments[i-1]+1 != s {
			t.Fatalf("%s: segment %d is joined but does not share its vertex", c.Name, i)
		}
		if c.Radii[s+1] > c.Radii[s] {
			t.Fatalf("%s: segment %d thickens towards the tip", c.Name, i)
		}
	}
	if strands < 1000 {
		t.Errorf("%s: %d strands", c.Name, strands)
	}
}

// checkClosedBox: the Cornell walls leave no gap, so every ray from inside
// hits something: the six walls' boxes meet along every edge, and the camera
// is inside.
func checkClosedBox(t *testing.T, sc *Scene) {
	t.Helper()
	walls := map[string]bool{}
	for _, m := range sc.Meshes {
		walls[m.Name] = true
	}
	for _, w := range []string{"floor", "ceiling", "back", "front", "left", "right"} {
		if !walls[w] {
			t.Errorf("wall %s is missing", w)
		}
	}
	eye := sc.Cameras[0].Transform.Column(3)
	if b := sc.Bounds; eye[0] <= b.Min[0] || eye[0] >= b.Max[0] || eye[2] <= b.Min[2] || eye[2] >= b.Max[2] {
		t.Errorf("camera %v is outside the box %v", eye, b)
	}
}

// TestCommittedScenesAreCurrent: scenes/*.glb are what `sertrace gen` writes
// today (generation is deterministic), so tests and README use fresh files.
func TestCommittedScenesAreCurrent(t *testing.T) {
	for _, name := range GeneratorNames() {
		committed, err := os.ReadFile(filepath.Join("..", "scenes", name+".glb"))
		if err != nil {
			t.Fatalf("scenes/%s.glb: %v (run: go run ./app gen %s -o scenes/%s.glb)", name, err, name, name)
		}
		path := filepath.Join(t.TempDir(), name+".glb")
		if err := WriteGLB(Generators[name].Build(), path); err != nil {
			t.Fatal(err)
		}
		fresh, _ := os.ReadFile(path)
		if !bytes.Equal(committed, fresh) {
			t.Errorf("scenes/%s.glb is stale: run go run ./app gen %s -o scenes/%s.glb", name, name, name)
		}
	}
}
