// Package cpu is the CPU backend: an emulator of the GPU ray-tracing pipeline
// (acceleration structures, hit objects, reordering, a shader binding table
// of Go shaders) and the reference path tracer that runs on it.
package cpu

import (
	"math"

	"sertrace/render/layout"
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

// d3 is a float64 vector, for the quadratics whose float32 forms lose the
// small primitives that hair and particles are.
// (A struct, like scene.Vec3, so that the compiler keeps it in registers.)
type d3 struct{ x, y, z float64 }

func to64(v scene.Vec3) d3         { return d3{float64(v.X), float64(v.Y), float64(v.Z)} }
func (a d3) add(b d3) d3           { return d3{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a d3) sub(b d3) d3           { return d3{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a d3) scale(s float64) d3    { return d3{a.x * s, a.y * s, a.z * s} }
func (a d3) dot(b d3) float64      { return a.x*b.x + a.y*b.y + a.z*b.z }
func (a d3) at(d d3, t float64) d3 { return d3{a.x + t*d.x, a.y + t*d.y, a.z + t*d.z} }

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
	dv := to64(d)
	dd := dv.dot(dv)
	oc := to64(o).sub(to64(c))
	tc := -oc.dot(dv) / dd // nearest approach
	p := oc.at(dv, tc)
	disc := float64(r)*float64(r) - p.dot(p)
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
	dv, a64 := to64(d), to64(a)
	dd := dv.dot(dv)
	ba := to64(b).sub(a64)
	mid := a64.add(ba.scale(0.5))
	t0 := -to64(o).sub(mid).dot(dv) / dd // nearest approach to the midpoint
	oa := to64(o).sub(a64).at(dv, t0)    // the moved origin, relative to a
	ob := oa.sub(ba)
	l := math.Sqrt(ba.dot(ba))
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
	sphere := func(oc d3, r, u float64, keep func(sl float64) bool) {
		bq := oc.dot(dv)
		disc := bq*bq - dd*(oc.dot(oc)-r*r)
		if disc < 0 {
			return
		}
		if t := (-bq - math.Sqrt(disc)) / dd; keep(oa.at(dv, t).dot(ba)) {
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
		c := ba.scale(1 / l)
		s0, sd := oa.dot(c), dv.dot(c)
		qa := c2*dd - sd*sd
		qb := c2*oa.dot(dv) - s0*sd + r0*k*sd
		qc := c2*oa.dot(oa) - s0*s0 + 2*r0*k*s0 - r0*r0
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

// sweptSphereNormal is the outward normal at p of the round cone, given the
// hit's u: the direction from the centre of the sphere at u to p.
func sweptSphereNormal(p, a, b scene.Vec3, u float32) scene.Vec3 {
	return p.Sub(a.Add(b.Sub(a).Scale(u))).Normalize()
}

// intersectStrandSegment intersects segment p of a curve set as a piece of
// the one smooth tube that its chain of segments draws. A chain's segments
// overlap at their joints (a segment's end sphere lies partly inside the
// next one), so intersectSweptSphere alone finds surfaces inside the tube:
// light passing through a strand near a joint, or leaving it there, met the
// kept end cap inside the next segment and the strand shadowed itself. The
// strand rule keeps a hit only where the ray enters the tube. For segment p
// itself and each segment q chained to it near the hit, the hit does not
// count
//   - where it lies inside q, deeper than a tolerance that covers the
//     rounding of the hit point (so a hit on the tube's surface at a joint,
//     which lies on both segments, is kept, and nothing leaks through a
//     seam): the ray is inside the tube already (Embree also reports such
//     hits inside p itself, where it cuts a segment by its neighbour);
//   - where the ray starts inside or on q (within the tolerance) and the
//     hit lies inside or on q too: q is convex, so the ray has not left it.
//     Light leaving a segment, outward or through it, never meets it again
//     (Embree's filter needs this for p itself: its exit hits can look like
//     entries), nor its neighbours where they overlap it.
func intersectStrandSegment(c *scene.CurveSet, p int, o, d scene.Vec3, tmin, tmax float32) (sweptSphereHit, bool) {
	v := c.Segments[p]
	h, ok := intersectSweptSphere(o, d, c.Positions[v], c.Positions[v+1], c.Radii[v], c.Radii[v+1],
		c.Joins[p]&scene.JoinedPrev == 0, tmin, tmax)
	if !ok || !strandHitCounts(c, p, o, d, h.T) {
		return sweptSphereHit{}, false
	}
	return h, true
}

// strandHitCounts applies the strand rule to a hit at distance t on segment
// p of a ray from o along d (see intersectStrandSegment).
func strandHitCounts(c *scene.CurveSet, p int, o, d scene.Vec3, t float32) bool {
	v := c.Segments[p]
	a := to64(c.Positions[v])
	oa := to64(o).sub(a)
	travel := to64(d).scale(float64(t))
	x := oa.add(travel)
	tol := layout.StrandTolTravel*(maxAbs(oa)+maxAbs(travel)) + layout.StrandTolRadius*float64(c.Radii[v]+c.Radii[v+1]) +
		layout.StrandTolPosition*max(maxAbs(to64(o)), maxAbs(x.add(a)))
	// inside says whether the hit is not on the tube's surface by segment
	// q: it lies inside q, or the ray starts in (or on) q and has not left
	// it; near, whether q can hold it at all. A segment holds only points
	// within its length and its larger radius of its vertices; one joined
	// to p at vertex j holds a point of p's surface only within three times
	// their radii of j (where the chain folds back on itself by less than
	// 150°), which spares most hits the test.
	rp := float64(max(c.Radii[v], c.Radii[v+1]))
	inside := func(q, joint int) (in, near bool) {
		w := c.Segments[q]
		aq := to64(c.Positions[w])
		bq := to64(c.Positions[w+1]).sub(aq)
		xq, oq := x.add(a).sub(aq), oa.add(a).sub(aq)
		ra, rb := float64(c.Radii[w]), float64(c.Radii[w+1])
		switch {
		case joint >= 0:
			xj := x.add(a).sub(to64(c.Positions[joint]))
			if xj.dot(xj) > sq(3*(rp+max(ra, rb))+tol) {
				return false, false
			}
		case q != p:
			if xq.dot(xq) > sq(math.Sqrt(bq.dot(bq))+max(ra, rb)+tol) {
				return false, false
			}
		}
		dx := roundConeDistance(xq, bq, ra, rb)
		return dx < -tol || (dx < tol && roundConeDistance(oq, bq, ra, rb) < tol), true
	}
	if in, _ := inside(p, -1); in {
		return false
	}
	// Walk the chain from p either way while the next segment can hold the
	// hit, up to layout.StrandReach segments.
	for q, k := p, 0; k < layout.StrandReach && c.Joins[q]&scene.JoinedPrev != 0; k++ {
		q--
		joint := -1
		if k == 0 {
			joint = int(v)
		}
		if in, near := inside(q, joint); in {
			return false
		} else if !near {
			break
		}
	}
	for q, k := p, 0; k < layout.StrandReach && c.Joins[q]&scene.JoinedNext != 0; k++ {
		q++
		joint := -1
		if k == 0 {
			joint = int(v) + 1
		}
		if in, near := inside(q, joint); in {
			return false
		} else if !near {
			break
		}
	}
	return true
}

func sq(v float64) float64 { return v * v }

func maxAbs(v d3) float64 { return max(math.Abs(v.x), math.Abs(v.y), math.Abs(v.z)) }

// roundConeDistance is the signed distance from x to the round cone from
// the sphere of radius ra about the origin to the sphere of radius rb about
// ba: negative inside. The cone is the union of the spheres along the
// segment, their radius linear in u, and the distance the least over u of
// |x − u·ba| − r(u), a convex function of u: its minimum, where the
// derivative vanishes, lies a fixed offset along the axis from x's own
// foot (the cone's slope), clamped to the segment.
func roundConeDistance(x, ba d3, ra, rb float64) float64 {
	d, _ := roundConeNearest(x, ba, ra, rb)
	return d
}

// roundConeNearest is roundConeDistance, and the u of the sphere whose
// surface is nearest to x (the outward normal there is x − u·ba).
func roundConeNearest(x, ba d3, ra, rb float64) (dist, u float64) {
	l2 := ba.dot(ba)
	dr := rb - ra
	if l2 <= dr*dr { // one sphere holds the other
		xb := x.sub(ba)
		da, db := math.Sqrt(x.dot(x))-ra, math.Sqrt(xb.dot(xb))-rb
		if da < db {
			return da, 0
		}
		return db, 1
	}
	l := math.Sqrt(l2)
	y := x.dot(ba) / l // along the axis
	perp := x.sub(ba.scale(y / l))
	h := math.Sqrt(perp.dot(perp)) // from the axis
	u = min(max((y+dr*h/math.Sqrt(l2-dr*dr))/l, 0), 1)
	along := y - u*l
	return math.Sqrt(h*h+along*along) - (ra + u*dr), u
}
