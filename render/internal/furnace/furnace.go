// Package furnace holds white-furnace scenes: real, dense geometry under a
// uniform environment of radiance 1, with materials that lose no light (the
// exact answer is 1 in every pixel) or only lose it (no pixel above 1), and
// the check of a rendered film against that answer. Every backend's tests
// render the same cases.
package furnace

import (
	"fmt"

	"sertrace/render"
	"sertrace/scene"
)

// Case is a furnace scene with what its render must show.
type Case struct {
	Name    string
	Scene   *scene.Scene
	Options render.Options
	// Lossless: every pixel is 1. Otherwise the materials only absorb, and
	// no pixel is above 1.
	Lossless bool
	// Shadowed: some pixels are clearly below 1 (direct light only, where
	// the geometry shadows itself).
	Shadowed bool
	// MinMean: the image's mean is at least this (materials that lose only
	// what a layer's single scattering loses: at or just below 1).
	MinMean float64
	// Level is the answer in place of 1 (0: 1), where the environment is
	// not 1 (the mean of its channels).
	Level float64
	// Unlit, where not zero, replaces the checks above: every pixel is this
	// colour times the share of it that unlit surfaces cover (against a
	// black environment), some pixels all of it and some none.
	Unlit scene.Vec3
}

// level is what a lossless render of the case shows.
func (c Case) level() float64 {
	if c.Level > 0 {
		return c.Level
	}
	return 1
}

// FullDepth is a depth no furnace path reaches: Russian roulette ends them.
const FullDepth = 1024

// options renders w×h pixels at spp samples to depth under the white furnace.
func options(w, h, spp, depth int) render.Options {
	return render.Options{Width: w, Height: h, SPP: spp, MaxDepth: depth, EnvColor: [3]float32{1, 1, 1}}
}

// Cases are the furnaces every backend renders. scale multiplies the samples
// (a slower backend renders fewer; the tolerances follow the noise).
func Cases(scale float64) ([]Case, error) {
	spp := func(n int) int { return max(4, int(float64(n)*scale)) }
	hair := func(mat scene.Material) (*scene.Scene, error) {
		return generated("hair", func(in *scene.Instance) scene.Material {
			if in.Geometry.Kind == scene.SweptSpheres {
				return mat
			}
			return White()
		})
	}
	var out []Case
	add := func(c Case, err error) error {
		if err != nil {
			return fmt.Errorf("furnace %s: %w", c.Name, err)
		}
		out = append(out, c)
		return nil
	}
	ball, err := hair(LosslessHair())
	if err := add(Case{Name: "hair ball", Scene: ball, Options: options(32, 24, spp(64), FullDepth), Lossless: true}, err); err != nil {
		return nil, err
	}
	out = append(out, Case{Name: "hair ball, direct light", Scene: ball, Options: options(32, 24, spp(64), 1), Shadowed: true})
	brown, err := hair(BrownHair())
	if err := add(Case{Name: "brown hair ball", Scene: brown, Options: options(32, 24, spp(32), FullDepth)}, err); err != nil {
		return nil, err
	}
	out = append(out,
		Case{Name: "interpenetrating strands", Scene: CrossingStrands(), Options: options(32, 32, spp(64), FullDepth), Lossless: true},
		Case{Name: "strands ending inside spheres", Scene: StrandsIntoSpheres(), Options: options(32, 32, spp(64), FullDepth), Lossless: true},
	)
	for _, p := range []struct {
		mat      scene.Material
		lossless bool
		minMean  float64
	}{{White(), true, 0}, {RoughMetal(0.5), true, 0}, {RoughDielectric(0.7), true, 0}, {Glass(0, false), true, 0}, {Clearcoated(0.3), true, 0}, {Clearcoated(0.8), true, 0},
		{Sheened(0.3), false, 0.97}, {Sheened(1), false, 0.97}, {Translucent(0.5), true, 0}, {Iridescent(1.8, 500), true, 0}} {
		cloud, err := generated("particles", func(in *scene.Instance) scene.Material {
			if in.Geometry.Kind == scene.Spheres {
				return p.mat
			}
			return White()
		})
		if err := add(Case{Name: "particle cloud of " + p.mat.Name, Scene: cloud, Options: options(32, 24, spp(32), FullDepth), Lossless: p.lossless, MinMean: p.minMean}, err); err != nil {
			return nil, err
		}
	}
	// Rough lobes that get back what single scattering loses, on objects
	// apart (in the dense cloud a path of a rough metal bounces between
	// particles for long, each bounce weighing it by the compensated
	// lobe's f/pdf, from 0.3 to 3 at roughness 1: fine on average, but a
	// heavy tail that 32 samples do not see).
	// Each object of a scene in its own material: the sphere mesh, the
	// cube, the particles.
	for _, p := range []struct {
		name     string
		scene    *scene.Scene
		lossless bool
	}{
		{"white rough metals", GlassObjects(RoughMetal(1), RoughMetal(0.25), RoughMetal(0.5)), true},
		{"gold rough metal", GlassObjects(GoldMetal(1)), false},
		{"a brushed white metal, a black dielectric of F0 1 and a coated white metal",
			BrushedObjects(BrushedMetal(0.8), MirrorDielectric(0.8), CoatedMetal(0.7)), true},
		// The specular-glossiness model's lossless ends: a black diffuse
		// under a specular of F0 1, rough and glossy, and a white diffuse
		// without specular.
		{"specular-glossiness: F0 1 at glossiness 0.2 and 0.7, white diffuse without specular",
			GlassObjects(SpecularGlossiness(scene.Vec3{}, scene.Vec3{X: 1, Y: 1, Z: 1}, 0.2), SpecularGlossiness(scene.Vec3{}, scene.Vec3{X: 1, Y: 1, Z: 1}, 0.7),
				SpecularGlossiness(scene.Vec3{X: 1, Y: 1, Z: 1}, scene.Vec3{}, 1)), true},
	} {
		out = append(out, Case{Name: "objects of " + p.name, Scene: p.scene, Options: options(32, 32, spp(32), FullDepth), Lossless: p.lossless})
	}
	// Unlit objects show their base colour to every ray and reflect
	// nothing, whatever lights them: against black, every pixel is that
	// colour times its coverage (a Lambertian, an invisible surface or
	// swapped channels would not be).
	colour := scene.Vec3{X: 0.25, Y: 0.5, Z: 0.75}
	lit := GlassObjects(Unlit(colour))
	lit.Lights = []scene.Light{{Kind: scene.DirectionalLight, Color: scene.Vec3{X: 1, Y: 1, Z: 1}, Intensity: 3, Direction: scene.Vec3{Y: -1}}}
	unlit := Case{Name: "unlit objects", Scene: lit, Options: options(32, 32, spp(16), FullDepth), Unlit: colour}
	unlit.Options.EnvColor = [3]float32{}
	out = append(out, unlit)
	blend := Case{Name: "blended sheets", Scene: BlendedSheets(0.3, 0.6), Options: options(32, 24, spp(64), FullDepth), Lossless: true, Level: 0.3 + 0.7*0.6}
	blend.Options.EnvColor = [3]float32{}
	out = append(out, blend)
	shade := Case{Name: "shadow of a blended sheet", Scene: BlendShadow(0.4), Options: options(32, 24, spp(64), FullDepth), Lossless: true, Level: 0.6 * 0.6}
	shade.Options.EnvColor = [3]float32{}
	out = append(out, shade)
	// Anisotropy turns about a surface's tangent, which meshes have and
	// spheres do not: the objects of GlassObjects, brushed about the
	// vertical.
	brushed := Brushed(0.8)
	out = append(out, Case{Name: "objects of " + brushed.Name, Scene: BrushedObjects(brushed), Options: options(32, 32, spp(64), FullDepth), Lossless: true})
	// Dispersive glass: each path refracts by one wavelength, weighted so
	// that white stays white.
	prism := Glass(0, false)
	prism.Name, prism.Dispersion = "dispersive glass", 2
	out = append(out, Case{Name: prism.Name, Scene: GlassObjects(prism), Options: options(32, 32, spp(64), FullDepth), Lossless: true})
	for _, g := range []struct {
		roughness float32
		thin      bool
	}{{0, false}, {0.4, false}, {0, true}} {
		mat := Glass(g.roughness, g.thin)
		out = append(out, Case{Name: mat.Name, Scene: GlassObjects(mat), Options: options(32, 32, spp(64), FullDepth), Lossless: true})
	}
	// Rough glass gets back what single scattering loses, entering and
	// leaving; an interface of index 1 is not there, and one near 1 loses
	// nothing either.
	out = append(out,
		Case{Name: "rough glass objects (roughness 1, thin at 0.6, roughness 0.7 at index 2.4)", Scene: GlassObjects(Glass(1, false), Glass(0.6, true), ClearGlass(2.4, 0.7, false)),
			Options: options(32, 32, spp(64), FullDepth), Lossless: true},
		Case{Name: "glass objects of index 1 and 1.01 (roughness 0.5, the cube thin)", Scene: GlassObjects(ClearGlass(1, 0.5, false), ClearGlass(1, 0.5, true), ClearGlass(1.01, 0.5, false)),
			Options: options(32, 32, spp(64), FullDepth), Lossless: true},
	)
	return out, nil
}
