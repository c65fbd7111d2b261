package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// Texels is what texture filtering reads of a scene's images (the CPU's
// decoded glTF images, the GPU's texel buffer).
type Texels interface {
	// TextureInfo is texture tex's size, sampler and colour space.
	TextureInfo(tex int) layout.Texture
	// Texel is texel (x, y) of texture tex (inside it), in linear values:
	// an sRGB colour decoded, alpha and data as they are, over 255.
	Texel(tex, x, y int) (rgb scene.Vec3, a float32)
}

// SampleTexture is a material's texture slot at a hit's texture
// coordinates: its KHR_texture_transform, the sampler's wrap modes, and
// bilinear filtering of linear texel values (nearest where the sampler's
// magnification filter says so); white and 1 for an empty slot. Its
// arithmetic is precise: a fused a·b + c could move a coordinate across a
// texel's edge.
//
//goglsl:precise
func SampleTexture(tx Texels, ref *layout.TextureRef, uv *UVs) (rgb scene.Vec3, a float32) {
	if ref.Texture < 0 {
		return scene.Vec3{X: 1, Y: 1, Z: 1}, 1
	}
	tex := int(ref.Texture)
	t := tx.TextureInfo(tex)
	uu, vv := uv.U0, uv.V0
	if ref.TexCoord&1 != 0 {
		uu, vv = uv.U1, uv.V1
	}
	m := ref.Transform
	u := m[0]*uu + m[1]*vv + m[2]
	v := m[3]*uu + m[4]*vv + m[5]
	w, h := int(t.Width), int(t.Height)
	x, y := u*float32(w)-0.5, v*float32(h)-0.5
	if t.Nearest != 0 {
		return tx.Texel(tex, WrapTexel(int(math.Floor(float64(x+0.5))), w, t.WrapS), WrapTexel(int(math.Floor(float64(y+0.5))), h, t.WrapT))
	}
	x0, y0 := float32(math.Floor(float64(x))), float32(math.Floor(float64(y)))
	fx, fy := x-x0, y-y0
	ix, iy := int(x0), int(y0)
	// Each axis is wrapped once for both of its texels.
	ix0, ix1 := WrapTexel(ix, w, t.WrapS), WrapTexel(ix+1, w, t.WrapS)
	iy0, iy1 := WrapTexel(iy, h, t.WrapT), WrapTexel(iy+1, h, t.WrapT)
	c00, a00 := tx.Texel(tex, ix0, iy0)
	c10, a10 := tx.Texel(tex, ix1, iy0)
	c01, a01 := tx.Texel(tex, ix0, iy1)
	c11, a11 := tx.Texel(tex, ix1, iy1)
	rgb = scene.Vec3{X: bilerp(c00.X, c10.X, c01.X, c11.X, fx, fy), Y: bilerp(c00.Y, c10.Y, c01.Y, c11.Y, fx, fy),
		Z: bilerp(c00.Z, c10.Z, c01.Z, c11.Z, fx, fy)}
	a = bilerp(a00, a10, a01, a11, fx, fy)
	return rgb, a
}

// WrapTexel maps a texel coordinate into [0, n) by the sampler's wrap
// mode (layout.Wrap*).
func WrapTexel(i, n int, mode uint32) int {
	if i >= 0 && i < n {
		return i // inside: every mode leaves it
	}
	if int(mode) == layout.WrapClamp {
		return min(max(i, 0), n-1)
	}
	if int(mode) == layout.WrapMirror {
		period := 2 * n
		i = floorMod(i, period)
		if i >= n {
			i = period - 1 - i
		}
		return i
	}
	return floorMod(i, n)
}

// floorMod is i modulo n > 0, in [0, n) (GLSL's % of a negative int is
// undefined, and Go's takes the dividend's sign).
func floorMod(i, n int) int {
	if i >= 0 {
		return int(uint32(i) % uint32(n))
	}
	return n - 1 - int(uint32(-1-i)%uint32(n))
}
