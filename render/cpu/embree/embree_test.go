package embree

import (
	"math"
	"sertrace/render/layout"
	"strings"
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

var identity = [12]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0} // rows first

// One of each geometry, each placed once, against closed forms.
func TestHitsAgainstClosedForms(t *testing.T) {
	d := openOrSkip(t)
	t.Logf("Embree %s from %s", d.Version, d.Library)
	s, err := d.Build(func(s *Scene) error {
		closedForms(t, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	inf := float32(math.Inf(1))
	rays := []Ray{
		{Org: [3]float32{10.25, 0.5, 5}, Dir: [3]float32{0, 0, -1}, TFar: inf}, // triangle: t 5, u 0.25, v 0.5
		{Org: [3]float32{20, 0, 5}, Dir: [3]float32{0, 0, -1}, TFar: inf},      // sphere: t 4
		{Org: [3]float32{20, 0, 0}, Dir: [3]float32{0, 0, -1}, TFar: inf},      // from inside: nothing
		{Org: [3]float32{30, 0, 0}, Dir: [3]float32{0, 0, -1}, TFar: inf},      // glass from inside: its far side, t 1
		{Org: [3]float32{42, 5, 0}, Dir: [3]float32{0, -1, 0}, TFar: inf},      // curve's middle: t 4.5, u 0.5
		{Org: [3]float32{42, 0, 0}, Dir: [3]float32{0, -1, 0}, TFar: inf},      // inside the curve: nothing
		{Org: [3]float32{0, 50, 0}, Dir: [3]float32{0, 1, 0}, TFar: 7},         // miss: t stays the ray's end
		{Org: [3]float32{0.25, 0.5, 0}, Dir: [3]float32{0, 0, -1}, TFar: inf},  // the top-level triangle from its front: t 10
		{Org: [3]float32{0.25, 0.5, -20}, Dir: [3]float32{0, 0, 1}, TFar: inf}, // from its back: t 10
		{Org: [3]float32{50.25, 0.5, 1}, Dir: [3]float32{0, 0, -1}, TFar: inf}, // an empty mesh there: nothing
	}
	want := []Hit{{T: 5, U: 0.25, V: 0.5, Prim: 0, Inst: 0, Kind: KindInstancedTriangle}, {T: 4, Inst: 1, Kind: KindSphere}, {T: inf, Inst: -1},
		{T: 1, Inst: 2, Kind: KindSphere}, {T: 4.5, U: 0.5, Inst: 3, Kind: KindCurve}, {T: inf, Inst: -1}, {T: 7, Inst: -1},
		{T: 10, U: 0.25, V: 0.5, Inst: 4, Kind: KindFront}, {T: 10, U: 0.25, V: 0.5, Inst: 4, Kind: KindBack}, {T: inf, Inst: -1}}
	occluded := make([]bool, len(rays))
	s.Occluded(rays, occluded)
	if !d.Packets() {
		t.Log("this Embree has no packets of 8: coherent rays go one by one")
	}
	// One by one, in packets of 8 (the last one partial), and coherent on a
	// library without packets.
	defer setPackets(d.Packets())
	for k, coherent := range []bool{false, true, true} {
		setPackets(k < 2 && d.Packets())
		hits := make([]Hit, len(rays))
		found := make([]bool, len(rays))
		s.Intersect(rays, hits, found, coherent)
		for i, h := range hits {
			w := want[i]
			if h.Inst != w.Inst || found[i] != (w.Inst >= 0) || h.T != w.T && abs(h.T-w.T) > 1e-5 ||
				(w.Inst >= 0 && (h.Kind != w.Kind || abs(h.U-w.U) > 1e-4 || abs(h.V-w.V) > 1e-4)) {
				t.Errorf("coherent %v, ray %d: hit %+v (found %v), want %+v", coherent, i, h, found[i], w)
			}
		}
	}
	for i := range rays {
		if occluded[i] != (want[i].Inst >= 0) {
			t.Errorf("ray %d: occluded %v, want %v", i, occluded[i], want[i].Inst >= 0)
		}
	}
}

// closedForms fills a scene with one of each geometry.
func closedForms(t *testing.T, s *Scene) {
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
	crv, err := s.Curves(Own, []float32{0, 0, 0, 0.5, 4, 0, 0, 0.5}, []uint32{0}, []uint8{0}, StrandRule{TolTravel: layout.StrandTolTravel, TolPosition: layout.StrandTolPosition, TolRadius: layout.StrandTolRadius, Reach: layout.StrandReach})
	if err != nil {
		t.Fatal(err)
	}
	// The triangle at z = 0 moved to x = 10; the spheres at x = 20 and 30;
	// the curve along x from (40, 0, 0) to (44, 0, 0).
	at := func(x float32) [12]float32 { m := identity; m[3] = x; return m }
	for i, g := range []Geometry{tri, sph, glass, crv} {
		if err := s.Place(g, uint32(i), at(10*float32(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	// A triangle in the top level itself, in world space at z = −10.
	if _, err := s.Triangles(Top(4), []float32{0, 0, -10, 1, 0, -10, 0, 1, -10}, []uint32{0, 1, 2}, nil); err != nil {
		t.Fatal(err)
	}
	// Empty geometry makes nothing, placed or not.
	empty, err := s.Triangles(Own, nil, nil, nil)
	if err != nil || empty != (Geometry{}) {
		t.Fatalf("an empty mesh: %v, %v", empty, err)
	}
	if err := s.Place(empty, 5, at(50)); err != nil {
		t.Fatal(err)
	}
	s.SetKinds([]uint8{KindInstancedTriangle, KindSphere, KindSphere, KindCurve, KindFront, KindInstancedTriangle})
}

func abs(x float32) float32 { return float32(math.Abs(float64(x))) }

// Alpha masks: the any-hit callback sees the instance and primitive and
// decides.
func TestAnyHit(t *testing.T) {
	d := openOrSkip(t)
	calls := 0
	s, err := d.Build(func(s *Scene) error {
		g, err := s.Triangles(Own, []float32{-1, -1, 0, 1, -1, 0, 0, 1, 0}, []uint32{0, 1, 2}, func(inst, prim uint32, u, v, _ float32) bool {
			calls++
			switch inst {
			case 9:
				panic("a broken alpha mask")
			case 7:
				return true // opaque
			}
			return false // instance 8 is a hole
		})
		if err != nil {
			return err
		}
		for i, z := range []float32{0, -2, -4} { // instances 7, 8, 9 at z = 0, −2, −4
			m := identity
			m[11] = z
			if err := s.Place(g, uint32(7+i), m); err != nil {
				return err
			}
		}
		s.SetKinds([]uint8{7: KindInstancedTriangle, 8: KindInstancedTriangle, 9: KindInstancedTriangle})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	rays := []Ray{
		{Org: [3]float32{0, 0, -3}, Dir: [3]float32{0, 0, 1}, TFar: 100}, // instance 8 at t 1 rejected, 7 at t 3 taken
		{Org: [3]float32{0, 0, -5}, Dir: [3]float32{0, 0, 1}, TFar: 100}, // instance 9's test panics: its hit counts, t 1
	}
	// One by one, and as a packet (the filter then sees 8 rays, 2 of them valid).
	for _, coherent := range []bool{false, true} {
		calls = 0
		hits := make([]Hit, len(rays))
		s.Intersect(rays, hits, make([]bool, len(rays)), coherent)
		if hits[0].Inst != 7 || abs(hits[0].T-3) > 1e-5 || calls == 0 {
			t.Errorf("coherent %v: hit %+v after %d any-hit calls; want instance 7 at t 3 (instance 8 at t 1 rejected)", coherent, hits[0], calls)
		}
		if hits[1].Inst != 9 || abs(hits[1].T-1) > 1e-5 {
			t.Errorf("coherent %v: hit %+v; want instance 9 at t 1 (a panicking test counts the hit)", coherent, hits[1])
		}
	}
}

// Buffers that do not hold whole items, and a scene left without its
// kinds, are refused; the scene is released, nothing leaks.
func TestBuildRefuses(t *testing.T) {
	d := openOrSkip(t)
	for name, fill := range map[string]func(*Scene) error{
		"a partial vertex": func(s *Scene) error {
			_, err := s.Triangles(Own, []float32{0, 0, 0, 1, 0}, []uint32{0, 1, 2}, nil)
			return err
		},
		"flags for other segments": func(s *Scene) error {
			_, err := s.Curves(Own, []float32{0, 0, 0, 1, 1, 0, 0, 1}, []uint32{0}, []uint8{0, 0}, StrandRule{})
			return err
		},
		"no kinds": func(s *Scene) error { return nil },
	} {
		if s, err := d.Build(fill); err == nil {
			s.Release()
			t.Errorf("%s: built", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func TestOff(t *testing.T) {
	if _, err := open("off"); err == nil {
		t.Error("SERTRACE_EMBREE=off loaded a library")
	}
	if _, err := open("/nonexistent/libembree3.so.3"); err == nil {
		t.Error("a missing library loaded")
	}
}

// A process loads one library: once one has loaded, another is refused
// (their entry points would replace the first's under its live scenes).
func TestOneLibrary(t *testing.T) {
	d := openOrSkip(t)
	other := "/lib/x86_64-linux-gnu/libembree3.so.3.13.5"
	if d.Library == other {
		other = "libembree3.so"
	}
	t.Setenv("SERTRACE_EMBREE", other)
	if _, err := Open(); err == nil || !strings.Contains(err.Error(), "already loaded") {
		t.Errorf("a second library (%s) beside %s: %v; want refused as already loaded", other, d.Library, err)
	}
}
