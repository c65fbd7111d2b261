package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"sertrace/render"
	"sertrace/render/cpu/embree"
	"sertrace/render/layout"
	"sertrace/scene"
)

// HitKind says what a ray hit, as the hit kinds of the Vulkan pipeline do.
type HitKind uint8

const (
	HitNone              HitKind = iota
	HitFrontFace                 // a triangle from its front (counter-clockwise) side
	HitBackFace                  // a triangle from behind
	HitSphere                    // a particle
	HitLinearSweptSphere         // a hair segment
)

// The procedural kinds are the ones the GPU's intersection shaders report.
var (
	_ [HitSphere - layout.HitKindSphere]struct{}
	_ [layout.HitKindSphere - HitSphere]struct{}
	_ [HitLinearSweptSphere - layout.HitKindSweptSphere]struct{}
	_ [layout.HitKindSweptSphere - HitLinearSweptSphere]struct{}
)

// Hit is where a ray stopped: which instance, primitive and where on it.
type Hit struct {
	T        float32
	Instance int32
	Prim     int32   // triangle, sphere or segment index within the geometry
	U, V     float32 // triangle barycentrics of vertices 1 and 2; swept sphere: U along the segment
	Kind     HitKind
}

// AnyHit decides whether a candidate hit counts (alpha masks); nil means
// every hit does.
type AnyHit func(instance, prim int, u, v, t float32) bool

// Accel is the scene's acceleration structure: a BVH per geometry (the
// bottom level) and one over the instances (the top level).
type Accel struct {
	scene       *scene.Scene
	blas        map[scene.GeometryRef]*BVH
	blasOf      []*BVH                  // per instance, its geometry's BVH (no map lookup per ray)
	triangles   map[int]*triangleLeaves // per mesh, its triangles by leaf of its BVH
	trianglesOf []*triangleLeaves       // per instance, the same
	tlas        *BVH
	// flat holds, in world space, the triangles of every mesh that one
	// instance places: one tree for them all instead of a ray set up and
	// a tree walked per instance (the top level's entry len(Instances)).
	flat *flatMeshes
	// flatOnly: the flat meshes are all the top level holds, so a ray goes
	// down their tree at once (the top level's walk would find one leaf).
	flatOnly  bool
	toObject  []render.Affine   // per instance, world to object
	toWorld   []render.Affine   // per instance, object to world
	opaque    []bool            // per instance: no any-hit needed
	exitHits  []bool            // per instance: render.ExitHits
	materials []layout.Material // per material: layout.PackMaterial, once, as the GPU's upload
	anyHit    AnyHit
	embree    *embree.Scene // when set, it traces instead of the BVHs (tracer.go)
	// instancedTriangles: Embree holds triangles under an instance, whose
	// hits' side the Go side decides.
	instancedTriangles bool
	// curves: Embree holds swept spheres, whose hits' u is set again
	// (strandU).
	curves bool
}

// BuildAccel builds the bottom-level BVHs of every instanced geometry, in
// parallel, then the top level. anyHit, if not nil, runs for candidate hits
// on instances whose material is alpha-masked.
func BuildAccel(sc *scene.Scene, anyHit AnyHit) *Accel {
	acc := newAccel(sc, anyHit)
	acc.flat = newFlatMeshes(acc)
	acc.blas = map[scene.GeometryRef]*BVH{}
	var geoms []scene.GeometryRef
	for i, in := range sc.Instances {
		if acc.flat.has(i) {
			continue
		}
		if _, ok := acc.blas[in.Geometry]; !ok {
			acc.blas[in.Geometry] = nil
			geoms = append(geoms, in.Geometry)
		}
	}
	// A pool of workers builds the geometries' BVHs into their own slots.
	built := make([]*BVH, len(geoms))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(geoms)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(geoms); i = int(next.Add(1) - 1) {
				built[i] = buildGeometryBVH(sc, geoms[i])
			}
		}()
	}
	wg.Wait()
	for i, g := range geoms {
		acc.blas[g] = built[i]
	}
	acc.triangles = map[int]*triangleLeaves{}
	for g, b := range acc.blas {
		if g.Kind == scene.Triangles {
			acc.triangles[g.Index] = newTriangleLeaves(b, &sc.Meshes[g.Index])
		}
	}
	acc.blasOf = make([]*BVH, len(sc.Instances))
	acc.trianglesOf = make([]*triangleLeaves, len(sc.Instances))
	for i, in := range sc.Instances {
		acc.blasOf[i] = acc.blas[in.Geometry]
		if in.Geometry.Kind == scene.Triangles {
			acc.trianglesOf[i] = acc.triangles[in.Geometry.Index]
		}
	}
	acc.tlas = BuildBVH(len(sc.Instances)+1, func(i int) scene.Bounds {
		if i == len(sc.Instances) {
			return acc.flat.bounds
		}
		in := sc.Instances[i]
		if acc.toObject[i] == (render.Affine{}) || acc.flat.has(i) {
			// Scaled to nothing (glTF files hide objects so): it cannot be
			// hit, and rays into its object space would be degenerate. Or
			// its triangles are among the flat meshes, the last entry.
			return scene.EmptyBounds()
		}
		return sc.GeometryBounds(in.Geometry).Transform(in.Transform)
	})
	acc.flatOnly = acc.flat.bvh != nil && len(acc.tlas.Prims) == 1 && int(acc.tlas.Prims[0]) == len(sc.Instances)
	return acc
}

// newAccel sets up what every tracer needs per instance: its transforms,
// whether it needs the any-hit test, whether it keeps exit hits.
func newAccel(sc *scene.Scene, anyHit AnyHit) *Accel {
	acc := &Accel{scene: sc, anyHit: anyHit}
	acc.toObject = make([]render.Affine, len(sc.Instances))
	acc.toWorld = make([]render.Affine, len(sc.Instances))
	acc.opaque = make([]bool, len(sc.Instances))
	acc.exitHits = make([]bool, len(sc.Instances))
	acc.materials = make([]layout.Material, len(sc.Materials))
	for i := range sc.Materials {
		acc.materials[i] = layout.PackMaterial(&sc.Materials[i])
	}
	for i, in := range sc.Instances {
		acc.exitHits[i] = render.ExitHits(sc, &in)
		acc.toObject[i] = render.AffineInverse(in.Transform)
		acc.toWorld[i] = render.AffineOf(in.Transform)
		acc.opaque[i] = anyHit == nil || in.Geometry.Kind != scene.Triangles ||
			!sc.Materials[in.Material].AlphaTested()
	}
	return acc
}

func buildGeometryBVH(sc *scene.Scene, g scene.GeometryRef) *BVH {
	switch g.Kind {
	case scene.Spheres:
		s := &sc.SphereSets[g.Index]
		return BuildBVH(len(s.Centers), func(i int) scene.Bounds {
			r := s.Radii[i]
			if !(r > 0) {
				return scene.EmptyBounds()
			}
			rv := scene.Vec3{X: r, Y: r, Z: r}
			return scene.Bounds{Min: s.Centers[i].Sub(rv), Max: s.Centers[i].Add(rv)}
		})
	case scene.SweptSpheres:
		c := &sc.CurveSets[g.Index]
		return BuildBVH(len(c.Segments), func(i int) scene.Bounds {
			v := c.Segments[i]
			b := scene.EmptyBounds()
			for _, k := range [2]uint32{v, v + 1} {
				r := scene.Vec3{X: c.Radii[k], Y: c.Radii[k], Z: c.Radii[k]}
				b.Extend(c.Positions[k].Sub(r))
				b.Extend(c.Positions[k].Add(r))
			}
			return b
		})
	}
	m := &sc.Meshes[g.Index]
	return BuildBVH(m.TriangleCount(), func(i int) scene.Bounds {
		b := scene.EmptyBounds()
		for k := 0; k < 3; k++ {
			b.Extend(m.Positions[m.Indices[3*i+k]])
		}
		return b
	})
}

// Intersect finds the closest hit in (ray.TMin, ray.TMax).
func (acc *Accel) Intersect(ray *Ray) (Hit, bool) {
	if acc.embree != nil {
		var h [1]Hit
		var ok [1]bool
		acc.IntersectAll(unsafe.Slice(ray, 1), h[:], ok[:], false)
		return h[0], ok[0]
	}
	st := stacks.Get().(*traceStacks)
	defer stacks.Put(st)
	return acc.trace(ray, false, st)
}

// Occluded reports whether anything blocks the ray (shadow rays: the first
// accepted hit ends the search).
func (acc *Accel) Occluded(ray *Ray) bool {
	if acc.embree != nil {
		var ok [1]bool
		acc.OccludedAll(unsafe.Slice(ray, 1), ok[:])
		return ok[0]
	}
	st := stacks.Get().(*traceStacks)
	defer stacks.Put(st)
	_, ok := acc.trace(ray, true, st)
	return ok
}

// stacks keep the walks of single-ray calls (a walk is too large to make
// for each).
var stacks = sync.Pool{New: func() any { return new(traceStacks) }}

func (acc *Accel) trace(ray *Ray, anyFirst bool, st *traceStacks) (Hit, bool) {
	best := Hit{T: ray.TMax, Instance: -1}
	tmax := ray.TMax
	world := newBoxRay(ray.Origin, ray.Dir, ray.TMin)
	if acc.flatOnly {
		found := acc.flat.trace(acc, ray, &world, &tmax, &best, anyFirst, &st.bottom)
		return best, found
	}
	w := &st.top
	w.start(acc.tlas, ray.TMin)
leaves:
	for first, count, ok := w.next(&world, tmax); ok; first, count, ok = w.next(&world, tmax) {
		for _, inst := range acc.tlas.Prims[first : first+count] {
			var found bool
			if int(inst) == len(acc.scene.Instances) {
				found = acc.flat.trace(acc, ray, &world, &tmax, &best, anyFirst, &st.bottom)
			} else {
				found = acc.traceInstance(int(inst), ray, &tmax, &best, anyFirst, &st.bottom)
			}
			if found && anyFirst {
				break leaves
			}
		}
	}
	if best.Instance < 0 {
		return best, false
	}
	return best, true
}

// traceInstance traverses one instance's geometry in its object space (the
// direction is not renormalised, so distances stay world distances).
func (acc *Accel) traceInstance(i int, ray *Ray, tmax *float32, best *Hit, anyFirst bool, w *walk) bool {
	in := &acc.scene.Instances[i]
	o, d := acc.toObject[i].Point(ray.Origin), acc.toObject[i].Vector(ray.Dir)
	br := newBoxRay(o, d, ray.TMin)
	bvh := acc.blasOf[i]
	found := false
	// take keeps a candidate hit unless the any-hit test rejects it (alpha
	// masks); true: the walk is over (a shadow ray is blocked).
	take := func(h Hit) (taken bool) {
		if !acc.opaque[i] && !acc.anyHit(i, int(h.Prim), h.U, h.V, h.T) {
			return false
		}
		h.Instance = int32(i)
		*best, *tmax, found = h, h.T, true
		return true
	}
	w.start(bvh, ray.TMin)
	switch in.Geometry.Kind {
	case scene.Triangles:
		leaves := acc.trianglesOf[i]
		sr := newShearedRay(d)
		tr := newTriRay(o, &sr)
		var res triHits
		for first, count, ok := w.next(&br, *tmax); ok; first, count, ok = w.next(&br, *tmax) {
			// The leaf's hits nearest first: the first taken is its answer
			// (alpha masks can make holes).
			for hits, backs := leaves.test(first, count, o, &sr, &tr, ray.TMin, *tmax, &res); hits != 0; {
				k := nearestLane(hits, &res.t)
				hits &^= 1 << k
				kind := HitFrontFace
				if backs&(1<<k) != 0 {
					kind = HitBackFace
				}
				if take(Hit{T: res.t[k], Prim: int32(bvh.Prims[first+k]), U: res.u[k], V: res.v[k], Kind: kind}) {
					if anyFirst {
						return true
					}
					break
				}
			}
		}
	case scene.Spheres:
		s := &acc.scene.SphereSets[in.Geometry.Index]
		exits := acc.exitHits[i]
		for first, count, ok := w.next(&br, *tmax); ok; first, count, ok = w.next(&br, *tmax) {
			for _, p := range bvh.Prims[first : first+count] {
				if t, ok := intersectSphere(o, d, s.Centers[p], s.Radii[p], ray.TMin, *tmax, exits); ok {
					if take(Hit{T: t, Prim: int32(p), Kind: HitSphere}) && anyFirst {
						return true
					}
				}
			}
		}
	case scene.SweptSpheres:
		c := &acc.scene.CurveSets[in.Geometry.Index]
		for first, count, ok := w.next(&br, *tmax); ok; first, count, ok = w.next(&br, *tmax) {
			for _, p := range bvh.Prims[first : first+count] {
				h, ok := intersectStrandSegment(c, int(p), o, d, ray.TMin, *tmax)
				if ok && take(Hit{T: h.T, Prim: int32(p), U: h.U, Kind: HitLinearSweptSphere}) && anyFirst {
					return true
				}
			}
		}
	}
	return found
}

// facesAway reports whether triangle p is seen from behind along d, by its
// winding (Vulkan's front face is counter-clockwise).
func facesAway(m *scene.Mesh, p int, d scene.Vec3) bool {
	a, b, c := m.Positions[m.Indices[3*p]], m.Positions[m.Indices[3*p+1]], m.Positions[m.Indices[3*p+2]]
	return b.Sub(a).Cross(c.Sub(a)).Dot(d) > 0
}
