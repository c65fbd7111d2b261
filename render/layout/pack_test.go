package layout

import (
	"testing"

	"sertrace/scene"
)

// TestPackHair: each parameter given is copied with its bit set; one left
// out (nil: the default) leaves its bit clear and its field zero.
func TestPackHair(t *testing.T) {
	v := func(f float32) *float32 { return &f }
	c := scene.Vec3{X: 0.2, Y: 0.3, Z: 0.4}
	all := PackHair(&scene.Hair{Eumelanin: v(1), Pheomelanin: v(2), Color: &c, BetaM: v(0.3), BetaN: v(0.4), Alpha: v(3), Eta: v(1.5)})
	want := HairParams{Eumelanin: 1, Pheomelanin: 2, Color: c, BetaM: 0.3, BetaN: 0.4, Alpha: 3, Eta: 1.5,
		Set: HairEumelanin | HairPheomelanin | HairColor | HairBetaM | HairBetaN | HairAlpha | HairEta}
	if all != want {
		t.Errorf("every parameter: %+v, want %+v", all, want)
	}
	if none := PackHair(&scene.Hair{}); none != (HairParams{}) {
		t.Errorf("no parameter: %+v, want zero", none)
	}
	if some := PackHair(&scene.Hair{BetaN: v(0)}); some != (HairParams{Set: HairBetaN}) {
		t.Errorf("β_n given as 0: %+v, want its bit alone", some)
	}
}
