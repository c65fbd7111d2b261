package kernel

import (
	"fmt"
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

// projectedSolidAngle is ∫ max(n·ω, 0) dω over the triangle v0 v1 v2 seen
// from p, for a triangle wholly in front of n (Lambert's formula, float64).
func projectedSolidAngle(p, v0, v1, v2, n [3]float64) float64 {
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	vs := [3][3]float64{unit64(sub64(v0, p)), unit64(sub64(v1, p)), unit64(sub64(v2, p))}
	var sum float64
	for i := range 3 {
		a, b := vs[i], vs[(i+1)%3]
		sum += math.Acos(max(-1, min(1, dot64(a, b)))) * dot64(n, unit64(cross(a, b)))
	}
	return math.Abs(sum) / 2
}

// TestSphericalTriangleSlivers: the irradiance that solid-angle samples
// of a triangle give a surface facing it (omega times the mean cosine of
// the directions drawn on a 500×500 grid of u1, u2) agrees within 0.2%
// with what the same grid gives through Arvo's formulas in float64
// (itself within 1% of Lambert's closed form: the grid's own error),
// whichever vertex the triangle lists first: on
// the two halves of a lamp's side, 1 cm by 50 cm, seen from the ceiling
// 2 mm to 1 m away, and on random slivers and random triangles from near
// and far, wherever BySolidAngle has them sampled by solid angle. Before
// the vertices were turned so that the smallest angle is first, a side
// seen from 1 m was 0.7% off in one order of its vertices; triangles with
// an angle past 172° (seen nearly edge on) were up to 0.7% off in every
// order, and are sampled by area.
func TestSphericalTriangleSlivers(t *testing.T) {
	type triangle struct {
		name     string
		v        [3]scene.Vec3
		p        scene.Vec3
		receiver [3]float64 // the surface's normal, facing the triangle
	}
	var cases []triangle
	// The side of a lamp in the plane x = 0.25, emitting toward +x, and a
	// ceiling at y = 0 facing down.
	a, b := scene.Vec3{X: 0.25, Y: 0, Z: -0.25}, scene.Vec3{X: 0.25, Y: -0.01, Z: -0.25}
	c, d := scene.Vec3{X: 0.25, Y: -0.01, Z: 0.25}, scene.Vec3{X: 0.25, Y: 0, Z: 0.25}
	for _, dist := range []float32{0.002, 0.01, 0.05, 0.2, 1} {
		p := scene.Vec3{X: 0.25 + dist, Y: -1e-4, Z: 0.1}
		cases = append(cases, triangle{fmt.Sprintf("side ABC at %g", dist), [3]scene.Vec3{a, b, c}, p, [3]float64{0, -1, 0}},
			triangle{fmt.Sprintf("side ACD at %g", dist), [3]scene.Vec3{a, c, d}, p, [3]float64{0, -1, 0}})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	r := func() float32 { return float32(rng.Float64()*2 - 1) }
	for i := range 24 {
		p0, e1, e2 := scene.Vec3{X: r(), Y: r(), Z: r()}, scene.Vec3{X: r(), Y: r(), Z: r()}, scene.Vec3{X: r(), Y: r(), Z: r()}
		kind := "random"
		if i%2 == 0 {
			kind, e2 = "sliver", e1.Scale(0.7).Add(scene.Vec3{X: r(), Y: r(), Z: r()}.Scale(0.01))
		}
		normal := unit64(vec64(e1.Cross(e2)))
		centroid := vec64(p0.Add(e1.Add(e2).Scale(1.0 / 3)))
		size := math.Sqrt(math.Sqrt(dot64(vec64(e1.Cross(e2)), vec64(e1.Cross(e2)))) / 2)
		for _, h := range []float64{0.05, 1, 20} {
			p := scene.Vec3{X: float32(centroid[0] + h*size*normal[0] + 0.3*size*float64(r())), Y: float32(centroid[1] + h*size*normal[1]),
				Z: float32(centroid[2] + h*size*normal[2])}
			facing := scale64(normal, 1)
			if dot64(normal, sub64(vec64(p), vec64(p0))) > 0 {
				facing = scale64(normal, -1)
			}
			cases = append(cases, triangle{fmt.Sprintf("%s %d at %g", kind, i, h), [3]scene.Vec3{p0, p0.Add(e1), p0.Add(e2)}, p, facing})
		}
	}
	checked := 0
	for _, tc := range cases {
		for first := range 3 {
			v0, v1, v2 := tc.v[first], tc.v[(first+1)%3], tc.v[(first+2)%3]
			omega, da, db, dc := TriangleSolidAngle(tc.p, v0, v1.Sub(v0), v2.Sub(v0))
			if !BySolidAngle(omega, da, db, dc) {
				continue
			}
			want := projectedSolidAngle(vec64(tc.p), vec64(v0), vec64(v1), vec64(v2), tc.receiver)
			const n = 500
			var sum float64
			for i := range n {
				for j := range n {
					w := SampleSphericalTriangle(da, db, dc, omega, (float32(i)+0.5)/n, (float32(j)+0.5)/n)
					sum += max(0, dot64(tc.receiver, vec64(w)))
				}
			}
			got := sum / (n * n) * float64(omega)
			// The same grid through Arvo's formulas in float64: what the
			// grid itself gives, float32 aside.
			p64 := vec64(tc.p)
			a64, b64, c64 := unit64(sub64(vec64(v0), p64)), unit64(sub64(vec64(v1), p64)), unit64(sub64(vec64(v2), p64))
			omega64 := girard(a64, b64, c64)
			var sum64 float64
			for i := range n {
				for j := range n {
					sum64 += max(0, dot64(tc.receiver, arvo64(a64, b64, c64, omega64, (float64(i)+0.5)/n, (float64(j)+0.5)/n)))
				}
			}
			grid := sum64 / (n * n) * omega64
			if math.Abs(grid/want-1) > 0.01 {
				t.Fatalf("%s: the float64 grid gives %.6g, Lambert's formula %.6g", tc.name, grid, want)
			}
			if math.Abs(got/grid-1) > 2e-3 {
				t.Errorf("%s, vertex %d first (%.4g sr): %.6g, in float64 %.6g (%+.2f%%; Lambert's %.6g)", tc.name, first, omega, got, grid,
					100*(got/grid-1), want)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d triangles and orders checked", checked)
	}
	t.Logf("%d triangles and orders checked", checked)
}

// arvo64 is Arvo's sample in float64, vertices as given.
func arvo64(a, b, c [3]float64, omega, u1, u2 float64) [3]float64 {
	cross := func(x, y [3]float64) [3]float64 {
		return [3]float64{x[1]*y[2] - x[2]*y[1], x[2]*y[0] - x[0]*y[2], x[0]*y[1] - x[1]*y[0]}
	}
	tb := unit64(sub64(b, scale64(a, dot64(a, b))))
	tc := unit64(sub64(c, scale64(a, dot64(a, c))))
	cosA, sinA := dot64(tb, tc), math.Sqrt(dot64(cross(tb, tc), cross(tb, tc)))
	sa, ca := math.Sincos(u1 * omega)
	s, t := sa*cosA-ca*sinA, ca*cosA+sa*sinA
	u, v := t-cosA, s+sinA*dot64(a, b)
	q := max(-1, min(1, ((v*t-u*s)*cosA-v)/((v*s+u*t)*sinA)))
	cp := [3]float64{a[0]*q + tc[0]*math.Sqrt(1-q*q), a[1]*q + tc[1]*math.Sqrt(1-q*q), a[2]*q + tc[2]*math.Sqrt(1-q*q)}
	z := 1 - u2*(1-dot64(cp, b))
	tcp := unit64(sub64(cp, scale64(b, dot64(cp, b))))
	r := math.Sqrt(max(0, 1-z*z))
	return [3]float64{b[0]*z + tcp[0]*r, b[1]*z + tcp[1]*r, b[2]*z + tcp[2]*r}
}
