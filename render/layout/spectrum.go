package layout

import "math"

// The wavelengths a dispersive path picks from (KHR_materials_dispersion),
// uniformly, in nanometres, and the Gaussian responses that turn one
// wavelength into RGB weights: centre and width per channel, and the
// weights' normalisation, so that over the uniform wavelength each
// channel's weight averages 1 (white light stays white; the furnace stays
// lossless).
const (
	WavelengthMin                       = 380.0
	WavelengthMax                       = 780.0
	SpectrumRedMu, SpectrumRedSigma     = 605.0, 45.0
	SpectrumGreenMu, SpectrumGreenSigma = 540.0, 40.0
	SpectrumBlueMu, SpectrumBlueSigma   = 455.0, 35.0
)

// The Fraunhofer lines the Abbe number is defined by, in nanometres:
// V = (n_d − 1)/(n_F − n_C); the material's ior is n_d.
const (
	LineF = 486.13
	LineD = 587.56
	LineC = 656.27
)

// LumR, LumG and LumB weigh linear Rec. 709 RGB into luminance (ITU-R
// BT.709's Y): the denoiser's and the kernel's, on the CPU and the GPU.
const (
	LumR = 0.2126
	LumG = 0.7152
	LumB = 0.0722
)

// SpectrumNorm is, per channel, the mean over the uniform wavelength of its
// Gaussian, exp(−(λ−μ)²/(2σ²)): the weights are the Gaussians over it.
var SpectrumNorm = [3]float64{
	gaussianMean(SpectrumRedMu, SpectrumRedSigma),
	gaussianMean(SpectrumGreenMu, SpectrumGreenSigma),
	gaussianMean(SpectrumBlueMu, SpectrumBlueSigma),
}

func gaussianMean(mu, sigma float64) float64 {
	phi := func(x float64) float64 { return 0.5 * (1 + math.Erf((x-mu)/(sigma*math.Sqrt2))) }
	return sigma * math.Sqrt(2*math.Pi) * (phi(WavelengthMax) - phi(WavelengthMin)) / (WavelengthMax - WavelengthMin)
}
