package scene

import (
	"slices"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
)

// TestNodesNameAndGroup: a node without a name is named by its parent's
// name and its index; a node's light group reaches its children unless
// they name their own; the asset is the top-level node; a light group
// that is not a name is said and ignored.
func TestNodesNameAndGroup(t *testing.T) {
	b := newBuilder(1)
	lamp := b.emissive("lamp", [3]float64{1, 1, 1}, 1)
	white := b.material("white", [3]float64{0.8, 0.8, 0.8}, 0, 1)
	b.box("", [3]float32{1, 1, 1}, lamp, &gltf.Node{})       // node 0: unnamed, its group below
	b.box("shade", [3]float32{1, 1, 1}, white, &gltf.Node{}) // node 1
	b.box("bulb", [3]float32{1, 1, 1}, lamp, &gltf.Node{})   // node 2: its own group
	b.box("spare", [3]float32{1, 1, 1}, lamp, &gltf.Node{})  // node 3: a bad group
	b.box("loose", [3]float32{1, 1, 1}, lamp, &gltf.Node{})  // node 4: no group
	doc := b.doc
	doc.Nodes[0].Name = ""
	root := &gltf.Node{Name: "Lamp", Children: []int{0, 1, 2, 3}, Extras: map[string]any{"sertrace": map[string]any{"light_group": " key "}},
		Scale: [3]float64{1, 1, 1}, Rotation: [4]float64{0, 0, 0, 1}, Matrix: gltf.DefaultMatrix}
	doc.Nodes[2].Extras = map[string]any{"sertrace": map[string]any{"light_group": "practical"}}
	doc.Nodes[3].Extras = map[string]any{"sertrace": map[string]any{"light_group": 7}}
	doc.Nodes = append(doc.Nodes, root)
	doc.Scenes[0].Nodes = []int{5, 4}
	data, err := encodeGLB(doc)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Decode(data, "lamp.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	byNode := map[string]int{}
	for i := range sc.Instances {
		byNode[sc.ObjectName(i)] = i
	}
	for name, want := range map[string][2]string{
		"Lamp/node 0": {"key", "Lamp"}, "shade": {"key", "Lamp"}, "bulb": {"practical", "Lamp"}, "spare": {"key", "Lamp"}, "loose": {"", "loose"},
	} {
		i, ok := byNode[name]
		if !ok {
			t.Fatalf("no object %q among %v", name, byNode)
		}
		if g, a := sc.InstanceLightGroup(i), sc.AssetName(i); g != want[0] || a != want[1] {
			t.Errorf("%s: group %q, asset %q; want %q, %q", name, g, a, want[0], want[1])
		}
	}
	if !slices.ContainsFunc(sc.Warnings, func(w string) bool { return strings.Contains(w, "light_group 7 is not a name") }) {
		t.Errorf("the bad group is not said: %v", sc.Warnings)
	}
	names, unassigned := sc.LightGroupNames()
	if !slices.Equal(names, []string{"key", "practical"}) || !unassigned {
		t.Errorf("light groups %v, unassigned %v", names, unassigned)
	}
}
