package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// SampleWavelength maps a number in [0, 1) to a wavelength in nanometres,
// uniformly over layout.WavelengthMin..WavelengthMax.
func SampleWavelength(u float32) float32 {
	return layout.WavelengthMin + (layout.WavelengthMax-layout.WavelengthMin)*u
}

// WavelengthWeights are the RGB weights of one wavelength: each channel's
// Gaussian response over its mean (layout.SpectrumNorm), so that they
// average (1, 1, 1) over the uniform wavelength.
func WavelengthWeights(lambda float32) scene.Vec3 {
	return scene.Vec3{
		X: spectrumResponse(lambda, layout.SpectrumRedMu, layout.SpectrumRedSigma, layout.SpectrumNorm[0]),
		Y: spectrumResponse(lambda, layout.SpectrumGreenMu, layout.SpectrumGreenSigma, layout.SpectrumNorm[1]),
		Z: spectrumResponse(lambda, layout.SpectrumBlueMu, layout.SpectrumBlueSigma, layout.SpectrumNorm[2]),
	}
}

// spectrumResponse is one channel's Gaussian response over its mean.
func spectrumResponse(lambda float32, mu, sigma, norm float64) float32 {
	x := (float64(lambda) - mu) / sigma
	return float32(math.Exp(-0.5*x*x) / norm)
}

// DispersionIOR is KHR_materials_dispersion's index at a wavelength (nm):
// Cauchy's n = A + B/λ², fitted so that n is ior at the d line and the Abbe
// number (n_d − 1)/(n_F − n_C) is 20/dispersion; never below 1.
func DispersionIOR(ior, dispersion, lambda float32) float32 {
	if dispersion <= 0 {
		return ior
	}
	abbe := 20 / dispersion
	invF, invC, invD := 1/(micrometres(layout.LineF)*micrometres(layout.LineF)), 1/(micrometres(layout.LineC)*micrometres(layout.LineC)), 1/(micrometres(layout.LineD)*micrometres(layout.LineD))
	b := (ior - 1) / (abbe * (invF - invC))
	l := micrometres(lambda)
	return max(ior+b*(1/(l*l)-invD), 1)
}

// micrometres is a wavelength in nanometres in micrometres.
func micrometres(nm float32) float32 { return nm / 1000 }
