// Package longtest says whether the long tests run. A test that takes
// minutes (a full Vulkan suite on lavapipe, the GLSL probes, a comparison
// with Cycles, a Slurm cluster) calls Skip first: `go test ./...` then
// stays quick, and `go test -tags long ./...`, which CI runs, runs it.
package longtest

import "testing"

// Skip skips t unless the tests were built with the tag long.
func Skip(t testing.TB) {
	t.Helper()
	if !Enabled {
		t.Skip("a long test: go test -tags long runs it (CI does)")
	}
}
