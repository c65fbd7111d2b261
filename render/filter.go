package render

import (
	"fmt"
	"math"

	"sertrace/render/kernel"
)

// PixelFilter is a separable pixel reconstruction filter, used by filter
// importance sampling: a sample's offset from the pixel centre is drawn from
// the filter itself, so every sample weighs the same (Ernst et al. 2006).
type PixelFilter struct {
	Name   string
	Radius float32   // in pixels
	cdf    []float32 // over [−Radius, Radius], for non-box filters
}

// FilterNames lists the filters a render can use.
var FilterNames = []string{"box", "gaussian", "blackman-harris"}

// NewPixelFilter makes the named filter: box (one pixel wide), gaussian
// (σ = 0.5 pixel, radius 1.5) or blackman-harris (radius 1.5).
func NewPixelFilter(name string) (*PixelFilter, error) {
	var f func(x float64) float64
	radius := 1.5
	switch name {
	case "box", "":
		return &PixelFilter{Name: "box", Radius: 0.5}, nil
	case "gaussian":
		const sigma = 0.5
		f = func(x float64) float64 {
			return math.Max(0, math.Exp(-x*x/(2*sigma*sigma))-math.Exp(-radius*radius/(2*sigma*sigma)))
		}
	case "blackman-harris":
		f = func(x float64) float64 {
			t := 2 * math.Pi * (x/(2*radius) + 0.5)
			return 0.35875 - 0.48829*math.Cos(t) + 0.14128*math.Cos(2*t) - 0.01168*math.Cos(3*t)
		}
	default:
		return nil, fmt.Errorf("unknown pixel filter %q (box, gaussian, blackman-harris)", name)
	}
	const n = 1024
	p := &PixelFilter{Name: name, Radius: float32(radius), cdf: make([]float32, n+1)}
	var acc float64
	for i := 0; i < n; i++ {
		x := -radius + 2*radius*(float64(i)+0.5)/n
		acc += f(x)
		p.cdf[i+1] = float32(acc)
	}
	for i := range p.cdf {
		p.cdf[i] /= float32(acc)
	}
	return p, nil
}

// Sample maps u ∈ [0, 1) to an offset from the pixel centre, in pixels,
// distributed as the filter along one axis (kernel.FilterSample).
func (p *PixelFilter) Sample(u float32) float32 { return kernel.FilterSample(p, u) }

// The filter as kernel.Filter reads it.
func (p *PixelFilter) FilterCells() int {
	if p.cdf == nil {
		return 0
	}
	return len(p.cdf) - 1
}
func (p *PixelFilter) FilterRadius() float32   { return p.Radius }
func (p *PixelFilter) FilterCDF(i int) float32 { return p.cdf[i] }

// CDF is the filter's table for Sample (nil for the box filter).
func (p *PixelFilter) CDF() []float32 { return p.cdf }
