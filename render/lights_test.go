package render

import (
	"testing"

	"sertrace/scene"
)

// TestUnlitIsNoLight: an unlit material shows its base colour; its
// emission, if the file gives one, is not used, so light sampling never
// picks it (its hits add their colour with MIS weight 1).
func TestUnlitIsNoLight(t *testing.T) {
	m := scene.DefaultMaterial()
	m.Emissive = scene.Vec3{X: 5, Y: 5, Z: 5}
	tri := scene.Mesh{Positions: []scene.Vec3{{}, {X: 1}, {Y: 1}}, Indices: []uint32{0, 1, 2}}
	sc := &scene.Scene{Materials: []scene.Material{m}, Meshes: []scene.Mesh{tri},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity}}}
	if n := len(NewLightTable(sc, 0, LightSamplerTree).Entries); n != 1 {
		t.Fatalf("an emissive triangle gives %d light entries", n)
	}
	sc.Materials[0].Unlit = true
	if n := len(NewLightTable(sc, 0, LightSamplerTree).Entries); n != 0 {
		t.Errorf("an unlit emissive triangle gives %d light entries", n)
	}
}
