package render

import (
	"slices"
	"strings"

	"sertrace/render/layout"
	"sertrace/scene"
)

// Film accumulates radiance and the first-hit AOVs per pixel, as sums over
// its samples. The image's sums are exact (sums.go): each sample joins them
// rounded to a multiple of 2^-64 and nothing is rounded after, so the sums,
// and every image made from them, are the same whatever the passes or the
// slices the samples were rendered in. Every pixel receives the same
// number of samples, so one count serves the whole image.
type Film struct {
	Width, Height int
	First         int       // the first sample index the film holds (a slice's; 0 for a whole render)
	Samples       int       // per pixel, accumulated so far: samples [First, First+Samples)
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
	// leave out.
	Diffuse, Specular             []float64
	DiffuseAlbedo, SpecularAlbedo []float64
	DiffuseLumSq, SpecularLumSq   []float64

	// Residual holds, for each exact layer, what its float64 sums leave
	// out of the exact sums (sums.go); nil for the others.
	Residual [NumLayers][]float64
}

// Layer is one of a film's sums.
type Layer int

// The film's layers, in the order of FilmLayers.
const (
	LayerBeauty Layer = iota
	LayerAlbedo
	LayerNormal
	LayerDepth
	LayerLumSq
	LayerDiffuse
	LayerSpecular
	LayerDiffuseAlbedo
	LayerSpecularAlbedo
	LayerDiffuseLumSq
	LayerSpecularLumSq
	LayerCost
	LayerPathLength
	LayerSIMT
	NumLayers
)

// LayerInfo says what a film layer holds.
type LayerInfo struct {
	Name     string // in messages and in a slice's EXR channels
	Channels int    // per pixel
	// Exact layers sum exactly (sums.go). The others are statistics of the
	// work, not of the image: ray counts and path lengths (whole numbers,
	// which float64 sums exactly anyway), the SIMT efficiency (which
	// depends on the waves a pass made) and the GPU's clock.
	Exact bool
	Split bool // part of the denoiser's split, which an old checkpoint lacks
	// AOV is the output that shows the layer averaged ("" for the squared
	// luminances, which the variance outputs read).
	AOV AOV
	// GPU is the layer's first float in the GPU's film buffer (layout.Film*;
	// −1: the GPU keeps none).
	GPU  int
	sums func(*Film) *[]float64
}

// FilmLayers is the table of a film's layers.
var FilmLayers = [NumLayers]LayerInfo{
	{"beauty", 3, true, false, AOVBeauty, layout.FilmBeauty, func(f *Film) *[]float64 { return &f.Beauty }},
	{"albedo", 3, true, false, AOVAlbedo, layout.FilmAlbedo, func(f *Film) *[]float64 { return &f.Albedo }},
	{"normal", 3, true, false, AOVNormal, layout.FilmNormal, func(f *Film) *[]float64 { return &f.Normal }},
	{"depth", 1, true, false, AOVDepth, layout.FilmDepth, func(f *Film) *[]float64 { return &f.Depth }},
	{"lum_sq", 1, true, false, "", layout.FilmLumSq, func(f *Film) *[]float64 { return &f.LumSq }},
	{"diffuse", 3, true, true, AOVDiffuse, layout.FilmDiffuse, func(f *Film) *[]float64 { return &f.Diffuse }},
	{"specular", 3, true, true, AOVSpecular, layout.FilmSpecular, func(f *Film) *[]float64 { return &f.Specular }},
	{"diffuse_albedo", 3, true, true, AOVDiffuseAlbedo, layout.FilmDiffuseAlbedo, func(f *Film) *[]float64 { return &f.DiffuseAlbedo }},
	{"specular_albedo", 3, true, true, AOVSpecularAlbedo, layout.FilmSpecularAlbedo, func(f *Film) *[]float64 { return &f.SpecularAlbedo }},
	{"diffuse_lum_sq", 1, true, true, "", layout.FilmDiffuseLumSq, func(f *Film) *[]float64 { return &f.DiffuseLumSq }},
	{"specular_lum_sq", 1, true, true, "", layout.FilmSpecularLumSq, func(f *Film) *[]float64 { return &f.SpecularLumSq }},
	{"cost", 1, false, false, AOVCost, layout.FilmCost, func(f *Film) *[]float64 { return &f.Cost }},
	{"path_length", 1, false, false, AOVPathLength, layout.FilmPathLength, func(f *Film) *[]float64 { return &f.PathLength }},
	{"simt", 1, false, false, AOVSIMT, -1, func(f *Film) *[]float64 { return &f.SIMT }},
}

// LayerOf is the layer an AOV averages, and whether there is one (the
// variance has none: it is made of two).
func LayerOf(a AOV) (Layer, bool) {
	for l, info := range FilmLayers {
		if info.AOV == a {
			return Layer(l), true
		}
	}
	return 0, false
}

// Sums is a layer's float64 sums (nil where the film lacks it).
func (f *Film) Sums(l Layer) []float64 { return *FilmLayers[l].sums(f) }

// HasSplit reports whether the film holds the denoiser's diffuse and
// specular split.
func (f *Film) HasSplit() bool { return f.Diffuse != nil }

// Layers is a set of a film's layers.
type Layers uint32

// AllLayers is every layer: what a slice holds (a merge may be asked for
// any output) and what a film made by NewFilm holds.
const AllLayers = Layers(1)<<NumLayers - 1

// BaseLayers are the layers every film holds: the beauty and the squared
// luminance its variance needs.
const BaseLayers = Layers(1)<<LayerBeauty | Layers(1)<<LayerLumSq

// SplitLayers are the denoiser's split, present all or none.
const SplitLayers = Layers(1)<<LayerDiffuse | Layers(1)<<LayerSpecular | Layers(1)<<LayerDiffuseAlbedo |
	Layers(1)<<LayerSpecularAlbedo | Layers(1)<<LayerDiffuseLumSq | Layers(1)<<LayerSpecularLumSq

// GuideLayers are the first hit's albedo, normal and depth, which every
// denoiser reads.
const GuideLayers = Layers(1)<<LayerAlbedo | Layers(1)<<LayerNormal | Layers(1)<<LayerDepth

// Has reports whether l is in the set.
func (s Layers) Has(l Layer) bool { return s&(1<<l) != 0 }

// LayersFor is what a film must hold to write the outputs aovs (with the
// beauty, always) and, where denoised, what the denoiser reads: the guides
// and the split. An EXR's beauty holds these layers and no others.
func LayersFor(aovs []AOV, denoised bool) Layers {
	s := BaseLayers
	if denoised {
		s |= GuideLayers | SplitLayers
	}
	for _, a := range aovs {
		if l, ok := LayerOf(a); ok {
			s |= 1 << l
		}
		if slices.Contains(SplitAOVs, a) {
			s |= SplitLayers // the split's variances come with it
		}
	}
	return s
}

// Names lists the set's layers, comma-separated, for messages.
func (s Layers) Names() string {
	var names []string
	for l, info := range FilmLayers {
		if s.Has(Layer(l)) {
			names = append(names, info.Name)
		}
	}
	return strings.Join(names, ", ")
}

// Layers is the set of layers the film holds.
func (f *Film) Layers() Layers {
	var s Layers
	for l := range NumLayers {
		if f.Sums(l) != nil {
			s |= 1 << l
		}
	}
	return s
}

// Whole reports whether every buffer is the image's size or absent, the
// base layers present and the split whole or absent, with the residuals
// of the exact layers that are there: what a film read back from a
// checkpoint or a slice must be.
func (f *Film) Whole() bool {
	n := f.Width * f.Height
	if f.Width <= 0 || f.Height <= 0 || f.First < 0 || f.Samples < 0 {
		return false
	}
	has := f.Layers()
	if has&BaseLayers != BaseLayers || (has&SplitLayers != 0 && has&SplitLayers != SplitLayers) {
		return false
	}
	for l, info := range FilmLayers {
		sums, res := f.Sums(Layer(l)), f.Residual[l]
		if sums == nil {
			if len(res) > 0 {
				return false
			}
			continue
		}
		if len(sums) != info.Channels*n || (info.Exact && len(res) != len(sums)) || (!info.Exact && len(res) > 0) {
			return false
		}
	}
	return true
}

// Keep drops the layers not in s (the base layers stay): a merged film
// holds every layer, but its image holds those its outputs ask for, as
// the same render's in one go does.
func (f *Film) Keep(s Layers) {
	s |= BaseLayers
	for l, info := range FilmLayers {
		if !s.Has(Layer(l)) {
			*info.sums(f), f.Residual[l] = nil, nil
		}
	}
}

// NewFilm makes an empty film of every layer.
func NewFilm(width, height int) *Film { return NewFilmOf(width, height, AllLayers) }

// NewFilmOf makes an empty film of the layers in s and the base layers:
// at 3840x2160 every layer takes 3.5 GB, the base ones 0.5 GB.
func NewFilmOf(width, height int, s Layers) *Film {
	s |= BaseLayers
	f := &Film{Width: width, Height: height}
	for l, info := range FilmLayers {
		if !s.Has(Layer(l)) {
			continue
		}
		*info.sums(f) = make([]float64, info.Channels*width*height)
		if info.Exact {
			f.Residual[l] = make([]float64, info.Channels*width*height)
		}
	}
	return f
}

// FillResiduals gives a film read back from a file the residuals its
// layers lack: zeros (a film written before the sums were exact has float64
// sums that are their own exact value), and none where the layer is absent
// or not exact (a decoder's empty slices).
func (f *Film) FillResiduals() {
	for l, info := range FilmLayers {
		switch sums := f.Sums(Layer(l)); {
		case !info.Exact || len(sums) == 0:
			f.Residual[l] = nil
		case f.Residual[l] == nil:
			f.Residual[l] = make([]float64, len(sums))
		}
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
	if a == AOVVariance {
		return sampleVariance(f.Beauty, f.LumSq, f.Width*f.Height, f.Samples), 1
	}
	src, channels := f.Beauty, 3
	if l, ok := LayerOf(a); ok {
		src, channels = f.Sums(l), FilmLayers[l].Channels
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
