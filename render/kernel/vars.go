//goglsl:ignore

package kernel

import "sertrace/render/layout"

// GLSLVars are the values of the render/layout variables the kernel reads,
// for its translation (goglsl.Translate writes them as GLSL constants).
var GLSLVars = map[string][]float64{
	"layout.XYZToRec709":   layout.XYZToRec709[:],
	"layout.SpectrumNorm":  layout.SpectrumNorm[:],
	"layout.IridSensAmpX":  {layout.IridSensAmpX},
	"layout.IridSensAmpX2": {layout.IridSensAmpX2},
	"layout.IridSensAmpY":  {layout.IridSensAmpY},
	"layout.IridSensAmpZ":  {layout.IridSensAmpZ},
}
