//goglsl:ignore

package ok

// Table is the CPU's: the GPU provides its own.
func Table(i int) float32 { return float32(i) }
