package render

import (
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Exact sums. A film's image layers are sums of float32 samples, kept
// exactly so that the order they are added in never shows: the samples of
// one render split into passes of any size, or into slices rendered on
// other machines and merged (MergeSlices), give the same sums bit for bit.
//
// A sum is an integer count of units of 2^-32 (FixedBits): each sample
// joins it rounded to the nearest unit (ties to even), and integers add
// exactly in any order. A sum is held as a 128-bit integer hi·2^64 + lo,
// lo a signed 64-bit word: lo in a dense array, 8 bytes a channel, and hi
// in a map where it is not zero, which takes a pixel summing past 2^31
// (2.1e9: a million samples of radiance 2,000, or 64 of 3.4e7). The
// 128-bit value is a function of the exact sum alone, so every reader sees
// the same bits whatever the order. Samples are clamped to ±2^62 (4.6e18)
// and NaN joins as 0; below 2^-33 a sample rounds to 0, which a float32
// image of radiance near 1 cannot show (its own step there is 2^-24).

// FixedBits is how many bits of an exact sum lie below its unit's point:
// a sum counts units of 2^-FixedBits.
const FixedBits = 32

// The guides (the first hit's albedo and normal, the split's albedos:
// values of magnitude about 1, read by the denoiser and shown as AOVs)
// are narrow: their unit is 2^-NarrowBits and their low words are 32 bits
// (High counts 2^32 units), half the memory. A sample is rounded to the
// nearest 6.1e-5 (2^-14: a sixteenth of a half float's step at 1) and a pixel
// summing past 131,072 samples of 1 carries into the high words. Their
// samples are clamped to ±2^40.
const NarrowBits = 14

// narrowMax is the magnitude a narrow layer's samples are clamped to.
const narrowMax = 0x1p40

// Quantum is the step of an exact sum.
const Quantum = 0x1p-32

// maxSample is the magnitude samples are clamped to.
const maxSample = 0x1p62

// Quantize is a sample as a whole number of units, the 128-bit integer
// hi·2^64 + lo with lo a signed word.
func Quantize(v float32) (hi, lo int64) { return quantize(v, maxSample, 0x1p32) }

// quantize is a sample clamped to ±limit and counted in units of 1/scale
// (a power of two), NaN as 0.
func quantize(v float32, limit, scale float64) (hi, lo int64) {
	x := float64(v)
	switch {
	case x != x:
		return 0, 0
	case x > limit:
		x = limit
	case x < -limit:
		x = -limit
	}
	return units(x * scale) // exact: a float32 scaled by a power of two
}

// QuantizeLayer is a sample of layer l as a whole number of its units:
// Quantize's, or a narrow layer's (NarrowBits).
func QuantizeLayer(l Layer, v float32) (hi, lo int64) {
	if FilmLayers[l].Narrow {
		return quantizeNarrow(v)
	}
	return Quantize(v)
}

// quantizeNarrow is a narrow layer's sample in units of 2^-NarrowBits.
func quantizeNarrow(v float32) (hi, lo int64) { return quantize(v, narrowMax, 0x1p14) }

// units is x, a number of units (finite, below 2^125 in magnitude), as
// the nearest whole number of them (ties to even), in canonical 128-bit
// form.
func units(x float64) (hi, lo int64) {
	if math.Abs(x) < 0x1p62 {
		return 0, int64(math.RoundToEven(x))
	}
	// |x| ≥ 2^62 is a whole number (a float64's 53 bits at 2^62 and up).
	h := math.Floor(x * 0x1p-64)
	l := x - h*0x1p64 // exact, in [0, 2^64)
	if l >= 0x1p63 {
		l -= 0x1p64
		h++
	}
	return int64(h), int64(l)
}

// AddFixed adds the 128-bit integer (hi2, lo2) to (*hi, *lo), both
// canonical (lo the signed low word).
func AddFixed(hi, lo *int64, hi2, lo2 int64) { *hi += hi2 + addLow(lo, lo2) }

// addLow adds v to the signed low word *lo and returns what carries into
// the high word: 1 past 2^63 (the sum is the wrapped word + 2^64), −1
// below −2^63, else 0.
func addLow(lo *int64, v int64) int64 {
	a := *lo
	*lo = a + v
	switch {
	case v > 0 && *lo < a:
		return 1
	case v < 0 && *lo > a:
		return -1
	}
	return 0
}

// fixedValue is the float64 of the exact sum (hi, lo) in units.
func fixedValue(hi, lo int64) float64 {
	if hi == 0 {
		return float64(lo) * Quantum
	}
	return float64(hi)*0x1p32 + float64(lo)*Quantum
}

// LayerSums are one layer's per-pixel sums, channels interleaved: exact
// for the image layers (Fixed, or Narrow for the guides, and High where
// the high word is not zero), float64 (Plain) for the statistics. Empty:
// the film does not hold the layer.
type LayerSums struct {
	Fixed []int64
	// Narrow are a narrow layer's low words (NarrowBits): the sum is
	// High·2^32 + Narrow units.
	Narrow []int32
	High   map[int]int64
	Plain  []float64
}

// narrowCarry adds the sum (hi, lo) (canonical 128-bit units) to the
// narrow low word *w and returns what joins the high word, in 2^32 units.
func narrowCarry(w *int32, hi, lo int64) int64 {
	t := int64(*w) + int64(uint32(lo))
	*w = int32(t)
	return hi<<32 + lo>>32 + (t-int64(int32(t)))>>32
}

// Equal reports whether two layers' sums are the same, bit for bit.
func (s *LayerSums) Equal(o *LayerSums) bool {
	return slices.Equal(s.Fixed, o.Fixed) && slices.Equal(s.Narrow, o.Narrow) && maps.Equal(s.High, o.High) &&
		slices.EqualFunc(s.Plain, o.Plain, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
}

// highMu guards the High maps of a CPU pass's buffers, which workers on
// other tiles write at once (rarely: a pixel summing past 2^31).
var highMu sync.Mutex

// Len is how many values the layer holds (0: absent).
func (s *LayerSums) Len() int { return max(len(s.Fixed), len(s.Narrow), len(s.Plain)) }

// Value is the sum at element i.
func (s *LayerSums) Value(i int) float64 {
	switch {
	case s.Plain != nil:
		return s.Plain[i]
	case s.Narrow != nil:
		return (float64(s.High[i])*0x1p32 + float64(s.Narrow[i])) * 0x1p-14
	}
	return fixedValue(s.High[i], s.Fixed[i])
}

// quantize is a sample in the layer's units.
func (s *LayerSums) quantize(v float32) (hi, lo int64) {
	if s.Narrow != nil {
		return quantizeNarrow(v)
	}
	return Quantize(v)
}

// Floats is every sum as float64 (a copy).
func (s *LayerSums) Floats() []float64 {
	out := make([]float64, s.Len())
	for i := range out {
		out[i] = s.Value(i)
	}
	return out
}

// AddShared adds (hi, lo), a sum in units (Quantize, AddFixed), to exact
// element i while other goroutines add to other elements.
func (s *LayerSums) AddShared(i int, hi, lo int64) { s.addAtShared(i, hi, lo) }

// AddSample adds a sample (Quantize for exact sums) at element i.
func (s *LayerSums) AddSample(i int, v float32) {
	if s.Plain != nil {
		s.Plain[i] += float64(v)
		return
	}
	hi, lo := s.quantize(v)
	s.addAt(i, hi, lo)
}

// Set makes the sum at element i v (quantized on an exact layer).
func (s *LayerSums) Set(i int, v float64) {
	if s.Plain != nil {
		s.Plain[i] = v
		return
	}
	delete(s.High, i)
	// In float64 and unclamped but for the 128-bit range: a sum (n times
	// a squared luminance) may pass a sample's clamp.
	x, limit := v*0x1p32, 0x1p125
	if s.Narrow != nil {
		s.Narrow[i] = 0
		x, limit = v*0x1p14, 0x1p93 // a narrow sum's high word counts 2^32 units
	} else {
		s.Fixed[i] = 0
	}
	switch {
	case x != x:
		x = 0
	case x > limit:
		x = limit
	case x < -limit:
		x = -limit
	}
	hi, lo := units(x)
	s.addAt(i, hi, lo)
}

// addAt adds (hi, lo) to exact element i, touching the high words only
// where it changes one.
func (s *LayerSums) addAt(i int, hi, lo int64) {
	if c := s.carry(i, hi, lo); c != 0 {
		s.setHigh(i, s.High[i]+c)
	}
}

// carry adds (hi, lo) to element i's low word and returns what joins its
// high word.
func (s *LayerSums) carry(i int, hi, lo int64) int64 {
	if s.Narrow != nil {
		return narrowCarry(&s.Narrow[i], hi, lo)
	}
	return hi + addLow(&s.Fixed[i], lo)
}

// addAtShared is addAt while other goroutines add to other elements: a
// change of high word (rare) takes highMu.
func (s *LayerSums) addAtShared(i int, hi, lo int64) {
	if c := s.carry(i, hi, lo); c != 0 {
		highMu.Lock()
		s.setHigh(i, s.High[i]+c)
		highMu.Unlock()
	}
}

// setHigh keeps element i's high word, in the map only when not zero.
func (s *LayerSums) setHigh(i int, h int64) {
	if h == 0 {
		delete(s.High, i)
		return
	}
	if s.High == nil {
		s.High = map[int]int64{}
	}
	s.High[i] = h
}

// StoreFixed writes element i's sum of a pass into pass buffers whose
// high words were cleared (ClearHigh) before the pass: nothing else writes
// element i at once, but other goroutines may write other elements' high
// words.
func (s *LayerSums) StoreFixed(i int, hi, lo int64) {
	if s.Narrow != nil {
		s.Narrow[i] = 0
		hi = narrowCarry(&s.Narrow[i], hi, lo)
	} else {
		s.Fixed[i] = lo
	}
	if hi != 0 {
		highMu.Lock()
		s.setHigh(i, hi)
		highMu.Unlock()
	}
}

// Reset empties the film for samples of other pixels (a band's film for
// the next band), keeping its layers and their memory.
func (f *Film) Reset() {
	for l := range f.Sums {
		clear(f.Sums[l].Fixed)
		clear(f.Sums[l].Narrow)
		clear(f.Sums[l].Plain)
	}
	for g := range f.Groups {
		clear(f.Groups[g].Fixed)
	}
	if f.Coverage != nil {
		f.Coverage.reset()
	}
	f.ClearHigh()
	clear(f.StoppedAt) // a film of SamplesLayers keeps them
	f.First, f.Samples, f.Partial, f.Ahead, f.AheadPixels = 0, 0, false, 0, nil
}

// ClearHigh drops the film's high words, which pass buffers do before each
// pass (their low words are all written again).
func (f *Film) ClearHigh() {
	for l := range f.Sums {
		f.Sums[l].High = nil
	}
	for g := range f.Groups {
		f.Groups[g].High = nil
	}
}

// add adds o's sums, of the same kind and length, to s's.
func (s *LayerSums) add(o *LayerSums) {
	if s.Plain != nil {
		for i, v := range o.Plain {
			s.Plain[i] += v
		}
		return
	}
	for i, v := range o.Fixed {
		s.addAt(i, 0, v)
	}
	for i, v := range o.Narrow {
		s.addAt(i, 0, int64(v))
	}
	for i, h := range o.High { // in any order: the sums do not depend on it
		if s.Narrow != nil {
			s.setHigh(i, s.High[i]+h) // both in 2^32 units
		} else {
			s.addAt(i, h, 0)
		}
	}
}

// AddPass adds one pass's float32 sums of a layer (a GPU launch's) to the
// film: exactly on exact layers, each value rounded to Quantum first. A
// layer the film lacks is left out, and so are the pixels that hold the
// pass already (the finished part of a cut pass this one completes).
func (f *Film) AddPass(l Layer, src []float32) { f.AddPassAt(l, 0, src) }

// AddPassAt is AddPass of the pixels from px0 on: src holds the layer's
// channels of pixels px0, px0+1 and so on (a GPU launch's rows).
func (f *Film) AddPassAt(l Layer, px0 int, src []float32) {
	f.addPassTo(&f.Sums[l], FilmLayers[l].Channels, px0, src)
}

// addPassTo is AddPassAt into dst, a layer of channels a pixel.
func (f *Film) addPassTo(dst *LayerSums, channels, px0 int, src []float32) {
	ahead := f.AheadPixels
	skip := func(i int) bool { px := px0 + i/channels; return ahead[px>>6]>>(px&63)&1 != 0 }
	at := px0 * channels
	switch {
	case dst.Len() == 0:
		return
	case dst.Plain != nil || len(src) < parallelAdd:
		for i, v := range src {
			if ahead == nil || !skip(i) {
				dst.AddSample(at+i, v)
			}
		}
		return
	}
	// Each element's sum is its own integer: cores take a share of them.
	parallelRanges(len(src), func(from, to int) {
		for i := from; i < to; i++ {
			if ahead == nil || !skip(i) {
				hi, lo := dst.quantize(src[i])
				dst.addAtShared(at+i, hi, lo)
			}
		}
	})
}

// parallelAdd is the length from which AddPass adds on every core.
const parallelAdd = 1 << 16

// PassRun is a run of N pixels of a pass's sums (a GPU launch's listed
// pixels: adaptive sampling): the film's pixels from Pixel on, whose sums
// are the source's pixels from From on.
type PassRun struct{ Pixel, From, N int }

// AddPassRuns is AddPassAt of each run of src, a layer's sums of the runs'
// pixels: on every core where there are many.
func (f *Film) AddPassRuns(l Layer, runs []PassRun, src []float32) {
	f.addRunsTo(&f.Sums[l], FilmLayers[l].Channels, runs, src)
}

// AddGroupPassRuns is AddPassRuns of light group g's sums.
func (f *Film) AddGroupPassRuns(g int, runs []PassRun, src []float32) {
	f.addRunsTo(&f.Groups[g], 3, runs, src)
}

// addRunsTo is AddPassRuns into dst, a layer of channels a pixel.
func (f *Film) addRunsTo(dst *LayerSums, channels int, runs []PassRun, src []float32) {
	values := 0
	for _, r := range runs {
		values += channels * r.N
	}
	if dst.Len() == 0 {
		return
	}
	if dst.Plain != nil || values < parallelAdd || len(runs) < 64*runtime.GOMAXPROCS(0) {
		// Few values, or few runs (a launch of every pixel is one): each
		// run as AddPassAt adds it, on every core where it is long.
		for _, r := range runs {
			f.addPassTo(dst, channels, r.Pixel, src[channels*r.From:channels*(r.From+r.N)])
		}
		return
	}
	// Each element's sum is its own integer: cores take a share of the
	// many runs.
	parallelRanges(len(runs), func(from, to int) {
		for _, r := range runs[from:to] {
			for i, v := range src[channels*r.From : channels*(r.From+r.N)] {
				if !f.IsAhead(r.Pixel + i/channels) {
					hi, lo := dst.quantize(v)
					dst.addAtShared(channels*r.Pixel+i, hi, lo)
				}
			}
		}
	})
}

// Add adds the sums of o, a film of the same size, to f's: exactly on the
// exact layers. The sample counts are the caller's to keep.
func (f *Film) Add(o *Film) error {
	switch {
	case o.Width != f.Width || o.Height != f.Height:
		return fmt.Errorf("films of %dx%d and %dx%d pixels do not add", f.Width, f.Height, o.Width, o.Height)
	case o.Cut() || f.aheadCount() > 0 || o.Active() != o.Width*o.Height || f.Active() != f.Width*f.Height:
		return fmt.Errorf("internal error: films whose pixels hold different sample counts do not add")
	}
	for l := range NumLayers {
		dst, src := &f.Sums[l], &o.Sums[l]
		if dst.Len() == 0 {
			continue
		}
		if src.Len() != dst.Len() {
			return fmt.Errorf("the %s layer is missing", FilmLayers[l].Name)
		}
		dst.add(src)
	}
	if !slices.Equal(f.GroupNames, o.GroupNames) || len(f.Groups) != len(o.Groups) {
		return fmt.Errorf("the light groups differ (%s; %s)", strings.Join(f.GroupNames, ", "), strings.Join(o.GroupNames, ", "))
	}
	if (f.Coverage == nil) != (o.Coverage == nil) {
		return fmt.Errorf("one holds Cryptomatte's counts, the other not")
	}
	if f.Coverage != nil && !slices.Equal(f.Coverage.Names, o.Coverage.Names) {
		return fmt.Errorf("their Cryptomatte counts name different things")
	}
	for g := range f.Groups {
		f.Groups[g].add(&o.Groups[g])
	}
	if f.Coverage != nil {
		f.Coverage.add(o.Coverage)
	}
	return nil
}

// AddGroupPassAt is AddPassAt of light group g's sums.
func (f *Film) AddGroupPassAt(g, px0 int, src []float32) {
	f.addPassTo(&f.Groups[g], 3, px0, src)
}

// SumGroups makes a film's beauty the sum of its light groups, exactly:
// the groups then add up to the beauty in the sums, bit for bit, and in
// its images as closely as their float32 values can (each rounded once).
// Every pass of a film with groups ends with it (render.Render,
// RenderBands); without groups it does nothing.
func (f *Film) SumGroups() {
	b := &f.Sums[LayerBeauty]
	if len(f.Groups) == 0 || b.Len() == 0 {
		return
	}
	b.High = nil
	var mu sync.Mutex
	parallelRanges(len(b.Fixed), func(from, to int) {
		high := map[int]int64{}
		for i := from; i < to; i++ {
			var hi, lo int64
			for g := range f.Groups {
				s := &f.Groups[g]
				AddFixed(&hi, &lo, s.High[i], s.Fixed[i])
			}
			b.Fixed[i] = lo
			if hi != 0 {
				high[i] = hi
			}
		}
		if len(high) > 0 {
			mu.Lock()
			for i, h := range high {
				b.setHigh(i, h)
			}
			mu.Unlock()
		}
	})
}
