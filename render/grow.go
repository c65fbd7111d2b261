package render

// Grow is s resized to n, reallocated only when it is too small (its
// contents then lost): the scratch buffers of the writers and the CPU's
// wavefronts.
func Grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
