package render

import "testing"

// TestAddPassLeavesPixelsAhead: completing a cut pass on the GPU (whose
// launches cover every pixel), AddPass adds to the pixels not ahead and
// leaves the finished ones, on one core and on all; the film settles as
// the cut rules say.
func TestAddPassLeavesPixelsAhead(t *testing.T) {
	for _, size := range []int{20, 300} { // below and above parallelAdd
		f := NewFilmOf(size, size, BaseLayers)
		if err := f.beginPass(2); err != nil {
			t.Fatal(err)
		}
		n := size * size
		for px := 0; px < n; px += 3 {
			f.MarkAhead(px)
		}
		src := make([]float32, 3*n)
		for i := range src {
			src[i] = 1
		}
		f.AddPass(LayerBeauty, src)
		for px := range n {
			want := 1.0
			if px%3 == 0 {
				want = 0
			}
			if got := f.Sums[LayerBeauty].Value(3*px + 1); got != want {
				t.Fatalf("%d²: pixel %d (ahead %v) sums %g, want %g", size, px, f.IsAhead(px), got, want)
			}
		}
		f.cutPass()
		if !f.Cut() || f.SamplesAt(0) != 2 || f.SamplesAt(1) != 0 || !f.Whole() {
			t.Fatalf("%d²: a third of the pixels ahead: %s, whole %v", size, f.SamplesHeld(), f.Whole())
		}
		for px := range n {
			f.MarkAhead(px)
		}
		if f.cutPass(); f.Cut() || f.Samples != 2 || f.AheadPixels != nil || !f.Whole() {
			t.Fatalf("%d²: every pixel ahead: %s", size, f.SamplesHeld())
		}
	}
	f := NewFilmOf(8, 8, BaseLayers)
	if err := f.beginPass(4); err != nil {
		t.Fatal(err)
	}
	if f.cutPass(); f.Ahead != 0 || f.AheadPixels != nil || !f.Whole() {
		t.Errorf("no pixel ahead: Ahead %d, mask %v", f.Ahead, f.AheadPixels != nil)
	}
	f.Ahead, f.AheadPixels = 2, make([]uint64, 1)
	if f.Whole() {
		t.Error("a cut with no pixel ahead reads as whole")
	}
}
