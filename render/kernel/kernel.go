// Package kernel is the shading written once: Go in a subset that
// internal/goglsl translates to GLSL (shaders/generated/kernel.glsl), so
// that the CPU runs it natively and the GPU runs its translation. It
// holds what has moved here so far from the two hand-written twins, leaf
// by leaf: the microfacet terms.
package kernel

//go:generate go run ./gen ../../shaders/generated/kernel.glsl
