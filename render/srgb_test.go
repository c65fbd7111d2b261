package render

import (
	"math"
	"testing"
)

// TestEncodeSRGB: the thresholds give the codes of the encoding's
// definition, over a stride of every float32 in [0, 1.01] and at and
// around each threshold, and clamp NaN, negatives and infinities.
func TestEncodeSRGB(t *testing.T) {
	check := func(v float32) {
		if got, want := EncodeSRGB(v), encodeSRGBPow(v); got != want {
			t.Fatalf("EncodeSRGB(%g) = %d, the definition gives %d", v, got, want)
		}
	}
	for b := uint32(0); b <= math.Float32bits(1.01); b += 97 {
		check(math.Float32frombits(b))
	}
	for k := 1; k < 256; k++ {
		b := math.Float32bits(srgbThresholds[k])
		for d := uint32(0); d < 64; d++ {
			check(math.Float32frombits(b + d))
			check(math.Float32frombits(b - d))
		}
	}
	for _, v := range []float32{float32(math.NaN()), -1, float32(math.Inf(1)), float32(math.Inf(-1)), 0, 1, 2} {
		check(v)
	}
}
