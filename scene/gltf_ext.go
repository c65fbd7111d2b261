package scene

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/lightspunctual"
	"github.com/qmuntal/gltf/ext/texturetransform"
)

// The glTF extensions that qmuntal/gltf does not parse itself: their
// payloads, registered with its decoder so they arrive typed.
const (
	extEmissiveStrength = "KHR_materials_emissive_strength"
	extTransmission     = "KHR_materials_transmission"
	extIOR              = "KHR_materials_ior"
	extVolume           = "KHR_materials_volume"
	extInstancing       = "EXT_mesh_gpu_instancing"
	extQuantization     = "KHR_mesh_quantization"
	extSpecular         = "KHR_materials_specular"
	extClearcoat        = "KHR_materials_clearcoat"
	extUnlit            = "KHR_materials_unlit"
	extVariants         = "KHR_materials_variants"
	extSheen            = "KHR_materials_sheen"
	extDiffTransmission = "KHR_materials_diffuse_transmission"
	extAnisotropy       = "KHR_materials_anisotropy"
	extWebP             = "EXT_texture_webp"
	extBasisu           = "KHR_texture_basisu"
	extDispersion       = "KHR_materials_dispersion"
	extIridescence      = "KHR_materials_iridescence"
	extSpecGloss        = "KHR_materials_pbrSpecularGlossiness"
)

// supportedExtensions is every extension the loader implements; a file that
// requires any other is refused, one that merely uses it gets a warning.
var supportedExtensions = map[string]bool{
	extEmissiveStrength:            true,
	extTransmission:                true,
	extIOR:                         true,
	extVolume:                      true,
	extInstancing:                  true,
	extSpecular:                    true,
	extClearcoat:                   true,
	extUnlit:                       true,
	extVariants:                    true,
	extSheen:                       true,
	extDiffTransmission:            true,
	extAnisotropy:                  true,
	extWebP:                        true,
	extBasisu:                      true,
	extDispersion:                  true,
	extIridescence:                 true,
	extSpecGloss:                   true,
	extQuantization:                true, // every component type is read, normalised or not
	texturetransform.ExtensionName: true,
	lightspunctual.ExtensionName:   true,
}

type emissiveStrength struct {
	EmissiveStrength float64 `json:"emissiveStrength"`
}

type transmission struct {
	TransmissionFactor  float64           `json:"transmissionFactor"`
	TransmissionTexture *gltf.TextureInfo `json:"transmissionTexture,omitempty"`
}

type ior struct {
	IOR float64 `json:"ior"`
}

type volume struct {
	ThicknessFactor     float64           `json:"thicknessFactor"`
	ThicknessTexture    *gltf.TextureInfo `json:"thicknessTexture,omitempty"`
	AttenuationDistance *float64          `json:"attenuationDistance,omitempty"`
	AttenuationColor    *[3]float64       `json:"attenuationColor,omitempty"`
}

type specular struct {
	SpecularFactor       float64           `json:"specularFactor"`
	SpecularTexture      *gltf.TextureInfo `json:"specularTexture,omitempty"`
	SpecularColorFactor  [3]float64        `json:"specularColorFactor"`
	SpecularColorTexture *gltf.TextureInfo `json:"specularColorTexture,omitempty"`
}

type clearcoat struct {
	ClearcoatFactor           float64             `json:"clearcoatFactor"`
	ClearcoatTexture          *gltf.TextureInfo   `json:"clearcoatTexture,omitempty"`
	ClearcoatRoughnessFactor  float64             `json:"clearcoatRoughnessFactor"`
	ClearcoatRoughnessTexture *gltf.TextureInfo   `json:"clearcoatRoughnessTexture,omitempty"`
	ClearcoatNormalTexture    *gltf.NormalTexture `json:"clearcoatNormalTexture,omitempty"`
}

type sheen struct {
	SheenColorFactor      [3]float64        `json:"sheenColorFactor"`
	SheenColorTexture     *gltf.TextureInfo `json:"sheenColorTexture,omitempty"`
	SheenRoughnessFactor  float64           `json:"sheenRoughnessFactor"`
	SheenRoughnessTexture *gltf.TextureInfo `json:"sheenRoughnessTexture,omitempty"`
}

type diffuseTransmission struct {
	DiffuseTransmissionFactor       float64           `json:"diffuseTransmissionFactor"`
	DiffuseTransmissionTexture      *gltf.TextureInfo `json:"diffuseTransmissionTexture,omitempty"`
	DiffuseTransmissionColorFactor  [3]float64        `json:"diffuseTransmissionColorFactor"`
	DiffuseTransmissionColorTexture *gltf.TextureInfo `json:"diffuseTransmissionColorTexture,omitempty"`
}

type anisotropy struct {
	AnisotropyStrength float64           `json:"anisotropyStrength"`
	AnisotropyRotation float64           `json:"anisotropyRotation"`
	AnisotropyTexture  *gltf.TextureInfo `json:"anisotropyTexture,omitempty"`
}

type iridescence struct {
	IridescenceFactor           float64           `json:"iridescenceFactor"`
	IridescenceTexture          *gltf.TextureInfo `json:"iridescenceTexture,omitempty"`
	IridescenceIOR              float64           `json:"iridescenceIor"`
	IridescenceThicknessMinimum float64           `json:"iridescenceThicknessMinimum"`
	IridescenceThicknessMaximum float64           `json:"iridescenceThicknessMaximum"`
	IridescenceThicknessTexture *gltf.TextureInfo `json:"iridescenceThicknessTexture,omitempty"`
}

type specularGlossiness struct {
	DiffuseFactor             [4]float64        `json:"diffuseFactor"`
	DiffuseTexture            *gltf.TextureInfo `json:"diffuseTexture,omitempty"`
	SpecularFactor            [3]float64        `json:"specularFactor"`
	GlossinessFactor          float64           `json:"glossinessFactor"`
	SpecularGlossinessTexture *gltf.TextureInfo `json:"specularGlossinessTexture,omitempty"`
}

type dispersion struct {
	Dispersion float64 `json:"dispersion"`
}

// textureSource is EXT_texture_webp's and KHR_texture_basisu's payload: the
// WebP or KTX2 image.
type textureSource struct {
	Source *int `json:"source"`
}

// materialVariants is KHR_materials_variants' payload: the file's variants
// at the root, a primitive's mappings on it.
type materialVariants struct {
	Variants []struct {
		Name string `json:"name"`
	} `json:"variants"`
	Mappings []struct {
		Material int   `json:"material"`
		Variants []int `json:"variants"`
	} `json:"mappings"`
}

type instancing struct {
	Attributes map[string]int `json:"attributes"`
}

// register makes qmuntal/gltf decode extension name into a *T, starting
// from the defaults that init sets.
func register[T any](name string, init func(*T)) {
	gltf.RegisterExtension(name, func(data []byte) (any, error) {
		v := new(T)
		if init != nil {
			init(v)
		}
		err := json.Unmarshal(data, v)
		return v, err
	})
}

func init() {
	register(extEmissiveStrength, func(e *emissiveStrength) { e.EmissiveStrength = 1 })
	register[transmission](extTransmission, nil)
	register(extIOR, func(e *ior) { e.IOR = 1.5 })
	register[volume](extVolume, nil)
	register[instancing](extInstancing, nil)
	register[clearcoat](extClearcoat, nil)
	register[materialVariants](extVariants, nil)
	register[sheen](extSheen, nil)
	register[anisotropy](extAnisotropy, nil)
	register[textureSource](extWebP, nil)
	register[textureSource](extBasisu, nil)
	register[dispersion](extDispersion, nil)
	register(extIridescence, func(e *iridescence) {
		e.IridescenceIOR, e.IridescenceThicknessMinimum, e.IridescenceThicknessMaximum = 1.3, 100, 400
	})
	register(extDiffTransmission, func(e *diffuseTransmission) { e.DiffuseTransmissionColorFactor = [3]float64{1, 1, 1} })
	register(extSpecular, func(e *specular) { e.SpecularFactor, e.SpecularColorFactor = 1, [3]float64{1, 1, 1} })
	register(extSpecGloss, func(e *specularGlossiness) {
		e.DiffuseFactor, e.SpecularFactor, e.GlossinessFactor = [4]float64{1, 1, 1, 1}, [3]float64{1, 1, 1}, 1
	})
}

// extension returns the typed payload of extension name in exts, nil when
// absent, and an error when the payload did not decode (qmuntal/gltf then
// keeps the raw JSON).
func extension[T any](exts gltf.Extensions, name string) (*T, error) {
	v, ok := exts[name]
	if !ok {
		return nil, nil
	}
	t, ok := v.(*T)
	if !ok {
		return nil, fmt.Errorf("%s is malformed", name)
	}
	return t, nil
}

// finite reports whether every value is neither NaN nor infinite.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// extrasObject returns extras as a JSON object, or nil.
func extrasObject(extras any) map[string]any {
	m, _ := extras.(map[string]any)
	return m
}
