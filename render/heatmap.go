package render

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"slices"

	"github.com/mazznoer/colorgrad"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// writeHeatmap draws a per-pixel statistic as a colour scale (turbo; viridis
// for SIMT efficiency, on 0..1) with a legend bar and its range below. The
// scale's top is the 99th percentile, so that a few outliers do not flatten
// it.
func writeHeatmap(w io.Writer, film *Film, a AOV) error {
	pix, _ := film.Resolve(a)
	grad := colorgrad.Turbo()
	lo, hi := float32(0), float32(1)
	if a == AOVSIMT {
		grad = colorgrad.Viridis()
	} else {
		sorted := slices.Clone(pix)
		slices.Sort(sorted)
		lo, hi = sorted[0], sorted[min(len(sorted)-1, len(sorted)*99/100)]
	}
	if hi <= lo {
		hi = lo + 1
	}
	const band = 30
	img := image.NewNRGBA(image.Rect(0, 0, film.Width, film.Height+band))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.NRGBA{20, 20, 20, 255}}, image.Point{}, draw.Src)
	at := func(t float32) color.NRGBA {
		r, g, b, _ := grad.At(float64(min(max(t, 0), 1))).RGBA255()
		return color.NRGBA{r, g, b, 255}
	}
	for y := 0; y < film.Height; y++ {
		for x := 0; x < film.Width; x++ {
			img.SetNRGBA(x, y, at((pix[y*film.Width+x]-lo)/(hi-lo)))
		}
	}
	// The legend: the scale from lo to hi, and its ends and name in text.
	x0, x1 := 4, film.Width-4
	for x := x0; x < x1; x++ {
		c := at(float32(x-x0) / float32(max(x1-x0-1, 1)))
		for y := film.Height + 4; y < film.Height+12; y++ {
			img.SetNRGBA(x, y, c)
		}
	}
	label := func(x int, s string) {
		d := font.Drawer{Dst: img, Src: image.NewUniform(color.White), Face: basicfont.Face7x13,
			Dot: fixed.P(x, film.Height+band-4)}
		d.DrawString(s)
	}
	low, high := fmt.Sprintf("%.3g", lo), fmt.Sprintf("%.3g", hi)
	label(x0, low)
	label(max(x0, x1-7*len(high)), high)
	name := string(a)
	if a == AOVCost {
		name = "rays per sample"
		if film.CostUnit != "" {
			name = film.CostUnit + " per sample"
		}
	}
	if film.Width > 7*(len(low)+len(high)+len(name)+4) {
		label((film.Width-7*len(name))/2, name)
	}
	return png.Encode(w, img)
}
