// Package cpu is the CPU backend: an emulator of the GPU ray-tracing pipeline
// (acceleration structures, hit objects, reordering, a shader binding table
// of Go shaders) and the reference path tracer that runs on it.
package cpu

import (
	"math"

	"sertrace/render/kernel"
	"sertrace/scene"
)

// Ray is a ray with its valid interval [TMin, TMax].
type Ray struct {
	Origin scene.Vec3
	TMin   float32
	Dir    scene.Vec3
	TMax   float32 // laid out as Embree's rays are (tracer.go passes them as they are)
}

// shearedRay holds the per-ray constants of the watertight ray–triangle test
// (Woop, Benthin and Wald, JCGT 2013): the axis the ray mostly follows is kz,
// and a shear makes the ray run along it.
type shearedRay struct {
	kz         int  // the axis the ray mostly follows
	swap       bool // kx and ky exchanged, to keep the winding
	sx, sy, sz float32
}

func newShearedRay(d scene.Vec3) shearedRay {
	s := shearedRay{}
	if math.Abs(float64(d.Y)) > math.Abs(float64(d.X)) {
		s.kz = 1
	}
	if math.Abs(float64(d.Z)) > math.Abs(float64(d.At(s.kz))) {
		s.kz = 2
	}
	s.swap = d.At(s.kz) < 0
	x, y, z := s.permute(d)
	s.sx, s.sy, s.sz = x/z, y/z, 1/z
	return s
}

// permute gives v's components along kx, ky and kz: (kz+1)%3, (kz+2)%3
// and kz, the first two exchanged when swap is set.
func (s *shearedRay) permute(v scene.Vec3) (x, y, z float32) {
	switch s.kz {
	case 0:
		x, y, z = v.Y, v.Z, v.X
	case 1:
		x, y, z = v.Z, v.X, v.Y
	default:
		x, y, z = v.X, v.Y, v.Z
	}
	if s.swap {
		x, y = y, x
	}
	return x, y, z
}

// intersectTriangle returns the hit distance and the barycentrics (u, v) of
// v1 and v2, as Vulkan reports them, and whether the ray sees the triangle's
// back (its vertices clockwise), or ok false. It is watertight: a ray
// through a shared edge or vertex hits at least one of the triangles.
func intersectTriangle(o scene.Vec3, s *shearedRay, v0, v1, v2 scene.Vec3, tmin, tmax float32) (t, u, v float32, back, ok bool) {
	apx, apy, apz := s.permute(v0.Sub(o))
	bpx, bpy, bpz := s.permute(v1.Sub(o))
	cpx, cpy, cpz := s.permute(v2.Sub(o))
	// Every product is rounded on its own (the conversions keep a compiler
	// targeting FMA from fusing it into the sum), as hitTriangles8 and the
	// GLSL compute it.
	ax, ay := apx-float32(s.sx*apz), apy-float32(s.sy*apz)
	bx, by := bpx-float32(s.sx*bpz), bpy-float32(s.sy*bpz)
	cx, cy := cpx-float32(s.sx*cpz), cpy-float32(s.sy*cpz)
	e0 := float32(cx*by) - float32(cy*bx) // weight of v0
	e1 := float32(ax*cy) - float32(ay*cx) // of v1
	e2 := float32(bx*ay) - float32(by*ax) // of v2
	if e0 == 0 || e1 == 0 || e2 == 0 {
		// On an edge in float32: decide in float64 so neighbours agree.
		mul := func(a, b float32) float64 { return float64(float64(a) * float64(b)) }
		e0 = float32(mul(cx, by) - mul(cy, bx))
		e1 = float32(mul(ax, cy) - mul(ay, cx))
		e2 = float32(mul(bx, ay) - mul(by, ax))
	}
	if (e0 < 0 || e1 < 0 || e2 < 0) && (e0 > 0 || e1 > 0 || e2 > 0) {
		return 0, 0, 0, false, false
	}
	det := e0 + e1 + e2
	if det == 0 {
		return 0, 0, 0, false, false
	}
	az, bz, cz := s.sz*apz, s.sz*bpz, s.sz*cpz
	tScaled := float32(e0*az) + float32(e1*bz) + float32(e2*cz)
	if det > 0 {
		if tScaled <= tmin*det || tScaled >= tmax*det {
			return 0, 0, 0, false, false
		}
	} else if tScaled >= tmin*det || tScaled <= tmax*det {
		return 0, 0, 0, false, false
	}
	inv := 1 / det
	if t := tScaled * inv; t > tmin && t < tmax { // also false for NaN (a degenerate ray)
		return t, e1 * inv, e2 * inv, det < 0, true // the shear keeps the winding: det < 0 is clockwise
	}
	return 0, 0, 0, false, false
}

// The quadratics are solved in float64 (kernel.Vec3d), whose float32
// forms lose the small primitives that hair and particles are.

// intersectSphere returns the nearest hit in (tmin, tmax) with a sphere.
// Like a native sphere (VK_NV_ray_tracing_linear_swept_spheres), it reports
// only where the ray enters: a ray that starts inside hits nothing. With
// exits, it reports the far side too, for the glass and volume spheres that
// track their medium by it (render.ExitHits). It solves the quadratic in
// float64 about the point of the ray nearest to the centre, which keeps
// small, distant spheres exact (Haines et al., "Precision Improvements for
// Ray/Sphere Intersection", Ray Tracing Gems).
func intersectSphere(o, d, c scene.Vec3, r, tmin, tmax float32, exits bool) (float32, bool) {
	if !(r > 0) {
		return 0, false // a zero-radius particle is not there to hit
	}
	dv := kernel.ToVec3d(d)
	dd := dv.Dot(dv)
	oc := kernel.ToVec3d(o).Sub(kernel.ToVec3d(c))
	tc := -oc.Dot(dv) / dd // nearest approach
	p := oc.At(dv, tc)
	disc := float64(r)*float64(r) - p.Dot(p)
	if disc < 0 {
		return 0, false
	}
	h := math.Sqrt(disc / dd)
	if t := tc - h; t > float64(tmin) && t < float64(tmax) {
		return float32(t), true
	}
	if t := tc + h; exits && t > float64(tmin) && t < float64(tmax) {
		return float32(t), true
	}
	return 0, false
}

// sweptSphereHit is a hit on a linear swept sphere: where, and u, the
// parameter along the segment of the sphere the hit lies on (0 at the start
// cap, 1 at the end cap), as VK_NV_ray_tracing_linear_swept_spheres reports it.
type sweptSphereHit struct {
	T, U float32
}

// intersectSweptSphere intersects the round cone from sphere (a, ra) to
// sphere (b, rb): the two spheres and the cone tangent to both. With
// startCap false the start sphere's cap is left out (a chained segment, whose
// predecessor draws the sphere at the joint). As native swept spheres do, it
// reports only where the ray enters the round cone (which is convex): a ray
// that starts inside, or enters through a left-out cap, hits nothing of it.
// It solves in float64 with the ray's origin moved next to the segment, for
// precision with thin hair.
func intersectSweptSphere(o, d, a, b scene.Vec3, ra, rb float32, startCap bool, tmin, tmax float32) (sweptSphereHit, bool) {
	dv, a64 := kernel.ToVec3d(d), kernel.ToVec3d(a)
	dd := dv.Dot(dv)
	ba := kernel.ToVec3d(b).Sub(a64)
	mid := a64.Add(ba.Scale(0.5))
	t0 := -kernel.ToVec3d(o).Sub(mid).Dot(dv) / dd // nearest approach to the midpoint
	oa := kernel.ToVec3d(o).Sub(a64).At(dv, t0)    // the moved origin, relative to a
	ob := oa.Sub(ba)
	l := math.Sqrt(ba.Dot(ba))
	r0, r1 := float64(ra), float64(rb)
	lo := float64(tmin) - t0
	best, bestU, found := float64(tmax)-t0, 0.0, false
	try := func(t, u float64) {
		if t > lo && t < best {
			best, bestU, found = t, u, true
		}
	}
	// sphere tries where the ray enters the sphere of radius r about the
	// origin offset oc, if keep accepts its axial coordinate (dot with ba).
	sphere := func(oc kernel.Vec3d, r, u float64, keep func(sl float64) bool) {
		bq := oc.Dot(dv)
		disc := bq*bq - dd*(oc.Dot(oc)-r*r)
		if disc < 0 {
			return
		}
		if t := (-bq - math.Sqrt(disc)) / dd; keep(oa.At(dv, t).Dot(ba)) {
			try(t, u)
		}
	}
	always := func(float64) bool { return true }
	switch {
	case l <= math.Abs(r0-r1) && r0 >= r1: // the start sphere holds the end one
		if startCap {
			sphere(oa, r0, 0, always)
		}
	case l <= math.Abs(r0-r1): // the end sphere holds the start one
		sphere(ob, r1, 1, always)
	default:
		k := (r0 - r1) / l // sine of the cone's half-angle
		c2 := 1 - k*k
		// The tangent circles lie at axial coordinates r0·k and l + r1·k; the
		// keep functions get them times l.
		sa, sb := r0*k*l, (l+r1*k)*l
		if startCap {
			sphere(oa, r0, 0, func(sl float64) bool { return sl <= sa })
		}
		sphere(ob, r1, 1, func(sl float64) bool { return sl >= sb })
		// The cone: (1 − k²)|w|² − s² + 2·r0·k·s − r0² = 0 for w = p − a and
		// s = w·ĉ, between the tangent circles: a quadratic in t, negative
		// inside. The ray enters where it falls, at the root (−qb − h)/qa
		// whatever the sign of qa.
		c := ba.Scale(1 / l)
		s0, sd := oa.Dot(c), dv.Dot(c)
		qa := c2*dd - sd*sd
		qb := c2*oa.Dot(dv) - s0*sd + r0*k*sd
		qc := c2*oa.Dot(oa) - s0*s0 + 2*r0*k*s0 - r0*r0
		if disc := qb*qb - qa*qc; disc >= 0 && qa != 0 {
			t := (-qb - math.Sqrt(disc)) / qa
			if s := s0 + t*sd; s*l >= sa && s*l <= sb {
				try(t, (s-r0*k)/(l*c2))
			}
		}
	}
	if !found {
		return sweptSphereHit{}, false
	}
	return sweptSphereHit{T: float32(best + t0), U: float32(min(max(bestU, 0), 1))}, true
}

// intersectStrandSegment intersects segment p of a curve set as a piece of
// the one smooth tube that its chain of segments draws: a hit of its swept
// sphere that the strand rule keeps (kernel.StrandHitCounts).
func intersectStrandSegment(c *scene.CurveSet, p int, o, d scene.Vec3, tmin, tmax float32) (sweptSphereHit, bool) {
	v := c.Segments[p]
	h, ok := intersectSweptSphere(o, d, c.Positions[v], c.Positions[v+1], c.Radii[v], c.Radii[v+1],
		c.Joins[p]&scene.JoinedPrev == 0, tmin, tmax)
	if !ok || !kernel.StrandHitCounts((*strands)(c), p, o, d, h.T) {
		return sweptSphereHit{}, false
	}
	return h, true
}

// strands is a curve set as the strand rule reads it (kernel.Strands).
type strands scene.CurveSet

func (c *strands) StrandVertex(p int) int       { return int(c.Segments[p]) }
func (c *strands) StrandJoins(p int) uint32     { return uint32(c.Joins[p]) }
func (c *strands) StrandPoint(v int) scene.Vec3 { return c.Positions[v] }
func (c *strands) StrandRadius(v int) float32   { return c.Radii[v] }
