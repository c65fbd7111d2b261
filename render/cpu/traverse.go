package cpu

import "sertrace/scene"

// stackSize is the traversal stack that lives on the goroutine's stack:
// three entries per level covers trees 20 levels deep (a million leaves of
// a balanced 4-wide tree); deeper ones spill to the heap.
const stackSize = 64

// stackEntry is a node or a leaf to visit, with the distance where the ray
// enters its box, so entries that an earlier hit made too far are skipped.
type stackEntry struct {
	ref   int32 // inner: node index; leaf: first primitive
	count uint16
	tnear float32
}

// boxRay is a ray prepared for slab tests: the origin and the reciprocal of
// a direction whose zero components are nudged so no NaN can arise.
type boxRay struct {
	o, inv scene.Vec3
}

func newBoxRay(o, d scene.Vec3) boxRay {
	inv := func(c float32) float32 {
		if c == 0 {
			c = 1e-30
		}
		return 1 / c
	}
	return boxRay{o: o, inv: scene.Vec3{X: inv(d.X), Y: inv(d.Y), Z: inv(d.Z)}}
}

// Traverse visits, nearest first, every leaf whose box the ray enters in
// [tmin, *tmax]; leaf tests the primitives Prims[first:first+count], may
// shorten *tmax, and returns true to stop (an any-hit found an occluder).
func (bvh *BVH) Traverse(r *boxRay, tmin float32, tmax *float32, leaf func(first, count int) bool) {
	var backing [stackSize]stackEntry
	stack := append(backing[:0], stackEntry{ref: 0, tnear: tmin})
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e.tnear > *tmax {
			continue
		}
		if e.count > 0 {
			if leaf(int(e.ref), int(e.count)) {
				return
			}
			continue
		}
		n := &bvh.Nodes[e.ref]
		// Test the four boxes; collect the hits, then push them far to near.
		var hit [4]stackEntry
		nh := 0
		for i := 0; i < 4; i++ {
			if n.Child[i] < 0 && n.Count[i] == 0 {
				continue
			}
			t0x, t1x := (n.Min[0][i]-r.o.X)*r.inv.X, (n.Max[0][i]-r.o.X)*r.inv.X
			t0y, t1y := (n.Min[1][i]-r.o.Y)*r.inv.Y, (n.Max[1][i]-r.o.Y)*r.inv.Y
			t0z, t1z := (n.Min[2][i]-r.o.Z)*r.inv.Z, (n.Max[2][i]-r.o.Z)*r.inv.Z
			near := max(min(t0x, t1x), min(t0y, t1y), min(t0z, t1z), tmin)
			far := min(max(t0x, t1x), max(t0y, t1y), max(t0z, t1z), *tmax)
			// Widen the far end by a few ulps so rounding never loses a
			// primitive lying on a box's face (Ize, "Robust BVH Ray Traversal").
			if near > far*1.0000004 {
				continue
			}
			// Insertion keeps hit sorted by decreasing distance.
			k := nh
			for k > 0 && hit[k-1].tnear < near {
				hit[k] = hit[k-1]
				k--
			}
			hit[k] = stackEntry{ref: n.Child[i], count: n.Count[i], tnear: near}
			nh++
		}
		stack = append(stack, hit[:nh]...)
	}
}
