package embree

// The any-hit callback that Embree's filter (C) calls into Go; a file of
// its own, since a file with an export may only declare in its preamble.

// #include <stdint.h>
import "C"

import "runtime/cgo"

// sertraceEmbreeAnyHit runs an alpha mask's test. A panic cannot unwind
// through Embree's C frames: a test that panics counts the hit (the
// surface stays opaque there) instead of taking the process down.
//
//export sertraceEmbreeAnyHit
func sertraceEmbreeAnyHit(handle C.uintptr_t, inst, prim C.uint, u, v, t C.float) (accept C.int) {
	defer func() {
		if recover() != nil {
			accept = 1
		}
	}()
	if cgo.Handle(handle).Value().(AnyHit)(uint32(inst), uint32(prim), float32(u), float32(v), float32(t)) {
		return 1
	}
	return 0
}
