package denoise

import (
	"context"
	"path/filepath"
	"strings"

	"sertrace/render"
	"sertrace/render/layout"
)

// FromFilm gathers a film's beauty, guides and variance for the filter.
func FromFilm(f *render.Film) *Image {
	beauty, _ := f.Resolve(render.AOVBeauty)
	albedo, _ := f.Resolve(render.AOVAlbedo)
	normal, _ := f.Resolve(render.AOVNormal)
	depth, _ := f.Resolve(render.AOVDepth)
	img := &Image{Width: f.Width, Height: f.Height, Beauty: beauty, Albedo: albedo, Normal: normal, Depth: depth,
		Variance: f.MeanVariance()}
	if f.HasSplit() {
		img.Diffuse, _ = f.Resolve(render.AOVDiffuse)
		img.Specular, _ = f.Resolve(render.AOVSpecular)
		img.DiffuseAlbedo, _ = f.Resolve(render.AOVDiffuseAlbedo)
		img.SpecularAlbedo, _ = f.Resolve(render.AOVSpecularAlbedo)
		img.DiffuseVariance, img.SpecularVariance = f.SplitMeanVariance()
	}
	return img
}

// Film denoises a film's beauty with m (stopped when ctx is done) and
// returns a copy of the film holding it (the AOVs unchanged), ready for the
// image writers. Its squared-luminance sums are moved with the mean, so
// that the variance it shows (the EXR's variance layer) is still the
// noisy render's, what a later denoiser would weigh noise by.
func Film(ctx context.Context, f *render.Film, m Method) (*render.Film, error) {
	out, err := m(ctx, FromFilm(f))
	if err != nil {
		return nil, err
	}
	c := *f
	beauty := render.LayerSums{Fixed: make([]int64, len(out))}
	for i, v := range out {
		beauty.Set(i, float64(v)*float64(f.SamplesAt(i/3)))
	}
	noisyBeauty, noisySq := &f.Sums[render.LayerBeauty], &f.Sums[render.LayerLumSq]
	lum := func(b *render.LayerSums, i int) float64 {
		return layout.LumR*b.Value(3*i) + layout.LumG*b.Value(3*i+1) + layout.LumB*b.Value(3*i+2)
	}
	lumSq := render.LayerSums{Fixed: make([]int64, noisySq.Len())}
	for i := range lumSq.Fixed {
		n := float64(max(f.SamplesAt(i), 1))
		noisy, clean := lum(noisyBeauty, i)/n, lum(&beauty, i)/n
		lumSq.Set(i, noisySq.Value(i)+n*(clean*clean-noisy*noisy))
	}
	c.Sums[render.LayerBeauty], c.Sums[render.LayerLumSq] = beauty, lumSq
	return &c, nil
}

// Output is one file a film is written to: which AOV, where.
type Output struct {
	Path string
	AOV  render.AOV
}

// NoisyPath is where Write puts the noisy image of a beauty denoised into
// path: NAME.noisy.EXT beside it.
func NoisyPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".noisy" + ext
}

// Write writes a film's outputs, as render, merge and batch jobs do: where
// m is not nil, each beauty output's noisy image first, beside it as
// NAME.noisy.EXT (so that an interrupted denoiser leaves it written), then
// the beauty denoised by m; the other outputs from the film as rendered. It
// returns the files written and the denoised film; a cancelled ctx stops
// the denoiser with context.Canceled, the noisy images written.
func Write(ctx context.Context, film *render.Film, display render.Display, outs []Output, m Method) (written []string, final *render.Film, err error) {
	final = film
	if m != nil {
		for _, o := range outs {
			if o.AOV != render.AOVBeauty {
				continue
			}
			noisy := NoisyPath(o.Path)
			if err := render.WriteAOV(noisy, film, o.AOV, display); err != nil {
				return written, nil, err
			}
			written = append(written, noisy)
		}
		if final, err = Film(ctx, film, m); err != nil {
			if ctx.Err() != nil {
				return written, nil, context.Canceled
			}
			return written, nil, err
		}
	}
	for _, o := range outs {
		from := film
		if o.AOV == render.AOVBeauty {
			from = final
		}
		if err := render.WriteAOV(o.Path, from, o.AOV, display); err != nil {
			return written, nil, err
		}
		written = append(written, o.Path)
	}
	return written, final, nil
}
