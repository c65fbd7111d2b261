package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/render/kernel"
	"sertrace/scene"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestTriangleHitAndBarycentrics(t *testing.T) {
	v0, v1, v2 := scene.Vec3{X: 0, Y: 0, Z: 0}, scene.Vec3{X: 1, Y: 0, Z: 0}, scene.Vec3{X: 0, Y: 1, Z: 0}
	for _, dir := range []scene.Vec3{{X: 0, Y: 0, Z: -1}, {X: 0, Y: 0, Z: 1}} {
		o := scene.Vec3{X: 0.25, Y: 0.5, Z: 2}
		if dir.Z > 0 {
			o.Z = -2
		}
		s := newShearedRay(dir)
		tt, u, v, _, ok := intersectTriangle(o, &s, v0, v1, v2, 0, 10)
		if !ok || tt != 2 || u != 0.25 || v != 0.5 {
			t.Errorf("dir %v: t %v u %v v %v ok %v", dir, tt, u, v, ok)
		}
		if _, _, _, _, ok := intersectTriangle(o, &s, v0, v1, v2, 0, 1.5); ok {
			t.Error("hit beyond tmax")
		}
	}
	s := newShearedRay(scene.Vec3{X: 0, Y: 0, Z: -1})
	if _, _, _, _, ok := intersectTriangle(scene.Vec3{X: 0.8, Y: 0.8, Z: 1}, &s, v0, v1, v2, 0, 10); ok {
		t.Error("hit outside the triangle")
	}
}

// TestTriangleSide: the side the triangle test reports is its winding as
// seen along the ray (what facesAway computes from the mesh), for rays from
// every direction at random triangles.
func TestTriangleSide(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rv := func() scene.Vec3 {
		return scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1}
	}
	hits, backs := 0, 0
	for i := 0; i < 20000; i++ {
		v0, v1, v2 := rv(), rv(), rv()
		target := v0.Scale(0.4).Add(v1.Scale(0.3)).Add(v2.Scale(0.3))
		d := rv().Normalize()
		o := target.Sub(d.Scale(3))
		s := newShearedRay(d)
		_, _, _, back, ok := intersectTriangle(o, &s, v0, v1, v2, 0, 10)
		if !ok {
			continue
		}
		n := v1.Sub(v0).Cross(v2.Sub(v0))
		if math.Abs(float64(n.Normalize().Dot(d))) < 1e-4 {
			continue // grazing: either side
		}
		m := &scene.Mesh{Positions: []scene.Vec3{v0, v1, v2}, Indices: []uint32{0, 1, 2}}
		if back != facesAway(m, 0, d) {
			t.Fatalf("ray %v at %v %v %v: back %v, facesAway %v", d, v0, v1, v2, back, facesAway(m, 0, d))
		}
		hits++
		if back {
			backs++
		}
	}
	if hits < 15000 || backs < hits/3 || backs > 2*hits/3 {
		t.Errorf("%d hits, %d from behind", hits, backs)
	}
}

// TestTrianglesAreWatertight: rays aimed exactly at the shared edge of two
// triangles, and at their shared vertices, always hit one of them.
func TestTrianglesAreWatertight(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		// Two triangles on either side of a shared edge p0–p2 (a quad).
		var p [4]scene.Vec3
		p[0] = scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*0.2 - 0.1}
		p[2] = scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: p[0].Z}
		p[2].Z += (rng.Float32() - 0.5) * 0.2 * p[2].Sub(p[0]).Length()
		e := p[2].Sub(p[0])
		side := scene.Vec3{X: -e.Y, Y: e.X, Z: 0}
		mid := p[0].Add(e.Scale(0.5))
		// Bent a little out of plane, never so far that the ray sees the two
		// triangles on one side of the edge.
		bend := e.Length() * 0.2
		p[1] = mid.Sub(side).Add(scene.Vec3{X: 0, Y: 0, Z: (rng.Float32() - 0.5) * bend})
		p[3] = mid.Add(side).Add(scene.Vec3{X: 0, Y: 0, Z: (rng.Float32() - 0.5) * bend})
		f := 0.01 + 0.98*rng.Float32()
		target := p[0].Add(p[2].Sub(p[0]).Scale(f))
		o := scene.Vec3{X: rng.Float32()*4 - 2, Y: rng.Float32()*4 - 2, Z: 5}
		d := target.Sub(o)
		s := newShearedRay(d)
		_, _, _, _, a := intersectTriangle(o, &s, p[0], p[1], p[2], 0, 2)
		_, _, _, _, b := intersectTriangle(o, &s, p[0], p[2], p[3], 0, 2)
		if !a && !b {
			t.Fatalf("ray %d through the shared edge missed both triangles", i)
		}
	}
}

// TestTriangleFanIsWatertightAtItsVertex: rays through the shared vertex of a
// closed fan hit at least one triangle.
func TestTriangleFanIsWatertightAtItsVertex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		c := scene.Vec3{X: rng.Float32(), Y: rng.Float32(), Z: rng.Float32()}
		var rim [7]scene.Vec3
		for k := range rim {
			a := 2 * math.Pi * (float64(k) + 0.4*rng.Float64()) / float64(len(rim))
			rim[k] = c.Add(scene.Vec3{X: float32(math.Cos(a)), Y: float32(math.Sin(a)), Z: rng.Float32()*0.4 - 0.2})
		}
		o := c.Add(scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: 3})
		s := newShearedRay(c.Sub(o))
		hit := false
		for k := range rim {
			_, _, _, _, ok := intersectTriangle(o, &s, c, rim[k], rim[(k+1)%len(rim)], 0, 2)
			hit = hit || ok
		}
		if !hit {
			t.Fatalf("ray %d through the fan's centre missed every triangle", i)
		}
	}
}

func TestSphereClosedForm(t *testing.T) {
	c := scene.Vec3{X: 1, Y: 2, Z: 3}
	for _, exits := range []bool{false, true} {
		if tt, ok := intersectSphere(scene.Vec3{X: 1, Y: 2, Z: -7}, scene.Vec3{X: 0, Y: 0, Z: 1}, c, 2, 0, 100, exits); !ok || tt != 8 {
			t.Errorf("outside, exits %v: %v %v", exits, tt, ok)
		}
	}
	// From inside, native spheres report nothing; glass spheres their far side.
	if tt, ok := intersectSphere(c, scene.Vec3{X: 0, Y: 0, Z: 2}, c, 2, 0, 100, true); !ok || tt != 1 {
		t.Errorf("inside with exit hits, unnormalised direction: %v %v", tt, ok)
	}
	if tt, ok := intersectSphere(c, scene.Vec3{X: 0, Y: 0, Z: 2}, c, 2, 0, 100, false); ok {
		t.Errorf("inside without exit hits: hit at %v", tt)
	}
	if _, ok := intersectSphere(scene.Vec3{X: 1, Y: 4.01, Z: -7}, scene.Vec3{X: 0, Y: 0, Z: 1}, c, 2, 0, 100, false); ok {
		t.Error("grazing miss hit")
	}
	// A 0.1 mm particle 1 km away: float32 quadratics lose it entirely.
	tt, ok := intersectSphere(scene.Vec3{X: 0, Y: 0, Z: 0}, scene.Vec3{X: 0, Y: 0, Z: 1}, scene.Vec3{X: 0, Y: 0.00005, Z: 1000}, 0.0001, 0, 2000, false)
	want := 1000 - math.Sqrt(0.0001*0.0001-0.00005*0.00005)
	if !ok || !near(float64(tt), want, 1e-4) {
		t.Errorf("small distant sphere: %v %v, want %v", tt, ok, want)
	}
	if _, ok := intersectSphere(scene.Vec3{}, scene.Vec3{X: 0, Y: 0, Z: 1}, scene.Vec3{X: 0, Y: 0, Z: 5}, 0, 0, 10, true); ok {
		t.Error("a zero-radius sphere was hit")
	}
}

// searchedRoundConeDistance is the signed distance to the union of the spheres swept
// from (a, ra) to (b, rb), and the u of the nearest sphere: an independent
// reference for the analytic intersection. |p − c(u)| − r(u) is convex in u,
// so a golden-section search finds its minimum.
func searchedRoundConeDistance(p, a, b scene.Vec3, ra, rb float32) (dist, u float64) {
	f := func(u float64) float64 {
		c := kernel.ToVec3d(a).Add(kernel.ToVec3d(b).Sub(kernel.ToVec3d(a)).Scale(u))
		q := kernel.ToVec3d(p).Sub(c)
		return math.Sqrt(q.Dot(q)) - (float64(ra) + (float64(rb)-float64(ra))*u)
	}
	lo, hi := 0.0, 1.0
	g := (math.Sqrt(5) - 1) / 2
	for i := 0; i < 80; i++ {
		m1, m2 := hi-g*(hi-lo), lo+g*(hi-lo)
		if f(m1) < f(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	u = (lo + hi) / 2
	return f(u), u
}

// TestSweptSphereAgainstDistanceField: random rays at random round cones hit
// where sphere tracing the distance field reaches the surface, with the same u.
func TestSweptSphereAgainstDistanceField(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	hits := 0
	for i := 0; i < 2000; i++ {
		a := scene.Vec3{X: rng.Float32(), Y: rng.Float32(), Z: rng.Float32()}
		b := a.Add(scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1})
		ra, rb := 0.05+0.3*rng.Float32(), 0.05+0.3*rng.Float32()
		target := a.Add(b.Sub(a).Scale(rng.Float32())).Add(scene.Vec3{X: rng.Float32()*0.6 - 0.3, Y: rng.Float32()*0.6 - 0.3, Z: rng.Float32()*0.6 - 0.3})
		o := target.Add(scene.Vec3{X: rng.Float32()*6 - 3, Y: rng.Float32()*6 - 3, Z: rng.Float32()*6 - 3})
		d := target.Sub(o).Normalize()
		if dist, _ := searchedRoundConeDistance(o, a, b, ra, rb); dist <= 0 {
			continue // the origin is inside
		}
		// Sphere tracing: the distance to a union of spheres is exact outside it.
		ref, refU := -1.0, 0.0
		for tt := 0.0; tt < 20; {
			dist, u := searchedRoundConeDistance(o.Add(d.Scale(float32(tt))), a, b, ra, rb)
			if dist < 1e-7 {
				ref, refU = tt, u
				break
			}
			tt += dist
		}
		h, ok := intersectSweptSphere(o, d, a, b, ra, rb, true, 0, 100)
		if (ref >= 0) != ok {
			t.Fatalf("case %d: analytic hit %v, distance field %v (t %v)", i, ok, ref >= 0, ref)
		}
		if !ok {
			continue
		}
		hits++
		if !near(float64(h.T), ref, 1e-5) || !near(float64(h.U), refU, 1e-3) {
			t.Errorf("case %d: t %v u %v, distance field t %v u %v", i, h.T, h.U, ref, refU)
		}
		// The normal from u points out of the surface, perpendicular to it.
		p := o.Add(d.Scale(h.T))
		n := kernel.SweptSphereNormal(p, a, b, h.U)
		out, _ := searchedRoundConeDistance(p.Add(n.Scale(1e-3)), a, b, ra, rb)
		if !near(out, 1e-3, 1e-4) {
			t.Errorf("case %d: stepping along the normal gains %v, want 1e-3", i, out)
		}
	}
	if hits < 500 {
		t.Errorf("only %d of 2000 rays hit: the test checks too little", hits)
	}
}

func TestSweptSphereCapsAndThinHair(t *testing.T) {
	a, b := scene.Vec3{X: 0, Y: 0, Z: 0}, scene.Vec3{X: 1, Y: 0, Z: 0}
	// Along the axis into the start cap: t = 2 − ra, u = 0.
	h, ok := intersectSweptSphere(scene.Vec3{X: -2, Y: 0, Z: 0}, scene.Vec3{X: 1, Y: 0, Z: 0}, a, b, 0.2, 0.1, true, 0, 10)
	if !ok || !near(float64(h.T), 1.8, 1e-6) || h.U != 0 {
		t.Errorf("start cap: %+v %v", h, ok)
	}
	// Without the start cap the ray enters through the missing cap: as with
	// native swept spheres, it hits nothing of the segment.
	h, ok = intersectSweptSphere(scene.Vec3{X: -2, Y: 0, Z: 0}, scene.Vec3{X: 1, Y: 0, Z: 0}, a, b, 0.2, 0.1, false, 0, 10)
	if ok {
		t.Errorf("chained segment entered through its missing cap: %+v", h)
	}
	// A cylinder (equal radii) from the side: t = 2 − r at u = 0.25.
	h, ok = intersectSweptSphere(scene.Vec3{X: 0.25, Y: -2, Z: 0}, scene.Vec3{X: 0, Y: 1, Z: 0}, a, b, 0.1, 0.1, true, 0, 10)
	if !ok || !near(float64(h.T), 1.9, 1e-6) || !near(float64(h.U), 0.25, 1e-6) {
		t.Errorf("cylinder: %+v %v", h, ok)
	}
	// A 50 µm hair 2 m away still hits within a fraction of its radius.
	r := float32(0.00005)
	o := scene.Vec3{X: 0.3, Y: -2, Z: 0.00002}
	h, ok = intersectSweptSphere(o, scene.Vec3{X: 0, Y: 1, Z: 0}, a, b, r, r, true, 0, 10)
	want := 2 - math.Sqrt(float64(r)*float64(r)-0.00002*0.00002)
	if !ok || !near(float64(h.T), want, 2e-6) {
		t.Errorf("thin hair: %+v %v, want t %v", h, ok, want)
	}
	// One sphere inside the other: just the larger sphere.
	h, ok = intersectSweptSphere(scene.Vec3{X: 0, Y: 0, Z: -3}, scene.Vec3{X: 0, Y: 0, Z: 1}, a, scene.Vec3{X: 0.1, Y: 0, Z: 0}, 0.5, 0.1, true, 0, 10)
	if !ok || !near(float64(h.T), 2.5, 1e-6) || h.U != 0 {
		t.Errorf("nested spheres: %+v %v", h, ok)
	}
}

// TestSweptSphereFromInside: a ray that starts inside a round cone hits
// nothing of it, whichever way it goes and whatever its caps
// (VK_NV_ray_tracing_linear_swept_spheres' traversal rule), while the same
// ray started outside, behind the origin, hits where it enters.
func TestSweptSphereFromInside(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	inside := 0
	for i := 0; i < 4000; i++ {
		a := scene.Vec3{X: rng.Float32(), Y: rng.Float32(), Z: rng.Float32()}
		b := a.Add(scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1})
		ra, rb := 0.05+0.3*rng.Float32(), 0.05+0.3*rng.Float32()
		o := a.Add(b.Sub(a).Scale(rng.Float32())).Add(scene.Vec3{X: rng.Float32()*0.6 - 0.3, Y: rng.Float32()*0.6 - 0.3, Z: rng.Float32()*0.6 - 0.3})
		if dist, _ := searchedRoundConeDistance(o, a, b, ra, rb); dist >= -1e-4 {
			continue
		}
		inside++
		d := scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1}.Normalize()
		for _, startCap := range []bool{true, false} {
			if h, ok := intersectSweptSphere(o, d, a, b, ra, rb, startCap, 0, 100); ok {
				t.Fatalf("case %d (start cap %v): a ray from inside hit at %+v", i, startCap, h)
			}
		}
		// From 10 back along the ray, outside: the entry, before the origin.
		back := o.Sub(d.Scale(10))
		if h, ok := intersectSweptSphere(back, d, a, b, ra, rb, true, 0, 100); !ok || h.T >= 10 {
			t.Fatalf("case %d: from outside %+v %v, want an entry before t = 10", i, h, ok)
		}
	}
	if inside < 500 {
		t.Errorf("only %d origins inside: the test checks too little", inside)
	}
}

// The strand rule's closed-form distance to a round cone agrees with the
// golden-section search, inside and outside, for cones, cylinders, nearly
// flat cones and spheres that hold each other.
func TestRoundConeDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		a := scene.Vec3{X: rng.Float32(), Y: rng.Float32(), Z: rng.Float32()}
		b := a.Add(scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1}.Scale(rng.Float32()))
		ra, rb := 0.02+0.5*rng.Float32(), 0.02+0.5*rng.Float32()
		if i%4 == 0 {
			rb = ra
		}
		p := a.Add(b.Sub(a).Scale(rng.Float32()*1.6 - 0.3)).Add(scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1}.Scale(0.8))
		want, _ := searchedRoundConeDistance(p, a, b, ra, rb)
		got, _ := kernel.RoundConeNearest(kernel.ToVec3d(p).Sub(kernel.ToVec3d(a)), kernel.ToVec3d(b).Sub(kernel.ToVec3d(a)), float64(ra), float64(rb))
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("round cone (%v, %v)–(%v, %v), point %v: distance %v, want %v", a, ra, b, rb, p, got, want)
		}
	}
}
