package unet

import "golang.org/x/sys/cpu"

// useTaps says whether taps3x4 may run: it needs AVX2 and FMA.
var useTaps = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// taps3x4 adds, for x in [0, n) (n a multiple of 8), w[3k]·src[x] +
// w[3k+1]·src[x+1] + w[3k+2]·src[x+2] to ak[x] for the four rows a0..a3:
// one row of a 3×3 kernel for four output channels, eight pixels at a
// time. src must hold n+2 values.
//
//go:noescape
func taps3x4(a0, a1, a2, a3, src *float32, w *[12]float32, n int)
