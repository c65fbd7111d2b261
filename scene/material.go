package scene

import "math"

// AlphaMode is glTF's alphaMode.
type AlphaMode uint8

const (
	AlphaOpaque AlphaMode = iota
	AlphaMask
	AlphaBlend
)

func (m AlphaMode) String() string { return [...]string{"OPAQUE", "MASK", "BLEND"}[m] }

// Material is glTF's metallic-roughness material with the extensions
// sertrace implements. Factors are linear; textures multiply them.
type Material struct {
	Name string

	BaseColor            Vec4 // linear RGBA
	BaseColorTexture     TextureRef
	Metallic, Roughness  float32
	MetallicRoughnessTex TextureRef // B: metallic, G: roughness
	NormalTexture        TextureRef
	NormalScale          float32
	OcclusionTexture     TextureRef
	OcclusionStrength    float32
	Emissive             Vec3 // emissiveFactor × KHR_materials_emissive_strength
	EmissiveTexture      TextureRef
	AlphaMode            AlphaMode
	AlphaCutoff          float32
	DoubleSided          bool

	// KHR_materials_transmission and KHR_materials_ior.
	Transmission        float32
	TransmissionTexture TextureRef // R
	IOR                 float32

	// KHR_materials_volume; without it a transmissive surface is thin-walled.
	Volume              bool
	Thickness           float32
	ThicknessTexture    TextureRef // G
	AttenuationDistance float32    // +Inf: no absorption
	AttenuationColor    Vec3

	// KHR_materials_specular: the dielectric's specular strength (A) and
	// F0 colour (RGB).
	Specular             float32
	SpecularTexture      TextureRef
	SpecularColor        Vec3
	SpecularColorTexture TextureRef

	// KHR_materials_clearcoat: a clear coat (IOR 1.5) of this weight (R of
	// its texture) and roughness (G of its texture) over the material,
	// normal-mapped by its own texture (not by NormalTexture).
	Clearcoat                 float32
	ClearcoatTexture          TextureRef
	ClearcoatRoughness        float32
	ClearcoatRoughnessTexture TextureRef
	ClearcoatNormalTexture    TextureRef
	ClearcoatNormalScale      float32

	// KHR_materials_sheen: a sheen of this colour (RGB of its texture) and
	// roughness (A of its texture) over the material, under its coat.
	SheenColor            Vec3
	SheenColorTexture     TextureRef
	SheenRoughness        float32
	SheenRoughnessTexture TextureRef

	// KHR_materials_anisotropy: the metal lobe's roughness stretched along
	// a direction in the tangent plane, AnisotropyRotation (radians,
	// counter-clockwise) from the tangent, or from the direction in RG of
	// its texture, by this strength (times B of its texture).
	AnisotropyStrength float32
	AnisotropyRotation float32
	AnisotropyTexture  TextureRef

	// KHR_materials_iridescence: a thin film of this index over the
	// specular layers, its Fresnel mixed in by Iridescence (times R of its
	// texture); its thickness in nanometres is the maximum, or with a
	// thickness texture mix(min, max, G).
	Iridescence                 float32
	IridescenceTexture          TextureRef
	IridescenceIOR              float32
	IridescenceThicknessMin     float32
	IridescenceThicknessMax     float32
	IridescenceThicknessTexture TextureRef

	// KHR_materials_dispersion: 20 over the Abbe number of the glass
	// (KHR_materials_transmission with KHR_materials_volume); 0: none.
	Dispersion float32

	// KHR_materials_diffuse_transmission: this share (A of its texture) of
	// the diffuse light leaves through the other side, tinted by its colour
	// (RGB of its texture).
	DiffuseTransmission             float32
	DiffuseTransmissionTexture      TextureRef
	DiffuseTransmissionColor        Vec3
	DiffuseTransmissionColorTexture TextureRef

	// KHR_materials_unlit: the surface shows its base colour (texture and
	// vertex colour included) to every ray and reflects nothing.
	Unlit bool

	// KHR_materials_pbrSpecularGlossiness (archived; older assets use it):
	// the diffuse colour is BaseColor (and its texture), the reflectance
	// at normal incidence SpecularColor (RGB of SpecularColorTexture), and
	// the roughness one minus Glossiness (times A of the same texture);
	// Metallic, Roughness and Specular are not read.
	SpecularGlossiness bool
	Glossiness         float32

	Hair *Hair // from extras.sertrace.hair: strands get the hair BSDF
}

// AlphaTested reports whether the material's alpha decides where its
// surface is (MASK: against the cutoff; BLEND: stochastically).
func (m *Material) AlphaTested() bool { return m.AlphaMode == AlphaMask || m.AlphaMode == AlphaBlend }

// NeedsTangents reports whether the material reads its meshes' tangents: a
// normal map perturbs its shading normal or its clearcoat's, or
// anisotropy stretches its specular lobes along them.
func (m *Material) NeedsTangents() bool {
	return m.NormalTexture.Valid() || (m.Clearcoat > 0 && m.ClearcoatNormalTexture.Valid()) || m.AnisotropyStrength > 0
}

// Emits reports whether the material gives off light: an unlit one shows
// its base colour instead, and its emission is not used.
func (m *Material) Emits() bool {
	return !m.Unlit && (m.Emissive.X > 0 || m.Emissive.Y > 0 || m.Emissive.Z > 0)
}

// GivesLight reports whether a surface of the material adds light to the
// paths that meet it: it emits, or it is unlit (its base colour is the
// light it shows): what joins a light group.
func (m *Material) GivesLight() bool {
	return m.Emits() || m.Unlit
}

// DefaultMaterial is what glTF specifies for primitives without a material.
func DefaultMaterial() Material {
	return Material{
		Name:                 "default",
		BaseColor:            Vec4{1, 1, 1, 1},
		Metallic:             1,
		Roughness:            1,
		NormalScale:          1,
		OcclusionStrength:    1,
		AlphaCutoff:          0.5,
		IOR:                  1.5,
		AttenuationDistance:  float32(math.Inf(1)),
		AttenuationColor:     Vec3{1, 1, 1},
		BaseColorTexture:     NoTexture,
		MetallicRoughnessTex: NoTexture,
		NormalTexture:        NoTexture,
		OcclusionTexture:     NoTexture,
		EmissiveTexture:      NoTexture,
		TransmissionTexture:  NoTexture,
		ThicknessTexture:     NoTexture,
		Specular:             1,
		SpecularTexture:      NoTexture,
		SpecularColor:        Vec3{1, 1, 1},
		SpecularColorTexture: NoTexture,

		ClearcoatTexture:          NoTexture,
		ClearcoatRoughnessTexture: NoTexture,
		ClearcoatNormalTexture:    NoTexture,
		ClearcoatNormalScale:      1,
		SheenColorTexture:         NoTexture,
		SheenRoughnessTexture:     NoTexture,

		AnisotropyTexture:               NoTexture,
		IridescenceTexture:              NoTexture,
		IridescenceIOR:                  1.3,
		IridescenceThicknessMin:         100,
		IridescenceThicknessMax:         400,
		IridescenceThicknessTexture:     NoTexture,
		DiffuseTransmissionTexture:      NoTexture,
		DiffuseTransmissionColor:        Vec3{1, 1, 1},
		DiffuseTransmissionColorTexture: NoTexture,
	}
}

// Hair holds the Chiang et al. 2016 hair BSDF's parameters as a material's
// extras give them; nil fields take the model's defaults.
type Hair struct {
	Eumelanin   *float32 `json:"eumelanin,omitempty"`
	Pheomelanin *float32 `json:"pheomelanin,omitempty"`
	Color       *Vec3    `json:"color,omitempty"`
	// SigmaA is the absorption coefficient itself, per unit of the
	// fibre's radius (as Cycles' absorption parametrisation gives it):
	// it overrides the melanins and the colour.
	SigmaA *Vec3    `json:"sigma_a,omitempty"`
	BetaM  *float32 `json:"beta_m,omitempty"` // longitudinal roughness
	BetaN  *float32 `json:"beta_n,omitempty"` // azimuthal roughness
	Alpha  *float32 `json:"alpha,omitempty"`  // cuticle tilt, degrees
	Eta    *float32 `json:"eta,omitempty"`
}

// TextureRef is one texture slot of a material: which texture, which UV set,
// and the KHR_texture_transform that maps UVs into it.
type TextureRef struct {
	Texture  int // index into Scene.Textures, −1 for none
	TexCoord int // 0 or 1
	// UV' = Transform · (u, v, 1): a 2×3 matrix, rows first.
	Transform [6]float32
}

// NoTexture is an empty slot.
var NoTexture = TextureRef{Texture: -1, Transform: [6]float32{1, 0, 0, 0, 1, 0}}

// Valid reports whether the slot holds a texture.
func (r TextureRef) Valid() bool { return r.Texture >= 0 }

// ColorSpace says how a texture's 8-bit values map to linear values.
type ColorSpace uint8

const (
	SRGB   ColorSpace = iota // colours: base colour, emission
	Linear                   // data: metallic-roughness, normals, occlusion, ...
)

func (c ColorSpace) String() string { return [...]string{"srgb", "linear"}[c] }

// Wrap is a sampler's addressing mode.
type Wrap uint8

const (
	WrapRepeat Wrap = iota
	WrapClamp
	WrapMirror
)

// Texture is a decoded image with the sampler a glTF texture pairs it with.
// A glTF texture used both as colour and as data appears twice.
type Texture struct {
	Name          string
	Width, Height int
	Pixels        []uint8 // RGBA8, rows top to bottom (glTF's UV origin is the top left)
	ColorSpace    ColorSpace
	WrapS, WrapT  Wrap
	Nearest       bool // magnification filter NEAREST; otherwise bilinear
}
