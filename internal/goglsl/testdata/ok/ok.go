// Package ok is every construct of the GLSL subset, for goglsl's test.
package ok

import (
	"math"
	"math/bits"

	"sertrace/render/layout"
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

// Pair is a struct of the package.
type Pair struct {
	A, B float32
	W    [2]scene.Vec3
}

// Sum is a method that reads its receiver: an in parameter.
func (p *Pair) Sum() float32 { return p.A + p.B }

// Grow writes through its receiver: inout.
func (p *Pair) Grow(by float32) {
	p.A += by
	p.bump()
}

func (p *Pair) bump() { p.B++ }

// Weigh reads an array through a pointer, ranges over it and has a named
// single result.
func Weigh(w *[2]scene.Vec3) (total float32) {
	for i, v := range w {
		total += v.Dot(w[i])
	}
	return
}

// Split has several results: out parameters.
func Split(x float64) (lo, hi float32) {
	lo = float32(math.Floor(x))
	hi, lo = lo+1, lo
	return
}

// Pick calls Split, swaps, switches, loops while and folds a constant.
func Pick(p Pair, n int) float32 {
	lo, _ := Split(float64(p.A))
	a, b := p.A, p.B
	a, b = b, a
	switch n {
	case 0, 1:
		a += lo
	case 2:
		b -= lo
	default:
		a = float32(math.Sqrt(2))
	}
	for a > b {
		a *= 0.5
	}
	if d := a - b; d > 0 {
		return d
	}
	p.Grow(1)
	v := p.W[0].Sub(p.W[1].Sub(p.W[0])).Scale(a + b)
	return Weigh(&p.W) + p.Sum() + v.Length()
}

// Rec709 reads a layout variable Translate is given, and an extern.
func Rec709(x, y, z float32, r int) float32 {
	s, c := math.Sincos(float64(x))
	return float32(layout.XYZToRec709[3*r])*x + float32(s)*y + float32(c)*z + Table(r)
}

// Shadow declares results that shadow what the call reads, swaps into
// shadowing names, and returns a shadowed result.
func Shadow(lo, hi float32) (a, b float32) {
	if lo > 0 {
		lo, hi := Split(float64(lo))
		return lo, hi
	}
	if hi > 0 {
		a := hi * 2
		return a, lo
	}
	{
		lo, hi := hi, lo
		a = lo - hi
	}
	return
}

// Count ranges over a count it changes and an array it changes.
func Count(n uint32, w [2]float32) float32 {
	var s float32
	for i := range n {
		n = 0
		s += float32(i)
	}
	for _, v := range w {
		w[1] = 0
		s += v
	}
	switch n {
	case 1 | 2:
		s++
	}
	var p Pair
	_ = Weigh(&p.W)
	return s
}

// Source is what a backend provides.
type Source interface {
	Texel(i int) float32
	Span(i int) (lo, hi float32)
	Fill(p *Pair, i int) // its definition may write through p
}

// Filled is a pair the source fills: p is inout, though Filled itself
// only passes it on.
func Filled(src Source, p *Pair) { src.Fill(p, 1) }

// Sample reads its source and passes it on.
func Sample(src Source, i int) float32 {
	lo, hi := src.Span(i)
	return src.Texel(i) + lo*hi + Resample(src, i+1)
}

// Resample reads it again.
func Resample(src Source, i int) float32 { return src.Texel(i) }

// Far is as far as there is.
func Far() float32 { return float32(math.Inf(1)) - float32(math.Inf(-1)) }

// Edge is how far v is from the Z axis, 0 where it is not finite.
func Edge(v scene.Vec3) float32 {
	if !v.Finite() {
		return 0
	}
	return float32(math.Hypot(float64(v.X), float64(v.Y)) + math.Cbrt(float64(v.Z)))
}

// Flip reverses x's bits and adds f's.
func Flip(x uint32, f float32) uint32 { return bits.Reverse32(x) + math.Float32bits(f) }

// Premultiplied is a colour's red times its alpha.
func Premultiplied(c scene.Vec4) float32 { return c.X * c.W }

// Blend mixes a and b precisely.
//
//goglsl:precise
func Blend(a, b, t float32) float32 {
	v := a*(1-t) + b*t
	return v
}

// Sources is a source that also has a size: it embeds Source, whose methods
// are its own in GLSL too.
type Sources interface {
	Source
	Size() int
}

// Average reads a Sources through its own method and Source's, and passes
// it on as a Source.
func Average(src Sources) float32 {
	return (src.Texel(0) + Resample(src, 1)) / float32(src.Size())
}

// Providers bundles providers: GLSL drops it as it drops each.
type Providers struct {
	Src  Source
	Srcs Sources
}

// Bundled calls through a bundle's providers and passes them on, the
// bundle whole (by value and by pointer) and a provider of it.
func Bundled(pv Providers, p *Pair) float32 {
	pv.Src.Fill(p, 2)
	return float32(pv.Srcs.Size()) + Unbundled(&pv) + Resample(pv.Src, 3) + Average(pv.Srcs)
}

// Unbundled reads through a bundle it is given by pointer.
func Unbundled(pv *Providers) float32 { return pv.Src.Texel(4) }
