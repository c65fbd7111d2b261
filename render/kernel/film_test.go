package kernel

import (
	"testing"

	"sertrace/scene"
)

// TestThinFilmFresnel: the film's reflectance stays in [0, 1], is coloured
// (its channels differ: interference).
func TestThinFilmFresnel(t *testing.T) {
	base := scene.Vec3{X: 0.04, Y: 0.04, Z: 0.04}
	coloured := 0.0
	for i := 0; i <= 100; i++ {
		c := float32(i) / 100
		for _, f := range []ThinFilm{{1, 1.3, 400}, {1, 1.8, 1200}, {1.5, 2.2, 150}} {
			r := f.Fresnel(c, base)
			for _, v := range [3]float32{r.X, r.Y, r.Z} {
				if !(v >= 0 && v <= 1) {
					t.Fatalf("film %+v at cos %v: %v", f, c, r)
				}
			}
			coloured = max(coloured, float64(max(r.X, r.Y, r.Z)-min(r.X, r.Y, r.Z)))
		}
	}
	if coloured < 0.05 {
		t.Errorf("the films' reflectances differ between channels by at most %v: no interference", coloured)
	}
}
