package denoise

import (
	"math"

	"sertrace/render/layout"
)

// Regressor runs the regression filter of a job and returns the filtered
// illumination; RegressCPU is the CPU's. The job is the one the Vulkan
// backend's compute shader reads (layout.DenoiseJob), so both filter the
// same numbers.
type Regressor func(*layout.DenoiseJob) ([]float32, error)

// RegressCPU runs the regression filter here.
func RegressCPU(j *layout.DenoiseJob) ([]float32, error) { return regression(j), nil }

// regression filters the illumination by weighted first-order regression
// (in the spirit of Bitterli et al. 2016, "Nonlinearly Weighted First-order
// Regression for Denoising Monte Carlo Renderings"): around each pixel, the
// illumination is fitted as a linear function of screen position, normal
// and depth over a window, with weights from those features and from how
// far a neighbour's illumination lies outside the noise; the fit's value at
// the pixel is the result. A linear fit keeps the gradients that a weighted
// average blurs.
func regression(j *layout.DenoiseJob) []float32 {
	w, h, radius := int(j.Width), int(j.Height), int(j.Radius)
	light := j.Light
	const k = 7 // 1, dx, dy, dnx, dny, dnz, dz
	out := make([]float32, len(light))
	var a [k][k]float64
	var b [k][3]float64
	var x [k]float64
	for py := 0; py < h; py++ {
		for px := 0; px < w; px++ {
			p := py*w + px
			a, b = [k][k]float64{}, [k][3]float64{}
			lp := luminance(light[3*p:])
			sd := j.SD[p]
			for qy := max(py-radius, 0); qy <= min(py+radius, h-1); qy++ {
				for qx := max(px-radius, 0); qx <= min(px+radius, w-1); qx++ {
					q := qy*w + qx
					dx, dy := float32(qx-px)/float32(radius), float32(qy-py)/float32(radius)
					n := j.Normal[3*q:]
					np := j.Normal[3*p:]
					dn0, dn1, dn2 := n[0]-np[0], n[1]-np[1], n[2]-np[2]
					dz := (j.Depth[q] - j.Depth[p]) / (j.GradZ[p]*float32(radius) + 1e-3)
					da := sqDiff3(j.Albedo[3*p:], j.Albedo[3*q:])
					dl := float32(math.Abs(float64(luminance(light[3*q:]) - lp)))
					e := -(dn0*dn0+dn1*dn1+dn2*dn2)*j.SigmaNorm - dz*dz/(j.SigmaDepth*j.SigmaDepth) -
						da/(j.SigmaAlb*j.SigmaAlb) - dl/(j.SigmaLum*sd+1e-6)
					wt := float64(math.Exp(float64(e)))
					if wt < 1e-6 {
						continue
					}
					x = [k]float64{1, float64(dx), float64(dy), float64(dn0), float64(dn1), float64(dn2), float64(dz)}
					for i := 0; i < k; i++ {
						for j := 0; j <= i; j++ {
							a[i][j] += wt * x[i] * x[j]
						}
						for c := 0; c < 3; c++ {
							b[i][c] += wt * x[i] * float64(light[3*q+c])
						}
					}
				}
			}
			// Ridge regularisation keeps the slopes tame where the window has
			// too little variation to fit them; the intercept is free.
			for i := 1; i < k; i++ {
				a[i][i] += 1e-3 * a[0][0]
			}
			beta, ok := solveCholesky(&a, &b)
			for c := 0; c < 3; c++ {
				if ok && !math.IsNaN(beta[c]) {
					out[3*p+c] = float32(max(beta[c], 0))
				} else {
					out[3*p+c] = light[3*p+c]
				}
			}
		}
	}
	return out
}

// solveCholesky solves A·β = B (A symmetric positive definite, its lower
// half filled) and returns the first row of β: the intercepts.
func solveCholesky(a *[7][7]float64, b *[7][3]float64) ([3]float64, bool) {
	const k = 7
	var l [k][k]float64
	for i := 0; i < k; i++ {
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for m := 0; m < j; m++ {
				s -= l[i][m] * l[j][m]
			}
			if i == j {
				if s <= 0 {
					return [3]float64{}, false
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	var out [3]float64
	for c := 0; c < 3; c++ {
		var y, x [k]float64
		for i := 0; i < k; i++ {
			s := b[i][c]
			for m := 0; m < i; m++ {
				s -= l[i][m] * y[m]
			}
			y[i] = s / l[i][i]
		}
		for i := k - 1; i >= 0; i-- {
			s := y[i]
			for m := i + 1; m < k; m++ {
				s -= l[m][i] * x[m]
			}
			x[i] = s / l[i][i]
		}
		out[c] = x[0]
	}
	return out, true
}
