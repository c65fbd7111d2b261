package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/scene"
)

// girard is the solid angle of the spherical triangle of unit directions
// a, b, c in float64, as the sum of its angles less π (Girard's theorem):
// a formula other than TriangleSolidAngle's.
func girard(a, b, c [3]float64) float64 {
	angle := func(v, x, y [3]float64) float64 {
		tx, ty := sub64(x, scale64(v, dot64(v, x))), sub64(y, scale64(v, dot64(v, y)))
		return math.Acos(max(-1, min(1, dot64(tx, ty)/math.Sqrt(dot64(tx, tx)*dot64(ty, ty)))))
	}
	return angle(a, b, c) + angle(b, c, a) + angle(c, a, b) - math.Pi
}

func dot64(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func sub64(a, b [3]float64) [3]float64 {
	return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]}
}
func scale64(a [3]float64, s float64) [3]float64 { return [3]float64{a[0] * s, a[1] * s, a[2] * s} }
func unit64(a [3]float64) [3]float64             { return scale64(a, 1/math.Sqrt(dot64(a, a))) }
func vec64(v scene.Vec3) [3]float64              { return [3]float64{float64(v.X), float64(v.Y), float64(v.Z)} }

// crossesTriangle gives the barycentrics (of vertices 1 and 2) at which
// the ray from p along d crosses the triangle p0, p0 + e1, p0 + e2, in
// float64, and its distance.
func crossesTriangle(p, d, p0, e1, e2 [3]float64) (u, v, t float64) {
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	pv := cross(d, e2)
	det := dot64(e1, pv)
	tv := sub64(p, p0)
	qv := cross(tv, e1)
	return dot64(tv, pv) / det, dot64(d, qv) / det, dot64(e2, qv) / det
}

// TestSampleSphericalTriangle: from near (the triangle filling most of
// the hemisphere), middling and far (a thousandth of a steradian),
// TriangleSolidAngle agrees with Girard's theorem in float64; every
// direction SampleSphericalTriangle draws crosses the triangle; and they
// fall in each of the four triangles that the edges' midpoints cut it
// into as often as those cover of its solid angle (chi-square), which is
// not their share of its area.
func TestSampleSphericalTriangle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p0 := scene.Vec3{X: -0.4, Y: 0.1, Z: -0.3}
	e1 := scene.Vec3{X: 1.1, Y: 0.05, Z: 0.2}
	e2 := scene.Vec3{X: 0.3, Y: -0.1, Z: 0.9}
	normal := unit64(vec64(e1.Cross(e2)))
	centroid := vec64(p0.Add(e1.Add(e2).Scale(1.0 / 3)))
	for _, tc := range []struct {
		name   string
		height float64 // above the centroid, along the normal
		side   float64 // and off to the side, along e1
	}{
		{"near", 0.02, 0.1}, {"beside", 0.05, 0.9}, {"middling", 0.8, 0.3}, {"far", 18, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u1 := unit64(vec64(e1))
			p64 := [3]float64{centroid[0] + tc.height*normal[0] + tc.side*u1[0], centroid[1] + tc.height*normal[1] + tc.side*u1[1],
				centroid[2] + tc.height*normal[2] + tc.side*u1[2]}
			p := scene.Vec3{X: float32(p64[0]), Y: float32(p64[1]), Z: float32(p64[2])}
			p64 = vec64(p)
			va, vb, vc := vec64(p0), vec64(p0.Add(e1)), vec64(p0.Add(e2))
			want := girard(unit64(sub64(va, p64)), unit64(sub64(vb, p64)), unit64(sub64(vc, p64)))
			omega, a, b, c := TriangleSolidAngle(p, p0, e1, e2)
			if math.Abs(float64(omega)-want) > 2e-5*want+1e-7 {
				t.Fatalf("solid angle %v, Girard's %v", omega, want)
			}
			if tc.name == "far" && !(omega > SphericalTriangleMin && omega < 3*SphericalTriangleMin) {
				t.Fatalf("far: solid angle %v, want just above the least sampled by it (%v)", omega, SphericalTriangleMin)
			}
			// The four parts: the corners' triangles and the middle one, by
			// their barycentric corners.
			parts := [4][3][2]float64{{{0, 0}, {0.5, 0}, {0, 0.5}}, {{0.5, 0}, {1, 0}, {0.5, 0.5}}, {{0, 0.5}, {0.5, 0.5}, {0, 1}}, {{0.5, 0}, {0.5, 0.5}, {0, 0.5}}}
			var share [4]float64
			var area [4]float64
			for i, pt := range parts {
				var dirs [3][3]float64
				for j, bc := range pt {
					q := [3]float64{va[0] + bc[0]*(vb[0]-va[0]) + bc[1]*(vc[0]-va[0]), va[1] + bc[0]*(vb[1]-va[1]) + bc[1]*(vc[1]-va[1]),
						va[2] + bc[0]*(vb[2]-va[2]) + bc[1]*(vc[2]-va[2])}
					dirs[j] = unit64(sub64(q, p64))
				}
				share[i] = girard(dirs[0], dirs[1], dirs[2]) / want
				area[i] = 0.25
			}
			const n = 200000
			var counts [4]float64
			for range n {
				d := SampleSphericalTriangle(a, b, c, omega, rng.Float32(), rng.Float32())
				if l := d.Length(); math.Abs(float64(l)-1) > 1e-4 {
					t.Fatalf("direction %v of length %v", d, l)
				}
				u, v, dist := crossesTriangle(p64, vec64(d), va, sub64(vb, va), sub64(vc, va))
				const eps = 1e-3
				if !(dist > 0) || u < -eps || v < -eps || u+v > 1+eps {
					t.Fatalf("direction %v crosses the triangle's plane at barycentrics (%v, %v), distance %v", d, u, v, dist)
				}
				// Which part: a corner's where its barycentric passes ½, else the middle.
				switch {
				case u+v < 0.5:
					counts[0]++
				case u >= 0.5:
					counts[1]++
				case v >= 0.5:
					counts[2]++
				default:
					counts[3]++
				}
			}
			chi2 := 0.0
			for i := range counts {
				e := share[i] * n
				chi2 += (counts[i] - e) * (counts[i] - e) / e
			}
			// Three degrees of freedom: 30 is p < 1e-6.
			if chi2 > 30 {
				t.Errorf("parts drawn %v, their solid angles' shares %v (areas' %v): chi-square %.1f", counts, share, area, chi2)
			}
		})
	}
}
