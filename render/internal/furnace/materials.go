package furnace

import (
	"fmt"

	"sertrace/scene"
)

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
