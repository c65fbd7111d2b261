package render

import "sertrace/scene"

// Film accumulates radiance and the first-hit AOVs per pixel. Backends sum
// the samples of one pass in float32 and add each pass here in float64, so
// that millions of samples do not drift (float32 sums of 2^24 samples of a
// constant were 3% off). Every pixel receives the same number of samples per
// pass, so one count serves the whole image.
type Film struct {
	Width, Height int
	Samples       int       // per pixel, accumulated so far
	Beauty        []float64 // RGB sums, rows from the top
	Albedo        []float64 // RGB sums of the first hit's albedo
	Normal        []float64 // sums of the first hit's world shading normal
	Depth         []float64 // sums of the first hit's distance along the camera axis (0 for misses)
	LumSq         []float64 // sums of the squared luminance of each sample, for the variance
	Cost          []float64 // sums of rays traced per sample (camera, bounce and shadow rays), or of CostUnit
	CostUnit      string    // "": rays; "clock ticks": the GPU's shader clock over the pixel's samples
	PathLength    []float64 // sums of bounces per sample
	SIMT          []float64 // sums of the SIMT efficiency of the warps a sample's path ran in (launch order)
	Partial       bool      // stopped before all samples were taken
}

// NewFilm makes an empty film.
func NewFilm(width, height int) *Film {
	n := width * height * 3
	return &Film{
		Width: width, Height: height,
		Beauty: make([]float64, n), Albedo: make([]float64, n), Normal: make([]float64, n),
		Depth: make([]float64, width*height), LumSq: make([]float64, width*height),
		Cost: make([]float64, width*height), PathLength: make([]float64, width*height), SIMT: make([]float64, width*height),
	}
}

// AOV names a per-pixel output.
type AOV string

const (
	AOVBeauty AOV = "beauty"
	AOVAlbedo AOV = "albedo"
	AOVNormal AOV = "normal"
	AOVDepth  AOV = "depth"
	// Per-pixel statistics: the sample variance of luminance, and for
	// heatmaps the rays traced, the path length and the SIMT efficiency (the
	// share of a warp's lanes busy in each shader pass, in launch order).
	AOVVariance   AOV = "variance"
	AOVCost       AOV = "cost"
	AOVPathLength AOV = "path_length"
	AOVSIMT       AOV = "simt"
)

// AOVs lists the outputs a film holds.
var AOVs = []AOV{AOVBeauty, AOVAlbedo, AOVNormal, AOVDepth, AOVVariance, AOVCost, AOVPathLength, AOVSIMT}

// Heatmaps are the AOVs that a PNG shows as a colour scale with a legend.
var Heatmaps = []AOV{AOVVariance, AOVCost, AOVPathLength, AOVSIMT}

// Resolve returns an AOV averaged over the samples: 3 channels per pixel
// (depth: 1).
func (f *Film) Resolve(a AOV) (pix []float32, channels int) {
	src, channels := f.Beauty, 3
	switch a {
	case AOVAlbedo:
		src = f.Albedo
	case AOVNormal:
		src = f.Normal
	case AOVDepth:
		src, channels = f.Depth, 1
	case AOVCost:
		src, channels = f.Cost, 1
	case AOVPathLength:
		src, channels = f.PathLength, 1
	case AOVSIMT:
		src, channels = f.SIMT, 1
	case AOVVariance:
		return f.variance(), 1
	}
	out := make([]float32, len(src))
	if f.Samples == 0 {
		return out, channels
	}
	inv := 1 / float64(f.Samples)
	for i, v := range src {
		out[i] = float32(v * inv)
	}
	if a == AOVNormal {
		for i := 0; i < len(out); i += 3 {
			n := scene.Vec3{out[i], out[i+1], out[i+2]}.Normalize()
			out[i], out[i+1], out[i+2] = n[0], n[1], n[2]
		}
	}
	return out, channels
}

// variance is each pixel's sample variance of luminance (unbiased).
func (f *Film) variance() []float32 {
	out := make([]float32, f.Width*f.Height)
	n := float64(f.Samples)
	if n < 2 {
		return out
	}
	for i := range out {
		b := f.Beauty[3*i:]
		mean := (0.2126*b[0] + 0.7152*b[1] + 0.0722*b[2]) / n
		out[i] = float32(max(f.LumSq[i]/n-mean*mean, 0) * n / (n - 1))
	}
	return out
}

// MeanVariance is each pixel's variance of the luminance estimate (the
// sample variance over the sample count), what a denoiser weighs noise by.
// Samples are stratified, so it bounds the estimate's variance from above.
func (f *Film) MeanVariance() []float32 {
	v := f.variance()
	for i := range v {
		v[i] /= float32(max(f.Samples, 1))
	}
	return v
}
