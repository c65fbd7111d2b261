package cpu

import (
	"slices"

	"sertrace/render"
)

// pixelExtras are one pixel's sums over a pass of what not every film
// holds: its light groups' (exact, as the beauty's: each sample's float32
// light of a group rounded to render.Quantum, a component that is not
// finite as 0) and how many of its samples first saw each instance.
type pixelExtras struct {
	hi, lo []int64  // 3 a group
	ids    []uint32 // each sample's first instance + 1 (0: none)
	counts []uint64 // render.Coverage.AddSamples's scratch
}

// pixelExtras sums the pixel whose samples are paths [i, i+spp) into
// w.pixel.
func (w *worker) pixelExtras(i, spp int, out *passOut) {
	e := &w.pixel
	n := 3 * w.groups
	e.hi, e.lo = render.Grow(e.hi, n), render.Grow(e.lo, n)
	clear(e.hi)
	clear(e.lo)
	for j := i; j < i+spp; j++ {
		for g, v := range w.groupLight[j*w.groups : (j+1)*w.groups] {
			for c, x := range [3]float32{v.X, v.Y, v.Z} {
				if !finite(x) {
					continue
				}
				hi, lo := render.Quantize(x)
				render.AddFixed(&e.hi[3*g+c], &e.lo[3*g+c], hi, lo)
			}
		}
	}
	e.ids = e.ids[:0]
	if out.coverage {
		for j := i; j < i+spp; j++ {
			e.ids = append(e.ids, w.paths[j].FirstInstance)
		}
	}
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float32) bool { return x-x == 0 }

// addTo adds the pixel's extras to film's pixel px, which other
// goroutines' tiles do not hold.
func (e *pixelExtras) addTo(film *render.Film, px int) {
	e.join(film, px, (*render.LayerSums).AddShared)
}

// store writes the pixel's extras into pass buffers (their counts
// cleared before the pass).
func (e *pixelExtras) store(out *render.Film, px int) {
	e.join(out, px, (*render.LayerSums).StoreFixed)
}

// join puts the pixel's group sums into f's with put, and adds its
// counts.
func (e *pixelExtras) join(f *render.Film, px int, put func(s *render.LayerSums, i int, hi, lo int64)) {
	for g := range f.Groups {
		for c := range 3 {
			put(&f.Groups[g], 3*px+c, e.hi[3*g+c], e.lo[3*g+c])
		}
	}
	if f.Coverage != nil {
		e.counts = f.Coverage.AddSamples(px, e.ids, e.counts)
	}
}

// passOut is where a pass's finished pixels go. By default straight into
// the film: each pixel's sums over the pass join its sums as its tile is
// done, and the film marks it (render.Film.MarkAhead), so that a pass cut
// short leaves its finished pixels there and a resumed render completes
// the others. A render whose cancelled pass must add nothing
// (render.Options.WholePasses: a slice's, merged by whole passes) gets
// buffers the size of the image instead, added when the pass completes.
type passOut struct {
	film *render.Film // direct: the film itself
	// buffered: the pass's buffers (nil: direct)
	buffers   *passBuffers
	y0, width int           // the film's (band's) first row and width
	held      render.Layers // the film's layers
	groups    []string      // its light groups
	coverage  bool          // whether it counts Cryptomatte's coverage
}

// directOut is a pass straight into film.
func directOut(film *render.Film) *passOut {
	return &passOut{film: film, y0: film.Y0, width: film.Width, held: film.Held(), groups: film.GroupNames, coverage: film.Coverage != nil}
}

// skip reports whether pixel px (of the film's rows) takes no samples in
// the pass: it has stopped (adaptive sampling), or it holds the pass's
// samples already (a cut pass's finished pixel, which its completion
// leaves).
func (o *passOut) skip(px int) bool {
	return o.film.Stopped(px) || (o.buffers == nil && o.film.IsAhead(px))
}

// pixel takes pixel px's sums over the pass.
func (o *passOut) pixel(px int, sums *pixelSums, extras *pixelExtras) {
	if o.buffers != nil {
		sums.store(o.buffers.sums, px)
		extras.store(o.buffers.sums, px)
		return
	}
	sums.addTo(o.film, px)
	extras.addTo(o.film, px)
	o.film.MarkAhead(px)
}

// passBuffers receive one pass's samples before they join the film, which
// a cancelled pass never does. For passes of several samples a pixel they
// are a film of their own, whose exact sums take each pixel's samples at
// once (pixelSums.store). For passes of one sample a pixel, every pass of
// an image of more than 2^21 pixels (render.CPUPassSamples), they hold that
// sample, each channel's float32, which the film quantizes as it adds it:
// a sum of one sample is its quantized value, so the film's sums are the
// same bits in half the memory.
type passBuffers struct {
	sums *render.Film // passes of several samples
	// samples are a pass of one sample's values, per layer the film
	// holds, channels interleaved.
	samples [render.NumLayers][]float32
	width   int
	height  int
	held    render.Layers
}

// newPassBuffers makes buffers for passes into film, of one sample a pixel
// where one (and the film has neither light groups nor Cryptomatte, whose
// sums the buffers of one sample do not hold).
func newPassBuffers(film *render.Film, one bool) *passBuffers {
	b := &passBuffers{width: film.Width, height: film.Height, held: film.Held()}
	if !one || !oneSampleBuffers(film) {
		b.sums = film.Like(film.Width, film.Height)
		return b
	}
	for l, info := range render.FilmLayers {
		if film.Has(render.Layer(l)) {
			b.samples[l] = make([]float32, info.Channels*film.Width*film.Height)
		}
	}
	return b
}

// fits reports whether the buffers serve passes into film, of one sample
// a pixel where one.
func (b *passBuffers) fits(film *render.Film, one bool) bool {
	return (b.sums == nil) == (one && oneSampleBuffers(film)) && b.held == film.Held() && b.width == film.Width && b.height == film.Height &&
		(b.sums == nil || slices.Equal(b.sums.GroupNames, film.GroupNames))
}

// oneSampleBuffers reports whether passes of one sample into film may be
// buffered as floats: not where it has light groups or Cryptomatte.
func oneSampleBuffers(film *render.Film) bool {
	return film.Held()&(render.GroupLayers|render.CoverageLayers) == 0
}

// start readies the buffers for a pass into a film (or band) whose first
// row is y0. They need no clearing: a pass writes every pixel of them.
func (b *passBuffers) start(y0 int) {
	if b.sums != nil {
		b.sums.Y0 = y0
		b.sums.ClearHigh()
		if b.sums.Coverage != nil {
			b.sums.Reset() // counts are added, not stored
			b.sums.Y0 = y0
		}
	}
}

// storeSample writes pixel px's one sample of the pass.
func (b *passBuffers) storeSample(px int, v *[render.NumLayers][3]float32) {
	for l, info := range render.FilmLayers {
		if dst := b.samples[l]; dst != nil {
			copy(dst[info.Channels*px:info.Channels*(px+1)], v[l][:info.Channels])
		}
	}
}

// addTo adds a completed pass to the film.
func (b *passBuffers) addTo(film *render.Film) error {
	if b.sums != nil {
		return film.Add(b.sums)
	}
	for l, v := range b.samples {
		if v != nil {
			film.AddPass(render.Layer(l), v)
		}
	}
	return nil
}
