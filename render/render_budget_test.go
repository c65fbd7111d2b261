package render

import (
	"testing"
	"time"
)

// TestFitToBudget: the pass shrinks to what the time left allows at the
// rate measured so far, never below one sample, and is left alone without
// a budget or a measurement.
func TestFitToBudget(t *testing.T) {
	for _, c := range []struct {
		spp              int
		budget, elapsed  time.Duration
		rendered, wanted int
	}{
		{16, 0, time.Second, 4, 16},                    // no budget
		{16, 10 * time.Second, 0, 0, 16},               // nothing measured yet (a resumed film's samples do not count)
		{16, 10 * time.Second, 2 * time.Second, 4, 16}, // 0.5 s a sample, 8 s left: 16 fit
		{16, 10 * time.Second, 8 * time.Second, 4, 1},  // 2 s a sample, 2 s left
		{16, 10 * time.Second, 6 * time.Second, 6, 4},  // 1 s a sample, 4 s left
		{16, 10 * time.Second, 12 * time.Second, 4, 1}, // over budget: still one sample
	} {
		if got := FitToBudget(c.spp, c.budget, c.elapsed, c.rendered); got != c.wanted {
			t.Errorf("%+v: %d", c, got)
		}
	}
}
