package cpu

import (
	"math/rand/v2"
	"testing"

	"sertrace/internal/longtest"
)

// TestProbeQuick runs a few of the long probes on their first records, so
// that plain `go test` fails where goglsl mistranslates the kernel: Random
// (bit reversal, wrapping uint32 arithmetic, a loop, a function of four
// results), RoundConeNearest (float64 locals, a struct's methods, two
// results), the hair BSDF's Eval (a switch, loops, arrays, math.Atan2 and
// math.Pow through gomath.glsl) and the BSDF's Eval (methods on pointer
// receivers that change it: inout parameters). Each probe builds the whole
// probe shader on lavapipe (a second or more), so the subset is small; the
// long probes hold every helper on thousands of records.
func TestProbeQuick(t *testing.T) {
	if longtest.Enabled {
		t.Skip("the long probes hold these helpers on more records")
	}
	const n = 512
	t.Run("Random", func(t *testing.T) { checkProbeRandom(t, n) })
	t.Run("RoundCone", func(t *testing.T) { checkProbeRoundCone(t, n) })
	// The long tests' seeds: their first records.
	t.Run("HairEval", func(t *testing.T) { checkProbeHairEval(t, rand.New(rand.NewPCG(6, 7)), n) })
	t.Run("BSDFEval", func(t *testing.T) { checkProbeBSDFEval(t, rand.New(rand.NewPCG(4, 5)), n) })
}
