// Package furnace holds white-furnace scenes: real, dense geometry under a
// uniform environment of radiance 1, with materials that lose no light (the
// exact answer is 1 in every pixel) or only lose it (no pixel above 1), and
// the check of a rendered film against that answer. Every backend's tests
// render the same cases.
package furnace

import (
	"fmt"
	"math"
	"math/rand/v2"

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

// Materials of the furnaces.

// White is a white Lambertian surface: no specular layer, nothing lost.
func White() scene.Material {
	m := scene.DefaultMaterial()
	m.Name = "white"
	m.Metallic, m.Roughness, m.Specular = 0, 1, 0
	return m
}

// LosslessHair is a hair fibre without pigment: it absorbs nothing.
func LosslessHair() scene.Material {
	m := White()
	m.Name = "lossless hair"
	zero := float32(0)
	m.Hair = &scene.Hair{Eumelanin: &zero, Pheomelanin: &zero}
	return m
}

// BrownHair is a pigmented fibre: it absorbs.
func BrownHair() scene.Material {
	m := LosslessHair()
	m.Name = "brown hair"
	eu, pheo := float32(1.3), float32(0.2)
	m.Hair = &scene.Hair{Eumelanin: &eu, Pheomelanin: &pheo}
	return m
}

// RoughMetal is a white GGX metal of the given roughness: a perfect
// reflector, lossless once the light that single scattering loses between
// microfacets is given back (the compensation; without it roughness 1
// reads 0.30).
func RoughMetal(roughness float32) scene.Material {
	m := scene.DefaultMaterial()
	m.Name = fmt.Sprintf("white rough metal (roughness %v)", roughness)
	m.Roughness = roughness
	return m
}

// GoldMetal is a rough gold-coloured metal: it only absorbs, and never
// reflects more in a channel than a white metal does.
func GoldMetal(roughness float32) scene.Material {
	m := RoughMetal(roughness)
	m.Name = fmt.Sprintf("gold rough metal (roughness %v)", roughness)
	m.BaseColor = scene.Vec4{X: 1, Y: 0.78, Z: 0.34, W: 1}
	return m
}

// RoughDielectric is a white dielectric (F0 0.04) of the given roughness:
// its diffuse gets what its specular layer does not reflect.
func RoughDielectric(roughness float32) scene.Material {
	m := scene.DefaultMaterial()
	m.Name = fmt.Sprintf("white rough dielectric (roughness %v)", roughness)
	m.Metallic, m.Roughness = 0, roughness
	return m
}

// MirrorDielectric is a black dielectric whose specular layer reflects
// everything (KHR_materials_specular's colour raises F0 to 1): its rough
// specular layer alone is a perfect reflector.
func MirrorDielectric(roughness float32) scene.Material {
	m := RoughDielectric(roughness)
	m.Name = fmt.Sprintf("black dielectric of F0 1 (roughness %v)", roughness)
	m.BaseColor = scene.Vec4{W: 1}
	m.SpecularColor = scene.Vec3{X: 25, Y: 25, Z: 25}
	return m
}

// SpecularGlossiness is a KHR_materials_pbrSpecularGlossiness material of
// a diffuse colour, a specular colour (F0) and a glossiness.
func SpecularGlossiness(diffuse, specular scene.Vec3, glossiness float32) scene.Material {
	m := scene.DefaultMaterial()
	m.Name = fmt.Sprintf("specular-glossiness (diffuse %v, specular %v, glossiness %v)", diffuse.X, specular.X, glossiness)
	m.SpecularGlossiness, m.Glossiness = true, glossiness
	m.BaseColor = scene.Vec4{X: diffuse.X, Y: diffuse.Y, Z: diffuse.Z, W: 1}
	m.SpecularColor = specular
	return m
}

// CoatedMetal is RoughMetal under a rough clearcoat: both lossless, so the
// whole is.
func CoatedMetal(roughness float32) scene.Material {
	m := RoughMetal(roughness)
	m.Name = fmt.Sprintf("white rough metal under a clearcoat (roughness %v)", roughness)
	m.Clearcoat, m.ClearcoatRoughness = 1, roughness
	return m
}

// Glass is clear glass: a volume (refracting into the object) or a thin
// sheet, smooth or rough, lossless (a rough one gets back what single
// scattering loses).
func Glass(roughness float32, thin bool) scene.Material {
	m := White()
	m.Name = fmt.Sprintf("glass (roughness %v, thin %v)", roughness, thin)
	m.Specular, m.Roughness, m.Transmission, m.IOR, m.Volume = 1, roughness, 1, 1.5, !thin
	return m
}

// ClearGlass is Glass of another index: 1 is an interface that is not
// there (it bends and reflects nothing, rough or smooth).
func ClearGlass(ior, roughness float32, thin bool) scene.Material {
	m := Glass(roughness, thin)
	m.Name = fmt.Sprintf("glass of index %v (roughness %v, thin %v)", ior, roughness, thin)
	m.IOR = ior
	return m
}

// Clearcoated is White under a KHR_materials_clearcoat coat of the given
// roughness: the coat reflects what the white base then does not get, and
// it loses nothing (what its single scattering loses given back).
func Clearcoated(roughness float32) scene.Material {
	m := White()
	m.Name = fmt.Sprintf("white under a clearcoat (roughness %v)", roughness)
	m.Clearcoat, m.ClearcoatRoughness = 1, roughness
	return m
}

// Sheened is White under a white KHR_materials_sheen of the given
// roughness: the sheen takes from the base what it reflects itself, so it
// never adds light.
func Sheened(roughness float32) scene.Material {
	m := White()
	m.Name = fmt.Sprintf("white under a white sheen (roughness %v)", roughness)
	m.SheenColor, m.SheenRoughness = scene.Vec3{X: 1, Y: 1, Z: 1}, roughness
	return m
}

// Iridescent is a white dielectric (its specular layer at full strength,
// roughness 0.4) under a KHR_materials_iridescence film of the given index
// and thickness: the film colours what the specular layer reflects, and
// the diffuse gets the rest (its albedo binned by v·h), so it stays
// lossless to the tables' few thousandths.
func Iridescent(ior, thickness float32) scene.Material {
	m := scene.DefaultMaterial()
	m.Name = fmt.Sprintf("white dielectric under a film (index %v, %v nm)", ior, thickness)
	m.Metallic, m.Roughness = 0, 0.4
	m.Iridescence, m.IridescenceIOR, m.IridescenceThicknessMax = 1, ior, thickness
	return m
}

// Brushed is a white dielectric of roughness 0.3 stretched by anisotropy
// strength (KHR_materials_anisotropy, rotated 0.5 rad from the tangent):
// the diffuse gets what the anisotropic specular layer does not reflect
// (its albedo from the anisotropic table), so it stays lossless.
func Brushed(strength float32) scene.Material {
	m := scene.DefaultMaterial()
	m.Name = fmt.Sprintf("white dielectric brushed with anisotropy %v", strength)
	m.Metallic, m.Roughness = 0, 0.3
	m.AnisotropyStrength, m.AnisotropyRotation = strength, 0.5
	return m
}

// BrushedMetal is a white metal of roughness 0.5 stretched by anisotropy
// strength: a perfect reflector once its anisotropic lobe gets back what
// single scattering loses.
func BrushedMetal(strength float32) scene.Material {
	m := Brushed(strength)
	m.Name = fmt.Sprintf("white metal brushed with anisotropy %v", strength)
	m.Metallic, m.Roughness = 1, 0.5
	return m
}

// Translucent is White transmitting share of its diffuse light, white, as
// a thin sheet (KHR_materials_diffuse_transmission): lossless.
func Translucent(share float32) scene.Material {
	m := White()
	m.Name = fmt.Sprintf("white transmitting %v of its diffuse light", share)
	m.DiffuseTransmission = share
	return m
}

// Unlit is a KHR_materials_unlit material of the given base colour.
func Unlit(base scene.Vec3) scene.Material {
	m := White()
	m.Name = fmt.Sprintf("unlit %v", base)
	m.BaseColor = scene.Vec4{X: base.X, Y: base.Y, Z: base.Z, W: 1}
	m.Unlit = true
	return m
}

// BlendShadow is a white Lambertian square facing +Z, lit square on by a
// directional light of irradiance π through a black, unlit sheet of alpha
// in front of it, which the camera also looks through: a pixel sees the
// square (radiance 1 where lit) with probability 1 − alpha, and the square
// receives the light with probability 1 − alpha, so every pixel is
// (1 − alpha)².
func BlendShadow(alpha float32) *scene.Scene {
	sheet := Unlit(scene.Vec3{})
	sheet.AlphaMode, sheet.BaseColor.W = scene.AlphaBlend, alpha
	sc := &scene.Scene{Materials: []scene.Material{sheet, White()}, Meshes: []scene.Mesh{gridMesh(3, 12)}}
	behind := scene.Mat4(scene.Identity)
	behind[14] = -1
	sc.Instances = []scene.Instance{
		{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity, Material: 0},
		{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: behind, Material: 1},
	}
	sc.Lights = []scene.Light{{Kind: scene.DirectionalLight, Color: scene.Vec3{X: 1, Y: 1, Z: 1}, Intensity: math.Pi, Direction: scene.Vec3{Z: -1}}}
	return withCamera(sc, scene.Vec3{X: 0, Y: 0, Z: 4}, 0.6)
}

// BlendedSheets are two large parallel squares, each many triangles, of
// unlit white with alphaMode BLEND, alpha front in front of alpha back, seen
// square on against a black environment: a camera ray sees white with
// probability front + (1 − front)·back, so every pixel is that (stochastic
// transparency keeps each candidate with probability alpha, and a ray that
// passes the front sheet goes on to the back one).
func BlendedSheets(front, back float32) *scene.Scene {
	sheet := func(alpha float32) scene.Material {
		m := Unlit(scene.Vec3{X: 1, Y: 1, Z: 1})
		m.AlphaMode, m.BaseColor.W = scene.AlphaBlend, alpha
		return m
	}
	sc := &scene.Scene{Materials: []scene.Material{sheet(front), sheet(back)}, Meshes: []scene.Mesh{gridMesh(3, 12)}}
	behind := scene.Mat4(scene.Identity)
	behind[14] = -1
	sc.Instances = []scene.Instance{
		{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity, Material: 0},
		{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: behind, Material: 1},
	}
	return withCamera(sc, scene.Vec3{X: 0, Y: 0, Z: 4}, 0.6)
}

// gridMesh is an n×n grid of quads over [−h, h]² in the z = 0 plane,
// facing +Z.
func gridMesh(h float32, n int) scene.Mesh {
	m := scene.Mesh{Name: "grid"}
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			m.Positions = append(m.Positions, scene.Vec3{X: h * (2*float32(i)/float32(n) - 1), Y: h * (2*float32(j)/float32(n) - 1)})
		}
	}
	at := func(i, j int) uint32 { return uint32(j*(n+1) + i) }
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			m.Indices = append(m.Indices, at(i, j), at(i+1, j), at(i+1, j+1), at(i, j), at(i+1, j+1), at(i, j+1))
		}
	}
	return m
}

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

// generated loads a generated scene and gives each instance the material
// that pick says, without the scene's own lights.
func generated(name string, pick func(in *scene.Instance) scene.Material) (*scene.Scene, error) {
	sc, err := scene.Generate(name)
	if err != nil {
		return nil, err
	}
	sc.Lights = nil
	sc.Materials = sc.Materials[:0]
	for i := range sc.Instances {
		sc.Materials = append(sc.Materials, pick(&sc.Instances[i]))
		sc.Instances[i].Material = i
	}
	return sc, nil
}

// CrossingStrands is a tangle of thick, straight and bent hair strands that
// pass through each other, of lossless hair.
func CrossingStrands() *scene.Scene {
	rng := rand.New(rand.NewPCG(21, 1))
	var c scene.CurveSet
	// The two thick straight strands that cross through each other's axes.
	c.AddStrand([]scene.Vec3{{X: -1.5, Y: 0, Z: 0}, {X: 1.5, Y: 0, Z: 0}}, []float32{0.2, 0.2})
	c.AddStrand([]scene.Vec3{{X: 0, Y: -1.5, Z: 0.05}, {X: 0, Y: 1.5, Z: 0.05}}, []float32{0.2, 0.2})
	// Many chained strands through a ball, of radii from 0.2 down to 5 µm.
	for s := 0; s < 60; s++ {
		p := randomInBall(rng, 1)
		dir := randomInBall(rng, 1).Normalize()
		r := float32(0.2 * math.Pow(4e4, -rng.Float64()))
		var pts []scene.Vec3
		var radii []float32
		for k := 0; k < 6; k++ {
			pts = append(pts, p)
			radii = append(radii, r*(1-0.1*float32(k)))
			dir = dir.Add(randomInBall(rng, 0.5)).Normalize()
			p = p.Add(dir.Scale(0.4))
		}
		c.AddStrand(pts, radii)
	}
	return withCamera(curvesScene(c, LosslessHair()), scene.Vec3{X: 0, Y: 0.3, Z: 5}, 0.75)
}

// StrandsIntoSpheres has strands whose roots sink into a closed triangle
// mesh (a head) and strands that end inside particles, all lossless.
func StrandsIntoSpheres() *scene.Scene {
	rng := rand.New(rand.NewPCG(22, 2))
	var c scene.CurveSet
	for s := 0; s < 40; s++ {
		n := randomInBall(rng, 1).Normalize()
		var pts []scene.Vec3
		var radii []float32
		for k := 0; k < 5; k++ { // from 0.1 below the surface out to 1.7
			pts = append(pts, n.Scale(0.9+0.2*float32(k)))
			radii = append(radii, 0.03)
		}
		c.AddStrand(pts, radii)
	}
	spheres := scene.SphereSet{Name: "particles"}
	for s := 0; s < 12; s++ {
		end := randomInBall(rng, 1).Normalize().Scale(1.6)
		spheres.Centers = append(spheres.Centers, end)
		spheres.Radii = append(spheres.Radii, 0.12)
		c.AddStrand([]scene.Vec3{end.Scale(0.7), end.Scale(0.85), end}, []float32{0.02, 0.02, 0.02})
	}
	sc := curvesScene(c, LosslessHair())
	sc.Meshes = append(sc.Meshes, sphereMesh(1, 24, 48))
	sc.SphereSets = append(sc.SphereSets, spheres)
	sc.Materials = append(sc.Materials, White())
	for _, g := range []scene.GeometryRef{{Kind: scene.Triangles}, {Kind: scene.Spheres}} {
		sc.Instances = append(sc.Instances, scene.Instance{Geometry: g, Transform: scene.Identity, Material: 1})
	}
	return withCamera(sc, scene.Vec3{X: 0, Y: 0.5, Z: 6}, 0.8)
}

// GlassObjects is a glass sphere mesh and a glass cube in front of each
// other, and a row of glass particles, of one glass material, or of
// mats[0], mats[1] and mats[2] (the last given for the rest).
func GlassObjects(mats ...scene.Material) *scene.Scene {
	sc := &scene.Scene{Materials: mats}
	sc.Meshes = []scene.Mesh{sphereMesh(0.8, 24, 48), boxMesh(0.5)}
	sc.SphereSets = []scene.SphereSet{{Name: "glass particles"}}
	for k := 0; k < 5; k++ {
		sc.SphereSets[0].Centers = append(sc.SphereSets[0].Centers, scene.Vec3{X: -1.2 + 0.6*float32(k), Y: -1.1, Z: 0.6})
		sc.SphereSets[0].Radii = append(sc.SphereSets[0].Radii, 0.28)
	}
	cube := scene.Mat4(scene.Identity)
	cube[12], cube[13], cube[14] = 0.7, 0.5, -0.8
	sc.Instances = []scene.Instance{
		{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 0}, Transform: scene.Identity},
		{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 1}, Transform: cube, Material: min(1, len(mats)-1)},
		{Geometry: scene.GeometryRef{Kind: scene.Spheres}, Transform: scene.Identity, Material: min(2, len(mats)-1)},
	}
	return withCamera(sc, scene.Vec3{X: 0.3, Y: 0.4, Z: 5}, 0.75)
}

// BrushedObjects is GlassObjects in mats, its meshes' tangents running
// about the vertical axis (along the lines of latitude; +X on the axis).
func BrushedObjects(mats ...scene.Material) *scene.Scene {
	sc := GlassObjects(mats...)
	for i := range sc.Meshes {
		m := &sc.Meshes[i]
		m.Tangents = make([]scene.Vec4, len(m.Positions))
		for k, p := range m.Positions {
			t := scene.Vec3{X: p.Z, Z: -p.X}.Normalize()
			if t == (scene.Vec3{}) {
				t = scene.Vec3{X: 1}
			}
			m.Tangents[k] = scene.Vec4{X: t.X, Y: t.Y, Z: t.Z, W: 1}
		}
	}
	return sc
}

func curvesScene(c scene.CurveSet, mat scene.Material) *scene.Scene {
	return &scene.Scene{CurveSets: []scene.CurveSet{c}, Materials: []scene.Material{mat},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.SweptSpheres}, Transform: scene.Identity}}}
}

// withCamera fills in the geometry's bounds and a camera at eye looking at
// the origin.
func withCamera(sc *scene.Scene, eye scene.Vec3, yfov float32) *scene.Scene {
	sc.Bounds = scene.EmptyBounds()
	for i := range sc.CurveSets {
		c := &sc.CurveSets[i]
		c.Bounds = scene.EmptyBounds()
		for k, p := range c.Positions {
			c.Bounds.ExtendBall(p, c.Radii[k])
		}
	}
	for i := range sc.SphereSets {
		s := &sc.SphereSets[i]
		s.Bounds = scene.EmptyBounds()
		for k, p := range s.Centers {
			s.Bounds.ExtendBall(p, s.Radii[k])
		}
	}
	for i := range sc.Meshes {
		m := &sc.Meshes[i]
		m.Bounds = scene.EmptyBounds()
		for _, p := range m.Positions {
			m.Bounds.Extend(p)
		}
	}
	for _, in := range sc.Instances {
		sc.Bounds.Union(sc.GeometryBounds(in.Geometry).Transform(in.Transform))
	}
	sc.Cameras = []scene.Camera{{Name: "furnace", YFov: yfov, Transform: scene.LookAt(eye, scene.Vec3{}, scene.Vec3{X: 0, Y: 1, Z: 0})}}
	return sc
}

func randomInBall(rng *rand.Rand, r float32) scene.Vec3 {
	for {
		p := scene.Vec3{X: 2*rng.Float32() - 1, Y: 2*rng.Float32() - 1, Z: 2*rng.Float32() - 1}
		if p.Dot(p) <= 1 {
			return p.Scale(r)
		}
	}
}

// sphereMesh is a closed, flat-shaded UV sphere of radius r about the origin.
func sphereMesh(r float32, rings, sectors int) scene.Mesh {
	m := scene.Mesh{Name: "sphere", Positions: []scene.Vec3{{X: 0, Y: r, Z: 0}}}
	for i := 1; i < rings; i++ {
		theta := math.Pi * float64(i) / float64(rings)
		for j := 0; j < sectors; j++ {
			phi := 2 * math.Pi * float64(j) / float64(sectors)
			m.Positions = append(m.Positions, scene.Vec3{
				X: r * float32(math.Sin(theta)*math.Cos(phi)), Y: r * float32(math.Cos(theta)), Z: r * float32(math.Sin(theta)*math.Sin(phi))})
		}
	}
	bottom := uint32(len(m.Positions))
	m.Positions = append(m.Positions, scene.Vec3{X: 0, Y: -r, Z: 0})
	// at is ring i's vertex j; rings 0 and rings are the poles.
	at := func(i, j int) uint32 {
		switch i {
		case 0:
			return 0
		case rings:
			return bottom
		}
		return uint32(1 + (i-1)*sectors + j%sectors)
	}
	for i := 0; i < rings; i++ {
		for j := 0; j < sectors; j++ {
			a, b, c, d := at(i, j), at(i, j+1), at(i+1, j), at(i+1, j+1)
			if i > 0 {
				m.Indices = append(m.Indices, a, b, c) // counter-clockwise seen from outside
			}
			if i < rings-1 {
				m.Indices = append(m.Indices, b, d, c)
			}
		}
	}
	return m
}

// boxMesh is a closed cube of half-size h about the origin.
func boxMesh(h float32) scene.Mesh {
	m := scene.Mesh{Name: "box"}
	for i := 0; i < 8; i++ {
		m.Positions = append(m.Positions, scene.Vec3{X: h * float32(2*(i&1)-1), Y: h * float32(2*(i>>1&1)-1), Z: h * float32(2*(i>>2&1)-1)})
	}
	// Each face's corners, counter-clockwise seen from outside.
	for _, f := range [6][4]uint32{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}} {
		m.Indices = append(m.Indices, f[0], f[1], f[2], f[0], f[2], f[3])
	}
	return m
}

// checkUnlit checks that every pixel is a share of c.Unlit.
func checkUnlit(c Case, film *render.Film, pix []float32) Result {
	res := Result{Min: math.Inf(1), Max: math.Inf(-1)}
	col := c.Unlit
	cc := float64(col.Dot(col))
	full, empty := 0, 0
	for i := 0; i < film.Width*film.Height; i++ {
		p := scene.Vec3{X: pix[3*i], Y: pix[3*i+1], Z: pix[3*i+2]}
		k := float64(p.Dot(col)) / cc // the share covered
		d := p.Sub(col.Scale(float32(k)))
		res.Mean += k
		res.Min, res.Max = min(res.Min, k), max(res.Max, k)
		if !(math.Sqrt(float64(d.Dot(d))) <= 1e-4) || !(k >= -1e-4 && k <= 1+1e-4) {
			if len(res.Problems) < 10 {
				res.Problems = append(res.Problems, fmt.Sprintf("pixel (%d, %d) = %v, not a share of %v", i%film.Width, i/film.Width, p, col))
			}
		}
		if k > 1-1e-4 {
			full++
		}
		if k < 1e-4 {
			empty++
		}
	}
	res.Mean /= float64(film.Width * film.Height)
	if full == 0 || empty == 0 {
		res.Problems = append(res.Problems, fmt.Sprintf("%d pixels all covered, %d not at all: the unlit objects must show, and the black around them", full, empty))
	}
	return res
}

// Result is what a furnace render showed.
type Result struct {
	Mean, Min, Max float64
	MeanError      float64  // the standard error of Mean
	Problems       []string // each a pixel or the mean off its answer by more than the noise allows
}

// Tolerances, in standard errors of the estimate the film's sample variance
// gives (stratified samples make it an upper bound), plus a floor for
// float rounding: a pixel may be off by 6, the image's mean by 4. A pixel's
// own variance from a few samples can be near 0 where the true one is not
// (16 lossless paths that all survived Russian roulette agree on a value
// above 1), so no pixel's is taken below the image's average.
const (
	pixelErrors = 6
	meanErrors  = 4
	floor       = 2e-3
)

// Check compares a furnace film with the case's answer.
func Check(c Case, film *render.Film) Result {
	pix, _ := film.Resolve(render.AOVBeauty)
	if c.Unlit != (scene.Vec3{}) {
		return checkUnlit(c, film, pix)
	}
	variance := film.MeanVariance()
	res := Result{Min: math.Inf(1), Max: math.Inf(-1)}
	var sum, sumVar float64
	n := len(variance)
	for _, v := range variance {
		sumVar += float64(v)
	}
	worst := 0
	for i := 0; i < n; i++ {
		v := (float64(pix[3*i]) + float64(pix[3*i+1]) + float64(pix[3*i+2])) / 3
		se := math.Sqrt(max(float64(variance[i]), sumVar/float64(n)))
		sum += v
		res.Min, res.Max = min(res.Min, v), max(res.Max, v)
		tol := pixelErrors*se + floor
		bad := !(v <= c.level()+tol) || (c.Lossless && !(v >= c.level()-tol)) // NaN fails
		if bad && worst < 10 {
			worst++
			res.Problems = append(res.Problems, fmt.Sprintf("pixel (%d, %d) = %.4f ± %.4f, want %s", i%film.Width, i/film.Width, v, se, answer(c)))
		}
	}
	res.Mean = sum / float64(n)
	res.MeanError = math.Sqrt(sumVar) / float64(n)
	tol := meanErrors*res.MeanError + floor/4
	if !(res.Mean <= c.level()+tol) || (c.Lossless && !(res.Mean >= c.level()-tol)) {
		res.Problems = append(res.Problems, fmt.Sprintf("mean %.4f ± %.4f, want %s", res.Mean, tol, answer(c)))
	}
	if c.MinMean > 0 && !(res.Mean >= c.MinMean-tol) {
		res.Problems = append(res.Problems, fmt.Sprintf("mean %.4f ± %.4f, want at least %v", res.Mean, tol, c.MinMean))
	}
	if c.Shadowed && !(res.Min < 0.5) {
		res.Problems = append(res.Problems, fmt.Sprintf("darkest pixel %.4f: direct light should leave shadowed pixels well below 1", res.Min))
	}
	return res
}

func answer(c Case) string {
	if c.Lossless {
		return fmt.Sprint(c.level())
	}
	return fmt.Sprint("at most ", c.level())
}
