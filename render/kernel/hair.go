package kernel

import "math"

// Logistic is the logistic distribution of scale s at x.
func Logistic(x, s float32) float32 {
	x = float32(math.Abs(float64(x)))
	e := float32(math.Exp(float64(-x / s)))
	return e / (s * (1 + e) * (1 + e))
}

// LogisticCDF is its cumulative distribution.
func LogisticCDF(x, s float32) float32 { return 1 / (1 + float32(math.Exp(float64(-x/s)))) }

// TrimmedLogistic is the logistic normalised on [−π, π].
func TrimmedLogistic(x, s float32) float32 {
	return Logistic(x, s) / (LogisticCDF(math.Pi, s) - LogisticCDF(-math.Pi, s))
}
