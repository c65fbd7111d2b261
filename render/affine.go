package render

import (
	"math"

	"sertrace/scene"
)

// Affine is a 3×4 transform, rows first, float32 as the GPU keeps it.
type Affine [12]float32

// AffineInverse is the world-to-object transform of an object-to-world
// matrix (all zeros when it is singular).
func AffineInverse(m scene.Mat4) Affine {
	// Invert the 3×3 part by cofactors; the translation follows.
	a, b, c := m[0], m[4], m[8]
	d, e, f := m[1], m[5], m[9]
	g, h, i := m[2], m[6], m[10]
	det := a*(e*i-f*h) - b*(d*i-f*g) + c*(d*h-e*g)
	if det == 0 {
		return Affine{} // a collapsed instance: every ray misses it
	}
	inv := 1 / det
	r := [9]float64{
		(e*i - f*h) * inv, (c*h - b*i) * inv, (b*f - c*e) * inv,
		(f*g - d*i) * inv, (a*i - c*g) * inv, (c*d - a*f) * inv,
		(d*h - e*g) * inv, (b*g - a*h) * inv, (a*e - b*d) * inv,
	}
	tx, ty, tz := m[12], m[13], m[14]
	return Affine{
		float32(r[0]), float32(r[1]), float32(r[2]), float32(-(r[0]*tx + r[1]*ty + r[2]*tz)),
		float32(r[3]), float32(r[4]), float32(r[5]), float32(-(r[3]*tx + r[4]*ty + r[5]*tz)),
		float32(r[6]), float32(r[7]), float32(r[8]), float32(-(r[6]*tx + r[7]*ty + r[8]*tz)),
	}
}

// AffineOf is m as a 3×4 float32 affine.
func AffineOf(m scene.Mat4) Affine {
	return Affine{
		float32(m[0]), float32(m[4]), float32(m[8]), float32(m[12]),
		float32(m[1]), float32(m[5]), float32(m[9]), float32(m[13]),
		float32(m[2]), float32(m[6]), float32(m[10]), float32(m[14]),
	}
}

// Point transforms a point.
func (m *Affine) Point(p scene.Vec3) scene.Vec3 {
	return scene.Vec3{
		X: m[0]*p.X + m[1]*p.Y + m[2]*p.Z + m[3],
		Y: m[4]*p.X + m[5]*p.Y + m[6]*p.Z + m[7],
		Z: m[8]*p.X + m[9]*p.Y + m[10]*p.Z + m[11],
	}
}

// Vector transforms a direction.
func (m *Affine) Vector(v scene.Vec3) scene.Vec3 {
	return scene.Vec3{
		X: m[0]*v.X + m[1]*v.Y + m[2]*v.Z,
		Y: m[4]*v.X + m[5]*v.Y + m[6]*v.Z,
		Z: m[8]*v.X + m[9]*v.Y + m[10]*v.Z,
	}
}

// UniformScale is the scale of a transform that only rotates, translates
// and scales alike on every axis (spheres stay spheres); ok is false for any
// other.
func (m *Affine) UniformScale() (scale float32, ok bool) {
	x, y, z := m.Vector(scene.Vec3{X: 1, Y: 0, Z: 0}), m.Vector(scene.Vec3{X: 0, Y: 1, Z: 0}), m.Vector(scene.Vec3{X: 0, Y: 0, Z: 1})
	s := x.Length()
	if !(s > 0) || math.IsInf(float64(s), 0) {
		return 0, false
	}
	const tol = 1e-4
	for _, v := range [2]scene.Vec3{y, z} {
		if math.Abs(float64(v.Length()-s)) > tol*float64(s) {
			return 0, false
		}
	}
	if math.Abs(float64(x.Dot(y))) > tol*float64(s*s) || math.Abs(float64(y.Dot(z))) > tol*float64(s*s) ||
		math.Abs(float64(x.Dot(z))) > tol*float64(s*s) {
		return 0, false
	}
	return s, true
}
