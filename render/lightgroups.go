package render

import (
	"fmt"
	"slices"
	"strings"

	"sertrace/scene"
)

// MaxLightGroups is the most light groups a render writes: the GPU keeps
// every group's light for every path of a wavefront.
const MaxLightGroups = 32

// UnassignedGroup names the group of the light no node assigns: the
// emitters without extras.sertrace.light_group, and the environment
// without --env-light-group.
const UnassignedGroup = scene.UnassignedGroup

// LightGroups is a render's groups of lights (--light-groups): each
// group's name, in the order of its film layer, and the group each
// emitter's light joins. The groups' light adds up to the beauty: with
// groups, a film's beauty is their sum (Film.SumGroups).
type LightGroups struct {
	Names    []string
	Instance []uint32 // per instance of the scene: its emission's group
	Punctual []uint32 // per punctual light
	Env      uint32   // the environment's
}

// NewLightGroups gathers the light groups of sc: the groups its nodes
// name (extras.sertrace.light_group, a node's or its nearest ancestor's),
// sorted, and envGroup, the environment's, where it lights the scene
// (envLit); then, where any emitter is in none, UnassignedGroup.
func NewLightGroups(sc *scene.Scene, envGroup string, envLit bool) (*LightGroups, error) {
	g := &LightGroups{Instance: make([]uint32, len(sc.Instances)), Punctual: make([]uint32, len(sc.Lights))}
	named, unassigned := sc.LightGroupNames()
	g.Names = slices.Clone(named)
	switch {
	case envGroup != "": // named, its layer is written, black or not
		if !slices.Contains(g.Names, envGroup) {
			g.Names = append(g.Names, envGroup)
			slices.Sort(g.Names)
		}
	case envLit:
		unassigned = true
	}
	if unassigned && !slices.Contains(g.Names, UnassignedGroup) {
		g.Names = append(g.Names, UnassignedGroup)
	}
	if len(g.Names) == 0 {
		return nil, fmt.Errorf("--light-groups: nothing lights the scene (no emissive or unlit surface, punctual light or environment)")
	}
	if len(g.Names) > MaxLightGroups {
		return nil, fmt.Errorf("--light-groups: the scene has %d light groups, more than the %d a render writes", len(g.Names), MaxLightGroups)
	}
	channels := map[string]string{}
	for _, name := range g.Names {
		if other, ok := channels[GroupChannel(name, "R")]; ok {
			return nil, fmt.Errorf("--light-groups: groups %q and %q would be the same EXR layer %s (a dot is written as an underscore): rename one", other, name, strings.TrimSuffix(GroupChannel(name, "R"), ".R"))
		}
		channels[GroupChannel(name, "R")] = name
	}
	index := func(name string) uint32 {
		if name == "" {
			name = UnassignedGroup
		}
		return uint32(slices.Index(g.Names, name)) // there: every light's group is named above
	}
	for i, in := range sc.Instances {
		if sc.Materials[in.Material].GivesLight() {
			g.Instance[i] = index(sc.InstanceLightGroup(i))
		}
	}
	for i := range sc.Lights {
		g.Punctual[i] = index(sc.PunctualLightGroup(i))
	}
	if envLit || envGroup != "" {
		g.Env = index(envGroup)
	}
	return g, nil
}

// InstanceGroup is instance i's group, 0 where there are no groups.
func (g *LightGroups) InstanceGroup(i int) uint32 {
	if g == nil {
		return 0
	}
	return g.Instance[i]
}

// PunctualGroup is punctual light i's group, 0 where there are no groups.
func (g *LightGroups) PunctualGroup(i int) uint32 {
	if g == nil {
		return 0
	}
	return g.Punctual[i]
}

// EnvGroup is the environment's group, 0 where there are no groups.
func (g *LightGroups) EnvGroup() uint32 {
	if g == nil {
		return 0
	}
	return g.Env
}

// Count is the number of groups (0: none).
func (g *LightGroups) Count() int {
	if g == nil {
		return 0
	}
	return len(g.Names)
}

// names is the groups' names (nil where there are none).
func (g *LightGroups) names() []string {
	if g == nil {
		return nil
	}
	return g.Names
}
