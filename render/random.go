package render

// Random numbers are a stateless hash of (pixel, sample, bounce·dimension,
// seed): an image does not depend on thread count or scheduling, and the GPU
// computes the same numbers. The hash is pcg4d (Jarzynski and Olano, "Hash
// Functions for GPU Rendering", JCGT 2020).

// Dimensions of the random stream used at each bounce.
const (
	DimPixelX = iota // camera: where in the pixel (through the pixel filter)
	DimPixelY
	DimLensU // camera: where on the lens
	DimLensV
	DimLobe // BSDF: which lobe
	DimBSDFU
	DimBSDFV
	DimBSDFW     // the hair BSDF's azimuth
	DimLight     // next-event estimation: which alias-table column
	DimLightCoin // and whether to keep it or take its alias (24 bits each, so that tables of a million lights stay exact)
	DimLightU
	DimLightV
	DimRoulette
	DimsPerBounce
)

func pcg4d(x, y, z, w uint32) (uint32, uint32, uint32, uint32) {
	x, y, z, w = x*1664525+1013904223, y*1664525+1013904223, z*1664525+1013904223, w*1664525+1013904223
	x += y * w
	y += z * x
	z += x * y
	w += y * z
	x, y, z, w = x^x>>16, y^y>>16, z^z>>16, w^w>>16
	x += y * w
	y += z * x
	z += x * y
	w += y * z
	return x, y, z, w
}

// Random returns a number in [0, 1) for a pixel, sample, bounce and
// dimension of the stream that seed selects.
func Random(pixel, sample, bounce, dim, seed uint32) float32 {
	x, _, _, _ := pcg4d(pixel, sample, bounce*DimsPerBounce+dim, seed)
	return float32(x>>8) * (1.0 / (1 << 24))
}
