package kernel

import (
	"testing"

	"sertrace/render/layout"
)

// TestWrapTexel: every wrap mode maps any coordinate, negative and far
// outside included, where the sampler says: repeat is the floor modulo,
// mirror reflects every other period, clamp holds the edges.
func TestWrapTexel(t *testing.T) {
	mod := func(i, n int) int { return ((i % n) + n) % n }
	for _, n := range []int{1, 2, 3, 7} {
		for i := -50; i <= 50; i++ {
			if got, want := WrapTexel(i, n, uint32(layout.WrapRepeat)), mod(i, n); got != want {
				t.Errorf("repeat %d of %d: %d, want %d", i, n, got, want)
			}
			m := mod(i, 2*n)
			if m >= n {
				m = 2*n - 1 - m
			}
			if got := WrapTexel(i, n, uint32(layout.WrapMirror)); got != m {
				t.Errorf("mirror %d of %d: %d, want %d", i, n, got, m)
			}
			if got, want := WrapTexel(i, n, uint32(layout.WrapClamp)), min(max(i, 0), n-1); got != want {
				t.Errorf("clamp %d of %d: %d, want %d", i, n, got, want)
			}
		}
	}
}
