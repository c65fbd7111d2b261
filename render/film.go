package render

import (
	"slices"
	"strings"

	"sertrace/render/layout"
	"sertrace/scene"
)

// Film accumulates radiance and the first-hit AOVs per pixel, as sums over
// its samples. The image's sums are exact (sums.go): each sample joins them
// rounded to a multiple of 2^-32 and nothing is rounded after, so the sums,
// and every image made from them, are the same whatever the passes or the
// slices the samples were rendered in. Every pixel receives the same
// number of samples, so one count serves the whole image, but for a pass
// cut short, whose finished pixels hold its samples (Ahead).
type Film struct {
	Width, Height int
	// Y0 is the image row the film's first row is: a band's (RenderBands),
	// 0 for a whole image, whose Height is then the image's.
	Y0       int
	First    int    // the first sample index the film holds (a slice's; 0 for a whole render)
	Samples  int    // per pixel, accumulated so far: samples [First, First+Samples)
	CostUnit string // "": rays; "clock ticks": the GPU's shader clock over the pixel's samples
	Partial  bool   // stopped before all samples were taken
	// Ahead and AheadPixels describe the pass in flight, or one cut short
	// (cutpass.go): the pixels whose bit is set hold Ahead samples more
	// than Samples, samples [First+Samples, First+Samples+Ahead). Ahead 0
	// and no bits: every pixel holds Samples.
	Ahead       int
	AheadPixels []uint64
	// StoppedAt is, under adaptive sampling, each pixel's samples where it
	// stopped taking more (adaptive.go), 0 where it still takes them; nil:
	// every pixel takes all (a fixed render, or none stopped yet).
	StoppedAt []uint32

	// Sums are the layers' sums, rows from the top, a pixel's channels
	// together (FilmLayers says what each holds); a layer nothing reads is
	// empty (LayersFor). The denoiser's split (the light the first hit's
	// diffuse lobe reflected and the light its other lobes did, with their
	// albedos and squared luminances) is all there or all absent.
	Sums [NumLayers]LayerSums
	// Groups are the light groups' sums (RGB, exact, as the beauty's), in
	// the order of GroupNames; a film with groups has for beauty their sum
	// (SumGroups). Nil: no groups (GroupLayers).
	Groups     []LayerSums
	GroupNames []string
	// Coverage is the Cryptomatte's counts; nil: none (CoverageLayers).
	Coverage *Coverage
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
	// Narrow exact layers are held in 32-bit words of 2^-14 (NarrowBits):
	// the guides, whose values are about 1.
	Narrow bool
	Split  bool // part of the denoiser's split, which an old checkpoint lacks
	// AOV is the output that shows the layer averaged ("" for the squared
	// luminances, which the variance outputs read).
	AOV AOV
	// GPU is the layer's first float in the GPU's film buffer (layout.Film*;
	// −1: the GPU keeps none).
	GPU int
	// Doc says what the layer sums, per sample.
	Doc string
}

// FilmLayers is the table of a film's layers.
var FilmLayers = [NumLayers]LayerInfo{
	{"beauty", 3, true, false, false, AOVBeauty, layout.FilmBeauty, "RGB radiance"},
	{"albedo", 3, true, true, false, AOVAlbedo, layout.FilmAlbedo, "the first hit's albedo"},
	{"normal", 3, true, true, false, AOVNormal, layout.FilmNormal, "the first hit's world shading normal"},
	{"depth", 1, true, false, false, AOVDepth, layout.FilmDepth, "the first hit's distance along the camera axis (0 for misses)"},
	{"lum_sq", 1, true, false, false, "", layout.FilmLumSq, "the squared luminance, for the variance"},
	{"diffuse", 3, true, false, true, AOVDiffuse, layout.FilmDiffuse, "the light the first hit's diffuse lobe reflected"},
	{"specular", 3, true, false, true, AOVSpecular, layout.FilmSpecular, "the light the first hit's other lobes (specular, metal, glass) reflected"},
	{"diffuse_albedo", 3, true, true, true, AOVDiffuseAlbedo, layout.FilmDiffuseAlbedo, "the diffuse lobe's directional albedo"},
	{"specular_albedo", 3, true, true, true, AOVSpecularAlbedo, layout.FilmSpecularAlbedo, "the other lobes' directional albedo"},
	{"diffuse_lum_sq", 1, true, false, true, "", layout.FilmDiffuseLumSq, "the diffuse light's squared luminance"},
	{"specular_lum_sq", 1, true, false, true, "", layout.FilmSpecularLumSq, "the other light's squared luminance"},
	{"cost", 1, false, false, false, AOVCost, layout.FilmCost, "rays traced (camera, bounce and shadow rays), or the film's CostUnit"},
	{"path_length", 1, false, false, false, AOVPathLength, layout.FilmPathLength, "bounces"},
	{"simt", 1, false, false, false, AOVSIMT, -1, "the SIMT efficiency of the warps the path ran in (launch order)"},
}

// wordBytes is the bytes a channel of the layer takes in a film.
func (info LayerInfo) wordBytes() uint64 {
	if info.Narrow {
		return 4
	}
	return 8
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

// Has reports whether the film holds layer l.
func (f *Film) Has(l Layer) bool { return f.Sums[l].Len() > 0 }

// HasSplit reports whether the film holds the denoiser's diffuse and
// specular split.
func (f *Film) HasSplit() bool { return f.Has(LayerDiffuse) }

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

// CoverageLayers and GroupLayers are, in a set of layers, the
// Cryptomatte's counts (Film.Coverage) and the light groups' sums
// (Film.Groups): layers FilmLayers does not list, whose sizes are the
// scene's.
const (
	CoverageLayers Layers = 1 << 30
	GroupLayers    Layers = 1 << 31
	// SamplesLayers is each pixel's sample count (Film.StoppedAt, which a
	// film of it holds from the start): the EXR's samples layer.
	SamplesLayers Layers = 1 << 29
)

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
		if slices.Contains(CryptoAOVs, a) {
			s |= CoverageLayers
		}
		if a == AOVSamples {
			s |= SamplesLayers
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
	if s&CoverageLayers != 0 {
		names = append(names, "cryptomatte")
	}
	if s&GroupLayers != 0 {
		names = append(names, "light groups")
	}
	if s&SamplesLayers != 0 {
		names = append(names, "samples")
	}
	return strings.Join(names, ", ")
}

// Held is the set of layers the film holds.
func (f *Film) Held() Layers {
	var s Layers
	for l := range NumLayers {
		if f.Has(l) {
			s |= 1 << l
		}
	}
	if f.Coverage != nil {
		s |= CoverageLayers
	}
	if len(f.Groups) > 0 {
		s |= GroupLayers
	}
	if f.StoppedAt != nil {
		s |= SamplesLayers
	}
	return s
}

// Whole reports whether every layer is the image's size and of its kind
// or absent, the base layers present and the split whole or absent: what
// a film read back from a checkpoint or a slice must be.
func (f *Film) Whole() bool {
	n := f.Width * f.Height
	if f.Width <= 0 || f.Height <= 0 || f.First < 0 || f.Samples < 0 || n > MaxFilePixels || !f.cutWhole() || !f.stoppedWhole() {
		return false
	}
	has := f.Held()
	if has&BaseLayers != BaseLayers || (has&SplitLayers != 0 && has&SplitLayers != SplitLayers) {
		return false
	}
	for l, info := range FilmLayers {
		s := &f.Sums[l]
		if s.Len() == 0 {
			if len(s.High) > 0 {
				return false
			}
			continue
		}
		held := 0
		for _, has := range []bool{s.Fixed != nil, s.Narrow != nil, s.Plain != nil} {
			if has {
				held++
			}
		}
		if held != 1 || info.Narrow != (s.Narrow != nil) || (info.Exact && !info.Narrow) != (s.Fixed != nil) || s.Len() != info.Channels*n {
			return false
		}
		if !s.highWhole() {
			return false
		}
	}
	if len(f.Groups) != len(f.GroupNames) || (f.Coverage != nil && !f.Coverage.whole(n, len(f.Coverage.Names))) {
		return false
	}
	for g := range f.Groups {
		if s := &f.Groups[g]; len(s.Fixed) != 3*n || s.Narrow != nil || s.Plain != nil || !s.highWhole() {
			return false
		}
	}
	return true
}

// highWhole reports whether the layer's high words are where its elements
// are, and not zero.
func (s *LayerSums) highWhole() bool {
	for i, h := range s.High {
		if i < 0 || i >= s.Len() || h == 0 {
			return false
		}
	}
	return true
}

// Keep drops the layers not in s (the base layers stay): a merged film
// holds every layer, but its image holds those its outputs ask for, as
// the same render's in one go does. The light groups stay: a render
// holds them only where it was asked for them.
func (f *Film) Keep(s Layers) {
	s |= GroupLayers
	s |= BaseLayers
	for l := range NumLayers {
		if !s.Has(l) {
			f.Sums[l] = LayerSums{}
		}
	}
	if s&CoverageLayers == 0 {
		f.Coverage = nil
	}
	if s&SamplesLayers == 0 && f.Active() == f.Width*f.Height {
		f.StoppedAt = nil // counts that say nothing
	}
	if s&GroupLayers == 0 {
		f.Groups, f.GroupNames = nil, nil
	}
}

// NewFilm makes an empty film of every layer.
func NewFilm(width, height int) *Film { return NewFilmOf(width, height, AllLayers) }

// NewFilmOf makes an empty film of the layers in s and the base layers:
// 8 bytes a channel, 4 for the narrow layers; at 3840x2160 1.4 GB for
// every layer and 0.27 GB for the base ones.
func NewFilmOf(width, height int, s Layers) *Film { return NewFilmWith(width, height, s, nil) }

// NewFilmWith is NewFilmOf with the light groups named groups where s has
// GroupLayers (none without names), and Cryptomatte's counts where it
// has CoverageLayers (their names the caller's to set).
func NewFilmWith(width, height int, s Layers, groups []string) *Film {
	s |= BaseLayers
	f := &Film{Width: width, Height: height}
	if s&GroupLayers != 0 && len(groups) > 0 {
		f.GroupNames = groups
		f.Groups = make([]LayerSums, len(groups))
		for g := range f.Groups {
			f.Groups[g].Fixed = make([]int64, 3*width*height)
		}
	}
	if s&CoverageLayers != 0 {
		f.Coverage = NewCoverage(width * height)
	}
	if s&SamplesLayers != 0 {
		f.StoppedAt = make([]uint32, width*height)
	}
	for l, info := range FilmLayers {
		if !s.Has(Layer(l)) {
			continue
		}
		switch {
		case info.Narrow:
			f.Sums[l].Narrow = make([]int32, info.Channels*width*height)
		case info.Exact:
			f.Sums[l].Fixed = make([]int64, info.Channels*width*height)
		default:
			f.Sums[l].Plain = make([]float64, info.Channels*width*height)
		}
	}
	return f
}

// Like is an empty film of width×height pixels holding what f holds: its
// layers, light groups and Cryptomatte (named as f's).
func (f *Film) Like(width, height int) *Film {
	o := NewFilmWith(width, height, f.Held(), f.GroupNames)
	if f.Coverage != nil {
		o.Coverage.Cryptomatte = f.Coverage.Cryptomatte
	}
	return o
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
	// AOVSamples is the samples each pixel took: all of them, but where
	// adaptive sampling stopped it.
	AOVSamples AOV = "samples"
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
var AOVs = slices.Concat([]AOV{AOVBeauty, AOVAlbedo, AOVNormal, AOVDepth, AOVVariance, AOVCost, AOVPathLength, AOVSIMT, AOVSamples}, SplitAOVs, CryptoAOVs)

// AOVNames lists the outputs' names, comma-separated, for messages.
func AOVNames(outputs []AOV) string {
	names := make([]string, len(outputs))
	for i, a := range outputs {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

// Heatmaps are the AOVs that a PNG shows as a colour scale with a legend.
var Heatmaps = []AOV{AOVVariance, AOVCost, AOVPathLength, AOVSIMT, AOVSamples}

// Resolve returns an AOV averaged over the samples: 3 channels per pixel
// (depth: 1).
func (f *Film) Resolve(a AOV) (pix []float32, channels int) { return f.ResolveRows(a, 0, f.Height) }

// ResolveRows is Resolve of rows [y0, y1) alone, what a writer streaming
// the image a block of rows at a time reads.
func (f *Film) ResolveRows(a AOV, y0, y1 int) (pix []float32, channels int) {
	return f.resolveRowsInto(nil, a, y0, y1)
}

// resolveRowsInto is ResolveRows into dst, grown where too small.
func (f *Film) resolveRowsInto(dst []float32, a AOV, y0, y1 int) (pix []float32, channels int) {
	from, to := y0*f.Width, y1*f.Width
	switch a {
	case AOVVariance:
		return f.sampleVariance(dst, LayerBeauty, LayerLumSq, from, to), 1
	case AOVSamples:
		out := Grow(dst, to-from)
		for k := range out {
			out[k] = float32(f.SamplesAt(from + k))
		}
		return out, 1
	}
	l, channels := LayerBeauty, 3
	if layer, ok := LayerOf(a); ok {
		l, channels = layer, FilmLayers[layer].Channels
	}
	out := f.resolveSums(dst, &f.Sums[l], channels, from, to)
	if a == AOVNormal {
		for i := 0; i < len(out); i += 3 {
			n := scene.Vec3{X: out[i], Y: out[i+1], Z: out[i+2]}.Normalize()
			out[i], out[i+1], out[i+2] = n.X, n.Y, n.Z
		}
	}
	return out, channels
}

// sampleVariance is the sample variance of luminance of pixels [from, to)
// over the samples whose RGB sums and squared-luminance sums are the
// layers given.
// It is written into dst, grown where too small.
func (f *Film) sampleVariance(dst []float32, rgb, lumSq Layer, from, to int) []float32 {
	out := Grow(dst, to-from)
	clear(out)
	sum, sq := &f.Sums[rgb], &f.Sums[lumSq]
	if sum.Len() == 0 || sq.Len() == 0 {
		return out
	}
	for k := range out {
		i := from + k
		n := float64(f.SamplesAt(i))
		if n < 2 {
			continue
		}
		v, _ := lumVariance(sum.luminance(i), sq.Value(i), int(n))
		out[k] = float32(v)
	}
	return out
}

// SplitMeanVariance is MeanVariance for the diffuse and the specular light.
func (f *Film) SplitMeanVariance() (diffuse, specular []float32) {
	n := f.Width * f.Height
	return f.meanVariance(nil, LayerDiffuse, LayerDiffuseLumSq, 0, n), f.meanVariance(nil, LayerSpecular, LayerSpecularLumSq, 0, n)
}

// MeanVariance is each pixel's variance of the luminance estimate (the
// sample variance over the sample count), what a denoiser weighs noise by.
// Samples are stratified, so it bounds the estimate's variance from above.
func (f *Film) MeanVariance() []float32 {
	return f.meanVariance(nil, LayerBeauty, LayerLumSq, 0, f.Width*f.Height)
}

// meanVariance is the variance of the luminance estimate of pixels
// [from, to) over the samples whose sums are the layers given: their
// sample variance over the sample count, written into dst, grown where too
// small.
func (f *Film) meanVariance(dst []float32, rgb, lumSq Layer, from, to int) []float32 {
	v := f.sampleVariance(dst, rgb, lumSq, from, to)
	for i := range v {
		v[i] /= float32(max(f.SamplesAt(from+i), 1))
	}
	return v
}

// resolveSums is the means of pixels [from, to) of sums of channels a
// pixel, into dst (grown where too small); zero where the film lacks them.
func (f *Film) resolveSums(dst []float32, src *LayerSums, channels, from, to int) []float32 {
	out := Grow(dst, channels*(to-from))
	clear(out)
	if src.Len() == 0 {
		return out
	}
	for p := from; p < to; p++ {
		n := f.SamplesAt(p)
		if n == 0 {
			continue
		}
		inv := 1 / float64(n)
		for c := range channels {
			out[channels*(p-from)+c] = float32(src.Value(channels*p+c) * inv)
		}
	}
	return out
}

// Floats is layer l's sums as float64 (a copy; nil where the film lacks
// the layer).
func (f *Film) Floats(l Layer) []float64 {
	if !f.Has(l) {
		return nil
	}
	return f.Sums[l].Floats()
}

// GPUFilmLayout places a render's layers in its accumulation buffer, one
// after the other in the order of layout's Film* indexes: those the film
// holds (held), the cost and shadow-ray counts (the ray statistics read
// them) and, with the clock raygen, the clock's ticks. It returns each
// layer's first float (layout.FilmNone for the others) in a buffer of n
// pixels, and the floats a pixel.
func GPUFilmLayout(held Layers, clock bool, n int) (at [layout.FilmLayers]uint32, floats int) {
	channels := map[int]int{layout.FilmCost: 1, layout.FilmShadowRays: 1}
	if clock {
		channels[layout.FilmClock] = 1
	}
	for l, info := range FilmLayers {
		if info.GPU >= 0 && held.Has(Layer(l)) {
			channels[info.GPU] = info.Channels
		}
	}
	for g := range at {
		at[g] = layout.FilmNone
		if c, ok := channels[g]; ok {
			at[g] = uint32(floats * n)
			floats += c
		}
	}
	return at, floats
}
