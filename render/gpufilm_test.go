package render

import (
	"testing"

	"sertrace/render/layout"
)

// TestFilmLayoutHoldsWhatIsAsked: the accumulation buffer holds the layers
// asked for, one after the other, and the cost and shadow-ray counts
// always: 6 floats a pixel for the beauty alone (beauty, squared
// luminance, the two counts), 13 with the guides, every GPU layer with all.
func TestFilmLayoutHoldsWhatIsAsked(t *testing.T) {
	const n = 100
	for _, c := range []struct {
		layers Layers
		clock  bool
		floats int
		none   []int
	}{
		{BaseLayers, false, 6, []int{layout.FilmAlbedo, layout.FilmNormal, layout.FilmDepth, layout.FilmDiffuse, layout.FilmClock, layout.FilmPathLength}},
		{BaseLayers | GuideLayers, false, 13, []int{layout.FilmDiffuse, layout.FilmClock}},
		{AllLayers, true, layout.FilmLayers, nil},
	} {
		at, floats := GPUFilmLayout(c.layers, c.clock, n)
		if floats != c.floats {
			t.Errorf("%s: %d floats a pixel, want %d", c.layers.Names(), floats, c.floats)
		}
		for _, g := range c.none {
			if at[g] != layout.FilmNone {
				t.Errorf("%s: layer %d is in the buffer at %d", c.layers.Names(), g, at[g])
			}
		}
		// Each layer held has its floats to itself, inside the buffer.
		used := make([]bool, floats*n)
		for l, info := range FilmLayers {
			g := info.GPU
			if g < 0 || !c.layers.Has(Layer(l)) {
				continue
			}
			if at[g] == layout.FilmNone {
				t.Fatalf("%s: the %s layer has no place", c.layers.Names(), info.Name)
			}
			for i := range info.Channels * n {
				if k := int(at[g]) + i; k >= len(used) || used[k] {
					t.Fatalf("%s: the %s layer's float %d overlaps or overflows", c.layers.Names(), info.Name, i)
				} else {
					used[k] = true
				}
			}
		}
	}
}
