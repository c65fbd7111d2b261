package render

import "math"

// EncodeSRGB maps a linear value to an 8-bit sRGB code (clamped; NaN → 0):
// the code whose interval holds it, found among the 255 thresholds where
// encodeSRGBPow steps up, so the two give the same codes (TestEncodeSRGB)
// at a fraction of the cost of a power per channel.
func EncodeSRGB(v float32) uint8 {
	if !(v > 0) {
		return 0
	}
	k := 0
	for step := 128; step > 0; step >>= 1 {
		if v >= srgbThresholds[k+step] {
			k += step
		}
	}
	return uint8(k)
}

// srgbThresholds[k] is the least float32 that encodeSRGBPow maps to k or
// more (k ≥ 1).
var srgbThresholds = func() (t [256]float32) {
	for k := 1; k < 256; k++ {
		lo, hi := uint32(0), math.Float32bits(1)
		for lo < hi { // positive floats order as their bits
			mid := lo + (hi-lo)/2
			if int(encodeSRGBPow(math.Float32frombits(mid))) >= k {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		t[k] = math.Float32frombits(lo)
	}
	return t
}()

// encodeSRGBPow is the sRGB encoding by its definition.
func encodeSRGBPow(v float32) uint8 {
	if !(v > 0) {
		return 0
	}
	if v >= 1 {
		return 255
	}
	var s float64
	if v <= 0.0031308 {
		s = 12.92 * float64(v)
	} else {
		s = 1.055*math.Pow(float64(v), 1/2.4) - 0.055
	}
	return uint8(s*255 + 0.5)
}

// DecodeSRGB maps an 8-bit sRGB code to linear.
func DecodeSRGB(c uint8) float32 { return srgbTable[c] }

var srgbTable = func() (t [256]float32) {
	for i := range t {
		s := float64(i) / 255
		if s <= 0.04045 {
			t[i] = float32(s / 12.92)
		} else {
			t[i] = float32(math.Pow((s+0.055)/1.055, 2.4))
		}
	}
	return t
}()
