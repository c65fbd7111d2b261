package render

import (
	"strings"

	"sertrace/scene"
)

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

	// The beauty split at the first hit for the denoiser: the light its
	// diffuse lobe reflected and the light its other lobes (specular,
	// metal, glass) did, each with its directional albedo and squared
	// luminance sums; the rest of the beauty is what the camera saw
	// directly (emission, the environment). Nil in a film resumed from a
	// checkpoint written before the split (HasSplit), which backends then
	// leave out (AddSums).
	Diffuse, Specular             []float64
	DiffuseAlbedo, SpecularAlbedo []float64
	DiffuseLumSq, SpecularLumSq   []float64
}

// HasSplit reports whether the film holds the denoiser's diffuse and
// specular split.
func (f *Film) HasSplit() bool { return f.Diffuse != nil }

// Whole reports whether every buffer is the image's size, the split's whole
// or absent: what a film read back from a checkpoint must be.
func (f *Film) Whole() bool {
	n := f.Width * f.Height
	sized := func(channels int, bufs ...[]float64) bool {
		for _, b := range bufs {
			if len(b) != channels*n {
				return false
			}
		}
		return true
	}
	split := sized(3, f.Diffuse, f.Specular, f.DiffuseAlbedo, f.SpecularAlbedo) && sized(1, f.DiffuseLumSq, f.SpecularLumSq)
	none := f.Diffuse == nil && f.Specular == nil && f.DiffuseAlbedo == nil && f.SpecularAlbedo == nil &&
		f.DiffuseLumSq == nil && f.SpecularLumSq == nil
	return f.Width > 0 && f.Height > 0 && sized(3, f.Beauty, f.Albedo, f.Normal) &&
		sized(1, f.Depth, f.LumSq, f.Cost, f.PathLength, f.SIMT) && (split || none)
}

// AddSums adds a backend's float32 sums of one pass to a film's buffer; a
// buffer the film lacks (the split, resumed from an older checkpoint) is
// left out.
func AddSums(dst []float64, src []float32) {
	if dst == nil {
		return
	}
	for i, v := range src {
		dst[i] += float64(v)
	}
}

// NewFilm makes an empty film.
func NewFilm(width, height int) *Film {
	n := width * height * 3
	return &Film{
		Width: width, Height: height,
		Beauty: make([]float64, n), Albedo: make([]float64, n), Normal: make([]float64, n),
		Depth: make([]float64, width*height), LumSq: make([]float64, width*height),
		Cost: make([]float64, width*height), PathLength: make([]float64, width*height), SIMT: make([]float64, width*height),
		Diffuse: make([]float64, n), Specular: make([]float64, n), DiffuseAlbedo: make([]float64, n), SpecularAlbedo: make([]float64, n),
		DiffuseLumSq: make([]float64, width*height), SpecularLumSq: make([]float64, width*height),
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
	// The denoiser's split of the light at the first hit, and its albedos.
	AOVDiffuse        AOV = "diffuse"
	AOVSpecular       AOV = "specular"
	AOVDiffuseAlbedo  AOV = "diffuse_albedo"
	AOVSpecularAlbedo AOV = "specular_albedo"
)

// SplitAOVs are the outputs of the denoiser's split, which a film resumed
// from an old checkpoint lacks.
var SplitAOVs = []AOV{AOVDiffuse, AOVSpecular, AOVDiffuseAlbedo, AOVSpecularAlbedo}

// AOVs lists the outputs a film holds, the beauty first.
var AOVs = append([]AOV{AOVBeauty, AOVAlbedo, AOVNormal, AOVDepth, AOVVariance, AOVCost, AOVPathLength, AOVSIMT}, SplitAOVs...)

// AOVNames lists the outputs' names, comma-separated, for messages.
func AOVNames(outputs []AOV) string {
	names := make([]string, len(outputs))
	for i, a := range outputs {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

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
	case AOVDiffuse:
		src = f.Diffuse
	case AOVSpecular:
		src = f.Specular
	case AOVDiffuseAlbedo:
		src = f.DiffuseAlbedo
	case AOVSpecularAlbedo:
		src = f.SpecularAlbedo
	case AOVVariance:
		return sampleVariance(f.Beauty, f.LumSq, f.Width*f.Height, f.Samples), 1
	}
	out := make([]float32, channels*f.Width*f.Height) // zero where the film lacks the buffer
	if f.Samples == 0 || src == nil {
		return out, channels
	}
	inv := 1 / float64(f.Samples)
	for i, v := range src {
		out[i] = float32(v * inv)
	}
	if a == AOVNormal {
		for i := 0; i < len(out); i += 3 {
			n := scene.Vec3{X: out[i], Y: out[i+1], Z: out[i+2]}.Normalize()
			out[i], out[i+1], out[i+2] = n.X, n.Y, n.Z
		}
	}
	return out, channels
}

// sampleVariance is the per-pixel sample variance of luminance of the
// samples whose RGB sums and squared-luminance sums are given.
func sampleVariance(sum, lumSq []float64, pixels, samples int) []float32 {
	out := make([]float32, pixels)
	n := float64(samples)
	if n < 2 || sum == nil {
		return out
	}
	for i := range out {
		b := sum[3*i:]
		mean := (0.2126*b[0] + 0.7152*b[1] + 0.0722*b[2]) / n
		out[i] = float32(max(lumSq[i]/n-mean*mean, 0) * n / (n - 1))
	}
	return out
}

// SplitMeanVariance is MeanVariance for the diffuse and the specular light.
func (f *Film) SplitMeanVariance() (diffuse, specular []float32) {
	return f.meanVariance(f.Diffuse, f.DiffuseLumSq), f.meanVariance(f.Specular, f.SpecularLumSq)
}

// MeanVariance is each pixel's variance of the luminance estimate (the
// sample variance over the sample count), what a denoiser weighs noise by.
// Samples are stratified, so it bounds the estimate's variance from above.
func (f *Film) MeanVariance() []float32 { return f.meanVariance(f.Beauty, f.LumSq) }

// meanVariance is the variance of the luminance estimate of the samples
// whose sums are given: their sample variance over the sample count.
func (f *Film) meanVariance(sum, lumSq []float64) []float32 {
	v := sampleVariance(sum, lumSq, f.Width*f.Height, f.Samples)
	for i := range v {
		v[i] /= float32(max(f.Samples, 1))
	}
	return v
}
