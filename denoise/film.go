package denoise

import (
	"context"

	"sertrace/render"
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
// image writers.
func Film(ctx context.Context, f *render.Film, m Method) (*render.Film, error) {
	out, err := m(ctx, FromFilm(f))
	if err != nil {
		return nil, err
	}
	c := *f
	c.Beauty = make([]float64, len(out))
	for i, v := range out {
		c.Beauty[i] = float64(v) * float64(f.Samples)
	}
	return &c, nil
}
