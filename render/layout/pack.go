package layout

import "sertrace/scene"

// PackHair is a hair material's parameters as the shading reads them: each
// one given, with its bit in Set; nil (a default) leaves the bit clear.
func PackHair(h *scene.Hair) HairParams {
	var p HairParams
	set := func(v *float32, dst *float32, bit uint32) {
		if v != nil {
			*dst = *v
			p.Set |= bit
		}
	}
	set(h.Eumelanin, &p.Eumelanin, HairEumelanin)
	set(h.Pheomelanin, &p.Pheomelanin, HairPheomelanin)
	set(h.BetaM, &p.BetaM, HairBetaM)
	set(h.BetaN, &p.BetaN, HairBetaN)
	set(h.Alpha, &p.Alpha, HairAlpha)
	set(h.Eta, &p.Eta, HairEta)
	if h.Color != nil {
		p.Color = *h.Color
		p.Set |= HairColor
	}
	if h.SigmaA != nil { // overrides the colour, whose field it takes
		p.Color = *h.SigmaA
		p.Set = p.Set&^HairColor | HairSigmaA
	}
	return p
}

// PackLight is a KHR_lights_punctual light as the shading reads it.
func PackLight(l *scene.Light) Light {
	return Light{Kind: uint32(l.Kind), Color: l.Color, Intensity: l.Intensity, Position: l.Position, Direction: l.Direction,
		Range: l.Range, InnerCone: l.InnerCone, OuterCone: l.OuterCone}
}

// PackTextureRef is a material's texture slot as the shading reads it.
func PackTextureRef(r scene.TextureRef) TextureRef {
	return TextureRef{Texture: int32(r.Texture), TexCoord: uint32(r.TexCoord), Transform: r.Transform}
}

// PackMaterial is a material as the shading reads it, on every backend:
// its factors, texture slots and flags, and a hair material's parameters.
func PackMaterial(m *scene.Material) Material {
	g := Material{BaseColor: m.BaseColor, Emissive: m.Emissive, Metallic: m.Metallic, Roughness: m.Roughness,
		IOR: m.IOR, Specular: m.Specular, SpecularColor: m.SpecularColor, Transmission: m.Transmission,
		AttenuationColor: m.AttenuationColor, AttenuationDistance: m.AttenuationDistance, NormalScale: m.NormalScale,
		AlphaCutoff:  m.AlphaCutoff,
		BaseColorTex: PackTextureRef(m.BaseColorTexture), MetallicRoughness: PackTextureRef(m.MetallicRoughnessTex),
		NormalTex: PackTextureRef(m.NormalTexture), EmissiveTex: PackTextureRef(m.EmissiveTexture),
		TransmissionTex: PackTextureRef(m.TransmissionTexture), SpecularTex: PackTextureRef(m.SpecularTexture),
		SpecularColorTex: PackTextureRef(m.SpecularColorTexture),
		Clearcoat:        m.Clearcoat, ClearcoatRoughness: m.ClearcoatRoughness, ClearcoatNormalScale: m.ClearcoatNormalScale,
		ClearcoatTex: PackTextureRef(m.ClearcoatTexture), ClearcoatRoughnessTex: PackTextureRef(m.ClearcoatRoughnessTexture),
		ClearcoatNormalTex: PackTextureRef(m.ClearcoatNormalTexture),
		SheenColor:         m.SheenColor, SheenRoughness: m.SheenRoughness,
		SheenColorTex: PackTextureRef(m.SheenColorTexture), SheenRoughnessTex: PackTextureRef(m.SheenRoughnessTexture),
		DiffuseTransmission: m.DiffuseTransmission, DiffuseTransmissionColor: m.DiffuseTransmissionColor,
		DiffuseTransmissionTex: PackTextureRef(m.DiffuseTransmissionTexture), DiffuseTransColorTex: PackTextureRef(m.DiffuseTransmissionColorTexture),
		AnisotropyStrength: m.AnisotropyStrength, AnisotropyRotation: m.AnisotropyRotation, AnisotropyTex: PackTextureRef(m.AnisotropyTexture),
		Dispersion: m.Dispersion, Glossiness: m.Glossiness, Iridescence: m.Iridescence, IridescenceIOR: m.IridescenceIOR,
		IridescenceThicknessMin: m.IridescenceThicknessMin, IridescenceThicknessMax: m.IridescenceThicknessMax,
		IridescenceTex: PackTextureRef(m.IridescenceTexture), IridescenceThicknessTex: PackTextureRef(m.IridescenceThicknessTexture)}
	if m.DoubleSided {
		g.Flags |= MatDoubleSided
	}
	if m.Volume {
		g.Flags |= MatVolume
	}
	if m.AlphaMode == scene.AlphaMask {
		g.Flags |= MatAlphaMask
	}
	if m.AlphaMode == scene.AlphaBlend {
		g.Flags |= MatAlphaBlend
	}
	if m.Emits() {
		g.Flags |= MatEmits
	}
	if m.Unlit {
		g.Flags |= MatUnlit
	}
	if m.SpecularGlossiness {
		g.Flags |= MatSpecularGlossiness
	}
	if h := m.Hair; h != nil {
		g.Flags |= MatHair
		g.Hair = PackHair(h)
	}
	return g
}

// PackTexture is a texture's size, sampler and colour space as the shading
// reads them; offset is where its texels start in the GPU's texel buffer.
func PackTexture(t *scene.Texture, offset uint32) Texture {
	g := Texture{Offset: offset, Width: uint32(t.Width), Height: uint32(t.Height), WrapS: uint32(t.WrapS), WrapT: uint32(t.WrapT)}
	if t.ColorSpace == scene.SRGB {
		g.SRGB = 1
	}
	if t.Nearest {
		g.Nearest = 1
	}
	return g
}
