// Package denoise removes Monte Carlo noise from a single offline frame,
// guided by the first-hit albedo, normal and depth and by each pixel's
// variance. The beauty is divided by its albedo, so texture is kept and only
// illumination is filtered, by weighted first-order regression over a
// window (the default) or by an edge-avoiding à-trous wavelet filter
// (Dammertz et al. 2010, with SVGF's variance guidance); weights fall off
// across depth, normal and albedo edges and across luminance differences
// larger than the noise explains. When the renderer split the light at
// the first hit into what its diffuse lobe and its other lobes (specular,
// metal, glass) reflected, each part is divided by its own albedo and
// filtered on its own: the diffuse illumination is shared across albedo
// edges (particles of many colours under one light), and a glossy
// neighbour's reflection does not stop it. Fireflies are clamped before
// filtering and the energy the clamp takes is spread back over their
// neighbourhood afterwards, so the image keeps its brightness.
package denoise

import (
	"errors"
	"math"

	"sertrace/render/layout"
)

// Image is what the filter reads: per pixel, RGB beauty, albedo and normal,
// depth, and the variance of the beauty's luminance estimate (the sample
// variance over the sample count); rows from the top.
type Image struct {
	Width, Height int
	Beauty        []float32
	Albedo        []float32
	Normal        []float32
	Depth         []float32
	Variance      []float32 // of the mean: nil means estimate it from the beauty

	// The beauty's split at the first hit (render.Film's), or all nil: the
	// light its diffuse lobe and its other lobes reflected, their albedos,
	// and their luminance variances (of the mean; nil: estimated). The rest
	// of the beauty, what the camera saw directly, is kept as it is.
	Diffuse, Specular                 []float32
	DiffuseAlbedo, SpecularAlbedo     []float32
	DiffuseVariance, SpecularVariance []float32

	guide    []float32 // the albedo the edge-stopping compares, when not Albedo
	repaired bool      // Repaired's: its damage found and taken out already
}

// split reports whether the image holds the diffuse and specular split.
func (in *Image) split() bool { return in.Diffuse != nil || in.Specular != nil }

// Settings tune the edge-stopping functions.
type Settings struct {
	Regression int     // > 0: weighted first-order regression over a window of this radius instead of à-trous
	Iterations int     // scales: 1, 2, 4, … pixels apart
	Fireflies  float32 // clamp a pixel's illumination to this many standard deviations above its 5×5 neighbours' (0: off)
	Spread     float32 // give the energy the clamp removes back, spread over a Gaussian of this σ in pixels (0: drop it)
	SigmaLum   float32 // in standard deviations of the luminance noise
	SigmaNorm  float32 // exponent on the normals' cosine
	SigmaDepth float32 // in units of the local depth gradient
	SigmaAlb   float32 // albedo difference

	// For an image with the diffuse and specular split, each part's
	// settings (nil: these).
	Diffuse, Specular *Settings
}

// Defaults are the settings that measured best on the Cornell boxes (see
// benchmarks/denoise.md): regression over 9×9 windows, which keeps the
// illumination gradients that averaging filters blur, after a firefly
// clamp whose energy is spread back over the neighbourhood.
// With the split, the diffuse part's illumination is filtered over 15×15
// windows, stopped by albedo differences only loosely and by luminance
// more sharply, and the specular part's as the whole image's but with the
// same loose albedo term.
var Defaults = Settings{Regression: 4, Fireflies: 1, Spread: 8, SigmaLum: 40, SigmaNorm: 1, SigmaDepth: 1, SigmaAlb: 0.1,
	Diffuse:  &Settings{Regression: 7, Fireflies: 1, Spread: 8, SigmaLum: 10, SigmaNorm: 1, SigmaDepth: 1, SigmaAlb: 1},
	Specular: &Settings{Regression: 4, Fireflies: 1, Spread: 8, SigmaLum: 40, SigmaNorm: 1, SigmaDepth: 1, SigmaAlb: 1}}

// ATrous are the à-trous filter's best settings: two scales only, since
// wider ones blurred real gradients more than they removed noise.
var ATrous = Settings{Iterations: 2, Fireflies: 2, SigmaLum: 6, SigmaNorm: 16, SigmaDepth: 1, SigmaAlb: 0.1}

// DenoiseWith returns the filtered beauty, running the regression filter
// (with Settings.Regression > 0) through reg: the CPU's or a GPU's.
func DenoiseWith(in *Image, s Settings, reg Regressor) ([]float32, error) {
	w, h := in.Width, in.Height
	n := w * h
	if w < 1 || h < 1 || len(in.Beauty) != 3*n || len(in.Albedo) != 3*n || len(in.Normal) != 3*n || len(in.Depth) != n ||
		(in.Variance != nil && len(in.Variance) != n) {
		return nil, errors.New("denoise: the beauty and its guides must all be the image's size")
	}
	if in.split() {
		return denoiseSplit(in, s, reg)
	}
	const eps = 1e-3
	// Demodulate: filter the illumination, not the texture.
	light := make([]float32, 3*n)
	for i := range light {
		light[i] = in.Beauty[i] / (in.Albedo[i] + eps)
	}
	variance := make([]float32, n)
	if in.Variance != nil {
		for i := range variance {
			a := luminance(in.Albedo[3*i:]) + eps
			variance[i] = in.Variance[i] / (a * a)
		}
	} else {
		estimateVariance(light, variance, w, h)
	}
	var excess []float32 // what the clamp took, as beauty, to spread back
	if s.Fireflies > 0 {
		excess = clampFireflies(light, w, h, s.Fireflies)
		if s.Spread > 0 {
			for i := range excess {
				excess[i] *= in.Albedo[i] + eps
			}
		} else {
			excess = nil
		}
	}
	gradZ := depthGradient(in.Depth, w, h)
	guide := in.Albedo
	if in.guide != nil {
		guide = in.guide
	}
	if s.Regression > 0 {
		sd := make([]float32, n)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				sd[y*w+x] = float32(math.Sqrt(float64(max(gaussVariance(variance, w, h, x, y), 0))))
			}
		}
		var err error
		light, err = reg(&layout.DenoiseJob{DenoiseFilter: layout.DenoiseFilter{Width: uint32(w), Height: uint32(h),
			Radius: int32(s.Regression), SigmaLum: s.SigmaLum, SigmaNorm: s.SigmaNorm, SigmaDepth: s.SigmaDepth,
			SigmaAlb: s.SigmaAlb}, Light: light, SD: sd, Albedo: guide, Normal: in.Normal, Depth: in.Depth, GradZ: gradZ})
		if err != nil {
			return nil, err
		}
		if len(light) != 3*n {
			return nil, errors.New("denoise: the regression filter returned the wrong size")
		}
		s.Iterations = 0
	}
	kernel := [5]float32{1.0 / 16, 1.0 / 4, 3.0 / 8, 1.0 / 4, 1.0 / 16}
	next := make([]float32, 3*n)
	nextVar := make([]float32, n)
	for it := 0; it < s.Iterations; it++ {
		step := 1 << it
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				p := y*w + x
				lp := luminance(light[3*p:])
				sd := float32(math.Sqrt(float64(max(gaussVariance(variance, w, h, x, y), 0))))
				var sum [3]float32
				var wsum, vsum float32
				for ky := -2; ky <= 2; ky++ {
					qy := y + ky*step
					if qy < 0 || qy >= h {
						continue
					}
					for kx := -2; kx <= 2; kx++ {
						qx := x + kx*step
						if qx < 0 || qx >= w {
							continue
						}
						q := qy*w + qx
						wt := kernel[kx+2] * kernel[ky+2]
						if q != p {
							dl := float32(math.Abs(float64(luminance(light[3*q:]) - lp)))
							cos := dot3(in.Normal[3*p:], in.Normal[3*q:])
							dz := float32(math.Abs(float64(in.Depth[q] - in.Depth[p])))
							dist := float32(math.Sqrt(float64(kx*kx+ky*ky))) * float32(step)
							da := sqDiff3(guide[3*p:], guide[3*q:])
							e := -dl/(s.SigmaLum*sd+1e-6) - dz/(s.SigmaDepth*gradZ[p]*dist+1e-3) - da/(s.SigmaAlb*s.SigmaAlb)
							wt *= float32(math.Exp(float64(e))) * pow(max(cos, 0), s.SigmaNorm)
						}
						sum[0] += wt * light[3*q]
						sum[1] += wt * light[3*q+1]
						sum[2] += wt * light[3*q+2]
						wsum += wt
						vsum += wt * wt * variance[q]
					}
				}
				for c := 0; c < 3; c++ {
					next[3*p+c] = sum[c] / wsum
				}
				nextVar[p] = vsum / (wsum * wsum)
			}
		}
		light, next = next, light
		variance, nextVar = nextVar, variance
	}
	out := make([]float32, 3*n)
	for i := range out {
		out[i] = light[i] * (in.Albedo[i] + eps)
	}
	if excess != nil {
		spread := spreadEnergy(excess, w, h, s.Spread)
		for i := range out {
			out[i] += spread[i]
		}
	}
	return out, nil
}

// presenceGuide is the albedo a part's edge-stopping compares: its own,
// lifted by 2 where the lobe is there at all (albedo luminance above 0.02,
// ramping from 0), so that a pixel whose surface lacks the lobe (a metal's
// diffuse, a matte surface's specular), whose light of that part is none
// and says nothing of its neighbours', stays out of their window however
// loosely the part's settings weigh colour.
func presenceGuide(albedo []float32) []float32 {
	g := make([]float32, len(albedo))
	for p := 0; p < len(albedo)/3; p++ {
		lift := 2 * min(luminance(albedo[3*p:])/0.02, 1)
		for k := 3 * p; k < 3*p+3; k++ {
			g[k] = albedo[k] + lift
		}
	}
	return g
}

// denoiseSplit filters the diffuse and specular parts on their own and adds
// them to the rest of the beauty.
func denoiseSplit(in *Image, s Settings, reg Regressor) ([]float32, error) {
	n := in.Width * in.Height
	if len(in.Diffuse) != 3*n || len(in.Specular) != 3*n || len(in.DiffuseAlbedo) != 3*n || len(in.SpecularAlbedo) != 3*n ||
		(in.DiffuseVariance != nil && len(in.DiffuseVariance) != n) || (in.SpecularVariance != nil && len(in.SpecularVariance) != n) {
		return nil, errors.New("denoise: the diffuse and specular light and their albedos must all be the image's size")
	}
	out := make([]float32, 3*n)
	for i := range out {
		out[i] = in.Beauty[i] - in.Diffuse[i] - in.Specular[i]
	}
	for _, part := range []struct {
		light, albedo, variance []float32
		settings                *Settings
	}{{in.Diffuse, in.DiffuseAlbedo, in.DiffuseVariance, s.Diffuse}, {in.Specular, in.SpecularAlbedo, in.SpecularVariance, s.Specular}} {
		ps := s
		if part.settings != nil {
			ps = *part.settings
		}
		filtered, err := DenoiseWith(&Image{Width: in.Width, Height: in.Height, Beauty: part.light, Albedo: part.albedo,
			Normal: in.Normal, Depth: in.Depth, Variance: part.variance, guide: presenceGuide(part.albedo)}, ps, reg)
		if err != nil {
			return nil, err
		}
		for i, v := range filtered {
			out[i] += v
		}
	}
	return out, nil
}

func luminance(c []float32) float32 { return layout.LumR*c[0] + layout.LumG*c[1] + layout.LumB*c[2] }

func dot3(a, b []float32) float32 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func sqDiff3(a, b []float32) float32 {
	d0, d1, d2 := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return d0*d0 + d1*d1 + d2*d2
}

func pow(v, e float32) float32 { return float32(math.Pow(float64(v), float64(e))) }

// gaussVariance smooths the variance over a 3×3 neighbourhood, which keeps
// the luminance edge-stopping stable where the variance itself is noisy.
func gaussVariance(v []float32, w, h, x, y int) float32 {
	k := [3]float32{0.25, 0.5, 0.25}
	var sum, wsum float32
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			qx, qy := x+dx, y+dy
			if qx < 0 || qy < 0 || qx >= w || qy >= h {
				continue
			}
			wt := k[dx+1] * k[dy+1]
			sum += wt * v[qy*w+qx]
			wsum += wt
		}
	}
	return sum / wsum
}

// luminances is each pixel's luminance.
func luminances(rgb []float32) []float32 {
	lum := make([]float32, len(rgb)/3)
	for i := range lum {
		lum[i] = luminance(rgb[3*i:])
	}
	return lum
}

// windowStats is the mean and variance of lum over the window of radius r
// around (x, y) inside the image, the centre left out when withoutCentre.
func windowStats(lum []float32, w, h, x, y, r int, withoutCentre bool) (mean, variance float32) {
	var s, s2, n float32
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			qx, qy := x+dx, y+dy
			if (withoutCentre && dx == 0 && dy == 0) || qx < 0 || qy < 0 || qx >= w || qy >= h {
				continue
			}
			l := lum[qy*w+qx]
			s, s2, n = s+l, s2+l*l, n+1
		}
	}
	mean = s / n
	return mean, max(s2/n-mean*mean, 0)
}

// estimateVariance stands in for a missing variance: the spread of
// luminance in each 3×3 neighbourhood.
func estimateVariance(light, v []float32, w, h int) {
	lum := luminances(light)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			_, v[y*w+x] = windowStats(lum, w, h, x, y, 1, false)
		}
	}
}

// depthGradient is the largest depth difference to a neighbour, per pixel:
// the scale against which depth edges are judged.
func depthGradient(z []float32, w, h int) []float32 {
	g := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := y*w + x
			if x+1 < w {
				g[p] = max(g[p], float32(math.Abs(float64(z[p+1]-z[p]))))
			}
			if y+1 < h {
				g[p] = max(g[p], float32(math.Abs(float64(z[p+w]-z[p]))))
			}
		}
	}
	return g
}

// clampFireflies scales down a pixel whose luminance stands more than k
// standard deviations above the rest of its 5×5 neighbourhood: a rare
// path's spike that filtering would spread into a blotch. It returns what
// it took from each pixel.
func clampFireflies(light []float32, w, h int, k float32) []float32 {
	excess := make([]float32, len(light))
	lum := luminances(light)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			mean, variance := windowStats(lum, w, h, x, y, 2, true)
			limit := mean + k*float32(math.Sqrt(float64(variance)))
			if l := lum[y*w+x]; l > limit && l > 0 {
				f := limit / l
				p, e := light[3*(y*w+x):], excess[3*(y*w+x):]
				e[0], e[1], e[2] = p[0]*(1-f), p[1]*(1-f), p[2]*(1-f)
				p[0], p[1], p[2] = p[0]*f, p[1]*f, p[2]*f
			}
		}
	}
	return excess
}

// spreadEnergy splats each pixel's energy over a Gaussian of σ pixels
// around it, normalised over the pixels inside the image, so the total is
// kept: a firefly's energy is an unbiased part of the image's, and what the
// clamp took from a spike that few samples found (a small highlight, a
// caustic) belongs to the neighbourhood those samples stand for. The
// Gaussian is separable, and so is its normalisation.
func spreadEnergy(e []float32, w, h int, sigma float32) []float32 {
	r := int(math.Ceil(float64(3 * sigma)))
	k := make([]float32, 2*r+1)
	for i := range k {
		d := float64(i - r)
		k[i] = float32(math.Exp(-d * d / (2 * float64(sigma) * float64(sigma))))
	}
	// norm[x] is the kernel's weight inside the image for a source at x.
	norm := func(size int) []float32 {
		out := make([]float32, size)
		for x := range out {
			for i := range k {
				if q := x + i - r; q >= 0 && q < size {
					out[x] += k[i]
				}
			}
		}
		return out
	}
	nx, ny := norm(w), norm(h)
	// Rows, then columns; each source's energy divided by its weight inside.
	tmp := make([]float32, len(e))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			src := e[3*(y*w+x):]
			if src[0] == 0 && src[1] == 0 && src[2] == 0 {
				continue
			}
			f := 1 / (nx[x] * ny[y])
			for i := range k {
				if q := x + i - r; q >= 0 && q < w {
					d := tmp[3*(y*w+q):]
					d[0] += f * k[i] * src[0]
					d[1] += f * k[i] * src[1]
					d[2] += f * k[i] * src[2]
				}
			}
		}
	}
	out := make([]float32, len(e))
	for y := 0; y < h; y++ {
		for i := range k {
			qy := y + i - r
			if qy < 0 || qy >= h {
				continue
			}
			for x := 0; x < w; x++ {
				src, d := tmp[3*(y*w+x):], out[3*(qy*w+x):]
				d[0] += k[i] * src[0]
				d[1] += k[i] * src[1]
				d[2] += k[i] * src[2]
			}
		}
	}
	return out
}
