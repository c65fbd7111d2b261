package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/render/cpu/embree"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// goStrandRule is the strand rule that Embree's curve filter (C, in
// package embree) copies, and that TestEmbreeStrandRuleMatchesGo holds it to.
var goStrandRule = func(c *scene.CurveSet, p int, o, d scene.Vec3, t float32) bool {
	return kernel.StrandHitCounts((*strands)(c), p, o, d, t)
}

// The kinds of strand-rule case: how the ray meets the hit point.
const (
	caseTraced  = iota // the hit that the segment's intersection finds
	caseSurface        // a point on or near the surface, from anywhere outside
	caseInside         // from a point inside the segment or a chained one
	caseGrazing        // along the surface's tangent plane
	caseJoint          // near a joint, from anywhere
	caseKinds
)

var caseNames = [caseKinds]string{"traced", "surface", "inside", "grazing", "joint"}

// Embree's curve filter applies the strand rule in C: on random chains
// (bends, folds, varying radii, segments shorter than their radii, closed
// strands, far from the origin) and random rays (traced hits, points just
// inside and outside the surface, rays from inside, grazing rays, rays at
// joints, directions not of unit length), it decides every case as the
// Go rule does. Both outcomes, and hits that only a chained segment
// rejects, must be well represented, so the test cannot pass vacuously.
func TestEmbreeStrandRuleMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	rule := embree.StrandRule{TolTravel: layout.StrandTolTravel, TolPosition: layout.StrandTolPosition,
		TolRadius: layout.StrandTolRadius, Reach: layout.StrandReach}
	const sets, perSet = 60, 500
	var counts [caseKinds][2]int // by kind, the outcome
	cases, byNeighbour, differ := 0, 0, 0
	for set := 0; set < sets; set++ {
		c := randomStrands(rng)
		vr, flags := embreeStrands(c)
		for k := 0; k < perSet; k++ {
			p := rng.IntN(len(c.Segments))
			kind := rng.IntN(caseKinds)
			o, d, tt, ok := strandCase(rng, c, p, kind)
			if !ok {
				continue
			}
			cases++
			want := goStrandRule(c, p, o, d, tt)
			got := embree.StrandHitCounts(vr, c.Segments, flags, rule, p, o.Array(), d.Array(), tt)
			if got != want {
				differ++
				if differ <= 10 {
					t.Errorf("set %d, segment %d of %d (joins %02b), %s case: C says %v, Go %v, for o %v, d %v, t %v",
						set, p, len(c.Segments), c.Joins[p], caseNames[kind], got, want, o, d, tt)
				}
			}
			if want {
				counts[kind][1]++
			} else {
				counts[kind][0]++
				if goStrandRule(segmentAlone(c, p), 0, o, d, tt) {
					byNeighbour++ // the hit counts on the segment alone: a chained one rejected it
				}
			}
		}
	}
	var report string
	var total [2]int
	for k := range counts {
		report += fmt.Sprintf("\n  %-8s counts %5d, does not %5d", caseNames[k], counts[k][1], counts[k][0])
		total[0] += counts[k][0]
		total[1] += counts[k][1]
	}
	t.Logf("%d cases, %d decided differently; the hit counts in %d, not in %d (%d of them only by a chained segment):%s",
		cases, differ, total[1], total[0], byNeighbour, report)
	if differ > 0 {
		t.Fatalf("the C strand rule decides %d of %d cases differently from the Go rule", differ, cases)
	}
	if cases < sets*perSet*9/10 || total[0] < cases/5 || total[1] < cases/5 || byNeighbour < cases/50 {
		t.Fatalf("too few cases of each outcome to compare the rules: %d cases, %d count, %d do not, %d only by a chained segment",
			cases, total[1], total[0], byNeighbour)
	}
	for k := range counts {
		if counts[k][0] < cases/100 || counts[k][1] < cases/100 {
			t.Errorf("%s cases: %d count and %d do not: too few of one outcome", caseNames[k], counts[k][1], counts[k][0])
		}
	}
}

// embreeStrands is a curve set as Embree's Curves takes it (as the tracer
// gives it): vertices with their radii, and the neighbour flags of the
// joints that the BVH leaves uncapped.
func embreeStrands(c *scene.CurveSet) (vr []float32, flags []uint8) {
	for i, p := range c.Positions {
		vr = append(vr, p.X, p.Y, p.Z, c.Radii[i])
	}
	flags = make([]uint8, len(c.Segments))
	for i, first := range c.Segments {
		if c.Joins[i]&scene.JoinedPrev != 0 && i > 0 && c.Segments[i-1]+1 == first {
			flags[i] |= embree.NeighbourBefore
		}
	}
	return vr, flags
}

// segmentAlone is segment p of c, chained to nothing.
func segmentAlone(c *scene.CurveSet, p int) *scene.CurveSet {
	v := c.Segments[p]
	return &scene.CurveSet{Positions: c.Positions[v : v+2], Radii: c.Radii[v : v+2], Segments: []uint32{0}, Joins: []uint8{0}}
}

// randomStrands is a few strands of up to 12 segments: a scale from 10⁻³
// to 1, radii varying along them, segments from a tenth of the radius to
// 30 radii long, bent up to a fold back on themselves, some closed (their
// last point on their first), some far from the origin.
func randomStrands(rng *rand.Rand) *scene.CurveSet {
	c := &scene.CurveSet{Bounds: scene.EmptyBounds()}
	scale := float32(math.Pow(10, -3*rng.Float64()))
	var origin scene.Vec3
	if rng.IntN(4) == 0 {
		origin = randomUnit(rng).Scale(scale * float32(math.Pow(10, 1+3*rng.Float64())))
	}
	for s := 1 + rng.IntN(3); s > 0; s-- {
		n := 2 + rng.IntN(12)
		pts := make([]scene.Vec3, n)
		radii := make([]float32, n)
		pts[0] = origin.Add(randomUnit(rng).Scale(scale * 3 * rng.Float32()))
		dir := randomUnit(rng)
		bend := math.Pow(rng.Float64(), 2) * 2.9 // up to about 166° a joint
		for i := range pts {
			radii[i] = scale * (0.3 + 1.4*rng.Float32())
			if i == 0 {
				continue
			}
			dir = dir.Add(randomUnit(rng).Scale(float32(bend))).Normalize()
			pts[i] = pts[i-1].Add(dir.Scale(radii[i-1] * float32(math.Pow(10, -1+2.5*rng.Float64()))))
		}
		if n > 3 && rng.IntN(5) == 0 {
			pts[n-1], radii[n-1] = pts[0], radii[0]
		}
		c.AddStrand(pts, radii)
	}
	return c
}

func randomUnit(rng *rand.Rand) scene.Vec3 {
	for {
		d := scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1}
		if l := d.Dot(d); l > 0.01 && l <= 1 {
			return d.Normalize()
		}
	}
}

// strandCase makes a ray and a hit distance on segment p of the given
// kind; ok is false where none was found.
func strandCase(rng *rand.Rand, c *scene.CurveSet, p, kind int) (o, d scene.Vec3, t float32, ok bool) {
	v := c.Segments[p]
	a, b := c.Positions[v], c.Positions[v+1]
	ra, rb := c.Radii[v], c.Radii[v+1]
	r := max(ra, rb)
	axis := func(u float32) scene.Vec3 { return a.Add(b.Sub(a).Scale(u)) }
	u := rng.Float32()
	if kind == caseJoint {
		u = min(max(float32(rng.IntN(2))+(rng.Float32()-0.5)*2*r/max(b.Sub(a).Length(), r), 0), 1)
	}
	// A point on the surface: where a ray from outside, aimed at the
	// axis, enters the segment.
	from := axis(u).Add(randomUnit(rng).Scale(4 * r))
	h, hit := intersectSweptSphere(from, axis(u).Sub(from), a, b, ra, rb, true, 0, 1)
	if !hit {
		return o, d, 0, false
	}
	x := from.Add(axis(u).Sub(from).Scale(h.T))
	normal := x.Sub(axis(h.U)).Normalize()
	// Just inside or outside it, from far off a tolerance to well within it.
	if kind != caseTraced && rng.IntN(3) > 0 {
		x = x.Add(normal.Scale(r * float32((rng.Float64()*2-1)*math.Pow(10, -7+6*rng.Float64()))))
	}
	switch kind {
	case caseTraced:
		o = from.Add(randomUnit(rng).Scale(2 * r * rng.Float32()))
		d = axis(rng.Float32()).Sub(o)
		h, hit := intersectSweptSphere(o, d, a, b, ra, rb, c.Joins[p]&scene.JoinedPrev == 0, 0, float32(math.Inf(1)))
		if !hit {
			return o, d, 0, false
		}
		return o, d, h.T, true
	case caseInside:
		q := p + rng.IntN(3) - 1 // p or a segment next to it, chained or not
		q = min(max(q, 0), len(c.Segments)-1)
		w := c.Segments[q]
		uq := rng.Float32()
		o = c.Positions[w].Add(c.Positions[w+1].Sub(c.Positions[w]).Scale(uq)).
			Add(randomUnit(rng).Scale(rng.Float32() * min(c.Radii[w], c.Radii[w+1])))
	case caseGrazing:
		tangent := normal.Cross(randomUnit(rng)).Normalize()
		o = x.Sub(tangent.Scale(r * (0.01 + 10*rng.Float32())))
	default:
		o = x.Add(randomUnit(rng).Scale(r * float32(math.Pow(10, -2+3*rng.Float64()))))
	}
	d = x.Sub(o)
	l := d.Length()
	if !(l > 0) {
		return o, d, 0, false
	}
	s := float32(math.Pow(10, 2*rng.Float64()-1)) // directions of any length: t is in their units
	d = d.Scale(s / l)
	return o, d, l / s, true
}
