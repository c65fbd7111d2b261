package scene

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // glTF's two core image formats
	_ "image/png"

	_ "golang.org/x/image/webp" // EXT_texture_webp
	"math"
	"slices"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/texturetransform"

	"sertrace/scene/ktx2"
)

// Limits that keep a hostile image from taking unbounded memory.
const (
	maxImageSide   = 16384
	maxImagePixels = 1 << 26 // 256 MiB as RGBA8
	maxTexelBytes  = 4 << 30 // all textures together
)

type textureKey struct {
	texture int
	space   ColorSpace
}

type decodedImage struct {
	w, h   int
	pixels []uint8
}

// materials converts every glTF material.
func (l *loader) materials() error {
	for i, m := range l.doc.Materials {
		mat, err := l.material(fmt.Sprintf("material %d (%s)", i, m.Name), m)
		if err != nil {
			return fmt.Errorf("material %d (%s): %w", i, m.Name, err)
		}
		l.sc.Materials = append(l.sc.Materials, mat)
	}
	return nil
}

// defaultMaterial returns the index of glTF's default material, adding it on
// first use.
func (l *loader) defaultMaterial() int {
	if l.defaultMat < 0 {
		l.defaultMat = len(l.sc.Materials)
		l.sc.Materials = append(l.sc.Materials, DefaultMaterial())
	}
	return l.defaultMat
}

// material converts m, named in warnings as what.
func (l *loader) material(what string, m *gltf.Material) (Material, error) {
	out := DefaultMaterial()
	out.Name = m.Name
	var err error
	// The specular-glossiness model, where a file has it, replaces the
	// metallic-roughness one, which is then its fallback for readers
	// without the extension: the fallback's factors are not read, nor its
	// textures decoded.
	if sg, err := extension[specularGlossiness](m.Extensions, extSpecGloss); err != nil {
		return out, err
	} else if sg != nil {
		d, sf := sg.DiffuseFactor, sg.SpecularFactor
		if !finite(d[0], d[1], d[2], d[3], sf[0], sf[1], sf[2], sg.GlossinessFactor) {
			return out, fmt.Errorf("%s factors must be finite", extSpecGloss)
		}
		out.SpecularGlossiness = true
		out.BaseColor = Vec4{clamp01(d[0]), clamp01(d[1]), clamp01(d[2]), clamp01(d[3])}
		out.SpecularColor = Vec3{clamp01(sf[0]), clamp01(sf[1]), clamp01(sf[2])}
		out.Glossiness = clamp01(sg.GlossinessFactor)
		if out.BaseColorTexture, err = l.textureInfo(what, sg.DiffuseTexture, SRGB, "diffuseTexture"); err != nil {
			return out, err
		}
		// RGB: the specular colour, sRGB-encoded; A: the glossiness, linear.
		if out.SpecularColorTexture, err = l.textureInfo(what, sg.SpecularGlossinessTexture, SRGB, "specularGlossinessTexture"); err != nil {
			return out, err
		}
	}
	if pbr := m.PBRMetallicRoughness; pbr != nil && !out.SpecularGlossiness {
		if f := pbr.BaseColorFactor; f != nil {
			if !finite(f[:]...) {
				return out, errors.New("baseColorFactor is not finite")
			}
			out.BaseColor = Vec4{clamp01(f[0]), clamp01(f[1]), clamp01(f[2]), clamp01(f[3])}
		}
		if pbr.MetallicFactor != nil {
			out.Metallic = clamp01(*pbr.MetallicFactor)
		}
		if pbr.RoughnessFactor != nil {
			out.Roughness = clamp01(*pbr.RoughnessFactor)
		}
		if out.BaseColorTexture, err = l.textureInfo(what, pbr.BaseColorTexture, SRGB, "baseColorTexture"); err != nil {
			return out, err
		}
		if out.MetallicRoughnessTex, err = l.textureInfo(what, pbr.MetallicRoughnessTexture, Linear, "metallicRoughnessTexture"); err != nil {
			return out, err
		}
	}
	if t := m.NormalTexture; t != nil && t.Index != nil {
		info := &gltf.TextureInfo{Index: *t.Index, TexCoord: t.TexCoord, Extensions: t.Extensions}
		if out.NormalTexture, err = l.textureInfo(what, info, Linear, "normalTexture"); err != nil {
			return out, err
		}
		if t.Scale != nil && finite(*t.Scale) {
			out.NormalScale = float32(*t.Scale)
		}
	}
	if t := m.OcclusionTexture; t != nil && t.Index != nil {
		info := &gltf.TextureInfo{Index: *t.Index, TexCoord: t.TexCoord, Extensions: t.Extensions}
		if out.OcclusionTexture, err = l.textureInfo(what, info, Linear, "occlusionTexture"); err != nil {
			return out, err
		}
		if t.Strength != nil {
			out.OcclusionStrength = clamp01(*t.Strength)
		}
	}
	if out.EmissiveTexture, err = l.textureInfo(what, m.EmissiveTexture, SRGB, "emissiveTexture"); err != nil {
		return out, err
	}
	strength := 1.0
	if e, err := extension[emissiveStrength](m.Extensions, extEmissiveStrength); err != nil {
		return out, err
	} else if e != nil {
		if !finite(e.EmissiveStrength) || e.EmissiveStrength < 0 {
			return out, fmt.Errorf("emissiveStrength %v must be finite and not negative", e.EmissiveStrength)
		}
		strength = e.EmissiveStrength
	}
	ef := m.EmissiveFactor
	if !finite(ef[:]...) {
		return out, errors.New("emissiveFactor is not finite")
	}
	for c := range 3 {
		out.Emissive.Set(c, clamp01(ef[c])*float32(strength))
	}
	switch m.AlphaMode {
	case gltf.AlphaMask:
		out.AlphaMode = AlphaMask
	case gltf.AlphaBlend:
		out.AlphaMode = AlphaBlend
	}
	if m.AlphaCutoff != nil && finite(*m.AlphaCutoff) {
		out.AlphaCutoff = float32(max(*m.AlphaCutoff, 0))
	}
	out.DoubleSided = m.DoubleSided

	if t, err := extension[transmission](m.Extensions, extTransmission); err != nil {
		return out, err
	} else if t != nil {
		out.Transmission = clamp01(t.TransmissionFactor)
		if out.TransmissionTexture, err = l.textureInfo(what, t.TransmissionTexture, Linear, "transmissionTexture"); err != nil {
			return out, err
		}
	}
	if e, err := extension[ior](m.Extensions, extIOR); err != nil {
		return out, err
	} else if e != nil {
		// The extension allows 0 to mean "no refraction", otherwise at least 1.
		if !finite(e.IOR) || (e.IOR != 0 && e.IOR < 1) {
			return out, fmt.Errorf("ior %v must be 0 or at least 1", e.IOR)
		}
		out.IOR = float32(e.IOR)
	}
	if v, err := extension[volume](m.Extensions, extVolume); err != nil {
		return out, err
	} else if v != nil {
		if !finite(v.ThicknessFactor) || v.ThicknessFactor < 0 {
			return out, fmt.Errorf("thicknessFactor %v must be finite and not negative", v.ThicknessFactor)
		}
		// Zero thickness means thin-walled, as if there were no volume.
		out.Volume = v.ThicknessFactor > 0
		out.Thickness = float32(v.ThicknessFactor)
		if out.ThicknessTexture, err = l.textureInfo(what, v.ThicknessTexture, Linear, "thicknessTexture"); err != nil {
			return out, err
		}
		if d := v.AttenuationDistance; d != nil {
			if math.IsNaN(*d) || *d <= 0 {
				return out, fmt.Errorf("attenuationDistance %v must be positive", *d)
			}
			out.AttenuationDistance = float32(*d)
		}
		if c := v.AttenuationColor; c != nil {
			out.AttenuationColor = Vec3{clamp01(c[0]), clamp01(c[1]), clamp01(c[2])}
		}
	}
	if sp, err := extension[specular](m.Extensions, extSpecular); err != nil {
		return out, err
	} else if sp != nil && out.SpecularGlossiness {
		// Its F0 is the specular-glossiness model's own (the two are not
		// meant together): its colour would take that one's slots.
		l.warn("material %q: %s is ignored beside %s", m.Name, extSpecular, extSpecGloss)
	} else if sp != nil {
		c := sp.SpecularColorFactor
		if !finite(sp.SpecularFactor, c[0], c[1], c[2]) || sp.SpecularFactor < 0 || c[0] < 0 || c[1] < 0 || c[2] < 0 {
			return out, fmt.Errorf("%s factors must be finite and not negative", extSpecular)
		}
		out.Specular = clamp01(sp.SpecularFactor)
		out.SpecularColor = Vec3{float32(c[0]), float32(c[1]), float32(c[2])} // may exceed 1: it scales F0
		if out.SpecularTexture, err = l.textureInfo(what, sp.SpecularTexture, Linear, "specularTexture"); err != nil {
			return out, err
		}
		if out.SpecularColorTexture, err = l.textureInfo(what, sp.SpecularColorTexture, SRGB, "specularColorTexture"); err != nil {
			return out, err
		}
	}
	_, out.Unlit = m.Extensions[extUnlit]
	if d, err := extension[dispersion](m.Extensions, extDispersion); err != nil {
		return out, err
	} else if d != nil {
		if !finite(d.Dispersion) || d.Dispersion < 0 {
			return out, fmt.Errorf("%s: dispersion %v must be finite and not negative", extDispersion, d.Dispersion)
		}
		out.Dispersion = float32(d.Dispersion)
	}
	if ir, err := extension[iridescence](m.Extensions, extIridescence); err != nil {
		return out, err
	} else if ir != nil {
		if !finite(ir.IridescenceFactor, ir.IridescenceIOR, ir.IridescenceThicknessMinimum, ir.IridescenceThicknessMaximum) {
			return out, fmt.Errorf("%s factors must be finite", extIridescence)
		}
		if ir.IridescenceIOR < 1 || ir.IridescenceThicknessMinimum < 0 || ir.IridescenceThicknessMaximum < 0 {
			return out, fmt.Errorf("%s: iridescenceIor %v must be at least 1 and the thicknesses %v, %v not negative",
				extIridescence, ir.IridescenceIOR, ir.IridescenceThicknessMinimum, ir.IridescenceThicknessMaximum)
		}
		out.Iridescence, out.IridescenceIOR = clamp01(ir.IridescenceFactor), float32(ir.IridescenceIOR)
		out.IridescenceThicknessMin, out.IridescenceThicknessMax = float32(ir.IridescenceThicknessMinimum), float32(ir.IridescenceThicknessMaximum)
		if out.IridescenceTexture, err = l.textureInfo(what, ir.IridescenceTexture, Linear, "iridescenceTexture"); err != nil {
			return out, err
		}
		if out.IridescenceThicknessTexture, err = l.textureInfo(what, ir.IridescenceThicknessTexture, Linear, "iridescenceThicknessTexture"); err != nil {
			return out, err
		}
	}
	if a, err := extension[anisotropy](m.Extensions, extAnisotropy); err != nil {
		return out, err
	} else if a != nil {
		if !finite(a.AnisotropyStrength, a.AnisotropyRotation) {
			return out, fmt.Errorf("%s factors must be finite", extAnisotropy)
		}
		out.AnisotropyStrength, out.AnisotropyRotation = clamp01(a.AnisotropyStrength), float32(a.AnisotropyRotation)
		if out.AnisotropyTexture, err = l.textureInfo(what, a.AnisotropyTexture, Linear, "anisotropyTexture"); err != nil {
			return out, err
		}
	}
	if dt, err := extension[diffuseTransmission](m.Extensions, extDiffTransmission); err != nil {
		return out, err
	} else if dt != nil {
		c := dt.DiffuseTransmissionColorFactor
		if !finite(c[0], c[1], c[2], dt.DiffuseTransmissionFactor) {
			return out, fmt.Errorf("%s factors must be finite", extDiffTransmission)
		}
		out.DiffuseTransmission = clamp01(dt.DiffuseTransmissionFactor)
		out.DiffuseTransmissionColor = Vec3{clamp01(c[0]), clamp01(c[1]), clamp01(c[2])}
		if out.DiffuseTransmissionTexture, err = l.textureInfo(what, dt.DiffuseTransmissionTexture, Linear, "diffuseTransmissionTexture"); err != nil {
			return out, err
		}
		if out.DiffuseTransmissionColorTexture, err = l.textureInfo(what, dt.DiffuseTransmissionColorTexture, SRGB, "diffuseTransmissionColorTexture"); err != nil {
			return out, err
		}
	}
	if sh, err := extension[sheen](m.Extensions, extSheen); err != nil {
		return out, err
	} else if sh != nil {
		c := sh.SheenColorFactor
		if !finite(c[0], c[1], c[2], sh.SheenRoughnessFactor) {
			return out, fmt.Errorf("%s factors must be finite", extSheen)
		}
		out.SheenColor, out.SheenRoughness = Vec3{clamp01(c[0]), clamp01(c[1]), clamp01(c[2])}, clamp01(sh.SheenRoughnessFactor)
		if out.SheenColorTexture, err = l.textureInfo(what, sh.SheenColorTexture, SRGB, "sheenColorTexture"); err != nil {
			return out, err
		}
		if out.SheenRoughnessTexture, err = l.textureInfo(what, sh.SheenRoughnessTexture, Linear, "sheenRoughnessTexture"); err != nil {
			return out, err
		}
	}
	if c, err := extension[clearcoat](m.Extensions, extClearcoat); err != nil {
		return out, err
	} else if c != nil {
		if !finite(c.ClearcoatFactor, c.ClearcoatRoughnessFactor) {
			return out, fmt.Errorf("%s factors must be finite", extClearcoat)
		}
		out.Clearcoat, out.ClearcoatRoughness = clamp01(c.ClearcoatFactor), clamp01(c.ClearcoatRoughnessFactor)
		if out.ClearcoatTexture, err = l.textureInfo(what, c.ClearcoatTexture, Linear, "clearcoatTexture"); err != nil {
			return out, err
		}
		if out.ClearcoatRoughnessTexture, err = l.textureInfo(what, c.ClearcoatRoughnessTexture, Linear, "clearcoatRoughnessTexture"); err != nil {
			return out, err
		}
		if t := c.ClearcoatNormalTexture; t != nil && t.Index != nil {
			info := &gltf.TextureInfo{Index: *t.Index, TexCoord: t.TexCoord, Extensions: t.Extensions}
			if out.ClearcoatNormalTexture, err = l.textureInfo(what, info, Linear, "clearcoatNormalTexture"); err != nil {
				return out, err
			}
			if t.Scale != nil && finite(*t.Scale) {
				out.ClearcoatNormalScale = float32(*t.Scale)
			}
		}
	}
	if hair, err := hairFromExtras(m.Extras); err != nil {
		return out, err
	} else {
		out.Hair = hair
	}
	return out, nil
}

// variants reads the file's KHR_materials_variants and finds the one
// WithVariant asked for.
func (l *loader) variants() error {
	l.variantIdx = -1
	v, err := extension[materialVariants](l.doc.Extensions, extVariants)
	if err != nil {
		return err
	}
	if v != nil {
		for _, n := range v.Variants {
			l.sc.Variants = append(l.sc.Variants, n.Name)
		}
	}
	if l.variant == "" {
		return nil
	}
	l.variantIdx = slices.Index(l.sc.Variants, l.variant)
	if l.variantIdx < 0 {
		if len(l.sc.Variants) == 0 {
			return fmt.Errorf("variant %q: the file has no material variants (%s)", l.variant, extVariants)
		}
		return fmt.Errorf("variant %q is not one of the file's: %q", l.variant, l.sc.Variants)
	}
	l.sc.Variant = l.variant
	return nil
}

// hairFromExtras reads extras.sertrace.hair, the convention in
// docs/design/11-hair-and-particles.md.
func hairFromExtras(extras any) (*Hair, error) {
	st := extrasObject(extrasObject(extras)["sertrace"])
	raw, ok := st["hair"]
	if !ok {
		return nil, nil
	}
	b, _ := json.Marshal(raw)
	h := new(Hair)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(h); err != nil {
		return nil, fmt.Errorf("extras.sertrace.hair: %v", err)
	}
	if s := h.SigmaA; s != nil && !(s.X >= 0 && s.Y >= 0 && s.Z >= 0 && s.X <= 1e30 && s.Y <= 1e30 && s.Z <= 1e30) {
		return nil, fmt.Errorf("extras.sertrace.hair: sigma_a %v must be finite and not negative", *s)
	}
	return h, nil
}

func clamp01(v float64) float32 {
	if math.IsNaN(v) {
		return 0
	}
	return float32(min(max(v, 0), 1))
}

// maxUVTransform bounds a KHR_texture_transform's offset and scale: past
// it a float32 UV of about 1 keeps fewer than 16 steps of a repeat (the
// texture is noise, or one texel), and past float32's range none at all
// (UV·scale overflows, and the material renders black).
const maxUVTransform = 1e6

// textureInfo resolves material what's texture slot.
func (l *loader) textureInfo(what string, info *gltf.TextureInfo, space ColorSpace, slot string) (TextureRef, error) {
	if info == nil {
		return NoTexture, nil
	}
	ref := NoTexture
	ref.TexCoord = info.TexCoord
	if tt, err := extension[texturetransform.TextureTransform](info.Extensions, texturetransform.ExtensionName); err != nil {
		return ref, fmt.Errorf("%s: %w", slot, err)
	} else if tt != nil {
		if bad := uvTransformOutOfRange(tt); bad != nil {
			verb := "is"
			if len(bad) > 1 {
				verb = "are"
			}
			l.warn("%s: %s's %s %s %s not finite or past ±%g, where float32 UVs keep nothing of the texture: the texture is mapped without it",
				what, slot, texturetransform.ExtensionName, strings.Join(bad, " and "), verb, maxUVTransform)
		} else {
			ref.Transform = uvTransform(tt.Offset, tt.Rotation, tt.Scale)
		}
		if tt.TexCoord != nil {
			ref.TexCoord = *tt.TexCoord
		}
	}
	if ref.TexCoord < 0 || ref.TexCoord > 1 {
		l.warn("%s uses TEXCOORD_%d; only TEXCOORD_0 and TEXCOORD_1 are read, so it uses TEXCOORD_0", slot, ref.TexCoord)
		ref.TexCoord = 0
	}
	t, err := l.texture(info.Index, space)
	if err != nil {
		return ref, fmt.Errorf("%s: %w", slot, err)
	}
	ref.Texture = t
	return ref, nil
}

// uvTransformOutOfRange names the values of tt that are not finite or
// past ±maxUVTransform (a rotation need only be finite), or is nil.
func uvTransformOutOfRange(tt *texturetransform.TextureTransform) []string {
	inRange := func(vs ...float64) bool {
		for _, v := range vs {
			if !(math.Abs(v) <= maxUVTransform) {
				return false
			}
		}
		return true
	}
	var bad []string
	if !inRange(tt.Offset[:]...) {
		bad = append(bad, fmt.Sprintf("offset [%g, %g]", tt.Offset[0], tt.Offset[1]))
	}
	if !finite(tt.Rotation) {
		bad = append(bad, fmt.Sprintf("rotation %g", tt.Rotation))
	}
	if !inRange(tt.Scale[:]...) {
		bad = append(bad, fmt.Sprintf("scale [%g, %g]", tt.Scale[0], tt.Scale[1]))
	}
	return bad
}

// uvTransform is KHR_texture_transform's translation · rotation · scale as a
// 2×3 matrix, rows first.
func uvTransform(offset [2]float64, rotation float64, scale [2]float64) [6]float32 {
	s, c := math.Sincos(rotation)
	return [6]float32{
		float32(c * scale[0]), float32(s * scale[1]), float32(offset[0]),
		float32(-s * scale[0]), float32(c * scale[1]), float32(offset[1]),
	}
}

// texture returns the scene texture for glTF texture i in colour space
// space, decoding its image on first use; −1 when it has no usable source.
func (l *loader) texture(i int, space ColorSpace) (int, error) {
	if i < 0 || i >= len(l.doc.Textures) {
		return -1, fmt.Errorf("texture %d does not exist (%d in the file)", i, len(l.doc.Textures))
	}
	key := textureKey{i, space}
	if idx, ok := l.textures[key]; ok {
		return idx, nil
	}
	t := l.doc.Textures[i]
	source := t.Source
	// KHR_texture_basisu and EXT_texture_webp name the KTX2 or WebP image,
	// which the file prefers to its fallback source.
	var img *decodedImage
	for _, ext := range []string{extBasisu, extWebP} {
		w, err := extension[textureSource](t.Extensions, ext)
		if err != nil {
			return -1, fmt.Errorf("texture %d: %w", i, err)
		}
		if w == nil || w.Source == nil {
			continue
		}
		if img, err = l.image(*w.Source); err == nil {
			break
		}
		if source == nil {
			return -1, fmt.Errorf("texture %d: %w", i, err)
		}
		// One this loader cannot read (an HDR or 16-bit KTX2, say) leaves
		// the fallback image, which glTF gives for readers that lack it.
		l.warn("texture %d: its %s image does not decode (%v): its fallback image %d is used", i, ext, err, *source)
	}
	if img == nil && source == nil {
		names := make([]string, 0, len(t.Extensions))
		for k := range t.Extensions {
			names = append(names, k)
		}
		slices.Sort(names)
		l.warn("texture %d has no PNG, JPEG, WebP or KTX2 source (extensions: %s): ignored", i, strings.Join(names, ", "))
		l.textures[key] = -1
		return -1, nil
	}
	if img == nil {
		var err error
		if img, err = l.image(*source); err != nil {
			return -1, fmt.Errorf("texture %d: %w", i, err)
		}
	}
	tex := Texture{Name: t.Name, Width: img.w, Height: img.h, Pixels: img.pixels, ColorSpace: space}
	if t.Sampler != nil {
		if *t.Sampler < 0 || *t.Sampler >= len(l.doc.Samplers) {
			return -1, fmt.Errorf("texture %d: sampler %d does not exist", i, *t.Sampler)
		}
		s := l.doc.Samplers[*t.Sampler]
		tex.WrapS, tex.WrapT = wrapMode(s.WrapS), wrapMode(s.WrapT)
		tex.Nearest = s.MagFilter == gltf.MagNearest
	}
	l.textures[key] = len(l.sc.Textures)
	l.sc.Textures = append(l.sc.Textures, tex)
	return l.textures[key], nil
}

func wrapMode(w gltf.WrappingMode) Wrap {
	switch w {
	case gltf.WrapClampToEdge:
		return WrapClamp
	case gltf.WrapMirroredRepeat:
		return WrapMirror
	}
	return WrapRepeat
}

// image decodes glTF image i to RGBA8, once.
func (l *loader) image(i int) (*decodedImage, error) {
	if i < 0 || i >= len(l.doc.Images) {
		return nil, fmt.Errorf("image %d does not exist (%d in the file)", i, len(l.doc.Images))
	}
	if img, ok := l.images[i]; ok {
		return img, nil
	}
	if err, ok := l.imageErrs[i]; ok {
		return nil, err // an image that failed fails once: not decoded, nor counted, again
	}
	img, err := l.decodeImageAt(i)
	if err != nil {
		if l.imageErrs == nil {
			l.imageErrs = map[int]error{}
		}
		l.imageErrs[i] = err
		return nil, err
	}
	l.images[i] = img
	return img, nil
}

// decodeImageAt reads and decodes glTF image i.
func (l *loader) decodeImageAt(i int) (*decodedImage, error) {
	im := l.doc.Images[i]
	var data []byte
	var err error
	switch {
	case im.BufferView != nil:
		data, _, err = l.view(*im.BufferView)
	case im.URI != "":
		data, err = readURI(im.URI, maxResourceBytes, l.fetch)
	default:
		err = errors.New("has neither a uri nor a bufferView")
	}
	if err != nil {
		return nil, fmt.Errorf("image %d: %w", i, err)
	}
	img, err := decodeImage(data, &l.texelBytes)
	if err != nil {
		return nil, fmt.Errorf("image %d (%s): %w", i, imageLabel(im), err)
	}
	return img, nil
}

func imageLabel(im *gltf.Image) string {
	switch {
	case im.URI != "" && !strings.HasPrefix(im.URI, "data:"):
		return im.URI
	case im.Name != "":
		return im.Name
	case im.MimeType != "":
		return im.MimeType
	}
	return "embedded"
}

// decodeImage decodes a PNG, JPEG, WebP or KTX2 to non-premultiplied RGBA8,
// checking its size before it allocates anything; total counts the bytes of
// all textures.
func decodeImage(data []byte, total *int64) (out *decodedImage, err error) {
	var cfg image.Config
	var format string
	if ktx2.Is(data) {
		format = "KTX2"
		cfg.Width, cfg.Height, err = ktx2.DecodeConfig(data)
	} else if cfg, format, err = image.DecodeConfig(bytes.NewReader(data)); err != nil {
		err = fmt.Errorf("does not decode as PNG, JPEG, WebP or KTX2: %v", err)
	}
	if err != nil {
		return nil, err
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > maxImageSide || cfg.Height > maxImageSide ||
		cfg.Width*cfg.Height > maxImagePixels {
		return nil, fmt.Errorf("%s of %d×%d pixels is outside the supported 1..%d per side, %d pixels",
			format, cfg.Width, cfg.Height, maxImageSide, maxImagePixels)
	}
	size := int64(cfg.Width) * int64(cfg.Height) * 4
	if *total+size > maxTexelBytes {
		return nil, fmt.Errorf("textures take more than %d GiB", maxTexelBytes>>30)
	}
	// Only an image that decodes counts against the budget.
	if format == "KTX2" {
		k, err := ktx2.Decode(data)
		if err != nil {
			return nil, err
		}
		*total += size
		return &decodedImage{w: k.Width, h: k.Height, pixels: k.Pixels}, nil
	}
	defer func() {
		if err == nil {
			*total += size
		}
	}()
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s does not decode: %v", format, err)
	}
	b := src.Bounds()
	out = &decodedImage{w: b.Dx(), h: b.Dy(), pixels: make([]uint8, 4*b.Dx()*b.Dy())}
	if n, ok := src.(*image.NRGBA); ok {
		for y := 0; y < out.h; y++ {
			copy(out.pixels[4*y*out.w:4*(y+1)*out.w], n.Pix[y*n.Stride:])
		}
		return out, nil
	}
	p := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(src.At(x, y)).(color.NRGBA)
			out.pixels[p], out.pixels[p+1], out.pixels[p+2], out.pixels[p+3] = c.R, c.G, c.B, c.A
			p += 4
		}
	}
	return out, nil
}
