package denoise

import (
	"context"

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
