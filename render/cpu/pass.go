package cpu

import "sertrace/render"

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
	samples   [render.NumLayers][]float32
	y0, width int
	height    int
	held      render.Layers
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
	b.y0 = y0
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
