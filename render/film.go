package render

import "sertrace/scene"

// Film accumulates radiance and the first-hit AOVs, in float32, per pixel.
// Every pixel receives the same number of samples per pass, so one count
// serves the whole image.
type Film struct {
	Width, Height int
	Samples       int       // per pixel, accumulated so far
	Beauty        []float32 // RGB sums, rows from the top
	Albedo        []float32 // RGB sums of the first hit's albedo
	Normal        []float32 // sums of the first hit's world shading normal
	Depth         []float32 // sums of the first hit's distance along the camera axis (0 for misses)
	Partial       bool      // stopped before all samples were taken
}

// NewFilm makes an empty film.
func NewFilm(width, height int) *Film {
	n := width * height * 3
	return &Film{
		Width: width, Height: height,
		Beauty: make([]float32, n), Albedo: make([]float32, n), Normal: make([]float32, n),
		Depth: make([]float32, width*height),
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
	inv := 1 / float32(f.Samples)
	for i, v := range src {
		out[i] = v * inv
	}
	if a == AOVNormal {
		for i := 0; i < len(out); i += 3 {
			n := scene.Vec3{out[i], out[i+1], out[i+2]}.Normalize()
			out[i], out[i+1], out[i+2] = n[0], n[1], n[2]
		}
	}
	return out, channels
}
