package scene

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
)

// TestGeneratedScenesRoundTrip writes each generated scene and loads it back.
func TestGeneratedScenesRoundTrip(t *testing.T) {
	type want struct {
		spheres, segments, hairMaterials, emissive, minMaterials int
		minStrands                                               int // per curve set
		closed                                                   bool
	}
	wants := map[string]want{
		"cornell":       {emissive: 1, minMaterials: 4, closed: true},
		"hair":          {segments: 3000 * 24, hairMaterials: 1, minMaterials: 3, minStrands: 1000},
		"particles":     {spheres: 30000, emissive: 1, minMaterials: 8},
		"strands":       {segments: 5 * 16, hairMaterials: 2, minMaterials: 2, minStrands: 2},
		"hairy-cornell": {spheres: 6000, segments: 2400 * 24, hairMaterials: 2, emissive: 2, minMaterials: 20, minStrands: 1000, closed: true},
		"many-lights":   {spheres: 240, emissive: 16, minMaterials: 22},
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
				checkStrands(t, c, w.minStrands)
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
// radius tapers, there are a dozen to a few dozen segments to a strand and
// at least minStrands strands.
func checkStrands(t *testing.T, c CurveSet, minStrands int) {
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
	if strands < minStrands {
		t.Errorf("%s: %d strands", c.Name, strands)
	}
}

// checkClosedBox: the six Cornell walls each span a whole face of the box
// around the scene, so together they close it; the camera is inside.
func checkClosedBox(t *testing.T, sc *Scene) {
	t.Helper()
	box := Bounds{Min: Vec3{-1, 0, -1}, Max: Vec3{1, 2, 3}}
	faces := map[string]struct {
		axis int
		at   float32
	}{"left": {0, -1}, "right": {0, 1}, "floor": {1, 0}, "ceiling": {1, 2}, "back": {2, -1}, "front": {2, 3}}
	found := 0
	for _, in := range sc.Instances {
		if in.Geometry.Kind != Triangles {
			continue
		}
		m := &sc.Meshes[in.Geometry.Index]
		f, ok := faces[m.Name]
		if !ok {
			continue
		}
		found++
		b := m.Bounds.Transform(in.Transform)
		for a := 0; a < 3; a++ {
			lo, hi := box.Min.At(a), box.Max.At(a)
			if a == f.axis {
				lo, hi = f.at, f.at
			}
			if !close32(b.Min.At(a), lo) || !close32(b.Max.At(a), hi) {
				t.Errorf("wall %s spans %v..%v on axis %d, want %v..%v", m.Name, b.Min.At(a), b.Max.At(a), a, lo, hi)
			}
		}
	}
	if found != 6 {
		t.Errorf("%d walls, want 6", found)
	}
	eye := sc.Cameras[0].Transform.Column(3)
	if eye.Min(box.Min) != box.Min || eye.Max(box.Max) != box.Max {
		t.Errorf("camera %v is outside the box %v", eye, box)
	}
}

// TestCommittedScenesAreCurrent: scenes/*.glb hold what `sertrace gen`
// writes today, so tests and the README use fresh files. Compared as loaded
// scenes, to float rounding, so a compiler that fuses multiply-adds on
// another architecture does not fail it.
func TestCommittedScenesAreCurrent(t *testing.T) {
	for _, name := range GeneratorNames() {
		stale := fmt.Sprintf("scenes/%s.glb is stale: run go run ./app gen %s -o scenes/%s.glb", name, name, name)
		committed, err := Load(filepath.Join("..", "scenes", name+".glb"))
		if err != nil {
			t.Fatalf("%v (%s)", err, stale)
		}
		path := filepath.Join(t.TempDir(), name+".glb")
		if err := WriteGLB(Generators[name].Build(), path); err != nil {
			t.Fatal(err)
		}
		fresh, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		a, b := committed.Summarize(), fresh.Summarize()
		a.Source, b.Source, a.Bounds, b.Bounds = "", "", Bounds{}, Bounds{}
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(committed.Materials, fresh.Materials) ||
			!closeVec(committed.Bounds.Min, fresh.Bounds.Min) || !closeVec(committed.Bounds.Max, fresh.Bounds.Max) {
			t.Errorf("%s: counts, materials or bounds differ", stale)
			continue
		}
		for i := range fresh.Meshes {
			for k, p := range fresh.Meshes[i].Positions {
				if !closeVec(p, committed.Meshes[i].Positions[k]) {
					t.Fatalf("%s: mesh %d vertex %d moved", stale, i, k)
				}
			}
		}
		for i := range fresh.CurveSets {
			for k, p := range fresh.CurveSets[i].Positions {
				if !closeVec(p, committed.CurveSets[i].Positions[k]) || !close32(fresh.CurveSets[i].Radii[k], committed.CurveSets[i].Radii[k]) {
					t.Fatalf("%s: curve set %d vertex %d moved", stale, i, k)
				}
			}
		}
		for i := range fresh.SphereSets {
			for k, p := range fresh.SphereSets[i].Centers {
				if !closeVec(p, committed.SphereSets[i].Centers[k]) || !close32(fresh.SphereSets[i].Radii[k], committed.SphereSets[i].Radii[k]) {
					t.Fatalf("%s: sphere set %d sphere %d moved", stale, i, k)
				}
			}
		}
	}
}
