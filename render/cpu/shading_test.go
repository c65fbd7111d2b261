package cpu

import (
	"math"
	"testing"

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
		uvs := [2]scene.Vec2{{X: 0.5, Y: 0.5}}
		if got, a := textureAt(sc, &ref, &uvs); math.Abs(float64(got.X)-0.5) > 1e-6 || a != 1 {
			t.Errorf("colour space %v: halfway between black and white is %v, want 0.5", space, got)
		}
	}
}
