package render

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// noisyFilm is a film of the layers s at width×height holding one sample
// of a smooth image with noise, as a 1-spp render's: what the writers see.
func noisyFilm(width, height int, s Layers) *Film {
	f := NewFilmOf(width, height, s)
	rng := rand.New(rand.NewPCG(1, 2))
	for l := range NumLayers {
		sums := &f.Sums[l]
		for i := range sums.Len() {
			px := i / FilmLayers[l].Channels
			x, y := px%width, px/width
			sums.Set(i, float64(x+y)/float64(width+height)+0.2*rng.Float64())
		}
	}
	f.Samples = 1
	return f
}

// BenchmarkWrite writes a 3840×2160 film's beauty with the standard AOVs
// (albedo, normal, depth) as an EXR, a PNG and a PFM: what a 4K render
// spends after its last pass.
func BenchmarkWrite(b *testing.B) {
	f := noisyFilm(3840, 2160, GuideLayers)
	for _, ext := range []string{"exr", "png", "pfm"} {
		b.Run(fmt.Sprintf("4K/%s", ext), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "beauty."+ext)
			for b.Loop() {
				if err := Write(path, f, Display{ToneMap: "filmic"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
