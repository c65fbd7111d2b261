package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// Strands is what the strand rule reads of a set of hair strands, chains
// of linear swept spheres (scene.CurveSet on the CPU, the curve set's
// buffers on the GPU), in object space.
type Strands interface {
	// StrandVertex is segment p's first vertex (the next is its second).
	StrandVertex(p int) int
	// StrandJoins is how segment p is chained (scene.JoinedPrev,
	// JoinedNext).
	StrandJoins(p int) uint32
	// StrandPoint and StrandRadius are vertex v's centre and radius.
	StrandPoint(v int) scene.Vec3
	StrandRadius(v int) float32
}

// Vec3d is a vector of float64, for the strand rule's distances, whose
// float32 forms lose the small primitives that hair is (float on the GPU,
// where the tolerances cover it).
type Vec3d struct{ X, Y, Z float64 }

// ToVec3d is v in float64.
func ToVec3d(v scene.Vec3) Vec3d { return Vec3d{float64(v.X), float64(v.Y), float64(v.Z)} }

func (a Vec3d) Add(b Vec3d) Vec3d           { return Vec3d{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }
func (a Vec3d) Sub(b Vec3d) Vec3d           { return Vec3d{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }
func (a Vec3d) Scale(s float64) Vec3d       { return Vec3d{a.X * s, a.Y * s, a.Z * s} }
func (a Vec3d) Dot(b Vec3d) float64         { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }
func (a Vec3d) MaxAbs() float64             { return max(math.Abs(a.X), math.Abs(a.Y), math.Abs(a.Z)) }
func (a Vec3d) At(d Vec3d, t float64) Vec3d { return Vec3d{a.X + t*d.X, a.Y + t*d.Y, a.Z + t*d.Z} }

// StrandHitCounts is the strand rule: whether a hit at distance t on
// segment p of strands s, of a ray from o along d, is where the ray enters
// the one smooth tube that the segment's chain draws.
//
// A chain's segments overlap at their joints (a segment's end sphere lies
// partly inside the next one), so a swept sphere's intersection alone finds
// surfaces inside the tube: light passing through a strand near a joint, or
// leaving it there, met the kept end cap inside the next segment and the
// strand shadowed itself. For segment p itself and each segment q chained
// to it near the hit, the hit does not count
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
//
// The CPU's tracers and the GPU's intersection shaders apply it to every
// hit on a chained segment; Embree's filter is its C twin
// (render/cpu/embree), held to it case by case by a test.
func StrandHitCounts(s Strands, p int, o, d scene.Vec3, t float32) bool {
	v := s.StrandVertex(p)
	a := ToVec3d(s.StrandPoint(v))
	oa := ToVec3d(o).Sub(a)
	travel := ToVec3d(d).Scale(float64(t))
	x := oa.Add(travel)
	ra, rb := s.StrandRadius(v), s.StrandRadius(v+1)
	tol := layout.StrandTolTravel*(oa.MaxAbs()+travel.MaxAbs()) + layout.StrandTolRadius*float64(ra+rb) +
		layout.StrandTolPosition*max(ToVec3d(o).MaxAbs(), x.Add(a).MaxAbs())
	rp := float64(max(ra, rb))
	if in, _ := strandInside(s, p, p, -1, rp, a, x, oa, tol); in {
		return false
	}
	// Walk the chain from p either way while the next segment can hold the
	// hit, up to layout.StrandReach segments.
	return !strandChainHolds(s, p, -1, uint32(scene.JoinedPrev), v, rp, a, x, oa, tol) &&
		!strandChainHolds(s, p, 1, uint32(scene.JoinedNext), v+1, rp, a, x, oa, tol)
}

// strandChainHolds walks the chain from segment p one way (step −1 while
// segments are joined to the one before, joined JoinedPrev; +1 along
// JoinedNext) while the next segment can hold the hit, up to
// layout.StrandReach segments, and reports whether one of them holds it
// inside (strandInside); joint is the vertex p shares with its first
// neighbour that way.
func strandChainHolds(s Strands, p, step int, joined uint32, joint int, rp float64, a, x, oa Vec3d, tol float64) bool {
	q := p
	for k := 0; k < layout.StrandReach && s.StrandJoins(q)&joined != 0; k++ {
		q += step
		shared := -1
		if k == 0 {
			shared = joint
		}
		in, near := strandInside(s, p, q, shared, rp, a, x, oa, tol)
		if in {
			return true
		}
		if !near {
			break
		}
	}
	return false
}

// strandInside is StrandHitCounts' test of segment q, with the hit x and
// the origin oa relative to a (segment p's first vertex; rp its larger
// radius): whether the hit is not on the tube's surface by q (it lies
// inside q, or the ray starts in or on q and has not left it), and (near)
// whether q can hold it at all. A segment holds only points within its
// length and its larger radius of its vertices; one joined to p at vertex
// joint (−1: q is p, or further along the chain) holds a point of p's
// surface only within three times their radii of the joint (where the
// chain folds back on itself by less than 150°), which spares most hits
// the test.
func strandInside(s Strands, p, q, joint int, rp float64, a, x, oa Vec3d, tol float64) (in, near bool) {
	w := s.StrandVertex(q)
	aq := ToVec3d(s.StrandPoint(w))
	bq := ToVec3d(s.StrandPoint(w + 1)).Sub(aq)
	// Relative to q's first vertex by the shift between the two, which
	// keeps the float32 GPU's error at the scale of the strand, not of
	// where it is.
	shift := a.Sub(aq)
	xq, oq := x.Add(shift), oa.Add(shift)
	ra, rb := float64(s.StrandRadius(w)), float64(s.StrandRadius(w+1))
	if joint >= 0 {
		xj := x.Add(a.Sub(ToVec3d(s.StrandPoint(joint))))
		reach := 3*(rp+max(ra, rb)) + tol
		if xj.Dot(xj) > reach*reach {
			return false, false
		}
	} else if q != p {
		reach := math.Sqrt(bq.Dot(bq)) + max(ra, rb) + tol
		if xq.Dot(xq) > reach*reach {
			return false, false
		}
	}
	dx, _ := RoundConeNearest(xq, bq, ra, rb)
	if dx < -tol {
		return true, true
	}
	do, _ := RoundConeNearest(oq, bq, ra, rb)
	return dx < tol && do < tol, true
}

// RoundConeNearest is the signed distance from x to the round cone from
// the sphere of radius ra about the origin to the sphere of radius rb about
// ba (negative inside), and the u of the sphere whose surface is nearest
// to x (the outward normal there is x − u·ba). The cone is the union of
// the spheres along the segment, their radius linear in u, and the
// distance the least over u of |x − u·ba| − r(u), a convex function of u:
// its minimum, where the derivative vanishes, lies a fixed offset along the
// axis from x's own foot (the cone's slope), clamped to the segment.
func RoundConeNearest(x, ba Vec3d, ra, rb float64) (dist, u float64) {
	l2 := ba.Dot(ba)
	dr := rb - ra
	if l2 <= dr*dr { // one sphere holds the other
		xb := x.Sub(ba)
		da, db := math.Sqrt(x.Dot(x))-ra, math.Sqrt(xb.Dot(xb))-rb
		if da < db {
			return da, 0
		}
		return db, 1
	}
	l := math.Sqrt(l2)
	y := x.Dot(ba) / l // along the axis
	perp := x.Sub(ba.Scale(y / l))
	h := math.Sqrt(perp.Dot(perp)) // from the axis
	u = min(max((y+dr*h/math.Sqrt(l2-dr*dr))/l, 0), 1)
	along := y - u*l
	return math.Sqrt(h*h+along*along) - (ra + u*dr), u
}
