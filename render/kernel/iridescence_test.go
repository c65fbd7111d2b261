package kernel

import (
	"math"
	"testing"

	"sertrace/scene"
)

// TestThinFilmAlbedo holds the binned albedo of a GGX layer with the film's
// Fresnel to a fine quadrature of the same integral (256² stratified
// visible normals), over films thin and thick, of low and high index,
// over dielectrics and a metal, from normal to grazing view: to 0.005 for
// films under air over a dielectric (the albedo that keeps the diffuse
// from making light), 0.01 over a metal (only sampling reads it), 0.02
// for a film under a coat of higher index, whose Fresnel jumps to 1 where
// the film reflects totally.
func TestThinFilmAlbedo(t *testing.T) {
	films := []struct {
		film ThinFilm
		base scene.Vec3
		tol  float64
	}{
		{ThinFilm{Outside: 1, IOR: 1.3, Thickness: 400}, scene.Vec3{X: 0.04, Y: 0.04, Z: 0.04}, 0.005},
		{ThinFilm{Outside: 1, IOR: 1.8, Thickness: 1200}, scene.Vec3{X: 0.04, Y: 0.04, Z: 0.04}, 0.005},
		{ThinFilm{Outside: 1, IOR: 1.5, Thickness: 150}, scene.Vec3{X: 0.17, Y: 0.17, Z: 0.17}, 0.005},
		{ThinFilm{Outside: 1, IOR: 2.0, Thickness: 250}, scene.Vec3{X: 1, Y: 0.78, Z: 0.34}, 0.01},
		{ThinFilm{Outside: 1.5, IOR: 1.2, Thickness: 600}, scene.Vec3{X: 0.1, Y: 0.1, Z: 0.1}, 0.02},
	}
	for _, f := range films {
		worst := 0.0
		for _, mu := range []float32{1, 0.7, 0.3, 0.05} {
			for _, r := range []float32{0.03, 0.2, 0.5, 1} {
				alpha := max(r*r, 1e-3)
				wo := scene.Vec3{X: Sqrt32(1 - mu*mu), Z: mu}
				const n = 256
				var want [3]float64
				visibleNormalQuadrature(wo, alpha, n, func(vh, w float32) {
					fr := f.film.Fresnel(vh, f.base)
					want[0] += float64(w*fr.X) / (n * n)
					want[1] += float64(w*fr.Y) / (n * n)
					want[2] += float64(w*fr.Z) / (n * n)
				})
				got := ThinFilmAlbedo(f.film, mu, alpha, f.base)
				for c, g := range [3]float32{got.X, got.Y, got.Z} {
					d := math.Abs(float64(g) - min(want[c], 1))
					worst = max(worst, d)
					if d > f.tol {
						t.Errorf("film %+v over %v, cos %v, roughness %v: binned albedo %v, quadrature %v", f.film, f.base, mu, r, got, want)
						break
					}
				}
			}
		}
		t.Logf("film %+v over %v: largest difference %.4f", f.film, f.base, worst)
	}
}
