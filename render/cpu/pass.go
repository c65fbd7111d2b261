package cpu

import "sertrace/render"

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
}

// directOut is a pass straight into film.
func directOut(film *render.Film) *passOut {
	return &passOut{film: film, y0: film.Y0, width: film.Width, held: film.Held()}
}

// skip reports whether pixel px (of the film's rows) holds the pass's
// samples already: a cut pass's finished pixel, which its completion
// leaves.
func (o *passOut) skip(px int) bool { return o.buffers == nil && o.film.IsAhead(px) }

// pixel takes pixel px's sums over the pass.
func (o *passOut) pixel(px int, sums *pixelSums) {
	if o.buffers != nil {
		sums.store(o.buffers.sums, px)
		return
	}
	sums.addTo(o.film, px)
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
// where one.
func newPassBuffers(film *render.Film, one bool) *passBuffers {
	b := &passBuffers{width: film.Width, height: film.Height, held: film.Held()}
	if !one {
		b.sums = render.NewFilmOf(film.Width, film.Height, b.held)
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
	return (b.sums == nil) == one && b.held == film.Held() && b.width == film.Width && b.height == film.Height
}

// start readies the buffers for a pass into a film (or band) whose first
// row is y0. They need no clearing: a pass writes every pixel of them.
func (b *passBuffers) start(y0 int) {
	if b.sums != nil {
		b.sums.Y0 = y0
		b.sums.ClearHigh()
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
