package cpu

// hasBoxKernel: this architecture has hitBoxes8's AVX2 kernel.
const hasBoxKernel = true

// hitBoxes8 tests a ray against a node's eight boxes at once (AVX2): it
// is hitBoxesGo, the same arithmetic in the same order, eight lanes wide.
//
//go:noescape
func hitBoxes8(n *Node8, r *boxRay, tmax float32, near *[nodeWidth]float32) uint32
