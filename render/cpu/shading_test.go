package cpu

import (
	"math"
	"testing"

	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// TestTextureFiltersLinearValues: a colour texture is decoded from sRGB
// before it is filtered, as GPUs sample sRGB formats and the glTF sample
// TextureLinearInterpolationTest asks: halfway between a black and a white
// texel is 0.5, not the 0.21 of mixing the encoded values (Blender's
// Cycles filters its byte images so, which makes thin dark text on white
// look sharper there than here). A data texture is filtered as it is.
func TestTextureFiltersLinearValues(t *testing.T) {
	for _, space := range []scene.ColorSpace{scene.SRGB, scene.Linear} {
		sc := &scene.Scene{Textures: []scene.Texture{{Width: 2, Height: 1, ColorSpace: space, WrapS: scene.WrapClamp, WrapT: scene.WrapClamp,
			Pixels: []uint8{0, 0, 0, 255, 255, 255, 255, 255}}}}
		ref := layout.PackTextureRef(scene.NoTexture)
		ref.Texture = 0
		uv := kernel.UVs{U0: 0.5, V0: 0.5}
		if got, a := textureAt(sc, &ref, &uv); math.Abs(float64(got.X)-0.5) > 1e-6 || a != 1 {
			t.Errorf("colour space %v: halfway between black and white is %v, want 0.5", space, got)
		}
	}
}

// shadeAt shades hit h of ray into s as the closest-hit shader does
// (kernel.Shade).
func (acc *Accel) shadeAt(s *kernel.Surface, h *Hit, ray *Ray) {
	in := &acc.scene.Instances[h.Instance]
	hit := layout.Hit{Instance: uint32(h.Instance), Prim: uint32(h.Prim), U: h.U, V: h.V, T: h.T}
	kernel.Shade(acc, (*sceneTexels)(acc.scene), s, &acc.materials[in.Material], &hit, ray.Origin, ray.Dir)
}
