package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// UVs are a hit's two sets of texture coordinates.
type UVs struct {
	U0, V0 float32 // TEXCOORD_0
	U1, V1 float32 // TEXCOORD_1
}

// Shaded is what a material gives at a shading point besides its BSDF.
type Shaded struct {
	Albedo scene.Vec3 // the first-hit albedo AOV
	Emit   scene.Vec3 // emitted radiance towards the viewer
	Unlit  bool       // KHR_materials_unlit: Emit is the base colour and the path ends
}

// GlassIOR is the index a transmissive material refracts by:
// KHR_materials_ior's 0 ("no refraction") is not physical; glass it is.
func GlassIOR(m *layout.Material) float32 {
	if m.IOR < 1 {
		return 1.5
	}
	return m.IOR
}

// NormalMapped is the normal n perturbed by a tangent-space normal map
// tex of the given scale, with the surface's tangent and its handedness,
// in the surface's own frame (before it is turned towards the ray).
func NormalMapped(tx Texels, n, tangent scene.Vec3, handedness float32, tex *layout.TextureRef, scale float32, uv *UVs) scene.Vec3 {
	tn, _ := SampleTexture(tx, tex, uv)
	x, y, z := (2*tn.X-1)*scale, (2*tn.Y-1)*scale, 2*tn.Z-1
	t := tangent.Sub(n.Scale(n.Dot(tangent))).Normalize()
	b := n.Cross(t).Scale(handedness)
	if m := t.Scale(x).Add(b.Scale(y)).Add(n.Scale(z)).Normalize(); m != (scene.Vec3{}) {
		return m
	}
	return n
}

// AnisotropyDirection is KHR_materials_anisotropy's direction in the
// world: its texture's RG (or the tangent) turned by its rotation, in the
// tangent frame about the shading normal n.
func AnisotropyDirection(tx Texels, n, tangent scene.Vec3, handedness float32, m *layout.Material, uv *UVs) scene.Vec3 {
	dx, dy := float32(1), float32(0)
	if m.AnisotropyTex.Texture >= 0 {
		at, _ := SampleTexture(tx, &m.AnisotropyTex, uv)
		dx, dy = 2*at.X-1, 2*at.Y-1
	}
	s, c := math.Sincos(float64(m.AnisotropyRotation))
	rx, ry := float32(c)*dx-float32(s)*dy, float32(s)*dx+float32(c)*dy
	t := tangent.Sub(n.Scale(n.Dot(tangent))).Normalize()
	b := n.Cross(t).Scale(handedness)
	return t.Scale(rx).Add(b.Scale(ry))
}

// EvalMaterial makes b the BSDF of material m at a shading point: its
// factors times its textures at uv (the base colour times the vertex
// colour color), seen from the front or the back, in the frame f about
// the shading normal ns; nc is the clearcoat's normal and anisoDir
// KHR_materials_anisotropy's direction (world; zero: none). It returns
// the point's albedo and emission.
func EvalMaterial(tx Texels, b *BSDF, m *layout.Material, uv *UVs, color scene.Vec3, front bool, f *Frame, ns, nc, anisoDir scene.Vec3) Shaded {
	var out Shaded
	bc, _ := SampleTexture(tx, &m.BaseColorTex, uv)
	base := scene.Vec3{X: m.BaseColor.X, Y: m.BaseColor.Y, Z: m.BaseColor.Z}.Mul3(bc).Mul3(color)
	if m.Flags&layout.MatSpecularGlossiness != 0 {
		// KHR_materials_pbrSpecularGlossiness: F0 is the specular colour,
		// the roughness one minus the glossiness, and the diffuse colour
		// loses the specular's largest channel (the extension's own
		// inputs; the BSDF layers them as it does the dielectric's).
		sg, gloss := SampleTexture(tx, &m.SpecularColorTex, uv)
		f0 := m.SpecularColor.Mul3(sg)
		base = base.Scale(1 - max(f0.X, f0.Y, f0.Z))
		b.InitF0(base, 1-m.Glossiness*gloss, f0)
	} else {
		mr, _ := SampleTexture(tx, &m.MetallicRoughness, uv)
		_, sa := SampleTexture(tx, &m.SpecularTex, uv)
		sct, _ := SampleTexture(tx, &m.SpecularColorTex, uv)
		b.Init(base, m.Metallic*mr.Z, m.Roughness*mr.Y, m.IOR, m.Specular*sa, m.SpecularColor.Mul3(sct))
	}
	if m.Transmission > 0 {
		tt, _ := SampleTexture(tx, &m.TransmissionTex, uv)
		b.Transmission = m.Transmission * tt.X
		ior := GlassIOR(m)
		b.Eta = ior
		b.Thin = m.Flags&layout.MatVolume == 0
		if !front && !b.Thin {
			b.Eta = 1 / ior // leaving the volume (a thin sheet has air on both sides)
		}
	}
	if anisoDir != (scene.Vec3{}) {
		strength := m.AnisotropyStrength
		if m.AnisotropyTex.Texture >= 0 {
			at, _ := SampleTexture(tx, &m.AnisotropyTex, uv)
			strength *= at.Z
		}
		b.SetAnisotropy(strength, f.ToLocal(anisoDir))
	}
	if m.Iridescence > 0 {
		thickness := m.IridescenceThicknessMax
		if m.IridescenceThicknessTex.Texture >= 0 {
			g, _ := SampleTexture(tx, &m.IridescenceThicknessTex, uv)
			thickness = m.IridescenceThicknessMin + (m.IridescenceThicknessMax-m.IridescenceThicknessMin)*g.Y
		}
		it, _ := SampleTexture(tx, &m.IridescenceTex, uv)
		b.SetIridescence(m.Iridescence*it.X, m.IridescenceIOR, thickness)
	}
	if m.DiffuseTransmission > 0 {
		_, da := SampleTexture(tx, &m.DiffuseTransmissionTex, uv)
		b.DiffTrans = Clamp01(m.DiffuseTransmission * da)
		dc, _ := SampleTexture(tx, &m.DiffuseTransColorTex, uv)
		b.DiffTransColor = m.DiffuseTransmissionColor.Mul3(dc)
	}
	if m.SheenColor != (scene.Vec3{}) {
		sc, _ := SampleTexture(tx, &m.SheenColorTex, uv)
		_, sr := SampleTexture(tx, &m.SheenRoughnessTex, uv)
		b.SetSheen(m.SheenColor.Mul3(sc), m.SheenRoughness*sr)
	}
	if m.Clearcoat > 0 {
		var n scene.Vec3 // the zero vector: the shading normal
		if nc != ns {
			n = f.ToLocal(nc)
		}
		ct, _ := SampleTexture(tx, &m.ClearcoatTex, uv)
		cr, _ := SampleTexture(tx, &m.ClearcoatRoughnessTex, uv)
		b.SetCoat(m.Clearcoat*ct.X, m.ClearcoatRoughness*cr.Y, n)
	}
	out.Albedo = base
	if m.Flags&layout.MatUnlit != 0 {
		out.Unlit, out.Emit = true, base
		return out
	}
	if m.Flags&layout.MatEmits != 0 && (front || m.Flags&layout.MatDoubleSided != 0) {
		et, _ := SampleTexture(tx, &m.EmissiveTex, uv)
		out.Emit = m.Emissive.Mul3(et)
	}
	return out
}
