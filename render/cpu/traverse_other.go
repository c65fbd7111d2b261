//go:build !amd64

package cpu

// hasKernels: there are no vector kernels for this architecture.
const hasKernels = false

func hitBoxes8(n *Node8, r *boxRay, tmax float32, near *[nodeWidth]float32) uint32 {
	panic("cpu: hitBoxes8 without a vector kernel")
}

func hitTriangles8(rows *float32, count int, r *triRay, tmin, tmax float32, out *triHits) (hits, retest, back uint32) {
	panic("cpu: hitTriangles8 without a vector kernel")
}
