package cpu

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"sertrace/scene"
)

// BVH is an 8-wide bounding volume hierarchy, flattened: each node holds its
// eight children's boxes together (per axis, per child) so that one node
// visit tests the eight boxes at once (an AVX2 kernel, or a plain loop). It
// is built over anything with boxes: triangles, spheres, swept-sphere
// segments, instances.
type BVH struct {
	Nodes []Node8
	// Prims lists primitive indices in leaf order; a leaf is a run of it.
	Prims []uint32
}

// Node8 is one node: for child i, its box is (Min[a][i], Max[a][i]) on axis a;
// Count[i] > 0 makes it a leaf of Prims[Child[i] : Child[i]+Count[i]];
// Count[i] == 0 makes Child[i] an inner node, or nothing when Child[i] < 0
// (its box then empty: +Inf to −Inf). The boxes come first, each axis's
// eight bounds together, as the kernel loads them.
type Node8 struct {
	Min, Max [3][nodeWidth]float32
	Child    [nodeWidth]int32
	Count    [nodeWidth]uint16
}

// nodeWidth is how many children a node has.
const nodeWidth = 8

// Build limits: leaves of at most maxLeaf primitives, 16 bins per axis for
// the surface area heuristic, and parallel subtrees above parallelMin.
const (
	maxLeaf      = 8
	sahBins      = 16
	parallelMin  = 1 << 14
	traversalSAH = 1.0 // cost of a node visit, relative to a primitive test
)

// buildPrim is a primitive's box and centre, as the builder sorts them.
type buildPrim struct {
	lo, hi scene.Vec3
	c      scene.Vec3
	index  uint32
}

// BuildBVH builds a BVH over n primitives whose boxes bound(i) gives;
// primitives with empty or non-finite boxes are left out (nothing can hit
// them). The build splits by the binned surface area heuristic and runs
// large subtrees in parallel.
func BuildBVH(n int, bound func(i int) scene.Bounds) *BVH {
	prims := make([]buildPrim, 0, n)
	for i := 0; i < n; i++ {
		b := bound(i)
		if b.Empty() || !b.Min.Finite() || !b.Max.Finite() {
			continue
		}
		prims = append(prims, buildPrim{lo: b.Min, hi: b.Max, c: b.Center(), index: uint32(i)})
	}
	bvh := &BVH{Prims: make([]uint32, len(prims))}
	if len(prims) == 0 {
		bvh.Nodes = []Node8{emptyNode()}
		return bvh
	}
	// A tree over n primitives has fewer than n inner nodes; the root is
	// node 0 even when it is one leaf.
	b := &builder{nodes: make([]Node8, len(prims)+1), prims: prims}
	b.next.Store(1)
	b.sem = make(chan struct{}, runtime.GOMAXPROCS(0))
	b.node(0, 0, len(prims), 0)
	b.wg.Wait()
	bvh.Nodes = b.nodes[:b.next.Load()]
	for i, p := range prims {
		bvh.Prims[i] = p.index
	}
	return bvh
}

func emptyNode() Node8 {
	n := Node8{}
	for i := range n.Child {
		n.Child[i] = -1
	}
	for a := 0; a < 3; a++ {
		for i := 0; i < nodeWidth; i++ {
			n.Min[a][i], n.Max[a][i] = float32(math.Inf(1)), float32(math.Inf(-1))
		}
	}
	return n
}

type builder struct {
	nodes []Node8
	prims []buildPrim
	next  atomic.Int32
	wg    sync.WaitGroup
	sem   chan struct{}
}

// span is a run of prims [lo, hi) with its box and its best SAH split.
type span struct {
	lo, hi   int
	box      scene.Bounds
	axis     int // −1: no spatial split (all centres coincide)
	boundary float32
	split    bool // splitting pays for itself (or the run is too big for a leaf)
}

func (b *builder) bounds(lo, hi int) scene.Bounds {
	box := scene.EmptyBounds()
	for _, p := range b.prims[lo:hi] {
		box.Min, box.Max = box.Min.Min(p.lo), box.Max.Max(p.hi)
	}
	return box
}

// plan makes the span of [lo, hi), with its split chosen once.
func (b *builder) plan(lo, hi int) span {
	s := span{lo: lo, hi: hi, box: b.bounds(lo, hi), axis: -1}
	if hi-lo < 2 {
		return s
	}
	var cost float32
	s.axis, s.boundary, cost = b.bestSplit(lo, hi)
	s.split = hi-lo > maxLeaf || cost+traversalSAH*surfaceArea(s.box) < float32(hi-lo)*surfaceArea(s.box)
	return s
}

// node fills node index with up to nodeWidth children made from prims
// [lo, hi): it splits the child with the largest surface area until there
// are nodeWidth or none can be split with profit.
func (b *builder) node(index int32, lo, hi, depth int) {
	kids := []span{b.plan(lo, hi)}
	for len(kids) < nodeWidth {
		best, area := -1, float32(-1)
		for i, k := range kids {
			if a := surfaceArea(k.box); k.split && a > area {
				best, area = i, a
			}
		}
		if best < 0 {
			break
		}
		k := kids[best]
		mid := b.partition(k, depth)
		kids[best] = b.plan(k.lo, mid)
		kids = append(kids, b.plan(mid, k.hi))
	}
	// A root that stays one leaf is still an inner node over it, so
	// traversal meets one shape.
	b.fill(index, kids, depth)
}

// fill writes the children into node index, recursing (in parallel for big
// subtrees) into those that are too large to be leaves.
func (b *builder) fill(index int32, kids []span, depth int) {
	n := emptyNode()
	for i, k := range kids {
		for a := 0; a < 3; a++ {
			n.Min[a][i], n.Max[a][i] = k.box.Min.At(a), k.box.Max.At(a)
		}
		if k.hi-k.lo <= maxLeaf {
			n.Child[i], n.Count[i] = int32(k.lo), uint16(k.hi-k.lo)
			continue
		}
		child := b.next.Add(1) - 1
		n.Child[i] = child
		if k.hi-k.lo >= parallelMin {
			select {
			case b.sem <- struct{}{}:
				b.wg.Add(1)
				go func(k span) {
					defer func() { <-b.sem; b.wg.Done() }()
					b.node(child, k.lo, k.hi, depth+1)
				}(k)
				continue
			default:
			}
		}
		b.node(child, k.lo, k.hi, depth+1)
	}
	b.nodes[index] = n
}

func surfaceArea(b scene.Bounds) float32 {
	d := b.Max.Sub(b.Min)
	return 2 * (d.X*d.Y + d.Y*d.Z + d.Z*d.X)
}

// bestSplit finds the binned-SAH split of [lo, hi): the axis, the bin
// boundary, and its cost (areas times counts, unnormalised), binning all
// three axes in one pass over the primitives.
func (b *builder) bestSplit(lo, hi int) (axis int, boundary float32, cost float32) {
	cb := scene.EmptyBounds()
	for _, p := range b.prims[lo:hi] {
		cb.Extend(p.c)
	}
	type bin struct {
		box   scene.Bounds
		count int
	}
	var bins [3][sahBins]bin
	var scale [3]float32
	for a := 0; a < 3; a++ {
		for i := range bins[a] {
			bins[a][i].box = scene.EmptyBounds()
		}
		if extent := cb.Max.At(a) - cb.Min.At(a); extent > 0 {
			scale[a] = sahBins / extent
		}
	}
	for _, p := range b.prims[lo:hi] {
		for a := 0; a < 3; a++ {
			k := min(int((p.c.At(a)-cb.Min.At(a))*scale[a]), sahBins-1)
			bn := &bins[a][k]
			bn.count++
			bn.box.Min, bn.box.Max = bn.box.Min.Min(p.lo), bn.box.Max.Max(p.hi)
		}
	}
	cost, axis = float32(math.Inf(1)), -1
	for a := 0; a < 3; a++ {
		if scale[a] == 0 {
			continue
		}
		// Sweep from the right, then from the left.
		var rightArea [sahBins]float32
		var rightCount [sahBins]int
		acc, cnt := scene.EmptyBounds(), 0
		for i := sahBins - 1; i > 0; i-- {
			acc.Union(bins[a][i].box)
			cnt += bins[a][i].count
			rightArea[i], rightCount[i] = surfaceArea(acc), cnt
		}
		acc, cnt = scene.EmptyBounds(), 0
		for i := 0; i < sahBins-1; i++ {
			acc.Union(bins[a][i].box)
			cnt += bins[a][i].count
			if cnt == 0 || rightCount[i+1] == 0 {
				continue
			}
			if c := surfaceArea(acc)*float32(cnt) + rightArea[i+1]*float32(rightCount[i+1]); c < cost {
				axis, boundary, cost = a, cb.Min.At(a)+float32(i+1)/scale[a], c
			}
		}
	}
	return axis, boundary, cost
}

// maxSAHDepth is the depth below which splits are balanced (by count)
// rather than by SAH, so that adversarial input cannot make the tree as deep
// as it has primitives; traversal's stack is sized for it.
const maxSAHDepth = 48

// maxDepth bounds a tree's depth: past maxSAHDepth every level at least
// halves its primitives, and there are fewer than 2^33.
const maxDepth = maxSAHDepth + 34

// partition splits span k's prims and returns the index of the second half:
// by its SAH split, or, deep in the tree or when every centre coincides, at
// the median along the widest axis of the centres.
func (b *builder) partition(k span, depth int) int {
	lo, hi, axis, boundary := k.lo, k.hi, k.axis, k.boundary
	if depth > maxSAHDepth {
		axis = -1
	}
	if axis >= 0 {
		i, j := lo, hi-1
		for i <= j {
			if b.prims[i].c.At(axis) < boundary {
				i++
			} else {
				b.prims[i], b.prims[j] = b.prims[j], b.prims[i]
				j--
			}
		}
		if i > lo && i < hi {
			return i
		}
	}
	cb := scene.EmptyBounds()
	for _, p := range b.prims[lo:hi] {
		cb.Extend(p.c)
	}
	d := cb.Max.Sub(cb.Min)
	axis = 0
	if d.Y > d.At(axis) {
		axis = 1
	}
	if d.Z > d.At(axis) {
		axis = 2
	}
	mid := (lo + hi) / 2
	run := b.prims[lo:hi]
	slices.SortFunc(run, func(p, q buildPrim) int { return cmp.Compare(p.c.At(axis), q.c.At(axis)) })
	return mid
}
