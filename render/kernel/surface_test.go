package kernel

import (
	"math"
	"reflect"
	"testing"
	"unsafe"

	"sertrace/render/layout"
	"sertrace/scene"
)

// oneHit is a Geometry of one instance, untransformed, of one primitive
// of kind kind: a triangle in z = 0 whose vertex normals lean towards x,
// with UV set 0, or a strand's segment along x.
type oneHit struct{ kind int }

var identity = [3]scene.Vec4{{X: 1}, {Y: 1}, {Z: 1}}

func (h *oneHit) InstanceKind(uint32) int                       { return h.kind }
func (h *oneHit) InstanceGeometry(uint32) uint32                { return 0 }
func (h *oneHit) InstanceMaterial(uint32) int32                 { return 0 }
func (h *oneHit) ToWorld(uint32) [3]scene.Vec4                  { return identity }
func (h *oneHit) ToObject(uint32) [3]scene.Vec4                 { return identity }
func (h *oneHit) TriangleVertices(_, _ uint32) (_, _, _ uint32) { return 0, 1, 2 }
func (h *oneHit) VertexPosition(_, i uint32) scene.Vec3 {
	return [3]scene.Vec3{{}, {X: 1}, {Y: 1}}[i]
}
func (h *oneHit) HasNormals(uint32) bool                                  { return true }
func (h *oneHit) VertexNormal(_, _ uint32) scene.Vec3                     { return scene.Vec3{X: 0.6, Z: 0.8} }
func (h *oneHit) HasTexCoords(_ uint32, set int) bool                     { return set == 0 }
func (h *oneHit) VertexTexCoord(_ uint32, _ int, _ uint32) (u, v float32) { return 0.25, 0 }
func (h *oneHit) HasColors(uint32) bool                                   { return false }
func (h *oneHit) VertexColor(_, _ uint32) scene.Vec4                      { return scene.Vec4{} }
func (h *oneHit) HasTangents(uint32) bool                                 { return false }
func (h *oneHit) VertexTangent(_, _ uint32) scene.Vec4                    { return scene.Vec4{} }
func (h *oneHit) SphereCenter(_, _ uint32) scene.Vec3                     { return scene.Vec3{} }
func (h *oneHit) SegmentPoints(_, _ uint32) (a, b scene.Vec3) {
	return scene.Vec3{Y: -1}, scene.Vec3{X: 2, Y: -1}
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
// surface's fields (clearing cost the CPU about 2.5% on the Cornell box), so it
// must set every one: a surface that held NaNs and a zeroed one shade
// alike, on a glTF surface, an emitter, an unlit material and a hair
// strand (whose glTF BSDF must read as not transmitting).
func TestShadeSetsEveryField(t *testing.T) {
	tri, strand := layout.KindTriangles, layout.KindSweptSpheres
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
		kind int
		mat  scene.Material
	}{{"surface", tri, gltf}, {"emitter", tri, emitter}, {"unlit", tri, unlit}, {"glass", tri, glass}, {"hair", strand, hair}} {
		m := layout.PackMaterial(&c.mat)
		geo := &oneHit{c.kind}
		var zero, dirty Surface
		garbage(&dirty)
		if !math.IsNaN(float64(dirty.P.X)) {
			t.Fatal("the garbage is not NaN")
		}
		o, d := scene.Vec3{Z: 2}, scene.Vec3{X: -0.1, Z: -1}.Normalize()
		hit := layout.Hit{U: 0.2, V: 0.3, T: 1.5}
		Shade(geo, noTexels{}, &zero, &m, &hit, o, d)
		Shade(geo, noTexels{}, &dirty, &m, &hit, o, d)
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

// oneTexel is a scene of one 1×1 texture of linear rgb and alpha a.
type oneTexel struct {
	rgb scene.Vec3
	a   float32
}

func (o oneTexel) TextureInfo(int) layout.Texture { return layout.Texture{Width: 1, Height: 1} }
func (o oneTexel) Texel(_, _, _ int) (scene.Vec3, float32) {
	return o.rgb, o.a
}

// TestSpecularGlossinessInputs: a KHR_materials_pbrSpecularGlossiness
// material makes the BSDF from the extension's inputs: F0 the specular
// colour (factor × the texture's RGB), the roughness one minus the
// glossiness (factor × the texture's A), so α = (1 − glossiness)², and the
// diffuse colour times one minus the specular's largest channel; no metal.
func TestSpecularGlossinessInputs(t *testing.T) {
	m := scene.DefaultMaterial()
	m.SpecularGlossiness = true
	m.BaseColor = scene.Vec4{X: 0.8, Y: 0.6, Z: 0.4, W: 1}
	m.SpecularColor, m.Glossiness = scene.Vec3{X: 0.5, Y: 0.4, Z: 0.2}, 0.8
	m.SpecularColorTexture = scene.NoTexture
	m.SpecularColorTexture.Texture = 0
	lm := layout.PackMaterial(&m)
	tx := oneTexel{rgb: scene.Vec3{X: 0.5, Y: 1, Z: 1}, a: 0.5}
	n := scene.Vec3{Z: 1}
	f := NewFrame(n)
	var b BSDF
	sh := EvalMaterial(tx, &b, &lm, &UVs{}, scene.Vec3{X: 1, Y: 1, Z: 1}, true, &f, n, n, scene.Vec3{})
	f0 := scene.Vec3{X: 0.25, Y: 0.4, Z: 0.2}
	diffuse := scene.Vec3{X: 0.8 * 0.6, Y: 0.6 * 0.6, Z: 0.4 * 0.6}
	if !close3(b.F0, f0, 1e-6) || b.F90 != 1 || b.Metallic != 0 || math.Abs(float64(b.Alpha)-0.36) > 1e-6 || !close3(b.Base, diffuse, 1e-6) {
		t.Errorf("BSDF %+v: want F0 %v, α 0.36, diffuse %v, no metal", b, f0, diffuse)
	}
	if !close3(sh.Albedo, diffuse, 1e-6) {
		t.Errorf("albedo %v, want the diffuse colour %v", sh.Albedo, diffuse)
	}
	// Without the extension's flag the same slots mean KHR_materials_specular's.
	lm.Flags &^= layout.MatSpecularGlossiness
	EvalMaterial(tx, &b, &lm, &UVs{}, scene.Vec3{X: 1, Y: 1, Z: 1}, true, &f, n, n, scene.Vec3{})
	if close3(b.F0, f0, 1e-3) {
		t.Errorf("a metallic-roughness material reads F0 %v as the specular-glossiness one", b.F0)
	}
}
