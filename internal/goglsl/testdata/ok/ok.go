// Package ok is every construct of the GLSL subset, for goglsl's test.
package ok

import (
	"math"

	"sertrace/scene"
)

// Scale is a typed constant.
const Scale float32 = 2.5

const half = 0.5 // untyped: written where used

// Cos has a parameter GLSL keeps the name of.
func Cos(cos float32) float32 {
	return float32(math.Cos(float64(cos))) * Scale
}

// Pow is math.Pow of two float32s.
func Pow(x, y float32) float32 { return float32(math.Pow(float64(x), float64(y))) }

// Mix uses min and max of three, constants and a vector.
func Mix(v scene.Vec3, a, b float32) float32 {
	m := max(v.X, v.Y, v.Z)
	if m > 1 {
		m = 1
	} else if m < 0 {
		m = -m
	} else {
		m *= half
	}
	return min(a, b) + m*2*math.Pi
}

// Bits sums i's bits the slow way.
func Bits(i uint32) uint32 {
	var n uint32
	for k := uint32(0); k < 32; k++ {
		n += i >> k & 1
	}
	return n
}

// Make makes a vector.
func Make(x float32, i int32) scene.Vec3 {
	y := float32(i)
	return scene.Vec3{X: x, Y: y, Z: Cos(x) + Pow(x, y)}
}

// Flag is a boolean.
func Flag(a, b float32) bool { return a < b && !(b > 10) || a == 0 }

// Neg negates twice: no GLSL decrement.
func Neg(x float32) float32 { return - -x }
