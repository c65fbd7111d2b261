package kernel

import (
	"math"

	"sertrace/scene"
)

// EnvMap is what the environment's lookups and sampling read of an
// equirectangular HDR map (render.EnvMap on the CPU, the environment
// buffers on the GPU). Directions map to the image as: +Y is the top row,
// −Z the middle column, u grows towards +X, turned by the rotation about
// +Y. Its sampling distribution is piecewise constant over the pixels, in
// proportion to luminance × sin θ.
type EnvMap interface {
	// EnvSize is the map's width and height in pixels.
	EnvSize() (w, h int)
	// EnvRotation is its turn about +Y, in radians; EnvIntensity scales
	// its radiance.
	EnvRotation() float32
	EnvIntensity() float32
	// EnvPixel is the linear RGB of pixel i (row-major, from the top).
	EnvPixel(i int) scene.Vec3
	// EnvMarginal is the CDF over rows (h + 1 entries), EnvConditional
	// each row's over its columns (w + 1 entries a row, one after the
	// other), and EnvTotal the integral they were normalised by (0: the
	// map is black and not sampled).
	EnvMarginal(i int) float32
	EnvConditional(i int) float32
	EnvTotal() float32
}

// EnvMapDirection maps image coordinates (u, v) ∈ [0, 1)² to a world
// direction.
func EnvMapDirection(m EnvMap, u, v float32) scene.Vec3 {
	phi := float64(2*math.Pi*(u-0.5)) + float64(m.EnvRotation())
	theta := math.Pi * float64(v)
	st := math.Sin(theta)
	return scene.Vec3{X: float32(st * math.Sin(phi)), Y: float32(math.Cos(theta)), Z: float32(-st * math.Cos(phi))}
}

// EnvMapUV is the inverse of EnvMapDirection.
func EnvMapUV(m EnvMap, d scene.Vec3) (u, v float32) {
	if !d.Finite() {
		return 0, 0.5 // never index with NaN
	}
	phi := math.Atan2(float64(d.X), float64(-d.Z)) - float64(m.EnvRotation())
	u = float32(phi/(2*math.Pi)) + 0.5
	u -= float32(math.Floor(float64(u)))
	if !(u >= 0 && u < 1) {
		u = 0 // a NaN rotation
	}
	// (not acos(d.Y): a GPU's is 5e-5 off near the rows' edges)
	v = float32(math.Atan2(math.Hypot(float64(d.X), float64(d.Z)), float64(d.Y)) / math.Pi)
	return u, v
}

// envMapTexel is the pixel (u, v) falls in.
func envMapTexel(m EnvMap, u, v float32) (x, y int) {
	w, h := m.EnvSize()
	return min(int(u*float32(w)), w-1), min(int(v*float32(h)), h-1)
}

// EnvMapRadiance is what arrives from direction d (unit).
func EnvMapRadiance(m EnvMap, d scene.Vec3) scene.Vec3 {
	u, v := EnvMapUV(m, d)
	x, y := envMapTexel(m, u, v)
	w, _ := m.EnvSize()
	return m.EnvPixel(y*w + x).Scale(m.EnvIntensity())
}

// EnvMapPdf is the solid-angle density with which EnvMapSample picks
// direction d, computed from the same tables it walks (so a row that
// rounding left out of the marginal has density 0, as it has no samples).
func EnvMapPdf(m EnvMap, d scene.Vec3) float32 {
	total := m.EnvTotal()
	if total <= 0 {
		return 0
	}
	w, h := m.EnvSize()
	u, v := EnvMapUV(m, d)
	x, y := envMapTexel(m, u, v)
	row := y * (w + 1)
	rowTotal := m.EnvConditional(row + w)
	if rowTotal <= 0 {
		return 0
	}
	pRow := (m.EnvMarginal(y+1) - m.EnvMarginal(y)) / total
	pCol := (m.EnvConditional(row+x+1) - m.EnvConditional(row+x)) / rowTotal
	pdfUV := pRow * float32(h) * pCol * float32(w)
	st := float32(math.Sin(math.Pi * float64(v)))
	if st <= 0 || pdfUV <= 0 {
		return 0
	}
	return pdfUV / (2 * math.Pi * math.Pi * st)
}

// EnvMapSample picks a direction with two numbers in [0, 1), in
// proportion to luminance × sin θ, and returns its radiance and
// solid-angle pdf (0 for a black map).
func EnvMapSample(m EnvMap, u1, u2 float32) (d, radiance scene.Vec3, pdf float32) {
	total := m.EnvTotal()
	if total <= 0 {
		return d, radiance, 0
	}
	w, h := m.EnvSize()
	// The first row whose CDF's upper bound exceeds u1·total, then the
	// first column of it likewise (sort.Search's binary search).
	target := u1 * total
	lo, hi := 0, h
	for lo < hi {
		mid := (lo + hi) / 2
		if m.EnvMarginal(mid+1) > target {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	y := min(lo, h-1)
	row := y * (w + 1)
	rowTotal := m.EnvConditional(row + w)
	target2 := u2 * rowTotal
	lo, hi = 0, w
	for lo < hi {
		mid := (lo + hi) / 2
		if m.EnvConditional(row+mid+1) > target2 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	x := min(lo, w-1)
	// A uniform point inside the chosen pixel.
	fy := (target - m.EnvMarginal(y)) / max(m.EnvMarginal(y+1)-m.EnvMarginal(y), 1e-30)
	fx := (target2 - m.EnvConditional(row+x)) / max(m.EnvConditional(row+x+1)-m.EnvConditional(row+x), 1e-30)
	u := (float32(x) + min(max(fx, 0), 0.99999)) / float32(w)
	v := (float32(y) + min(max(fy, 0), 0.99999)) / float32(h)
	d = EnvMapDirection(m, u, v)
	return d, EnvMapRadiance(m, d), EnvMapPdf(m, d)
}

// EnvironmentRadiance is what arrives from direction d: the map's
// (hasMap) or the constant color.
func EnvironmentRadiance(m EnvMap, hasMap bool, color, d scene.Vec3) scene.Vec3 {
	if hasMap {
		return EnvMapRadiance(m, d)
	}
	return color
}

// EnvironmentPdf is the solid-angle density with which
// EnvironmentSample picks d: the map's where it is importance-sampled,
// uniform over the sphere otherwise.
func EnvironmentPdf(m EnvMap, importance bool, d scene.Vec3) float32 {
	if importance {
		return EnvMapPdf(m, d)
	}
	return 1 / (4 * math.Pi)
}

// EnvironmentSample picks a direction toward the environment with two
// numbers in [0, 1): by the map's luminance where it is
// importance-sampled, uniformly over the sphere otherwise (a constant
// colour, or the baseline importance sampling is measured against); its
// radiance and solid-angle pdf.
func EnvironmentSample(m EnvMap, hasMap, importance bool, color scene.Vec3, u1, u2 float32) (d, radiance scene.Vec3, pdf float32) {
	if importance {
		return EnvMapSample(m, u1, u2)
	}
	z := 1 - 2*u1
	r := Sqrt32(1 - z*z)
	s, c := math.Sincos(2 * math.Pi * float64(u2))
	d = scene.Vec3{X: r * float32(c), Y: r * float32(s), Z: z}
	return d, EnvironmentRadiance(m, hasMap, color, d), 1 / (4 * math.Pi)
}
