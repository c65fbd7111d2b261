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
// noisy render's, what a later denoiser would weigh noise by. Each light
// group is denoised too, with the beauty's guides (groupImage), and the
// groups of each pixel are then scaled to add up to its denoised beauty
// (shareOut), as the noisy groups add up to the noisy beauty.
func Film(ctx context.Context, f *render.Film, m Method) (*render.Film, error) {
	img := FromFilm(f)
	out, err := m(ctx, img)
	if err != nil {
		return nil, err
	}
	c := *f
	beauty := sumsOf(f, out)
	if len(f.Groups) > 0 {
		groups, noisy := make([][]float32, len(f.Groups)), make([][]float32, len(f.Groups))
		for g := range f.Groups {
			noisy[g] = f.ResolveGroup(g)
			if groups[g], err = m(ctx, groupImage(img, noisy[g])); err != nil {
				return nil, err
			}
		}
		shareOut(out, groups, noisy)
		c.Groups = make([]render.LayerSums, len(f.Groups))
		for g := range groups {
			c.Groups[g] = sumsOf(f, groups[g])
		}
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

// sumsOf is an RGB image of f's size as exact sums of f's samples.
func sumsOf(f *render.Film, rgb []float32) render.LayerSums {
	s := render.LayerSums{Fixed: make([]int64, len(rgb))}
	for i, v := range rgb {
		s.Set(i, float64(v)*float64(f.SamplesAt(i/3)))
	}
	return s
}

// groupImage is what the filter denoises of a light group: its light
// with the beauty's guides, and the beauty's variance scaled by the
// group's share of the pixel's luminance squared (a group has no variance
// of its own; its noise is about its share of the beauty's). The split is
// the beauty's, not the group's: left out.
func groupImage(beauty *Image, group []float32) *Image {
	img := &Image{Width: beauty.Width, Height: beauty.Height, Beauty: group, Albedo: beauty.Albedo, Normal: beauty.Normal,
		Depth: beauty.Depth, Variance: make([]float32, len(beauty.Variance))}
	lum := func(v []float32, i int) float32 {
		return layout.LumR*v[3*i] + layout.LumG*v[3*i+1] + layout.LumB*v[3*i+2]
	}
	for i, v := range beauty.Variance {
		if b := lum(beauty.Beauty, i); b > 0 {
			share := min(max(lum(group, i)/b, 0), 1)
			img.Variance[i] = v * share * share
		}
	}
	return img
}

// shareOut scales each pixel's denoised groups, channel by channel, to
// add up to its denoised beauty: by their denoised shares where they add
// up to more than nothing, else by their noisy shares, else evenly.
func shareOut(beauty []float32, groups, noisy [][]float32) {
	for i, b := range beauty {
		var sum, noisySum float64
		for g := range groups {
			groups[g][i] = max(groups[g][i], 0)
			sum += float64(groups[g][i])
			noisySum += float64(max(noisy[g][i], 0))
		}
		for g := range groups {
			switch {
			case sum > 0:
				groups[g][i] = float32(float64(b) * float64(groups[g][i]) / sum)
			case noisySum > 0:
				groups[g][i] = float32(float64(b) * float64(max(noisy[g][i], 0)) / noisySum)
			default:
				groups[g][i] = b / float32(len(groups))
			}
		}
	}
}
