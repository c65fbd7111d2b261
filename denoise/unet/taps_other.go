//go:build !amd64

package unet

// useTaps is false: there is no vector kernel for this architecture.
const useTaps = false

func taps3x4(a0, a1, a2, a3, src *float32, w *[12]float32, n int) {
	panic("unet: taps3x4 without a vector kernel")
}
