package kernel

import (
	"math"
	"reflect"
	"testing"
	"unsafe"

	"sertrace/render/layout"
	"sertrace/scene"
)

// oneHit is a Geometry of one primitive: g whatever the hit.
type oneHit struct{ g HitGeometry }

func (h *oneHit) HitGeometry(g *HitGeometry, _, _ uint32, _, _ float32, _ scene.Vec3, _ bool) {
	*g = h.g
}
func (h *oneHit) HitAttributes(_, _ uint32, _, _ float32) (UVs, scene.Vec4) {
	return h.g.UV, h.g.Color
}

// noTexels is a scene without images (no material below reads one).
type noTexels struct{}

func (noTexels) TextureInfo(int) layout.Texture          { return layout.Texture{} }
func (noTexels) Texel(_, _, _ int) (scene.Vec3, float32) { return scene.Vec3{}, 0 }

// garbage fills s with bytes 0xff: NaN floats, true bools.
func garbage(s *Surface) {
	b := unsafe.Slice((*byte)(unsafe.Pointer(s)), unsafe.Sizeof(*s))
	for i := range b {
		b[i] = 0xff
	}
}

// TestShadeSetsEveryField: Shade clears nothing before it sets a
// surface's fields (clearing costs the CPU 4% on the Cornell box), so it
// must set every one: a surface that held NaNs and a zeroed one shade
// alike, on a glTF surface, an emitter, an unlit material and a hair
// strand (whose glTF BSDF must read as not transmitting).
func TestShadeSetsEveryField(t *testing.T) {
	white := scene.Vec4{X: 1, Y: 1, Z: 1, W: 1}
	tri := HitGeometry{Kind: layout.KindTriangles, Ng: scene.Vec3{Z: 1}, Ns: scene.Vec3{X: 0.6, Z: 0.8}, Color: white, UV: UVs{U0: 0.25}}
	strand := HitGeometry{Kind: layout.KindSweptSpheres, Ng: scene.Vec3{Y: 1}, Fibre: scene.Vec3{X: 2}, Color: white}
	gltf := scene.DefaultMaterial()
	emitter := scene.DefaultMaterial()
	emitter.Emissive = scene.Vec3{X: 3, Y: 2, Z: 1}
	unlit := scene.DefaultMaterial()
	unlit.Unlit = true
	glass := scene.DefaultMaterial()
	glass.Transmission, glass.Volume = 1, true
	hair := scene.DefaultMaterial()
	eu := float32(0.5)
	hair.Hair = &scene.Hair{Eumelanin: &eu}
	for _, c := range []struct {
		name string
		geo  HitGeometry
		mat  scene.Material
	}{{"surface", tri, gltf}, {"emitter", tri, emitter}, {"unlit", tri, unlit}, {"glass", tri, glass}, {"hair", strand, hair}} {
		m := layout.PackMaterial(&c.mat)
		geo := &oneHit{c.geo}
		var zero, dirty Surface
		garbage(&dirty)
		if !math.IsNaN(float64(dirty.P.X)) {
			t.Fatal("the garbage is not NaN")
		}
		o, d := scene.Vec3{Z: 2}, scene.Vec3{X: -0.1, Z: -1}.Normalize()
		Shade(geo, noTexels{}, &zero, &m, 0, 0, 0.2, 0.3, 1.5, o, d)
		Shade(geo, noTexels{}, &dirty, &m, 0, 0, 0.2, 0.3, 1.5, o, d)
		if zero.IsHair != (c.name == "hair") {
			t.Fatalf("%s: IsHair %v", c.name, zero.IsHair)
		}
		if !zero.IsHair {
			dirty.Hair = zero.Hair // read only where IsHair
		}
		if !reflect.DeepEqual(zero, dirty) {
			t.Errorf("%s: Shade leaves fields as they were:\n zeroed %+v\n dirty  %+v", c.name, zero, dirty)
		}
		if c.name == "hair" && (dirty.BSDF.Transmission != 0 || dirty.BSDF.DiffTrans != 0) {
			t.Errorf("hair: the strand's glTF BSDF transmits: %+v", dirty.BSDF)
		}
	}
}
