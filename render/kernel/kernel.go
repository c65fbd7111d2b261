// Package kernel is the shading written once: Go in a subset that
// internal/goglsl translates to GLSL (shaders/generated/kernel.glsl), so
// that the CPU runs it natively and the GPU runs its translation: the
// closest-hit and miss shaders (ClosestHit, Miss) and everything they
// call, from a hit's shading point and its material to the BSDFs, light
// and environment sampling and the random streams, with the camera's rays
// and the pixel filter's sample. It reads the scene through interfaces
// (Lights, EnvMap, Texels, Geometry, Media, Randoms, Tracer, Filter),
// which each backend provides from its own arrays or buffers, and which
// the shaders take bundled (Providers).
package kernel

//go:generate go run ./gen ../../shaders/generated/kernel.glsl
