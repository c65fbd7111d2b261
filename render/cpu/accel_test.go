package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sertrace/render"
	"sertrace/scene"
)

// randomScene holds random triangles, spheres and hair, instanced several
// times under rotations, non-uniform scales and translations.
func randomScene(rng *rand.Rand) *scene.Scene {
	sc := &scene.Scene{Materials: []scene.Material{scene.DefaultMaterial()}}
	r3 := func(s float32) scene.Vec3 {
		return scene.Vec3{X: (rng.Float32()*2 - 1) * s, Y: (rng.Float32()*2 - 1) * s, Z: (rng.Float32()*2 - 1) * s}
	}
	m := scene.Mesh{Bounds: scene.EmptyBounds()}
	for i := 0; i < 600; i++ {
		c := r3(1)
		for k := 0; k < 3; k++ {
			m.Positions = append(m.Positions, c.Add(r3(0.15)))
			m.Indices = append(m.Indices, uint32(len(m.Positions)-1))
		}
	}
	for _, p := range m.Positions {
		m.Bounds.Extend(p)
	}
	s := scene.SphereSet{Bounds: scene.EmptyBounds()}
	for i := 0; i < 400; i++ {
		c, r := r3(1), 0.01+0.05*rng.Float32()
		s.Centers, s.Radii = append(s.Centers, c), append(s.Radii, r)
		s.Bounds.Extend(c.Sub(scene.Vec3{X: r, Y: r, Z: r}))
		s.Bounds.Extend(c.Add(scene.Vec3{X: r, Y: r, Z: r}))
	}
	cs := scene.CurveSet{Bounds: scene.EmptyBounds()}
	for strand := 0; strand < 40; strand++ {
		p := r3(1)
		var pts []scene.Vec3
		var radii []float32
		for k := 0; k <= 10; k++ {
			pts, radii = append(pts, p), append(radii, 0.02*(1-float32(k)/12))
			p = p.Add(r3(0.08))
		}
		cs.AddStrand(pts, radii)
	}
	sc.Meshes, sc.SphereSets, sc.CurveSets = []scene.Mesh{m}, []scene.SphereSet{s}, []scene.CurveSet{cs}
	for i := 0; i < 6; i++ {
		for kind := scene.Triangles; kind <= scene.SweptSpheres; kind++ {
			q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			t := r3(3)
			xf := scene.TRS([3]float64{float64(t.X), float64(t.Y), float64(t.Z)}, q,
				[3]float64{0.5 + rng.Float64(), 0.5 + rng.Float64(), 0.5 + rng.Float64()})
			sc.Instances = append(sc.Instances, scene.Instance{Geometry: scene.GeometryRef{Kind: kind}, Transform: xf})
		}
	}
	return sc
}

// bruteForce tests every primitive of every instance.
func bruteForce(sc *scene.Scene, ray *Ray, anyHit AnyHit) Hit {
	best := Hit{T: ray.TMax, Instance: -1}
	for i, in := range sc.Instances {
		inv := render.AffineInverse(in.Transform)
		o, d := inv.Point(ray.Origin), inv.Vector(ray.Dir)
		switch in.Geometry.Kind {
		case scene.Triangles:
			m := &sc.Meshes[in.Geometry.Index]
			masked := anyHit != nil && sc.Materials[in.Material].AlphaTested()
			sr := newShearedRay(d)
			for p := 0; p < m.TriangleCount(); p++ {
				v := m.Indices[3*p:]
				t, u, bv, back, ok := intersectTriangle(o, &sr, m.Positions[v[0]], m.Positions[v[1]], m.Positions[v[2]], ray.TMin, best.T)
				if ok && (!masked || anyHit(i, p, u, bv, t)) {
					best = Hit{T: t, Instance: int32(i), Prim: int32(p), Kind: HitFrontFace}
					if back {
						best.Kind = HitBackFace
					}
				}
			}
		case scene.Spheres:
			s := &sc.SphereSets[in.Geometry.Index]
			for p := range s.Centers {
				if t, ok := intersectSphere(o, d, s.Centers[p], s.Radii[p], ray.TMin, best.T, render.ExitHits(sc, &sc.Instances[i])); ok {
					best = Hit{T: t, Instance: int32(i), Prim: int32(p), Kind: HitSphere}
				}
			}
		case scene.SweptSpheres:
			c := &sc.CurveSets[in.Geometry.Index]
			for p, v := range c.Segments {
				if h, ok := intersectSweptSphere(o, d, c.Positions[v], c.Positions[v+1], c.Radii[v], c.Radii[v+1], c.Joins[p]&scene.JoinedPrev == 0, ray.TMin, best.T); ok {
					best = Hit{T: h.T, Instance: int32(i), Prim: int32(p), Kind: HitLinearSweptSphere}
				}
			}
		}
	}
	return best
}

// TestAccelMatchesBruteForce: the two-level BVH finds exactly the hits that
// testing every primitive finds, for closest-hit and shadow rays.
func TestAccelMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	sc := randomScene(rng)
	acc := BuildAccel(sc, nil)
	hits := 0
	for i := 0; i < 3000; i++ {
		o := scene.Vec3{X: rng.Float32()*12 - 6, Y: rng.Float32()*12 - 6, Z: rng.Float32()*12 - 6}
		target := scene.Vec3{X: rng.Float32()*6 - 3, Y: rng.Float32()*6 - 3, Z: rng.Float32()*6 - 3}
		ray := Ray{Origin: o, Dir: target.Sub(o).Normalize(), TMin: 0, TMax: float32(math.Inf(1))}
		if i%3 == 0 {
			ray.TMax = rng.Float32() * 10
		}
		want := bruteForce(sc, &ray, nil)
		got, ok := acc.Intersect(&ray)
		if ok != (want.Instance >= 0) || (ok && (got.Instance != want.Instance || got.Prim != want.Prim || got.T != want.T)) {
			t.Fatalf("ray %d: got %+v (%v), brute force %+v", i, got, ok, want)
		}
		if acc.Occluded(&ray) != ok {
			t.Fatalf("ray %d: occluded %v but closest hit %v", i, !ok, ok)
		}
		if ok {
			hits++
		}
	}
	if hits < 500 {
		t.Errorf("only %d hits: the test checks too little", hits)
	}
}

// TestFlatMeshesMatchBruteForce: meshes that one instance each places,
// traced together in world space, give the hits that testing every
// triangle in its object space gives: the instance, the triangle, the
// distance (to rounding) and the side, under mirroring transforms too,
// and with alpha masks cutting holes.
func TestFlatMeshesMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	sc := randomScene(rng)
	mat := scene.DefaultMaterial()
	mat.AlphaMode = scene.AlphaMask
	sc.Materials = append(sc.Materials, mat)
	n := 0
	for i := range sc.Instances {
		in := &sc.Instances[i]
		if in.Geometry.Kind != scene.Triangles {
			continue
		}
		// A copy of the mesh of its own; every other one mirrored, every
		// third alpha-masked.
		in.Geometry.Index = len(sc.Meshes)
		sc.Meshes = append(sc.Meshes, sc.Meshes[0])
		if n%2 == 1 {
			in.Transform = in.Transform.Mul(scene.TRS([3]float64{}, [4]float64{0, 0, 0, 1}, [3]float64{1, -1, 1}))
		}
		if n%3 == 0 {
			in.Material = 1
		}
		n++
	}
	cut := func(inst, prim int, u, v, _ float32) bool { return prim%2 == 0 || u > 0.3 }
	acc := BuildAccel(sc, cut)
	for i, in := range sc.Instances {
		if in.Geometry.Kind == scene.Triangles && !acc.flat.has(i) {
			t.Fatalf("instance %d is not among the flat meshes", i)
		}
	}
	hits, backs, cuts := 0, 0, 0
	for i := 0; i < 3000; i++ {
		o := scene.Vec3{X: rng.Float32()*12 - 6, Y: rng.Float32()*12 - 6, Z: rng.Float32()*12 - 6}
		target := scene.Vec3{X: rng.Float32()*6 - 3, Y: rng.Float32()*6 - 3, Z: rng.Float32()*6 - 3}
		ray := Ray{Origin: o, Dir: target.Sub(o).Normalize(), TMax: float32(math.Inf(1))}
		want := bruteForce(sc, &ray, cut)
		got, ok := acc.Intersect(&ray)
		if ok != (want.Instance >= 0) || (ok && (got.Instance != want.Instance || got.Prim != want.Prim || got.Kind != want.Kind ||
			math.Abs(float64(got.T-want.T)) > 1e-5*max(1, float64(want.T)))) {
			t.Fatalf("ray %d: got %+v (%v), brute force %+v", i, got, ok, want)
		}
		if acc.Occluded(&ray) != ok {
			t.Fatalf("ray %d: occluded %v but closest hit %v", i, !ok, ok)
		}
		if ok {
			hits++
			if got.Kind == HitBackFace {
				backs++
			}
		}
		if ok && sc.Instances[got.Instance].Material == 1 {
			cuts++
		}
	}
	t.Logf("%d hits, %d from behind, %d on masked instances", hits, backs, cuts)
	if hits < 500 || backs < 100 || cuts < 50 {
		t.Errorf("%d hits, %d from behind, %d on masked instances: the test checks too little", hits, backs, cuts)
	}
}

// TestBVHStructure: every primitive is in exactly one leaf, inside every box
// on its path, and leaves are small.
func TestBVHStructure(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	boxes := make([]scene.Bounds, 50000)
	for i := range boxes {
		c := scene.Vec3{X: rng.Float32(), Y: rng.Float32() * 10, Z: float32(rng.NormFloat64())}
		if i%100 == 0 {
			c = scene.Vec3{X: 0.5, Y: 0.5, Z: 0.5} // many coincident centres
		}
		boxes[i] = scene.Bounds{Min: c, Max: c.Add(scene.Vec3{X: 0.01, Y: 0.02, Z: 0.01})}
	}
	boxes[7] = scene.EmptyBounds() // left out
	bvh := BuildBVH(len(boxes), func(i int) scene.Bounds { return boxes[i] })
	seen := make([]int, len(boxes))
	var walk func(n int32, box scene.Bounds, depth int)
	walk = func(n int32, box scene.Bounds, depth int) {
		if depth > maxDepth {
			t.Fatalf("tree deeper than the traversal stack allows")
		}
		node := &bvh.Nodes[n]
		for i := 0; i < nodeWidth; i++ {
			if node.Child[i] < 0 && node.Count[i] == 0 {
				continue
			}
			cb := scene.Bounds{Min: scene.Vec3{X: node.Min[0][i], Y: node.Min[1][i], Z: node.Min[2][i]}, Max: scene.Vec3{X: node.Max[0][i], Y: node.Max[1][i], Z: node.Max[2][i]}}
			if node.Count[i] == 0 {
				walk(node.Child[i], cb, depth+1)
				continue
			}
			if node.Count[i] > maxLeaf {
				t.Fatalf("leaf of %d", node.Count[i])
			}
			for _, p := range bvh.Prims[node.Child[i] : node.Child[i]+int32(node.Count[i])] {
				seen[p]++
				b := boxes[p]
				if b.Min.Min(cb.Min) != cb.Min || b.Max.Max(cb.Max) != cb.Max {
					t.Fatalf("primitive %d sticks out of its leaf's box", p)
				}
			}
		}
	}
	walk(0, scene.Bounds{}, 0)
	for i, n := range seen {
		if want := 1; i == 7 {
			want = 0
			if n != want {
				t.Fatalf("the empty box is in the tree")
			}
		} else if n != want {
			t.Fatalf("primitive %d is in %d leaves", i, n)
		}
	}
	if !slices.Contains(bvh.Prims, 0) {
		t.Error("primitive 0 is missing")
	}
}

// TestCollapsedInstancesAreNeverHit: an instance scaled to zero (how glTF
// files hide objects) is left out, not traced with a degenerate ray.
func TestCollapsedInstancesAreNeverHit(t *testing.T) {
	sc := randomScene(rand.New(rand.NewPCG(1, 1)))
	for i := range sc.Instances {
		// Flattened along z: no volume, no inverse, but a box a ray can enter.
		sc.Instances[i].Transform = scene.TRS([3]float64{}, [4]float64{0, 0, 0, 1}, [3]float64{1, 1, 0})
	}
	acc := BuildAccel(sc, nil)
	for _, o := range []scene.Vec3{{X: 0.1, Y: 0.2, Z: -5}, {X: -0.3, Y: 0.4, Z: -5}, {X: 0.5, Y: -0.5, Z: -5}} {
		ray := Ray{Origin: o, Dir: scene.Vec3{X: 0, Y: 0, Z: 1}, TMax: float32(math.Inf(1))}
		if h, ok := acc.Intersect(&ray); ok {
			t.Fatalf("hit a collapsed instance: %+v", h)
		}
	}
}

// TestBuildManyGeometries: thousands of meshes build concurrently without a
// race (run with -race in CI).
func TestBuildManyGeometries(t *testing.T) {
	sc := &scene.Scene{Materials: []scene.Material{scene.DefaultMaterial()}}
	for i := 0; i < 2000; i++ {
		m := scene.Mesh{Positions: []scene.Vec3{{X: float32(i), Y: 0, Z: 0}, {X: float32(i) + 1, Y: 0, Z: 0}, {X: float32(i), Y: 1, Z: 0}}, Indices: []uint32{0, 1, 2}, Bounds: scene.EmptyBounds()}
		for _, p := range m.Positions {
			m.Bounds.Extend(p)
		}
		sc.Meshes = append(sc.Meshes, m)
		sc.Instances = append(sc.Instances, scene.Instance{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: i}, Transform: scene.Identity})
	}
	acc := BuildAccel(sc, nil)
	ray := Ray{Origin: scene.Vec3{X: 1234.25, Y: 0.25, Z: 5}, Dir: scene.Vec3{X: 0, Y: 0, Z: -1}, TMax: float32(math.Inf(1))}
	if h, ok := acc.Intersect(&ray); !ok || h.Instance != 1234 {
		t.Fatalf("hit %+v %v", h, ok)
	}
}

// TestBoxKernel: the AVX2 kernel gives the Go loop's answers bit for bit,
// on random boxes (some children empty, some degenerate, some behind) and
// rays running every way, axis-aligned ones too; and the answers are the
// slab test's.
func TestBoxKernel(t *testing.T) {
	if !useKernels {
		t.Skip("no AVX2 here: the Go loop is the only kernel")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	coord := func() float32 { return float32(rng.NormFloat64() * 3) }
	hits := 0
	for round := 0; round < 20000; round++ {
		n := emptyNode()
		for i := 0; i < nodeWidth; i++ {
			if rng.IntN(5) == 0 {
				continue // an empty slot
			}
			a, b := scene.Vec3{X: coord(), Y: coord(), Z: coord()}, scene.Vec3{X: coord(), Y: coord(), Z: coord()}
			if rng.IntN(10) == 0 {
				b = a // a point
			}
			lo, hi := a.Min(b), a.Max(b)
			n.Min[0][i], n.Min[1][i], n.Min[2][i] = lo.X, lo.Y, lo.Z
			n.Max[0][i], n.Max[1][i], n.Max[2][i] = hi.X, hi.Y, hi.Z
			n.Child[i] = int32(i)
		}
		d := scene.Vec3{X: coord(), Y: coord(), Z: coord()}
		o := scene.Vec3{X: coord(), Y: coord(), Z: coord()}
		nan := float32(math.NaN())
		switch rng.IntN(10) {
		case 0:
			d.X = 0
		case 1:
			d.Y, d.Z = 0, 0
		case 2:
			d.X = 1e-40 // a denormal: its reciprocal must stay finite
			o.X = n.Min[0][rng.IntN(nodeWidth)]
		case 3:
			d = scene.Vec3{X: nan, Y: nan, Z: nan} // a NaN ray misses everything
		case 4:
			o.Y = nan
		}
		r := newBoxRay(o, d, float32(rng.IntN(2))*rng.Float32())
		tmax := float32(math.Inf(1))
		if rng.IntN(2) == 0 {
			tmax = rng.Float32() * 10
		}
		var nearAsm, nearGo [nodeWidth]float32
		got, want := hitBoxes8(&n, &r, tmax, &nearAsm), hitBoxesGo(&n, &r, tmax, &nearGo)
		if got != want {
			t.Fatalf("round %d: kernel hits %08b, Go loop %08b", round, got, want)
		}
		for i := 0; i < nodeWidth; i++ {
			hit := want&(1<<i) != 0
			if n.Child[i] < 0 {
				if hit {
					t.Fatalf("round %d: empty child %d hit", round, i)
				}
				continue
			}
			// The slab test's answer, with min and max per axis.
			slab := func(lo, hi, o, inv float32) (float32, float32) {
				t0, t1 := (lo-o)*inv, (hi-o)*inv
				return min(t0, t1), max(t0, t1)
			}
			n0, f0 := slab(n.Min[0][i], n.Max[0][i], r.o.X, r.inv.X)
			n1, f1 := slab(n.Min[1][i], n.Max[1][i], r.o.Y, r.inv.Y)
			n2, f2 := slab(n.Min[2][i], n.Max[2][i], r.o.Z, r.inv.Z)
			tn, tf := max(n0, n1, n2, r.tmin), min(f0, f1, f2, tmax)
			if math.IsNaN(float64(d.X)) || math.IsNaN(float64(o.Y)) {
				if hit {
					t.Fatalf("round %d child %d: a NaN ray hits", round, i)
				}
				continue
			}
			if hit != (tn <= tf*1.0000004) {
				t.Fatalf("round %d child %d: hit %v, the slab test says [%v, %v]", round, i, hit, tn, tf)
			}
			if !hit {
				continue
			}
			hits++
			if math.Float32bits(nearAsm[i]) != math.Float32bits(nearGo[i]) || nearGo[i] != tn {
				t.Fatalf("round %d child %d: kernel enters at %v, Go loop at %v, slab test at %v", round, i, nearAsm[i], nearGo[i], tn)
			}
		}
	}
	if hits < 5000 {
		t.Errorf("only %d boxes hit", hits)
	}
}

// TestTriangleKernel: the AVX2 triangle kernel finds what intersectTriangle
// finds on each triangle of a leaf, bit for bit (distance, barycentrics,
// side), except the lanes it hands back to be decided in float64; rays
// aimed at vertices and edges make such lanes.
func TestTriangleKernel(t *testing.T) {
	if !useKernels {
		t.Skip("no AVX2 here: intersectTriangle is the only test")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	coord := func() float32 { return float32(rng.NormFloat64()) }
	rv := func() scene.Vec3 { return scene.Vec3{X: coord(), Y: coord(), Z: coord()} }
	var hits, retests int
	for round := 0; round < 20000; round++ {
		count := 1 + rng.IntN(8)
		m := &scene.Mesh{}
		for k := 0; k < count; k++ {
			m.Positions = append(m.Positions, rv(), rv(), rv())
			m.Indices = append(m.Indices, uint32(3*k), uint32(3*k+1), uint32(3*k+2))
		}
		bvh := &BVH{Nodes: []Node8{emptyNode()}}
		bvh.Nodes[0].Child[0], bvh.Nodes[0].Count[0] = 0, uint16(count)
		for k := 0; k < count; k++ {
			bvh.Prims = append(bvh.Prims, uint32(k))
		}
		leaves := newTriangleLeaves(bvh, m)
		// Aim at a triangle's interior, one of its vertices or an edge.
		k := rng.IntN(count)
		v := m.Positions[3*k : 3*k+3]
		var target scene.Vec3
		switch rng.IntN(4) {
		case 0:
			target = v[rng.IntN(3)]
		case 1:
			target = v[0].Add(v[1]).Scale(0.5)
		default:
			target = v[0].Scale(0.2).Add(v[1].Scale(0.3)).Add(v[2].Scale(0.5))
		}
		d := rv().Normalize()
		if rng.IntN(4) == 0 {
			d = scene.Vec3{X: 0, Y: 0, Z: -1} // axis-aligned
		}
		o := target.Sub(d.Scale(2 + rng.Float32()))
		s := newShearedRay(d)
		tr := newTriRay(o, &s)
		tmin, tmax := float32(0), float32(math.Inf(1))
		if rng.IntN(3) == 0 {
			tmax = 1 + 2*rng.Float32()
		}
		var res triHits
		got, retest, back := hitTriangles8(&leaves.rows[leaves.start[0]], count, &tr, tmin, tmax, &res)
		for k := 0; k < count; k++ {
			bit := uint32(1) << k
			if retest&bit != 0 {
				retests++
				continue
			}
			tt, u, w, b, ok := intersectTriangle(o, &s, m.Positions[3*k], m.Positions[3*k+1], m.Positions[3*k+2], tmin, tmax)
			if ok != (got&bit != 0) {
				t.Fatalf("round %d lane %d: kernel hit %v, intersectTriangle %v", round, k, got&bit != 0, ok)
			}
			if !ok {
				continue
			}
			hits++
			if math.Float32bits(tt) != math.Float32bits(res.t[k]) || math.Float32bits(u) != math.Float32bits(res.u[k]) ||
				math.Float32bits(w) != math.Float32bits(res.v[k]) || b != (back&bit != 0) {
				t.Fatalf("round %d lane %d: kernel t %v u %v v %v back %v, intersectTriangle %v %v %v %v",
					round, k, res.t[k], res.u[k], res.v[k], back&bit != 0, tt, u, w, b)
			}
		}
	}
	t.Logf("%d hits, %d lanes handed back", hits, retests)
	if hits < 10000 || retests < 100 {
		t.Errorf("%d hits, %d lanes handed back", hits, retests)
	}
}

// TestOverflowingInstanceKeepsTheOthers: an instance whose transform
// overflows float32 (a scale of 1e39) is never hit, and the meshes placed
// once beside it (traced together in world space) still are.
func TestOverflowingInstanceKeepsTheOthers(t *testing.T) {
	quad := scene.Mesh{Positions: []scene.Vec3{{X: -1, Y: -1}, {X: 1, Y: -1}, {X: 1, Y: 1}, {X: -1, Y: 1}}, Indices: []uint32{0, 1, 2, 0, 2, 3}}
	quad.Bounds = scene.Bounds{Min: scene.Vec3{X: -1, Y: -1}, Max: scene.Vec3{X: 1, Y: 1}}
	sc := &scene.Scene{Materials: []scene.Material{scene.DefaultMaterial()}, Meshes: []scene.Mesh{quad, quad, quad}}
	for i, s := range []float64{1, 1e39, 1} {
		tr := scene.TRS([3]float64{float64(3 * i), 0, 0}, [4]float64{0, 0, 0, 1}, [3]float64{s, s, s})
		sc.Instances = append(sc.Instances, scene.Instance{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: i}, Transform: tr})
	}
	acc := BuildAccel(sc, nil)
	for _, x := range []float32{0, 6} {
		r := Ray{Origin: scene.Vec3{X: x, Y: 0.2, Z: 5}, Dir: scene.Vec3{Z: -1}, TMax: float32(math.Inf(1))}
		h, ok := acc.Intersect(&r)
		if !ok || math.Abs(float64(h.T-5)) > 1e-5 || h.Instance != int32(x/3) {
			t.Errorf("ray at x %v: hit %v %+v, want instance %v at t 5", x, ok, h, x/3)
		}
	}
}
