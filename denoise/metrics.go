package denoise

import (
	"math"

	"sertrace/render/layout"
)

// display maps linear RGB to the clamped sRGB values an image viewer shows:
// quality is measured there, where errors are seen.
func display(v float32) float64 {
	if !(v > 0) {
		return 0
	}
	if v >= 1 {
		return 1
	}
	if v <= 0.0031308 {
		return 12.92 * float64(v)
	}
	return 1.055*math.Pow(float64(v), 1/2.4) - 0.055
}

// PSNR is the peak signal-to-noise ratio in dB of an RGB image against a
// reference, on display values.
func PSNR(img, ref []float32) float64 {
	var se float64
	for i := range img {
		d := display(img[i]) - display(ref[i])
		se += d * d
	}
	mse := se / float64(len(img))
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(1/mse)
}

// SSIM is the mean structural similarity (Wang et al. 2004) of the display
// luminance of an RGB image and a reference, over 8×8 windows.
func SSIM(img, ref []float32, w, h int) float64 {
	lum := func(p []float32, i int) float64 {
		return layout.LumR*display(p[3*i]) + layout.LumG*display(p[3*i+1]) + layout.LumB*display(p[3*i+2])
	}
	const c1, c2, win = 0.01 * 0.01, 0.03 * 0.03, 8
	var sum float64
	var count int
	for y0 := 0; y0+win <= h; y0 += win / 2 {
		for x0 := 0; x0+win <= w; x0 += win / 2 {
			var ma, mb, va, vb, cov float64
			for y := y0; y < y0+win; y++ {
				for x := x0; x < x0+win; x++ {
					a, b := lum(img, y*w+x), lum(ref, y*w+x)
					ma, mb = ma+a, mb+b
				}
			}
			n := float64(win * win)
			ma, mb = ma/n, mb/n
			for y := y0; y < y0+win; y++ {
				for x := x0; x < x0+win; x++ {
					a, b := lum(img, y*w+x)-ma, lum(ref, y*w+x)-mb
					va, vb, cov = va+a*a, vb+b*b, cov+a*b
				}
			}
			va, vb, cov = va/(n-1), vb/(n-1), cov/(n-1)
			sum += (2*ma*mb + c1) * (2*cov + c2) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
			count++
		}
	}
	return sum / float64(count)
}
