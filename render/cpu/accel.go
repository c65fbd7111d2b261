package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"

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
type AnyHit func(instance, prim int, u, v float32) bool

// Accel is the scene's acceleration structure: a BVH per geometry (the
// bottom level) and one over the instances (the top level).
type Accel struct {
	scene       *scene.Scene
	blas        map[scene.GeometryRef]*BVH
	blasOf      []*BVH               // per instance, its geometry's BVH (no map lookup per ray)
	triangles   map[int][]scene.Vec3 // per mesh, its triangles' vertices in its BVH's leaf order
	trianglesOf [][]scene.Vec3       // per instance, the same
	tlas        *BVH
	toObject    []affine // per instance, world to object
	toWorld     []affine // per instance, object to world
	opaque      []bool   // per instance: no any-hit needed
	anyHit      AnyHit
}

// affine is a 3×4 transform, rows first, float32 as the GPU keeps it.
type affine [12]float32

func affineInverse(m scene.Mat4) affine {
	// Invert the 3×3 part by cofactors; the translation follows.
	a, b, c := m[0], m[4], m[8]
	d, e, f := m[1], m[5], m[9]
	g, h, i := m[2], m[6], m[10]
	det := a*(e*i-f*h) - b*(d*i-f*g) + c*(d*h-e*g)
	if det == 0 {
		return affine{} // a collapsed instance: every ray misses it
	}
	inv := 1 / det
	r := [9]float64{
		(e*i - f*h) * inv, (c*h - b*i) * inv, (b*f - c*e) * inv,
		(f*g - d*i) * inv, (a*i - c*g) * inv, (c*d - a*f) * inv,
		(d*h - e*g) * inv, (b*g - a*h) * inv, (a*e - b*d) * inv,
	}
	tx, ty, tz := m[12], m[13], m[14]
	return affine{
		float32(r[0]), float32(r[1]), float32(r[2]), float32(-(r[0]*tx + r[1]*ty + r[2]*tz)),
		float32(r[3]), float32(r[4]), float32(r[5]), float32(-(r[3]*tx + r[4]*ty + r[5]*tz)),
		float32(r[6]), float32(r[7]), float32(r[8]), float32(-(r[6]*tx + r[7]*ty + r[8]*tz)),
	}
}

func affineOf(m scene.Mat4) affine {
	return affine{
		float32(m[0]), float32(m[4]), float32(m[8]), float32(m[12]),
		float32(m[1]), float32(m[5]), float32(m[9]), float32(m[13]),
		float32(m[2]), float32(m[6]), float32(m[10]), float32(m[14]),
	}
}

func (m *affine) point(p scene.Vec3) scene.Vec3 {
	return scene.Vec3{
		m[0]*p[0] + m[1]*p[1] + m[2]*p[2] + m[3],
		m[4]*p[0] + m[5]*p[1] + m[6]*p[2] + m[7],
		m[8]*p[0] + m[9]*p[1] + m[10]*p[2] + m[11],
	}
}

func (m *affine) vector(v scene.Vec3) scene.Vec3 {
	return scene.Vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[4]*v[0] + m[5]*v[1] + m[6]*v[2],
		m[8]*v[0] + m[9]*v[1] + m[10]*v[2],
	}
}

// BuildAccel builds the bottom-level BVHs of every instanced geometry, in
// parallel, then the top level. anyHit, if not nil, runs for candidate hits
// on instances whose material is alpha-masked.
func BuildAccel(sc *scene.Scene, anyHit AnyHit) *Accel {
	acc := &Accel{scene: sc, blas: map[scene.GeometryRef]*BVH{}, anyHit: anyHit}
	var geoms []scene.GeometryRef
	for _, in := range sc.Instances {
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
	acc.triangles = map[int][]scene.Vec3{}
	for g, b := range acc.blas {
		if g.Kind == scene.Triangles {
			m := &sc.Meshes[g.Index]
			verts := make([]scene.Vec3, 3*len(b.Prims))
			for k, p := range b.Prims {
				for j := uint32(0); j < 3; j++ {
					verts[3*k+int(j)] = m.Positions[m.Indices[3*p+j]]
				}
			}
			acc.triangles[g.Index] = verts
		}
	}
	acc.blasOf = make([]*BVH, len(sc.Instances))
	acc.trianglesOf = make([][]scene.Vec3, len(sc.Instances))
	for i, in := range sc.Instances {
		acc.blasOf[i] = acc.blas[in.Geometry]
		if in.Geometry.Kind == scene.Triangles {
			acc.trianglesOf[i] = acc.triangles[in.Geometry.Index]
		}
	}
	acc.toObject = make([]affine, len(sc.Instances))
	acc.toWorld = make([]affine, len(sc.Instances))
	acc.opaque = make([]bool, len(sc.Instances))
	for i, in := range sc.Instances {
		acc.toObject[i] = affineInverse(in.Transform)
		acc.toWorld[i] = affineOf(in.Transform)
		acc.opaque[i] = anyHit == nil || in.Geometry.Kind != scene.Triangles ||
			sc.Materials[in.Material].AlphaMode != scene.AlphaMask
	}
	acc.tlas = BuildBVH(len(sc.Instances), func(i int) scene.Bounds {
		in := sc.Instances[i]
		if acc.toObject[i] == (affine{}) {
			// Scaled to nothing (glTF files hide objects so): it cannot be
			// hit, and rays into its object space would be degenerate.
			return scene.EmptyBounds()
		}
		return sc.GeometryBounds(in.Geometry).Transform(in.Transform)
	})
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
			rv := scene.Vec3{r, r, r}
			return scene.Bounds{Min: s.Centers[i].Sub(rv), Max: s.Centers[i].Add(rv)}
		})
	case scene.SweptSpheres:
		c := &sc.CurveSets[g.Index]
		return BuildBVH(len(c.Segments), func(i int) scene.Bounds {
			v := c.Segments[i]
			b := scene.EmptyBounds()
			for _, k := range [2]uint32{v, v + 1} {
				r := scene.Vec3{c.Radii[k], c.Radii[k], c.Radii[k]}
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
	return acc.trace(ray, false)
}

// Occluded reports whether anything blocks the ray (shadow rays: the first
// accepted hit ends the search).
func (acc *Accel) Occluded(ray *Ray) bool {
	_, ok := acc.trace(ray, true)
	return ok
}

func (acc *Accel) trace(ray *Ray, anyFirst bool) (Hit, bool) {
	best := Hit{T: ray.TMax, Instance: -1}
	tmax := ray.TMax
	world := newBoxRay(ray.Origin, ray.Dir)
	acc.tlas.Traverse(&world, ray.TMin, &tmax, func(first, count int) bool {
		for _, inst := range acc.tlas.Prims[first : first+count] {
			if acc.traceInstance(int(inst), ray, &tmax, &best, anyFirst) && anyFirst {
				return true
			}
		}
		return false
	})
	if best.Instance < 0 {
		return best, false
	}
	if best.Kind == HitFrontFace {
		in := &acc.scene.Instances[best.Instance]
		if facesAway(&acc.scene.Meshes[in.Geometry.Index], int(best.Prim), acc.toObject[best.Instance].vector(ray.Dir)) {
			best.Kind = HitBackFace
		}
	}
	return best, true
}

// traceInstance traverses one instance's geometry in its object space (the
// direction is not renormalised, so distances stay world distances).
func (acc *Accel) traceInstance(i int, ray *Ray, tmax *float32, best *Hit, anyFirst bool) bool {
	in := &acc.scene.Instances[i]
	o, d := acc.toObject[i].point(ray.Origin), acc.toObject[i].vector(ray.Dir)
	br := newBoxRay(o, d)
	bvh := acc.blasOf[i]
	found := false
	accept := func(h Hit) bool {
		if !acc.opaque[i] && !acc.anyHit(i, int(h.Prim), h.U, h.V) {
			return false
		}
		h.Instance = int32(i)
		*best, *tmax, found = h, h.T, true
		return anyFirst
	}
	switch in.Geometry.Kind {
	case scene.Triangles:
		verts := acc.trianglesOf[i]
		sr := newShearedRay(d)
		bvh.Traverse(&br, ray.TMin, tmax, func(first, count int) bool {
			for k := first; k < first+count; k++ {
				v := verts[3*k : 3*k+3]
				if t, u, w, ok := intersectTriangle(o, &sr, v[0], v[1], v[2], ray.TMin, *tmax); ok {
					// The face is decided once, for the closest hit (in trace).
					if accept(Hit{T: t, Prim: int32(bvh.Prims[k]), U: u, V: w, Kind: HitFrontFace}) {
						return true
					}
				}
			}
			return false
		})
	case scene.Spheres:
		s := &acc.scene.SphereSets[in.Geometry.Index]
		bvh.Traverse(&br, ray.TMin, tmax, func(first, count int) bool {
			for _, p := range bvh.Prims[first : first+count] {
				if t, ok := intersectSphere(o, d, s.Centers[p], s.Radii[p], ray.TMin, *tmax); ok {
					if accept(Hit{T: t, Prim: int32(p), Kind: HitSphere}) {
						return true
					}
				}
			}
			return false
		})
	case scene.SweptSpheres:
		c := &acc.scene.CurveSets[in.Geometry.Index]
		bvh.Traverse(&br, ray.TMin, tmax, func(first, count int) bool {
			for _, p := range bvh.Prims[first : first+count] {
				v := c.Segments[p]
				h, ok := intersectSweptSphere(o, d, c.Positions[v], c.Positions[v+1], c.Radii[v], c.Radii[v+1],
					c.Joins[p]&scene.JoinedPrev == 0, ray.TMin, *tmax)
				if ok && accept(Hit{T: h.T, Prim: int32(p), U: h.U, Kind: HitLinearSweptSphere}) {
					return true
				}
			}
			return false
		})
	}
	return found
}

// facesAway reports whether triangle p is seen from behind along d, by its
// winding (Vulkan's front face is counter-clockwise).
func facesAway(m *scene.Mesh, p int, d scene.Vec3) bool {
	a, b, c := m.Positions[m.Indices[3*p]], m.Positions[m.Indices[3*p+1]], m.Positions[m.Indices[3*p+2]]
	return b.Sub(a).Cross(c.Sub(a)).Dot(d) > 0
}
