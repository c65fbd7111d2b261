package kernel

// Filter is what sampling a separable pixel filter reads: its radius and
// the CDF of its profile along one axis (render.PixelFilter on the CPU,
// the launch's parameters on the GPU).
type Filter interface {
	// FilterCells is the number n of the CDF's cells (its n + 1 entries
	// span [−radius, radius]); 0 for the box filter, which has none.
	FilterCells() int
	FilterRadius() float32
	FilterCDF(i int) float32
}

// FilterSample maps u ∈ [0, 1) to an offset from the pixel centre, in
// pixels, distributed as the filter along one axis: filter importance
// sampling, every sample weighing the same (Ernst et al. 2006).
func FilterSample(f Filter, u float32) float32 {
	n := f.FilterCells()
	if n == 0 {
		return u - 0.5
	}
	// The first cell whose upper CDF bound exceeds u (sort.Search's
	// binary search).
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi) / 2
		if f.FilterCDF(mid+1) > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	i := min(lo, n-1)
	c0, c1 := f.FilterCDF(i), f.FilterCDF(i+1)
	t := (u - c0) / max(c1-c0, 1e-12)
	r := f.FilterRadius()
	return -r + 2*r*(float32(i)+min(max(t, 0), 1))/float32(n)
}
