package kernel

import (
	"math"

	"sertrace/scene"
)

// SphereCone is how a sphere of radius r at distance² d2 from a point looks
// from it: 1 − cos θmax of the cone it subtends, computed without
// cancellation for small spheres; ok is false when the point is inside or
// the cone is empty (light sampling skips the sphere there, and its pdf is 0).
func SphereCone(d2, r float32) (oneMinusCos float32, ok bool) {
	sin2 := r * r / d2
	if !(sin2 < 1) {
		return 0, false
	}
	omc := sin2 / (1 + float32(math.Sqrt(float64(1-sin2))))
	return omc, omc > 0
}

// SampleSphere picks a direction toward a sphere (centre c, radius r) seen
// from p uniformly in the cone it subtends: the direction, the distance to
// the sphere's nearer point along it and the solid-angle pdf. ok is false
// when p is inside.
func SampleSphere(p, c scene.Vec3, r, u1, u2 float32) (wi scene.Vec3, dist, pdf float32, ok bool) {
	toC := c.Sub(p)
	d2 := toC.Dot(toC)
	omc, ok := SphereCone(d2, r)
	if !ok {
		return wi, 0, 0, false
	}
	d := Sqrt32(d2)
	f := NewFrame(toC.Scale(1 / d))
	// cos θ uniform in [cos θmax, 1], kept as 1 − cos θ for small cones.
	omcT := u1 * omc
	cosT := 1 - omcT
	sinT := Sqrt32(omcT * (2 - omcT))
	s, co := math.Sincos(2 * math.Pi * float64(u2))
	wi = f.T.Scale(sinT * float32(co)).Add(f.B.Scale(sinT * float32(s))).Add(f.N.Scale(cosT))
	// The nearer intersection of p + t·wi with the sphere.
	dist = d*cosT - Sqrt32(r*r-d2*sinT*sinT)
	if !(dist > 0) {
		return wi, 0, 0, false
	}
	return wi, dist, 1 / (2 * math.Pi * omc), true
}
