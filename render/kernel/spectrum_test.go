package kernel

import (
	"math"
	"testing"

	"sertrace/render/layout"
)

// TestDispersionIOR: the index is ior at the d line and its Abbe number,
// (n_d − 1)/(n_F − n_C), is 20/dispersion; blue bends more than red; no
// dispersion is the ior everywhere.
func TestDispersionIOR(t *testing.T) {
	for _, c := range []struct{ ior, dispersion float32 }{{1.5168, 20.0 / 64.17}, {1.5, 1}, {2.4, 0.45}, {1.33, 0.36}} {
		nd := DispersionIOR(c.ior, c.dispersion, layout.LineD)
		nF, nC := DispersionIOR(c.ior, c.dispersion, layout.LineF), DispersionIOR(c.ior, c.dispersion, layout.LineC)
		abbe := (nd - 1) / (nF - nC)
		if math.Abs(float64(nd-c.ior)) > 1e-6 || math.Abs(float64(abbe-20/c.dispersion)) > 1e-3*float64(abbe) {
			t.Errorf("ior %v dispersion %v: n_d %v, Abbe number %v; want %v, %v", c.ior, c.dispersion, nd, abbe, c.ior, 20/c.dispersion)
		}
		if !(DispersionIOR(c.ior, c.dispersion, 420) > DispersionIOR(c.ior, c.dispersion, 700)) {
			t.Errorf("ior %v dispersion %v: blue does not bend more than red", c.ior, c.dispersion)
		}
	}
	if DispersionIOR(1.5, 0, 400) != 1.5 {
		t.Error("no dispersion must be the ior at every wavelength")
	}
}

// TestWavelengthWeightsAverageWhite: over the uniform wavelength, each
// channel's weight averages 1, so a dispersive path is unbiased for white
// light (and a furnace of dispersive glass stays lossless).
func TestWavelengthWeightsAverageWhite(t *testing.T) {
	const n = 100000
	var sum [3]float64
	for i := range n {
		w := WavelengthWeights(SampleWavelength((float32(i) + 0.5) / n))
		sum[0], sum[1], sum[2] = sum[0]+float64(w.X), sum[1]+float64(w.Y), sum[2]+float64(w.Z)
	}
	for c := range 3 {
		if m := sum[c] / n; math.Abs(m-1) > 1e-4 {
			t.Errorf("channel %d averages %v", c, m)
		}
	}
	if w := WavelengthWeights(450); !(w.Z > w.Y && w.Y > w.X) {
		t.Errorf("450 nm weighs %v: blue first", w)
	}
	if w := WavelengthWeights(640); !(w.X > w.Y && w.Y > w.Z) {
		t.Errorf("640 nm weighs %v: red first", w)
	}
}
