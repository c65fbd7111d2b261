package furnace

import (
	"fmt"
	"math"

	"sertrace/render"
	"sertrace/scene"
)

// Result is what a furnace render showed.
type Result struct {
	Mean, Min, Max float64
	MeanError      float64  // the standard error of Mean
	Problems       []string // each a pixel or the mean off its answer by more than the noise allows
}

// Tolerances, in standard errors of the estimate the film's sample variance
// gives (stratified samples make it an upper bound), plus a floor for
// float rounding: a pixel may be off by 6, the image's mean by 4. A pixel's
// own variance from a few samples can be near 0 where the true one is not
// (16 lossless paths that all survived Russian roulette agree on a value
// above 1), so no pixel's is taken below the image's average.
const (
	pixelErrors = 6
	meanErrors  = 4
	floor       = 2e-3
)

// Check compares a furnace film with the case's answer.
func Check(c Case, film *render.Film) Result {
	pix, _ := film.Resolve(render.AOVBeauty)
	if c.Unlit != (scene.Vec3{}) {
		return checkUnlit(c, film, pix)
	}
	variance := film.MeanVariance()
	res := Result{Min: math.Inf(1), Max: math.Inf(-1)}
	var sum, sumVar float64
	n := len(variance)
	for _, v := range variance {
		sumVar += float64(v)
	}
	worst := 0
	for i := 0; i < n; i++ {
		v := (float64(pix[3*i]) + float64(pix[3*i+1]) + float64(pix[3*i+2])) / 3
		se := math.Sqrt(max(float64(variance[i]), sumVar/float64(n)))
		sum += v
		res.Min, res.Max = min(res.Min, v), max(res.Max, v)
		tol := pixelErrors*se + floor
		bad := !(v <= c.level()+tol) || (c.Lossless && !(v >= c.level()-tol)) // NaN fails
		if bad && worst < 10 {
			worst++
			res.Problems = append(res.Problems, fmt.Sprintf("pixel (%d, %d) = %.4f ± %.4f, want %s", i%film.Width, i/film.Width, v, se, answer(c)))
		}
	}
	res.Mean = sum / float64(n)
	res.MeanError = math.Sqrt(sumVar) / float64(n)
	tol := meanErrors*res.MeanError + floor/4
	if !(res.Mean <= c.level()+tol) || (c.Lossless && !(res.Mean >= c.level()-tol)) {
		res.Problems = append(res.Problems, fmt.Sprintf("mean %.4f ± %.4f, want %s", res.Mean, tol, answer(c)))
	}
	if c.MinMean > 0 && !(res.Mean >= c.MinMean-tol) {
		res.Problems = append(res.Problems, fmt.Sprintf("mean %.4f ± %.4f, want at least %v", res.Mean, tol, c.MinMean))
	}
	if c.Shadowed && !(res.Min < 0.5) {
		res.Problems = append(res.Problems, fmt.Sprintf("darkest pixel %.4f: direct light should leave shadowed pixels well below 1", res.Min))
	}
	return res
}

func answer(c Case) string {
	if c.Lossless {
		return fmt.Sprint(c.level())
	}
	return fmt.Sprint("at most ", c.level())
}

// checkUnlit checks that every pixel is a share of c.Unlit.
func checkUnlit(c Case, film *render.Film, pix []float32) Result {
	res := Result{Min: math.Inf(1), Max: math.Inf(-1)}
	col := c.Unlit
	cc := float64(col.Dot(col))
	full, empty := 0, 0
	for i := 0; i < film.Width*film.Height; i++ {
		p := scene.Vec3{X: pix[3*i], Y: pix[3*i+1], Z: pix[3*i+2]}
		k := float64(p.Dot(col)) / cc // the share covered
		d := p.Sub(col.Scale(float32(k)))
		res.Mean += k
		res.Min, res.Max = min(res.Min, k), max(res.Max, k)
		if !(math.Sqrt(float64(d.Dot(d))) <= 1e-4) || !(k >= -1e-4 && k <= 1+1e-4) {
			if len(res.Problems) < 10 {
				res.Problems = append(res.Problems, fmt.Sprintf("pixel (%d, %d) = %v, not a share of %v", i%film.Width, i/film.Width, p, col))
			}
		}
		if k > 1-1e-4 {
			full++
		}
		if k < 1e-4 {
			empty++
		}
	}
	res.Mean /= float64(film.Width * film.Height)
	if full == 0 || empty == 0 {
		res.Problems = append(res.Problems, fmt.Sprintf("%d pixels all covered, %d not at all: the unlit objects must show, and the black around them", full, empty))
	}
	return res
}
