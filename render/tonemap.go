package render

import (
	"fmt"
	"math"
)

// Display says how outputs are encoded: how a PNG shows linear radiance
// (exposure in stops, then a tone curve), and whether EXR channels are
// stored as half floats instead of 32-bit floats.
type Display struct {
	Exposure  float32
	ToneMap   string // linear (clamp), filmic, aces or agx
	HalfFloat bool
}

// ToneMaps lists the tone curves.
var ToneMaps = []string{"linear", "filmic", "aces", "agx"}

// CheckToneMap refuses an unknown curve.
func CheckToneMap(name string) error {
	for _, t := range ToneMaps {
		if name == t || name == "" {
			return nil
		}
	}
	return fmt.Errorf("unknown tone map %q (linear, filmic, aces, agx)", name)
}

// encode maps an exposed linear RGB pixel to 8-bit display values.
func (d Display) encode(r, g, b float32) (uint8, uint8, uint8) {
	switch d.ToneMap {
	case "filmic":
		// Hable's filmic curve (Uncharted 2), white point 11.2, then sRGB.
		w := hable(11.2)
		return EncodeSRGB(hable(2*r) / w), EncodeSRGB(hable(2*g) / w), EncodeSRGB(hable(2*b) / w)
	case "aces":
		// Narkowicz's fit of the ACES reference rendering transform, then sRGB.
		return EncodeSRGB(acesFit(r)), EncodeSRGB(acesFit(g)), EncodeSRGB(acesFit(b))
	case "agx":
		return agx(r, g, b)
	}
	return EncodeSRGB(r), EncodeSRGB(g), EncodeSRGB(b)
}

func hable(x float32) float32 {
	const a, b, c, d, e, f = 0.15, 0.50, 0.10, 0.20, 0.02, 0.30
	return (x*(a*x+c*b)+d*e)/(x*(a*x+b)+d*f) - e/f
}

func acesFit(x float32) float32 {
	x *= 0.6
	return (x * (2.51*x + 0.03)) / (x*(2.43*x+0.59) + 0.14)
}

// agx is Troy Sobotka's AgX: an inset of the primaries, a log2 encoding over
// 16.5 stops, and a sigmoid (a polynomial fit) whose output is display-encoded.
func agx(r, g, b float32) (uint8, uint8, uint8) {
	in := [3]float32{
		0.842479*r + 0.078434*g + 0.079224*b,
		0.042328*r + 0.878469*g + 0.079166*b,
		0.042376*r + 0.078434*g + 0.879143*b,
	}
	var out [3]uint8
	const minEV, maxEV = -12.47393, 4.026069
	for i, v := range in {
		x := float32(0)
		if v > 0 {
			x = (float32(math.Log2(float64(v))) - minEV) / (maxEV - minEV)
		}
		x = min(max(x, 0), 1)
		x2 := x * x
		x4 := x2 * x2
		y := 15.5*x4*x2 - 40.14*x4*x + 31.96*x4 - 6.868*x2*x + 0.4298*x2 + 0.1191*x - 0.00232
		out[i] = uint8(min(max(y, 0), 1)*255 + 0.5)
	}
	return out[0], out[1], out[2]
}
