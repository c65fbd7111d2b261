package render

import (
	"math"
	"math/bits"
	"slices"

	"sertrace/render/layout"
	"sertrace/scene"
)

// LightBounds bound a light, or a set of lights, for the light tree: where
// they are, their power, the cone their normals lie in (axis and θo) and
// how far from its normal each emits (θe), as pbrt-v4's LightBounds and
// Estevez and Kulla's "Importance sampling of many lights with adaptive
// tree splitting" (2018) bound them.
type LightBounds struct {
	Box      scene.Bounds
	Phi      float64
	Axis     [3]float64 // unit
	CosO     float64    // −1: every direction
	CosE     float64
	TwoSided bool
	// Planar: the lights are one-sided and lie in the plane of points x
	// with Axis·x = Plane, emitting toward +Axis, so that no point on its
	// other side receives any of their light (a triangle, a flat panel).
	Planar bool
	Plane  float64
}

// Union is the bounds of the lights of b and c together.
func (b LightBounds) Union(c LightBounds) LightBounds {
	u := LightBounds{Box: b.Box, Phi: b.Phi + c.Phi, CosE: min(b.CosE, c.CosE), TwoSided: b.TwoSided || c.TwoSided}
	u.Box.Union(c.Box)
	u.Axis, u.CosO = unionCone(b.Axis, b.CosO, c.Axis, c.CosO)
	// Coplanar one-sided lights stay planar: their normals agree to
	// rounding and so do their planes, the lower kept (child widens it).
	if b.Planar && c.Planar && dot3(b.Axis, c.Axis) >= 1-1e-12 {
		far := float64(max(b.Box.Max.Sub(b.Box.Min).Length(), c.Box.Max.Sub(c.Box.Min).Length(), 1))
		for k := range 3 {
			far = max(far, math.Abs(float64(u.Box.Min.At(k))), math.Abs(float64(u.Box.Max.At(k))))
		}
		if math.Abs(b.Plane-c.Plane) <= 1e-6*far {
			u.Planar, u.Plane = true, min(b.Plane, c.Plane)
		}
	}
	return u
}

// unionCone is the narrowest cone (axis, cos θ) about the cones a and b
// that holds both, widened a little against rounding.
func unionCone(a [3]float64, cosA float64, b [3]float64, cosB float64) ([3]float64, float64) {
	thA, thB := math.Acos(clamp1(cosA)), math.Acos(clamp1(cosB))
	if thB > thA {
		a, b, thA, thB = b, a, thB, thA
	}
	thD := math.Acos(clamp1(dot3(a, b)))
	if min(thD+thB, math.Pi) <= thA {
		return a, math.Cos(thA) // a holds b
	}
	thO := (thA + thD + thB) / 2
	w := cross3(a, b)
	wl := math.Sqrt(dot3(w, w))
	if thO >= math.Pi || wl == 0 {
		return a, -1
	}
	// Turn a toward b by θo − θa, about a × b (Rodrigues; w ⊥ a).
	s, c := math.Sincos(thO - thA)
	w = [3]float64{w[0] / wl, w[1] / wl, w[2] / wl}
	wa := cross3(w, a)
	axis := [3]float64{a[0]*c + wa[0]*s, a[1]*c + wa[1]*s, a[2]*c + wa[2]*s}
	l := math.Sqrt(dot3(axis, axis))
	return [3]float64{axis[0] / l, axis[1] / l, axis[2] / l}, max(math.Cos(thO)-1e-6, -1)
}

func clamp1(v float64) float64     { return max(-1, min(1, v)) }
func dot3(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// orientationMeasure is M_Ω of Estevez and Kulla for normals within θo
// of an axis, each emitting within θe: the integral over the directions
// about the axis of the cosine-weighted emission they allow.
func orientationMeasure(cosO, cosE float64) float64 {
	thO, thE := math.Acos(clamp1(cosO)), math.Acos(clamp1(cosE))
	thW := min(thO+thE, math.Pi)
	sinO := math.Sqrt(max(0, 1-cosO*cosO))
	return 2*math.Pi*(1-cosO) + math.Pi/2*(2*thW*sinO-math.Cos(thO-2*thW)-2*thO*sinO+cosO)
}

// cosSum is cos(α + β) of angles in [0, π] given by their cosines, or −1
// where α + β reaches π.
func cosSum(cosA, cosB float64) float64 {
	switch {
	case cosA <= -cosB:
		return -1
	case cosB >= 1: // (a triangle's cone: its normal)
		return cosA
	}
	return cosA*cosB - math.Sqrt(max(0, 1-cosA*cosA))*math.Sqrt(max(0, 1-cosB*cosB))
}

// lightTreeBuckets is how many bins of centroids each axis is cut into
// to find a node's split.
const lightTreeBuckets = 12

// lightTreeBuilder builds the light tree over the bounded lights of a table.
type lightTreeBuilder struct {
	bounds    []LightBounds // per entry
	centroids []scene.Vec3  // per entry: its box's centre
	nodes     []layout.LightNode
	trails    []uint32 // per entry
	phi       float64  // the root's power, which children's are relative to
	inBucket  []uint8  // split's scratch: per light of the node, its bucket
}

// BuildLightTree builds the light tree over the entries listed in lights
// (two at least), of bounds bounds (indexed by entry): its interior nodes
// depth first, the root first, and each entry's trail from the root (0 for
// those not in the tree). Splits minimise the surface area and orientation
// cost of Estevez and Kulla (pbrt-v4's), in 12 buckets an axis; where a
// split would take a subtree past layout.LightTreeDepth levels, it halves
// its lights by count instead, so no trail overflows.
func BuildLightTree(bounds []LightBounds, lights []int32) (nodes []layout.LightNode, trails []uint32) {
	b := &lightTreeBuilder{bounds: bounds, centroids: make([]scene.Vec3, len(bounds)), trails: make([]uint32, len(bounds)),
		inBucket: make([]uint8, len(lights))}
	if len(lights) < 2 {
		return nil, b.trails
	}
	for _, k := range lights {
		b.phi += bounds[k].Phi
		b.centroids[k] = bounds[k].Box.Center()
	}
	b.nodes = make([]layout.LightNode, 0, len(lights)-1)
	b.build(slices.Clone(lights), 0, 0)
	return b.nodes, b.trails
}

// build adds the subtree over lights, at depth depth on the way trail,
// and returns its bounds and the child that stands for it.
func (b *lightTreeBuilder) build(lights []int32, depth int, trail uint32) (LightBounds, layout.LightChild) {
	if len(lights) == 1 {
		k := lights[0]
		b.trails[k] = trail
		return b.bounds[k], b.child(&b.bounds[k], uint32(k), layout.LightChildLeaf)
	}
	at := len(b.nodes)
	b.nodes = append(b.nodes, layout.LightNode{})
	mid := b.split(lights, depth)
	la, a := b.build(lights[:mid], depth+1, trail)
	lb, c := b.build(lights[mid:], depth+1, trail|1<<depth)
	b.nodes[at] = layout.LightNode{A: a, B: c}
	u := la.Union(lb)
	return u, b.child(&u, uint32(at), 0)
}

// child is the tree's child of bounds lb.
func (b *lightTreeBuilder) child(lb *LightBounds, next, flags uint32) layout.LightChild {
	if lb.TwoSided {
		flags |= layout.LightChildTwoSided
	}
	// The box's bounding sphere, in float64 and a little wider: it must
	// hold every point of the lights for the importance to be conservative.
	var c [3]float64
	var r2, far float64
	for k := range 3 {
		lo, hi := float64(lb.Box.Min.At(k)), float64(lb.Box.Max.At(k))
		c[k] = (lo + hi) / 2
		r2 += (hi - lo) * (hi - lo) / 4
		far = max(far, math.Abs(lo), math.Abs(hi))
	}
	r := math.Sqrt(r2)*(1+1e-6) + 1e-6*far // the centre and the radius rounded to float32 still hold the box
	if lb.Planar {
		// The centre moved onto the lights' plane, and a margin behind it:
		// the sphere still holds them (their points are in the plane, so
		// moving the centre along its normal only brings it nearer), and
		// LightImportance finds nothing only on the far side of the
		// margin, whatever the rounding of the plane, the axis or the
		// centre to float32.
		margin := 1e-5 * (far + r)
		off := dot3(lb.Axis, c) - lb.Plane + margin
		for k := range 3 {
			c[k] -= off * lb.Axis[k]
		}
		r += margin
		flags |= layout.LightChildPlanar
	}
	return layout.LightChild{Center: scene.Vec3{X: float32(c[0]), Y: float32(c[1]), Z: float32(c[2])}, Radius: float32(r),
		Phi:  float32(lb.Phi / b.phi),
		Axis: scene.Vec3{X: float32(lb.Axis[0]), Y: float32(lb.Axis[1]), Z: float32(lb.Axis[2])},
		CosO: float32(lb.CosO), SinO: float32(math.Sqrt(max(0, 1-lb.CosO*lb.CosO))), CosE: float32(lb.CosE), Next: next, Flags: flags}
}

// lightBucket gathers lights for a split's cost: their box, power, the
// sum of their axes (their cone's axis), their widest emission, and the
// cone about the axis that holds their normals' cones.
type lightBucket struct {
	box        scene.Bounds
	phi        float64
	axes, axis [3]float64
	cosO, cosE float64
	n          int
}

// add adds light bounds lb to the bucket: a bucket of one light merged.
func (g *lightBucket) add(lb *LightBounds) {
	g.merge(&lightBucket{box: lb.Box, phi: lb.Phi, axes: lb.Axis, cosE: lb.CosE, n: 1})
}

// merge adds bucket h to g (its cone left to settle).
func (g *lightBucket) merge(h *lightBucket) {
	if h.n == 0 {
		return
	}
	if g.n == 0 {
		g.box, g.cosE = h.box, h.cosE
	}
	g.box.Union(h.box)
	g.phi += h.phi
	for k := range 3 {
		g.axes[k] += h.axes[k]
	}
	g.cosE = min(g.cosE, h.cosE)
	g.n += h.n
}

// settle sets the cone's axis to the mean of the axes added, and opens
// it to hold every normal whose cone has cosine cosO about axis.
func (g *lightBucket) settle() {
	l := math.Sqrt(dot3(g.axes, g.axes))
	g.axis, g.cosO = [3]float64{0, 0, 1}, 1
	if l > 0 {
		g.axis = [3]float64{g.axes[0] / l, g.axes[1] / l, g.axes[2] / l}
	}
}

// hold opens the cone to hold a cone (axis, cosO).
func (g *lightBucket) hold(axis [3]float64, cosO float64) {
	g.cosO = min(g.cosO, cosSum(dot3(g.axis, axis), cosO))
}

// cost is the bucket's share of a split's cost: power × orientation
// measure × surface area (an area of 0, for lights at one point, counts
// as a tiny one so their power still weighs).
func (g *lightBucket) cost() float64 {
	d := g.box.Max.Sub(g.box.Min)
	area := 2 * float64(d.X*d.Y+d.Y*d.Z+d.Z*d.X)
	return g.phi * orientationMeasure(g.cosO, g.cosE) * max(area, 1e-12)
}

// split orders lights into the two children's and returns where the
// second's start: at the cheapest bucket boundary of the axis where their
// centroids spread, or by count where there is none or depth runs out.
// A bucket's cone, and a side's, is about the mean of its axes (not the
// narrowest, which costs arccosines a light).
func (b *lightTreeBuilder) split(lights []int32, depth int) int {
	cb, box := scene.EmptyBounds(), scene.EmptyBounds()
	for _, k := range lights {
		cb.Extend(b.centroids[k])
		box.Union(b.bounds[k].Box)
	}
	ext := cb.Max.Sub(cb.Min)
	axis := 0
	if ext.Y > ext.At(axis) {
		axis = 1
	}
	if ext.Z > ext.At(axis) {
		axis = 2
	}
	byCount := func() int {
		slices.SortFunc(lights, func(x, y int32) int {
			cx, cy := b.centroids[x].At(axis), b.centroids[y].At(axis)
			switch {
			case cx < cy:
				return -1
			case cx > cy:
				return 1
			}
			return int(x - y)
		})
		return len(lights) / 2
	}
	if !(ext.At(axis) > 0) || len(lights) == 2 { // (two lights split one way)
		return byCount()
	}
	diag := box.Max.Sub(box.Min)
	maxExt := max(diag.X, diag.Y, diag.Z)
	inBucket := b.inBucket[:len(lights)]
	bestCost, bestAxis, bestCut := math.Inf(1), -1, 0
	for a := 0; a < 3; a++ {
		if !(ext.At(a) > 0) {
			continue
		}
		var buckets [lightTreeBuckets]lightBucket
		for j, k := range lights {
			i := bucketOf(b.centroids[k].At(a), cb, a)
			inBucket[j] = uint8(i)
			buckets[i].add(&b.bounds[k])
		}
		for i := range buckets {
			buckets[i].settle()
		}
		for j, k := range lights {
			buckets[inBucket[j]].hold(b.bounds[k].Axis, b.bounds[k].CosO)
		}
		// The buckets below each cut and above it, gathered once.
		var below, above [lightTreeBuckets + 1]lightBucket
		for i := range lightTreeBuckets {
			below[i+1] = below[i]
			below[i+1].merge(&buckets[i])
			j := lightTreeBuckets - 1 - i
			above[j] = above[j+1]
			above[j].merge(&buckets[j])
		}
		// Kr favours cutting across the node's long side.
		kr := float64(maxExt / max(diag.At(a), 1e-20*maxExt))
		for cut := 1; cut < lightTreeBuckets; cut++ {
			lo, hi := below[cut], above[cut]
			if lo.n == 0 || hi.n == 0 || buckets[cut-1].n == 0 {
				continue // (a cut after an empty bucket repeats the one before it)
			}
			lo.settle()
			hi.settle()
			for i := range buckets {
				if side := &hi; buckets[i].n > 0 {
					if i < cut {
						side = &lo
					}
					side.hold(buckets[i].axis, buckets[i].cosO)
				}
			}
			if cost := kr * (lo.cost() + hi.cost()); cost < bestCost {
				bestCost, bestAxis, bestCut = cost, a, cut
			}
		}
	}
	if bestAxis < 0 {
		return byCount()
	}
	mid := 0
	for i, k := range lights {
		if bucketOf(b.centroids[k].At(bestAxis), cb, bestAxis) < bestCut {
			lights[mid], lights[i] = lights[i], lights[mid]
			mid++
		}
	}
	// Each child must fit its lights in the levels left.
	if depth+1+bits.Len(uint(max(mid, len(lights)-mid)-1)) > layout.LightTreeDepth {
		return byCount()
	}
	return mid
}

// bucketOf is the bucket of centroid coordinate c on axis a of the
// centroids' bounds cb.
func bucketOf(c float32, cb scene.Bounds, a int) int {
	f := (c - cb.Min.At(a)) / (cb.Max.At(a) - cb.Min.At(a))
	return max(0, min(int(f*lightTreeBuckets), lightTreeBuckets-1))
}
