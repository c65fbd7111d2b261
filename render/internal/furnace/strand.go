package furnace

import (
	"math"

	"sertrace/render"
	"sertrace/scene"
)

// Strand is one straight chained strand of n segments along axis from
// start, each seg long, its radius falling linearly from r0 at the root to
// r1 at the tip, with a hair material. Its segments' union is the smooth
// tapered tube exactly: a convex body, so a ray that leaves its surface
// outward, or starts inside it, meets it nowhere.
func Strand(start, axis scene.Vec3, n int, seg, r0, r1 float32) *scene.Scene {
	mat := scene.DefaultMaterial()
	mat.Hair = &scene.Hair{}
	var c scene.CurveSet
	axis = axis.Normalize()
	pts, radii := make([]scene.Vec3, n+1), make([]float32, n+1)
	for k := range pts {
		pts[k] = start.Add(axis.Scale(seg * float32(k)))
		radii[k] = r0 + (r1-r0)*float32(k)/float32(n)
	}
	c.AddStrand(pts, radii)
	return withCamera(curvesScene(c, mat), scene.Vec3{Z: 8}, 0.5)
}

// BandsScene is a straight, light strand across the view, drawn as a chain
// of n segments, lit from behind by a sun in a dim environment, and the
// options that render it with direct light only. A chain of segments is the
// one tube it draws: every n renders the same image (BandColumns compares
// two). Where light passing through the strand near a joint met the chain's
// kept end caps, the chain showed dark bands.
func BandsScene(n int) (*scene.Scene, render.Options) {
	sc := Strand(scene.Vec3{X: -1.2}, scene.Vec3{X: 1}, n, 2.4/float32(n), 0.05, 0.05)
	eu := float32(0.05)
	sc.Materials[0].Hair.Eumelanin = &eu // light hair: much of the light passes through
	sc.Lights = []scene.Light{{Kind: scene.DirectionalLight, Color: scene.Vec3{X: 1, Y: 1, Z: 1}, Intensity: 3, Direction: scene.Vec3{X: 0.3, Y: 0.2, Z: 1}.Normalize()}}
	sc.Cameras[0].YFov = 0.054 // the strand across the frame
	return sc, render.Options{Width: 96, Height: 16, SPP: 64, MaxDepth: 1, EnvColor: [3]float32{0.1, 0.1, 0.1}}
}

// BandColumns compares two renders of BandsScene column by column (the
// sums of each column's luminance, across the strand): the largest
// difference in standard errors, its column, and the mean column sum.
func BandColumns(a, b *render.Film) (worst float64, col int, mean float64) {
	va, vb := a.MeanVariance(), b.MeanVariance()
	lum := func(f *render.Film, px int) float64 {
		b := &f.Sums[render.LayerBeauty]
		return (0.2126*b.Value(3*px) + 0.7152*b.Value(3*px+1) + 0.0722*b.Value(3*px+2)) / float64(max(f.Samples, 1))
	}
	for x := 0; x < a.Width; x++ {
		var sa, sb, v float64
		for y := 0; y < a.Height; y++ {
			px := y*a.Width + x
			sa, sb, v = sa+lum(a, px), sb+lum(b, px), v+float64(va[px]+vb[px])
		}
		mean += sa / float64(a.Width)
		if z := math.Abs(sa-sb) / math.Sqrt(v+1e-12); !(z <= worst) {
			worst, col = z, x
		}
	}
	return worst, col, mean
}
