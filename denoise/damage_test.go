package denoise_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"sertrace/denoise"
)

// flatImage is a w×h image of radiance and albedo 0.5 facing the camera,
// with the diffuse and specular split (all diffuse).
func flatImage(w, h int) *denoise.Image {
	n := w * h
	img := &denoise.Image{Width: w, Height: h, Beauty: make([]float32, 3*n), Albedo: make([]float32, 3*n), Normal: make([]float32, 3*n),
		Depth: make([]float32, n), Specular: make([]float32, 3*n), SpecularAlbedo: make([]float32, 3*n)}
	for i := range img.Beauty {
		img.Beauty[i], img.Albedo[i] = 0.5, 0.5
	}
	for i := 0; i < n; i++ {
		img.Normal[3*i+2], img.Depth[i] = 1, 1
	}
	img.Diffuse, img.DiffuseAlbedo = slices.Clone(img.Beauty), slices.Clone(img.Albedo)
	return img
}

// TestRepairedCountsDamage: Repaired counts each layer's pixels that hold
// what no image of it does (NaN and infinities anywhere; negative
// radiance and albedo; radiance past MaxRadiance), names the first, and
// takes them as 0 (a damaged beauty pixel's split with it) in a copy; a
// beauty with no pixel left is an error.
func TestRepairedCountsDamage(t *testing.T) {
	img := flatImage(4, 3)
	img.Beauty[3*5+1] = -1e30
	img.Beauty[3*6] = float32(math.NaN())
	img.Beauty[3*11+2] = 1e20
	img.Albedo[3*2] = -0.001 // demodulation would divide by 0
	img.Normal[3*7+1] = float32(math.Inf(-1))
	img.Specular[3*1] = float32(math.Inf(1))
	img.Normal[3*8] = -1 // a normal may be negative
	img.Beauty[3*9] = 2e18
	got, damage, err := img.Repaired()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, d := range damage {
		lines = append(lines, d.String())
	}
	want := []string{
		"3 of the beauty's 12 pixels are not finite, negative or above 4.6e+18 (the first at x=1,y=1: -1e+30): taken as 0",
		"1 of the albedo's 12 pixels is negative (at x=2,y=0: -0.001): taken as 0",
		"1 of the normal's 12 pixels is not finite (at x=3,y=1: -Inf): taken as 0",
		"1 of the specular's 12 pixels is not finite (at x=1,y=0: +Inf): taken as 0",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("damage\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range []int{5, 6, 11} {
		for _, layer := range [][]float32{got.Beauty, got.Diffuse, got.Specular} {
			if !slices.Equal(layer[3*p:3*p+3], []float32{0, 0, 0}) {
				t.Errorf("pixel %d: %v, want it 0 in the beauty and its split", p, layer[3*p:3*p+3])
			}
		}
	}
	if !slices.Equal(got.Beauty[3*1:3*1+3], img.Beauty[3*1:3*1+3]) || !slices.Equal(got.Specular[3*1:3*1+3], []float32{0, 0, 0}) {
		t.Errorf("a damaged specular pixel: beauty %v, specular %v; want the beauty kept, the specular 0", got.Beauty[3:6], got.Specular[3:6])
	}
	if got.Albedo[3*2+1] != 0 || got.Normal[3*7+2] != 0 || got.Normal[3*8] != -1 || got.Beauty[3*9] != 2e18 {
		t.Errorf("albedo %v, normals %v %v, beauty %v", got.Albedo[6:9], got.Normal[21:24], got.Normal[24:27], got.Beauty[27:30])
	}
	if again, d, err := got.Repaired(); again != got || d != nil || err != nil {
		t.Errorf("an image Repaired returned is repaired again: %v %v", d, err)
	}
	if !math.IsNaN(float64(img.Beauty[3*6])) || img.Albedo[3*2] != -0.001 {
		t.Error("the caller's image was changed")
	}
	clean := flatImage(4, 3)
	if got, damage, err := clean.Repaired(); err != nil || damage != nil || &got.Beauty[0] != &clean.Beauty[0] {
		t.Errorf("a clean image: %v, %v, copied %v", damage, err, &got.Beauty[0] != &clean.Beauty[0])
	}
	for i := range clean.Beauty {
		clean.Beauty[i] = float32(math.Inf(1))
	}
	clean.Beauty[0] = float32(math.NaN())
	if _, _, err := clean.Repaired(); err == nil || err.Error() != "all 12 of the beauty's pixels are not finite (the first at x=0,y=0: NaN): nothing to denoise" {
		t.Errorf("a beauty of NaN and infinities: %v", err)
	}
}
