package cpu

import (
	"math/bits"
	"unsafe"

	"sertrace/scene"
)

// A mesh's triangles are stored as its BVH's leaves hold them, ready for
// the test: each leaf's (at most eight) triangles together, their
// vertices' coordinates row by row (a row per vertex and axis, as long as
// the leaf has triangles), so that hitTriangles8 tests a leaf's triangles
// at once, as hitBoxes8 does a node's boxes, and reads no more memory than
// the triangles take.

// The kernel tests eight lanes; a leaf never holds more.
var _ [8 - maxLeaf]struct{}

// triangleLeaves are a mesh's triangles by leaf of its BVH: the leaf that
// starts at Prims[first] has its rows at rows[start[first]:], row 3j+a
// (coordinate a of vertex j) count long.
type triangleLeaves struct {
	rows  []float32 // eight more at the end: the kernel reads eight a row
	start []int32   // by the leaf's first index in the BVH's Prims
}

func newTriangleLeaves(bvh *BVH, m *scene.Mesh) *triangleLeaves {
	l := &triangleLeaves{start: make([]int32, len(bvh.Prims)), rows: make([]float32, 0, 9*len(bvh.Prims)+8)}
	for n := range bvh.Nodes {
		node := &bvh.Nodes[n]
		for i := 0; i < nodeWidth; i++ {
			count := int(node.Count[i])
			if count == 0 {
				continue
			}
			first := int(node.Child[i])
			l.start[first] = int32(len(l.rows))
			for r := 0; r < 9; r++ {
				for k := 0; k < count; k++ {
					v := m.Positions[m.Indices[3*int(bvh.Prims[first+k])+r/3]]
					l.rows = append(l.rows, v.At(r%3))
				}
			}
		}
	}
	l.rows = append(l.rows, make([]float32, 8)...)
	return l
}

// vertices are triangle k of the leaf of count triangles that starts at
// first.
func (l *triangleLeaves) vertices(first, count, k int) (v0, v1, v2 scene.Vec3) {
	r := l.rows[int(l.start[first])+k:]
	at := func(row int) float32 { return r[row*count] }
	return scene.Vec3{X: at(0), Y: at(1), Z: at(2)}, scene.Vec3{X: at(3), Y: at(4), Z: at(5)}, scene.Vec3{X: at(6), Y: at(7), Z: at(8)}
}

// triRay is a sheared ray as hitTriangles8 reads it: the origin's
// coordinates along kx, ky and kz, the shear, and the axes kx, ky, kz.
type triRay struct {
	ox, oy, oz float32
	sx, sy, sz float32
	kx, ky, kz int64
}

// The layout the assembly reads.
var (
	_ [unsafe.Offsetof(triRay{}.sx) - 12]struct{}
	_ [12 - unsafe.Offsetof(triRay{}.sx)]struct{}
	_ [unsafe.Offsetof(triRay{}.kx) - 24]struct{}
	_ [24 - unsafe.Offsetof(triRay{}.kx)]struct{}
	_ [unsafe.Offsetof(triRay{}.kz) - 40]struct{}
	_ [40 - unsafe.Offsetof(triRay{}.kz)]struct{}
)

func newTriRay(o scene.Vec3, s *shearedRay) triRay {
	kx, ky := (s.kz+1)%3, (s.kz+2)%3
	if s.swap {
		kx, ky = ky, kx
	}
	return triRay{ox: o.At(kx), oy: o.At(ky), oz: o.At(s.kz), sx: s.sx, sy: s.sy, sz: s.sz,
		kx: int64(kx), ky: int64(ky), kz: int64(s.kz)}
}

// triHits are the kernel's distances and barycentrics, per lane.
type triHits struct {
	t, u, v [8]float32
}

// test tests the count triangles of the leaf that starts at first: the
// lanes hit, with their distances and barycentrics in res, and those seen
// from behind; the same hits as intersectTriangle on each, which decides
// the lanes the kernel hands back (an edge function of zero in float32),
// and every lane where there is no kernel.
func (l *triangleLeaves) test(first, count int, o scene.Vec3, s *shearedRay, tr *triRay, tmin, tmax float32, res *triHits) (hits, backs uint32) {
	lanes := uint32(1)<<count - 1
	retest := lanes
	if useKernels {
		hits, retest, backs = hitTriangles8(&l.rows[l.start[first]], count, tr, tmin, tmax, res)
		hits &= lanes
		retest &= lanes
	}
	for ; retest != 0; retest &= retest - 1 {
		k := bits.TrailingZeros32(retest)
		v0, v1, v2 := l.vertices(first, count, k)
		if t, u, v, back, ok := intersectTriangle(o, s, v0, v1, v2, tmin, tmax); ok {
			res.t[k], res.u[k], res.v[k] = t, u, v
			hits |= 1 << k
			backs &^= 1 << k
			if back {
				backs |= 1 << k
			}
		}
	}
	return hits, backs
}

// nearestLane is the lane of hits with the least distance, the lowest of
// equals (as a loop in lane order keeps the first).
func nearestLane(hits uint32, t *[8]float32) int {
	k := bits.TrailingZeros32(hits)
	for m := hits &^ (1 << k); m != 0; m &= m - 1 {
		if j := bits.TrailingZeros32(m); t[j] < t[k] {
			k = j
		}
	}
	return k
}
