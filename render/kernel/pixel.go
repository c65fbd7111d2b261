package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// A pixel's sample, from its start at the camera to what it adds to the
// film: the same on every backend (render/cpu's tiles, the GPU's raygen
// shader and wavefronts).

// StartPath starts sample sampleIndex of pixel (x, y) of an image width
// pixels wide at camera cam, through the pixel filter f and the lens: every
// field of p is set (a field layout.Path gains starts at zero on every
// backend), its ray the camera's.
//
//goglsl:precise
func StartPath(p *layout.Path, rnd Randoms, f Filter, cam *layout.Camera, x, y, width, sampleIndex uint32) {
	*p = layout.Path{Pixel: y*width + x, SampleIndex: sampleIndex, Throughput: scene.Vec3{X: 1, Y: 1, Z: 1},
		Medium: -1, EtaScale: 1, Alive: 1}
	rx, ry := rnd.PathRandom2(p, layout.PairPixel)
	px := float32(x) + 0.5 + FilterSample(f, rx)
	py := float32(y) + 0.5 + FilterSample(f, ry)
	o, d := CameraRay(cam, px, py)
	if CameraLens(cam) {
		lu, lv := rnd.PathRandom2(p, layout.PairLens)
		o, d = LensRay(cam, o, d, lu, lv)
	}
	p.Origin, p.Dir = o, d
}

// PixelSample is what one sample's path adds to its pixel's film layers:
// its light with what is not finite left out (one bad sample never poisons
// a pixel) and the squares of its luminances, for the variance estimates;
// its first hit's albedos, normal and depth; its rays and bounces.
type PixelSample struct {
	Beauty, Diffuse, Specular              scene.Vec3
	Albedo, Normal, DiffAlbedo, SpecAlbedo scene.Vec3
	Depth, LumSq, DiffLumSq, SpecLumSq     float32
	Cost, PathLength, ShadowRays           float32
}

// SampleOf is what path p, ended, adds to its pixel.
func SampleOf(p *layout.Path) PixelSample {
	return PixelSample{Beauty: finite3(p.Radiance), Diffuse: finite3(p.Diffuse), Specular: finite3(p.Specular),
		Albedo: p.Albedo, Normal: p.Normal, DiffAlbedo: p.DiffAlbedo, SpecAlbedo: p.SpecAlbedo,
		Depth: p.Depth, LumSq: lumSq(p.Radiance), DiffLumSq: lumSq(p.Diffuse), SpecLumSq: lumSq(p.Specular),
		Cost: float32(p.Rays), PathLength: float32(p.Bounce), ShadowRays: float32(p.ShadowRays)} // whole numbers, exact in float32
}

// Add adds sample o to the sums s (the GPU's per pixel over a launch's
// samples; the CPU sums its exact layers in fixed point instead).
func (s *PixelSample) Add(o *PixelSample) {
	s.Beauty = s.Beauty.Add(o.Beauty)
	s.Diffuse = s.Diffuse.Add(o.Diffuse)
	s.Specular = s.Specular.Add(o.Specular)
	s.Albedo = s.Albedo.Add(o.Albedo)
	s.Normal = s.Normal.Add(o.Normal)
	s.DiffAlbedo = s.DiffAlbedo.Add(o.DiffAlbedo)
	s.SpecAlbedo = s.SpecAlbedo.Add(o.SpecAlbedo)
	s.Depth += o.Depth
	s.LumSq += o.LumSq
	s.DiffLumSq += o.DiffLumSq
	s.SpecLumSq += o.SpecLumSq
	s.Cost += o.Cost
	s.PathLength += o.PathLength
	s.ShadowRays += o.ShadowRays
}

// NoPixelSample is the empty sums.
func NoPixelSample() PixelSample { return PixelSample{} }

// lumSq is the squared luminance of a sample (0 for a bad one).
func lumSq(v scene.Vec3) float32 {
	l := finiteOr0(Luminance(v))
	return l * l
}

// finite3 is v with its NaN and infinite components 0.
func finite3(v scene.Vec3) scene.Vec3 {
	return scene.Vec3{X: finiteOr0(v.X), Y: finiteOr0(v.Y), Z: finiteOr0(v.Z)}
}

func finiteOr0(v float32) float32 {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return 0
	}
	return v
}
