package embree

// The any-hit callback that Embree's filter (C) calls into Go; a file of
// its own, since a file with an export may only declare in its preamble.

// #include <stdint.h>
import "C"

import "runtime/cgo"

//export sertraceEmbreeAnyHit
func sertraceEmbreeAnyHit(handle C.uintptr_t, inst, prim C.uint, u, v C.float) C.int {
	if cgo.Handle(handle).Value().(AnyHit)(uint32(inst), uint32(prim), float32(u), float32(v)) {
		return 1
	}
	return 0
}
