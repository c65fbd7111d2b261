package render

import (
	"math"
	"testing"
)

// TestAdaptiveSchedule: the minimum follows Cycles' guess, checks fall
// at the minimum and every step after it, and a render without a
// threshold is never checked.
func TestAdaptiveSchedule(t *testing.T) {
	for threshold, want := range map[float32]int{0.1: 32, 0.01: 64, 0.001: 128, 1: 16, 1e6: 4, 0: 0} {
		if got := AutoMinSPP(threshold); got != want {
			t.Errorf("AutoMinSPP(%v) = %d, want %d", threshold, got, want)
		}
	}
	a := Adaptive{Threshold: 0.01}
	if a.Min(1024) != 64 || a.Step(1024) != 16 || a.Min(40) != 40 {
		t.Errorf("min %d, step %d, min of 40 spp %d", a.Min(1024), a.Step(1024), a.Min(40))
	}
	var checks []int
	for s := range 129 {
		if a.CheckAt(s, 128) {
			checks = append(checks, s)
		}
	}
	if want := []int{64, 80, 96, 112}; !equalInts(checks, want) {
		t.Errorf("checks at %v, want %v (not at 128, the end)", checks, want)
	}
	for s, want := range map[int]int{0: 64, 63: 64, 64: 64, 65: 80, 80: 80, 81: 96} {
		if got := a.NextCheck(s, 128); got != want {
			t.Errorf("NextCheck(%d) = %d, want %d", s, got, want)
		}
	}
	for s := range 64 {
		if (Adaptive{}).CheckAt(s, 64) {
			t.Fatalf("a render without a threshold is checked after %d samples", s)
		}
	}
	for _, bad := range []Adaptive{{Threshold: -1}, {Threshold: float32(math.NaN())}, {Threshold: float32(math.Inf(1))}, {Threshold: 2e6},
		{MinSPP: 8}, {Threshold: 0.1, MinSPP: -1}, {Threshold: 0.1, MinSPP: 64}, {Threshold: 0.01}} {
		if bad.Check(64) == nil {
			t.Errorf("%+v is not refused at 64 spp", bad)
		}
	}
	for _, good := range []Adaptive{{}, {Threshold: 0.1}, {Threshold: 0.1, MinSPP: 63}, {Threshold: 0.01, MinSPP: 8}} {
		if err := good.Check(64); err != nil {
			t.Errorf("%+v at 64 spp: %v", good, err)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPixelError: the standard error of the mean over the square root of
// the mean, from sums.
func TestPixelError(t *testing.T) {
	// Samples 0 and 2: mean 1, sample variance 2, standard error 1.
	if got := PixelError(2, 4, 2); math.Abs(got-1/(1+1e-4)) > 1e-12 {
		t.Errorf("PixelError = %v, want about 1", got)
	}
	// Every sample 4: no noise.
	if got := PixelError(40, 160, 10); got != 0 {
		t.Errorf("constant samples: %v", got)
	}
	if !math.IsInf(PixelError(1, 1, 1), 1) {
		t.Error("one sample is judged")
	}
}

// TestConvergeKeepsNoisyNeighbourhoods: a pixel stops where it and its
// 3×3 neighbours are below the threshold, a noisy pixel keeping its
// neighbours sampling but not across a strip of NeighbourRows rows.
func TestConvergeKeepsNoisyNeighbourhoods(t *testing.T) {
	const w, h, n = 8, 32, 4
	f := NewFilmOf(w, h, BaseLayers)
	f.Samples = n
	add := func(s *LayerSums, i int, v float32) {
		hi, lo := Quantize(v)
		s.addAt(i, hi, lo)
	}
	set := func(px int, values ...float32) {
		for _, v := range values {
			for c := range 3 {
				add(&f.Sums[LayerBeauty], 3*px+c, v)
			}
			add(&f.Sums[LayerLumSq], px, v*v)
		}
	}
	for px := range w * h {
		set(px, 1, 1, 1, 1) // clean
	}
	noisy := 15*w + 3 // the last row of the first strip
	for c := range 3 {
		f.Sums[LayerBeauty].Fixed[3*noisy+c] = 0
	}
	f.Sums[LayerLumSq].Fixed[noisy] = 0
	set(noisy, 0, 4, 0, 0)
	stopped, left := f.Converge(0.01, 1<<20)
	if stopped != w*h-6 {
		t.Errorf("%d pixels stopped, want all but the noisy one and its 5 neighbours in its strip", stopped)
	}
	// The noisy pixel's error: samples 0, 4, 0, 0 have mean 1, variance
	// 4, a standard error of 1: 100 times the threshold, reached after
	// 4·100² samples, by it and its neighbours.
	if want := 6 * (4*100*100/(1+1e-4)/(1+1e-4) - 4); math.Abs(left-want) > 1e-3*want {
		t.Errorf("forecast %v samples left, want %v", left, want)
	}
	for px := range w * h {
		x, y := px%w, px/w
		near := y >= 14 && y <= 15 && x >= 2 && x <= 4
		if f.Stopped(px) == near {
			t.Errorf("pixel (%d, %d): stopped %v", x, y, f.Stopped(px))
		}
		if f.Stopped(px) && f.SamplesAt(px) != n {
			t.Errorf("pixel (%d, %d) holds %d samples", x, y, f.SamplesAt(px))
		}
	}
	if f.Active() != 6 {
		t.Errorf("%d pixels active", f.Active())
	}
}
