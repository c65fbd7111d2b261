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
	} {
		g, err := NewLightGroups(sc, c.env, c.envLit)
		if err != nil || !slices.Equal(g.Names, c.names) || g.Env != c.envAt || g.InstanceGroup(light) != 0 {
			t.Errorf("env %q lit %v: %v, %+v", c.env, c.envLit, err, g)
		}
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
