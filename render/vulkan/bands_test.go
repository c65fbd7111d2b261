package vulkan_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"sertrace/render"
	"sertrace/render/vulkan"
	"sertrace/scene"
)

// TestBandsMakeTheSameImage: the GPU renders an image in bands of rows
// (render.RenderBands: launches of a band's rows, Params.Y0 its first) as
// it does in one go, on every path: with the same samples in each launch,
// every band's sums, layer by layer, are the whole film's rows bit for
// bit, the last band short of 16 rows included.
func TestBandsMakeTheSameImage(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	sc, err := scene.Load(filepath.Join("..", "..", "scenes", "hairy-cornell.glb"))
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 40, Height: 54, SPP: 4, MaxDepth: 6, Seed: 3}
	layers := render.GuideLayers | render.SplitLayers
	for _, path := range gpuPaths(t, d) {
		b := onPath(d, path)
		whole := render.NewFilmOf(opts.Width, opts.Height, layers)
		if _, err := render.Render(context.Background(), b, sc, opts, whole, nil); err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, v := range whole.Floats(render.LayerBeauty) {
			sum += v
		}
		if !(sum > 0) {
			t.Fatalf("%s: the whole render is black (%v)", path, sum)
		}
		next := 0
		stats, err := render.RenderBands(context.Background(), b, sc, opts, layers, 16, func(band *render.Film) error {
			if band.Y0 != next || band.Samples != opts.SPP || band.Partial {
				t.Fatalf("%s: band from row %d (%d samples, partial %v) where row %d comes next", path, band.Y0, band.Samples, band.Partial, next)
			}
			for l := range render.NumLayers {
				got, want := band.Floats(l), whole.Floats(l)
				n := render.FilmLayers[l].Channels * opts.Width
				if want == nil || render.Layer(l) == render.LayerCost {
					continue // (the GPU's cost is its shader clock's where it has one)
				}
				if !slices.Equal(got, want[band.Y0*n:(band.Y0+band.Height)*n]) {
					t.Fatalf("%s: the %s layer of rows %d..%d differs from the whole render's", path, render.FilmLayers[l].Name, band.Y0, band.Y0+band.Height)
				}
			}
			next += band.Height
			return nil
		}, nil)
		if err != nil || next != opts.Height || stats.SamplesPerPixel != opts.SPP || stats.Partial || stats.Backend != "vulkan" {
			t.Fatalf("%s: %v, %d rows given, stats %+v", path, err, next, stats)
		}
	}
}
