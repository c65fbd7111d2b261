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

// TestWhenATree: the two triangles of one emissive quad make a tree (read
// whole, kernel.LightTreeFlat), as two meshes or two spheres of one set
// do; one triangle, or power sampling, makes none: a column a light.
func TestWhenATree(t *testing.T) {
	m := scene.DefaultMaterial()
	m.Emissive = scene.Vec3{X: 1, Y: 1, Z: 1}
	quad := scene.Mesh{Positions: []scene.Vec3{{}, {X: 1}, {X: 1, Y: 1}, {Y: 1}}, Indices: []uint32{0, 1, 2, 0, 2, 3}}
	moved := scene.Identity
	moved[12] = 3
	sc := &scene.Scene{Materials: []scene.Material{m}, Meshes: []scene.Mesh{quad},
		SphereSets: []scene.SphereSet{{Centers: []scene.Vec3{{Z: 2}, {Z: 4}}, Radii: []float32{0.1, 0.2}}},
		Instances:  []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity}}}
	if ls := NewLightTable(sc, 0, LightSamplerTree); len(ls.Tree) != 1 || len(ls.Columns) != 1 || ls.Columns[0].Entry != -1 {
		t.Errorf("one quad: %d tree nodes, %d columns; want a tree of one node, its column", len(ls.Tree), len(ls.Columns))
	}
	if ls := NewLightTable(sc, 0, LightSamplerPower); len(ls.Tree) != 0 || len(ls.Columns) != 2 {
		t.Errorf("one quad by power: %d tree nodes, %d columns; want no tree, a column a triangle", len(ls.Tree), len(ls.Columns))
	}
	one := *sc
	one.Meshes = []scene.Mesh{{Positions: quad.Positions, Indices: quad.Indices[:3]}}
	if ls := NewLightTable(&one, 0, LightSamplerTree); len(ls.Tree) != 0 || len(ls.Columns) != 1 || ls.Columns[0].Entry != 0 {
		t.Errorf("one triangle: %d tree nodes, %d columns; want no tree, its column", len(ls.Tree), len(ls.Columns))
	}
	for _, in := range []scene.Instance{
		{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: moved},
		{Geometry: scene.GeometryRef{Kind: scene.Spheres}, Transform: scene.Identity},
	} {
		two := *sc
		two.Instances = []scene.Instance{in}
		if in.Geometry.Kind == scene.Triangles {
			two.Instances = append(two.Instances, sc.Instances[0])
		}
		if ls := NewLightTable(&two, 1, LightSamplerTree); len(ls.Tree) == 0 || len(ls.Columns) != 2 || ls.Columns[0].Entry != -1 {
			t.Errorf("%d instances of kind %d: %d tree nodes, %d columns; want a tree and the environment's column",
				len(two.Instances), in.Geometry.Kind, len(ls.Tree), len(ls.Columns))
		}
	}
}
