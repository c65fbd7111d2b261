package render

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"sertrace/scene"
)

// TestNewLightGroups: the groups are the nodes' names sorted, the
// environment's where it lights the scene, and unassigned last where an
// emitter (or the environment) is in none; each emitter's group is its
// node's; more than MaxLightGroups is refused by name.
func TestNewLightGroups(t *testing.T) {
	sc, err := scene.Generate("cornell")
	if err != nil {
		t.Fatal(err)
	}
	light := -1
	for i := range sc.Instances {
		if sc.Materials[sc.Instances[i].Material].Emits() {
			light = i
		}
	}
	if light < 0 {
		t.Fatal("the Cornell box has no emitter")
	}
	sc.Nodes[sc.Instances[light].Node].LightGroup = "key"
	for _, c := range []struct {
		env    string
		envLit bool
		names  []string
		envAt  uint32
	}{
		{"", false, []string{"key"}, 0},
		{"sky", true, []string{"key", "sky"}, 1},
		{"", true, []string{"key", UnassignedGroup}, 1},
		{"key", true, []string{"key"}, 0},
		{"sky", false, []string{"key", "sky"}, 1}, // named, written black
	} {
		g, err := NewLightGroups(sc, c.env, c.envLit)
		if err != nil || !slices.Equal(g.Names, c.names) || g.Env != c.envAt || g.InstanceGroup(light) != 0 {
			t.Errorf("env %q lit %v: %v, %+v", c.env, c.envLit, err, g)
		}
	}
	// An unlit surface shows its colour: light, unassigned here.
	unlit := sc.Materials[sc.Instances[0].Material]
	unlit.Unlit = true
	sc.Materials = append(sc.Materials, unlit)
	sc.Instances[0].Material = len(sc.Materials) - 1
	if g, err := NewLightGroups(sc, "", false); err != nil || !slices.Equal(g.Names, []string{"key", UnassignedGroup}) || g.InstanceGroup(0) != 1 {
		t.Errorf("an unlit surface: %v, %+v", err, g)
	}
	// Two names that would write one EXR layer are refused.
	if _, err := NewLightGroups(sc, "key.1", false); err != nil {
		t.Errorf("key.1 alone: %v", err)
	}
	sc.Nodes[sc.Instances[light].Node].LightGroup = "k.1"
	if _, err := NewLightGroups(sc, "k_1", false); err == nil || !strings.Contains(err.Error(), "the same EXR layer lightgroup.k_1") {
		t.Errorf("k.1 and k_1: %v", err)
	}
	sc.Nodes[sc.Instances[light].Node].LightGroup = ""
	if _, err := NewLightGroups(sc, "", false); err != nil {
		t.Errorf("an unassigned light alone: %v", err)
	}
	for i := range MaxLightGroups + 1 {
		sc.Lights = append(sc.Lights, scene.Light{Kind: scene.PointLight, Node: len(sc.Nodes)})
		sc.Nodes = append(sc.Nodes, scene.Node{Name: fmt.Sprint("lamp ", i), LightGroup: fmt.Sprint("g", i)})
	}
	if _, err := NewLightGroups(sc, "", false); err == nil || !strings.Contains(err.Error(), "more than the 32") {
		t.Errorf("34 groups: %v", err)
	}
}
