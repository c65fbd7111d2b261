package layout

import "math"

// KHR_materials_iridescence's analytic spectral integration (Belcour and
// Barla 2017, as the extension's specification writes it): the XYZ
// sensitivity of a thin film's m-th order, Gaussian fits of val, pos and var
// per channel (X has a second lobe), each amplitude val·√(2π·var) over the
// fits' normalisation 1.0685e-7, then XYZ to linear Rec. 709.
const (
	iridSensNorm = 1.0685e-7

	IridSensPosX, IridSensVarX = 1.6810e+06, 4.3278e+09
	IridSensPosY, IridSensVarY = 1.7953e+06, 9.3046e+09
	IridSensPosZ, IridSensVarZ = 2.2084e+06, 6.6121e+09
	IridSensPosX2              = 2.2399e+06 // X's second lobe
	IridSensVarX2              = 4.5282e+09
)

// The lobes' amplitudes.
var (
	IridSensAmpX  = 5.4856e-13 * math.Sqrt(2*math.Pi*IridSensVarX) / iridSensNorm
	IridSensAmpY  = 4.4201e-13 * math.Sqrt(2*math.Pi*IridSensVarY) / iridSensNorm
	IridSensAmpZ  = 5.2481e-13 * math.Sqrt(2*math.Pi*IridSensVarZ) / iridSensNorm
	IridSensAmpX2 = 9.7470e-14 * math.Sqrt(2*math.Pi*IridSensVarX2) / iridSensNorm
)

// XYZToRec709 is the XYZ to linear Rec. 709 matrix, rows first.
var XYZToRec709 = [9]float64{
	3.2404542, -1.5371385, -0.4985314,
	-0.9692660, 1.8760108, 0.0415560,
	0.0556434, -0.2040259, 1.0572252,
}

// IridBins is how many bins of v·h the iridescent specular layer's albedo
// table has at each (cos θo, √α) (kernel.IridescenceBinTable): its albedo
// is the sum over the bins of their weight times the film's Fresnel at
// their mean v·h.
const IridBins = 16
