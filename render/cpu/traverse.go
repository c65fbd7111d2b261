package cpu

import (
	"math"
	"math/bits"
	"unsafe"

	"golang.org/x/sys/cpu"

	"sertrace/scene"
)

// stackSize is a walk's stack: a level pushes the (at most eight) children
// it enters and takes one.
const stackSize = (nodeWidth-1)*maxDepth + nodeWidth

// traceStacks are the walks of a ray down the top level and, below one of
// its leaves, down a geometry's tree; the batch calls reuse them from ray
// to ray (Go clears a new array, which cost a fifth of a walk).
type traceStacks struct {
	top, bottom walk
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

// The layout the assembly reads (each offset neither less nor more).
var (
	_ [unsafe.Offsetof(boxRay{}.inv) - 12]struct{}
	_ [12 - unsafe.Offsetof(boxRay{}.inv)]struct{}
	_ [unsafe.Offsetof(boxRay{}.tmin) - 24]struct{}
	_ [24 - unsafe.Offsetof(boxRay{}.tmin)]struct{}
	_ [unsafe.Offsetof(boxRay{}.near) - 32]struct{}
	_ [32 - unsafe.Offsetof(boxRay{}.near)]struct{}
	_ [unsafe.Offsetof(boxRay{}.far) - 56]struct{}
	_ [56 - unsafe.Offsetof(boxRay{}.far)]struct{}
	_ [unsafe.Offsetof(Node8{}.Max) - 3*nodeWidth*4]struct{}
	_ [3*nodeWidth*4 - unsafe.Offsetof(Node8{}.Max)]struct{}
)

func newBoxRay(o, d scene.Vec3, tmin float32) boxRay {
	inv := func(c float32) float32 {
		// A tiny component keeps a finite reciprocal: 1/denormal overflows
		// to infinity, and 0·∞ is NaN for a box face through the origin.
		if c < 1e-30 && c > -1e-30 {
			c = float32(math.Copysign(1e-30, float64(c)))
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

// useKernels says whether the AVX2 kernels hitBoxes8 and hitTriangles8
// may run.
var useKernels = hasKernels && cpu.X86.HasAVX2

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

// walk is a ray's way down a BVH, nearest leaf first: next gives the
// leaves one by one, and the caller tests their primitives in its own loop
// (no call through a closure per leaf). It holds its stack in itself, by
// index, and no pointer to its caller's variables (the compiler would move
// them to the heap).
type walk struct {
	bvh   *BVH
	n     int // entries on the stack
	stack [stackSize]stackEntry
	near  [nodeWidth]float32
}

// start sets the walk at bvh's root, for a ray that starts at tmin.
func (w *walk) start(bvh *BVH, tmin float32) {
	w.bvh, w.n = bvh, 1
	w.stack[0] = stackEntry{ref: 0, tnear: tmin}
}

// next is the next leaf whose box the ray r enters in [r.tmin, tmax], the
// nearest first (tmax may have shrunk since the last leaf): the index in
// Prims of its first primitive and their count; ok is false when no leaf
// is left.
func (w *walk) next(r *boxRay, tmax float32) (first, count int, ok bool) {
	for w.n > 0 {
		w.n--
		e := w.stack[w.n]
		if e.tnear > tmax {
			continue
		}
		// Down the tree, nearest child first, the others pushed, until a leaf.
		for e.count == 0 {
			n := &w.bvh.Nodes[e.ref]
			var mask uint32
			if useKernels {
				mask = hitBoxes8(n, r, tmax, &w.near)
			} else {
				mask = hitBoxesGo(n, r, tmax, &w.near)
			}
			if mask == 0 {
				break
			}
			// The boxes hit, far to near on the stack; the nearest is taken
			// off again at once.
			base := w.n
			for ; mask != 0; mask &= mask - 1 {
				// (An empty slot's box, +∞ to −∞, is never hit, by a NaN
				// ray neither: TestBoxKernel.)
				i := bits.TrailingZeros32(mask)
				c := stackEntry{ref: n.Child[i], count: n.Count[i], tnear: w.near[i]}
				k := w.n
				for ; k > base && w.stack[k-1].tnear < c.tnear; k-- {
					w.stack[k] = w.stack[k-1]
				}
				w.stack[k] = c
				w.n++
			}
			w.n--
			e = w.stack[w.n]
		}
		if e.count > 0 {
			return int(e.ref), int(e.count), true
		}
	}
	return 0, 0, false
}
