package kernel

import (
	"math/rand/v2"
	"testing"

	"sertrace/render/layout"
)

// TestSortKeyIsReorderThreadOrder: the dense keys order hits as
// reorderThreadNV groups them, by shader, then by the hint's low bits
// (hint & (1<<bits − 1)) as a number, for every scheme, and stay within
// SortKeySpace.
func TestSortKeyIsReorderThreadOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type hit struct {
		shader, hint uint32
	}
	for _, bits := range []uint32{0, 1, 2, 3, 4, 5, 8, layout.MaxHintBits, layout.NoReorder} {
		for _, flags := range []uint32{0, layout.HintMaterial, layout.HintMaterial | layout.HintCoherence} {
			for _, materials := range []uint32{1, 3, 17, 300} {
				keys, keyMaterials := SortKeySpace(bits, flags, materials)
				var pairs, ordered int
				for range 2000 {
					var h [2]hit
					var k [2]uint32
					for i := range h {
						miss := rng.IntN(4) == 0
						shader := uint32(0)
						if !miss {
							shader = 1 + rng.Uint32N(uint32(layout.HitGroupCount))
						}
						h[i] = hit{shader, ReorderHint(miss, rng.Uint32N(materials), rng.Uint32N(8), bits, flags)}
						k[i] = SortKey(h[i].shader, h[i].hint, bits, flags, keyMaterials)
						if k[i] >= keys {
							t.Fatalf("bits %d flags %d materials %d: key %d outside the %d keys", bits, flags, materials, k[i], keys)
						}
					}
					mask := uint32(0)
					if bits != layout.NoReorder {
						mask = 1<<bits - 1
					}
					a := uint64(h[0].shader)<<32 | uint64(h[0].hint&mask)
					b := uint64(h[1].shader)<<32 | uint64(h[1].hint&mask)
					if (a < b) != (k[0] < k[1]) || (a == b) != (k[0] == k[1]) {
						t.Fatalf("bits %d flags %d materials %d: hits %+v and %+v have keys %d and %d", bits, flags, materials, h[0], h[1], k[0], k[1])
					}
					pairs++
					if a != b {
						ordered++
					}
				}
				if ordered == 0 {
					t.Fatalf("bits %d flags %d materials %d: no pair of %d told apart", bits, flags, materials, pairs)
				}
			}
		}
	}
}
