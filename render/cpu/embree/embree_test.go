package embree

import (
	"math"
	"testing"
)

func openOrSkip(t *testing.T) *Device {
	t.Helper()
	d, err := Open()
	if err != nil {
		t.Skip(err)
	}
	return d
}

var identity = [12]float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}

// One of each geometry, each placed once, against closed forms.
func TestHitsAgainstClosedForms(t *testing.T) {
	d := openOrSkip(t)
	t.Logf("Embree %s from %s", d.Version, d.Library)
	s, err := d.NewScene()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	tri, err := s.Triangles(Own, []float32{0, 0, 0, 1, 0, 0, 0, 1, 0}, []uint32{0, 1, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sph, err := s.Spheres(Own, []float32{0, 0, 0, 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	glass, err := s.Spheres(Own, []float32{0, 0, 0, 1}, true)
	if err != nil {
		t.Fatal(err)
	}
	crv, err := s.Curves(Own, []float32{0, 0, 0, 0.5, 4, 0, 0, 0.5}, []uint32{0}, []uint8{0})
	if err != nil {
		t.Fatal(err)
	}
	// The triangle at z = 0 moved to x = 10; the spheres at x = 20 and 30;
	// the curve along x from (40, 0, 0) to (44, 0, 0).
	at := func(x float32) [12]float32 { m := identity; m[9] = x; return m }
	s.Place(tri, 0, at(10))
	s.Place(sph, 1, at(20))
	s.Place(glass, 2, at(30))
	s.Place(crv, 3, at(40))
	// A triangle in the top level itself, in world space at z = −10.
	if _, err := s.Triangles(Top(4), []float32{0, 0, -10, 1, 0, -10, 0, 1, -10}, []uint32{0, 1, 2}, nil); err != nil {
		t.Fatal(err)
	}
	s.SetKinds([]uint8{KindInstancedTriangle, KindSphere, KindSphere, KindCurve, KindFront})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	inf := float32(math.Inf(1))
	rays := []Ray{
		{Org: [3]float32{10.25, 0.5, 5}, Dir: [3]float32{0, 0, -1}, TFar: inf}, // triangle: t 5, u 0.25, v 0.5
		{Org: [3]float32{20, 0, 5}, Dir: [3]float32{0, 0, -1}, TFar: inf},      // sphere: t 4
		{Org: [3]float32{20, 0, 0}, Dir: [3]float32{0, 0, -1}, TFar: inf},      // from inside: nothing
		{Org: [3]float32{30, 0, 0}, Dir: [3]float32{0, 0, -1}, TFar: inf},      // glass from inside: its far side, t 1
		{Org: [3]float32{42, 5, 0}, Dir: [3]float32{0, -1, 0}, TFar: inf},      // curve's middle: t 4.5, u 0.5
		{Org: [3]float32{42, 0, 0}, Dir: [3]float32{0, -1, 0}, TFar: inf},      // inside the curve: nothing
		{Org: [3]float32{0, 50, 0}, Dir: [3]float32{0, 1, 0}, TFar: inf},       // miss
		{Org: [3]float32{0.25, 0.5, 0}, Dir: [3]float32{0, 0, -1}, TFar: inf},  // the top-level triangle from its front: t 10
		{Org: [3]float32{0.25, 0.5, -20}, Dir: [3]float32{0, 0, 1}, TFar: inf}, // from its back: t 10
	}
	want := []Hit{{T: 5, U: 0.25, V: 0.5, Prim: 0, Inst: 0, Kind: KindInstancedTriangle}, {T: 4, Inst: 1, Kind: KindSphere}, {Inst: -1},
		{T: 1, Inst: 2, Kind: KindSphere}, {T: 4.5, U: 0.5, Inst: 3, Kind: KindCurve}, {Inst: -1}, {Inst: -1},
		{T: 10, U: 0.25, V: 0.5, Inst: 4, Kind: KindFront}, {T: 10, U: 0.25, V: 0.5, Inst: 4, Kind: KindBack}}
	hits := make([]Hit, len(rays))
	found := make([]bool, len(rays))
	s.Intersect(rays, hits, found)
	occluded := make([]bool, len(rays))
	s.Occluded(rays, occluded)
	for i, h := range hits {
		w := want[i]
		if h.Inst != w.Inst || found[i] != (w.Inst >= 0) || (w.Inst >= 0 && (h.Kind != w.Kind || abs(h.T-w.T) > 1e-5 || abs(h.U-w.U) > 1e-4 || abs(h.V-w.V) > 1e-4)) {
			t.Errorf("ray %d: hit %+v (found %v), want %+v", i, h, found[i], w)
		}
		if occluded[i] != (w.Inst >= 0) {
			t.Errorf("ray %d: occluded %v, want %v", i, occluded[i], w.Inst >= 0)
		}
	}
}

func abs(x float32) float32 { return float32(math.Abs(float64(x))) }

// Alpha masks: the any-hit callback sees the instance and primitive and
// decides.
func TestAnyHit(t *testing.T) {
	d := openOrSkip(t)
	s, err := d.NewScene()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	calls := 0
	g, err := s.Triangles(Own, []float32{-1, -1, 0, 1, -1, 0, 0, 1, 0}, []uint32{0, 1, 2}, func(inst, prim uint32, u, v float32) bool {
		calls++
		return inst == 7 // instance 7 is opaque, instance 8 a hole
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Place(g, 7, identity)
	m := identity
	m[11] = -2
	s.Place(g, 8, m)
	s.SetKinds([]uint8{7: KindInstancedTriangle, 8: KindInstancedTriangle})
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	rays := []Ray{{Org: [3]float32{0, 0, -5}, Dir: [3]float32{0, 0, 1}, TFar: 100}}
	hits := make([]Hit, 1)
	s.Intersect(rays, hits, make([]bool, 1))
	if hits[0].Inst != 7 || abs(hits[0].T-5) > 1e-5 || calls == 0 {
		t.Errorf("hit %+v after %d any-hit calls; want instance 7 at t 5 (instance 8 at t 3 rejected)", hits[0], calls)
	}
}

func TestOff(t *testing.T) {
	t.Setenv("SERTRACE_EMBREE", "off")
	if _, err := open(); err == nil {
		t.Error("SERTRACE_EMBREE=off loaded a library")
	}
	t.Setenv("SERTRACE_EMBREE", "/nonexistent/libembree3.so.3")
	if _, err := open(); err == nil {
		t.Error("a missing library loaded")
	}
}
