package render

import (
	"fmt"
	"math"
)

// Exact sums. A film's image layers are sums of float32 samples, kept
// exactly so that the order they are added in never shows: the samples of
// one render split into passes of any size, or into slices rendered on
// other machines and merged (MergeSlices), give the same sums bit for bit.
//
// Each sample joins the sums rounded to a multiple of 2^-64 (Quantum): a
// float32 of magnitude 2^-41 or more already is one; smaller values, far
// below anything an image shows, are rounded to the nearest. An exact sum
// V is held as two float64: S, the float64 nearest to V (ties to even), and
// R = V − S, its residual. Adding v computes S + v with its rounding error
// e (TwoSum, an error-free transformation), then R + e, exact because both
// are multiples of 2^-64 smaller than 2^-13 while |S| < 2^40, and last
// TwoSum(S', R + e), which puts S and R back in that canonical form. So S
// is a function of V alone: the float64 sums the rest of sertrace reads
// are the same whatever the order, while every sum stays below 2^40 (about
// 10^12, a million samples of radiance 10^6); above it they stay as close
// as float64 sums are, only no longer exact.

// Quantum is the finest step of an exact sum.
const Quantum = 0x1p-64

// Quantize rounds a sample to a multiple of Quantum, which float32 values
// of magnitude 2^-41 and above are already.
//
// An infinite sample (a square of luminance past float32's range) joins as
// float32's largest value, which keeps the sums finite; NaN joins as 0.
func Quantize(v float32) float64 {
	x := float64(v)
	switch a := math.Abs(x); {
	case a < 0x1p-41:
		return math.RoundToEven(x*0x1p64) * Quantum
	case a > math.MaxFloat32:
		return math.Copysign(math.MaxFloat32, x)
	case x != x:
		return 0
	}
	return x
}

// twoSum is a + b as the float64 nearest to it and the exact error.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// AddExact adds v, a multiple of Quantum (Quantize), to the exact sum held
// in (*s, *r).
func AddExact(s, r *float64, v float64) {
	a, e := twoSum(*s, v)
	*s, *r = twoSum(a, *r+e)
}

// addExactPair adds the exact sum (s2, r2) to (*s, *r).
func addExactPair(s, r *float64, s2, r2 float64) {
	a, e := twoSum(*s, s2)
	*s, *r = twoSum(a, *r+r2+e)
}

// AddPass adds one pass's float32 sums of a layer (a GPU launch's) to the
// film: exactly on exact layers, each value rounded to Quantum first. A
// layer the film lacks (the split, in a film resumed from an old
// checkpoint) is left out.
func (f *Film) AddPass(l Layer, src []float32) {
	dst := f.Sums(l)
	if dst == nil {
		return
	}
	res := f.Residual[l]
	if res == nil {
		for i, v := range src {
			dst[i] += float64(v)
		}
		return
	}
	for i, v := range src {
		AddExact(&dst[i], &res[i], Quantize(v))
	}
}

// Add adds the sums of o, a film of the same size, to f's: exactly on the
// exact layers. The sample counts are the caller's to keep.
func (f *Film) Add(o *Film) error {
	if o.Width != f.Width || o.Height != f.Height {
		return fmt.Errorf("films of %dx%d and %dx%d pixels do not add", f.Width, f.Height, o.Width, o.Height)
	}
	for l := range NumLayers {
		dst, src := f.Sums(l), o.Sums(l)
		if dst == nil {
			continue
		}
		if src == nil {
			return fmt.Errorf("the %s layer is missing", FilmLayers[l].Name)
		}
		res, srcRes := f.Residual[l], o.Residual[l]
		if res == nil {
			for i, v := range src {
				dst[i] += v
			}
			continue
		}
		for i := range dst {
			addExactPair(&dst[i], &res[i], src[i], srcRes[i])
		}
	}
	return nil
}
