package cpu

// hasKernels: this architecture has the AVX2 kernels hitBoxes8 and
// hitTriangles8.
const hasKernels = true

// hitBoxes8 tests a ray against a node's eight boxes at once (AVX2): it
// is hitBoxesGo, the same arithmetic in the same order, eight lanes wide.
//
//go:noescape
func hitBoxes8(n *Node8, r *boxRay, tmax float32, near *[nodeWidth]float32) uint32

// hitTriangles8 tests a sheared ray against a leaf's triangles at once
// (AVX2): intersectTriangle's arithmetic in its order, eight lanes wide,
// on the leaf's nine rows of count values from rows. It returns the lanes
// hit in (tmin, tmax), with their distances and barycentrics in out; the
// lanes with an edge function of exactly zero, which intersectTriangle
// decides in float64 and the caller tests again with it; and the lanes seen
// from behind. Lanes from count on are the rows' next values: the caller
// ignores them.
//
//go:noescape
func hitTriangles8(rows *float32, count int, r *triRay, tmin, tmax float32, out *triHits) (hits, retest, back uint32)
