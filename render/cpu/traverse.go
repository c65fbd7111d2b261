package cpu

import (
	"math/bits"
	"unsafe"

	"golang.org/x/sys/cpu"

	"sertrace/scene"
)

// stackSize is a traversal stack's room: up to seven entries a level
// covers trees 13 levels deep (8-wide trees of billions of leaves); deeper
// ones spill to the heap.
const stackSize = 96

// traceStacks are the stacks of a ray's walk down the top level and, below
// one of its leaves, a geometry's tree; the batch calls reuse them from ray
// to ray (Go clears a new array, which cost a fifth of a walk).
type traceStacks struct {
	top, bottom [stackSize]stackEntry
}

// stackEntry is a node or a leaf to visit, with the distance where the ray
// enters its box, so entries that an earlier hit made too far are skipped.
type stackEntry struct {
	ref   int32 // inner: node index; leaf: first primitive
	count uint16
	tnear float32
}

// boxRay is a ray prepared for slab tests: the origin, the reciprocal of a
// direction whose zero components are nudged so no NaN can arise, the
// start of its interval, and per axis the byte offsets in a Node8 of the
// bounds it enters and leaves the slab by (Min's when it runs up the
// axis, Max's when down). hitBoxes8's assembly reads it at these offsets.
type boxRay struct {
	o, inv    scene.Vec3
	tmin      float32
	near, far [3]int64
}

// The layout the assembly reads.
var (
	_ [unsafe.Offsetof(boxRay{}.inv) - 12]struct{}
	_ [unsafe.Offsetof(boxRay{}.tmin) - 24]struct{}
	_ [unsafe.Offsetof(boxRay{}.near) - 32]struct{}
	_ [unsafe.Offsetof(boxRay{}.far) - 56]struct{}
	_ [unsafe.Offsetof(Node8{}.Max) - 3*nodeWidth*4]struct{}
)

func newBoxRay(o, d scene.Vec3, tmin float32) boxRay {
	inv := func(c float32) float32 {
		if c == 0 {
			c = 1e-30
		}
		return 1 / c
	}
	r := boxRay{o: o, inv: scene.Vec3{X: inv(d.X), Y: inv(d.Y), Z: inv(d.Z)}, tmin: tmin}
	const axis, maxOffset = nodeWidth * 4, 3 * nodeWidth * 4 // bytes
	offsets := func(a int64, inv float32) (near, far int64) {
		if inv < 0 {
			return maxOffset + a*axis, a * axis
		}
		return a * axis, maxOffset + a*axis
	}
	r.near[0], r.far[0] = offsets(0, r.inv.X)
	r.near[1], r.far[1] = offsets(1, r.inv.Y)
	r.near[2], r.far[2] = offsets(2, r.inv.Z)
	return r
}

// useBoxKernel says whether hitBoxes8's AVX2 kernel may run.
var useBoxKernel = hasBoxKernel && cpu.X86.HasAVX2

// hitBoxesGo is hitBoxes8 in Go, the same arithmetic in the same order
// (so both give the same bits): the slabs' entry and exit distances
// (bound − o)·inv, the interval [max of the entries and tmin, min of the
// exits and tmax], and the box is hit when it is not empty, its far end
// widened by a few ulps so rounding never loses a primitive lying on a
// box's face (Ize, "Robust BVH Ray Traversal"). The entry distances go
// into near; bit i of the result is child i's.
func hitBoxesGo(n *Node8, r *boxRay, tmax float32, near *[nodeWidth]float32) uint32 {
	bounds := (*[6 * nodeWidth]float32)(unsafe.Pointer(n))
	var mask uint32
	for i := 0; i < nodeWidth; i++ {
		nx := (bounds[int(r.near[0])/4+i] - r.o.X) * r.inv.X
		ny := (bounds[int(r.near[1])/4+i] - r.o.Y) * r.inv.Y
		nz := (bounds[int(r.near[2])/4+i] - r.o.Z) * r.inv.Z
		fx := (bounds[int(r.far[0])/4+i] - r.o.X) * r.inv.X
		fy := (bounds[int(r.far[1])/4+i] - r.o.Y) * r.inv.Y
		fz := (bounds[int(r.far[2])/4+i] - r.o.Z) * r.inv.Z
		tn := max(nx, ny, nz, r.tmin)
		tf := min(fx, fy, fz, tmax)
		near[i] = tn
		if tn <= tf*1.0000004 {
			mask |= 1 << i
		}
	}
	return mask
}

// Traverse visits, nearest first, every leaf whose box the ray enters in
// [r.tmin, *tmax]; leaf tests the primitives Prims[first:first+count], may
// shorten *tmax, and returns true to stop (an any-hit found an occluder).
// backing is the stack's room.
func (bvh *BVH) Traverse(r *boxRay, tmax *float32, backing *[stackSize]stackEntry, leaf func(first, count int) bool) {
	stack := append(backing[:0], stackEntry{ref: 0, tnear: r.tmin})
	var near [nodeWidth]float32
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e.tnear > *tmax {
			continue
		}
		// Down the tree, nearest child first, the others pushed, until a leaf.
		for e.count == 0 {
			n := &bvh.Nodes[e.ref]
			var mask uint32
			if useBoxKernel {
				mask = hitBoxes8(n, r, *tmax, &near)
			} else {
				mask = hitBoxesGo(n, r, *tmax, &near)
			}
			if mask == 0 {
				break
			}
			// The boxes hit, far to near on the stack; the nearest is taken
			// off again at once.
			base := len(stack)
			for ; mask != 0; mask &= mask - 1 {
				i := bits.TrailingZeros32(mask)
				c := stackEntry{ref: n.Child[i], count: n.Count[i], tnear: near[i]}
				stack = append(stack, c)
				for k := len(stack) - 1; k > base && stack[k-1].tnear < c.tnear; k-- {
					stack[k], stack[k-1] = stack[k-1], c
				}
			}
			e = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
		if e.count > 0 && leaf(int(e.ref), int(e.count)) {
			return
		}
	}
}
