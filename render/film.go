package render

import "sertrace/scene"

// Film accumulates radiance and the first-hit AOVs per pixel. Backends sum
// the samples of one pass in float32 and add each pass here in float64, so
// that millions of samples do not drift (float32 sums of 2^24 samples of a
// constant were 3% off). Every pixel receives the same number of samples per
// pass, so one count serves the whole image.
type Film struct {
	Width, Height int
	Samples       int       // per pixel, accumulated so far
	Beauty        []float64 // RGB sums, rows from the top
	Albedo        []float64 // RGB sums of the first hit's albedo
	Normal        []float64 // sums of the first hit's world shading normal
	Depth         []float64 // sums of the first hit's distance along the camera axis (0 for misses)
	Partial       bool      // stopped before all samples were taken
}

// NewFilm makes an empty film.
func NewFilm(width, height int) *Film {
	n := width * height * 3
	return &Film{
		Width: width, Height: height,
		Beauty: make([]float64, n), Albedo: make([]float64, n), Normal: make([]float64, n),
		Depth: make([]float64, width*height),
	}
}

// AOV names a per-pixel output.
type AOV string

const (
	AOVBeauty AOV = "beauty"
	AOVAlbedo AOV = "albedo"
	AOVNormal AOV = "normal"
	AOVDepth  AOV = "depth"
)

// AOVs lists the outputs a film holds.
var AOVs = []AOV{AOVBeauty, AOVAlbedo, AOVNormal, AOVDepth}

// Resolve returns an AOV averaged over the samples: 3 channels per pixel
// (depth: 1).
func (f *Film) Resolve(a AOV) (pix []float32, channels int) {
	src, channels := f.Beauty, 3
	switch a {
	case AOVAlbedo:
		src = f.Albedo
	case AOVNormal:
		src = f.Normal
	case AOVDepth:
		src, channels = f.Depth, 1
	}
	out := make([]float32, len(src))
	if f.Samples == 0 {
		return out, channels
	}
	inv := 1 / float64(f.Samples)
	for i, v := range src {
		out[i] = float32(v * inv)
	}
	if a == AOVNormal {
		for i := 0; i < len(out); i += 3 {
			n := scene.Vec3{out[i], out[i+1], out[i+2]}.Normalize()
			out[i], out[i+1], out[i+2] = n[0], n[1], n[2]
		}
	}
	return out, channels
}
