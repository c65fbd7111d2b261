package scene

import (
	"fmt"
	"slices"
	"strings"

	"github.com/qmuntal/gltf"
)

// Node is a glTF node the scene placed, as compositing outputs name it
// (Cryptomatte's object and asset, light groups).
type Node struct {
	// Name is the node's glTF name, or, for a node without one, its
	// ancestors' names and its index ("Car/node 12"): stable for one file.
	Name string
	// Root is the top-level node it descends from (itself for a root):
	// its asset.
	Root int
	// LightGroup is extras.sertrace.light_group, the node's own or its
	// nearest ancestor's ("": none).
	LightGroup string
}

// nodeParent is what a node takes from its parent as the loader walks the
// node trees.
type nodeParent struct {
	root       int    // −1 above a root
	path       string // the parent's Name ("" above a root)
	lightGroup string
}

// placeNode records node n (of the file's nodes) under up, and is what its
// children take.
func (l *loader) placeNode(n int, nd *gltf.Node, up nodeParent) nodeParent {
	if len(l.sc.Nodes) != len(l.doc.Nodes) {
		l.sc.Nodes = make([]Node, len(l.doc.Nodes))
	}
	name := nd.Name
	if name == "" {
		name = fmt.Sprintf("node %d", n)
		if up.path != "" {
			name = up.path + "/" + name
		}
	}
	root := up.root
	if root < 0 {
		root = n
	}
	group := up.lightGroup
	if v, ok := extrasObject(extrasObject(nd.Extras)["sertrace"])["light_group"]; ok {
		if s, isString := v.(string); isString && strings.TrimSpace(s) != "" {
			group = strings.TrimSpace(s)
		} else {
			l.warn("node %d (%s): extras.sertrace.light_group %s is not a name: ignored", n, nd.Name, jsonText(v))
		}
	}
	l.sc.Nodes[n] = Node{Name: name, Root: root, LightGroup: group}
	return nodeParent{root: root, path: name, lightGroup: group}
}

// ObjectName is the name of instance i's node: Cryptomatte's object.
func (s *Scene) ObjectName(i int) string { return s.nodeOf(i).Name }

// AssetName is the name of the top-level node instance i descends from:
// Cryptomatte's asset.
func (s *Scene) AssetName(i int) string {
	n := s.Instances[i].Node
	if n < 0 || n >= len(s.Nodes) {
		return s.ObjectName(i)
	}
	return s.Nodes[s.Nodes[n].Root].Name
}

// MaterialName is material m's glTF name, or "material m" for one without.
func (s *Scene) MaterialName(m int) string {
	if s.Materials[m].Name != "" {
		return s.Materials[m].Name
	}
	return fmt.Sprintf("material %d", m)
}

// InstanceLightGroup is the light group of instance i's emission ("":
// none).
func (s *Scene) InstanceLightGroup(i int) string { return s.nodeOf(i).LightGroup }

// nodeOf is instance i's node (a generated scene's instance may have no
// node record: it is named by its index).
func (s *Scene) nodeOf(i int) Node {
	n := s.Instances[i].Node
	if n < 0 || n >= len(s.Nodes) {
		return Node{Name: fmt.Sprintf("node %d", n), Root: n}
	}
	return s.Nodes[n]
}

// PunctualLightGroup is the light group of punctual light i's node ("":
// none).
func (s *Scene) PunctualLightGroup(i int) string {
	n := s.Lights[i].Node
	if n < 0 || n >= len(s.Nodes) {
		return ""
	}
	return s.Nodes[n].LightGroup
}

// UnassignedGroup names the light group of the light no node assigns.
const UnassignedGroup = "unassigned"

// LightGroupNames are the light groups the nodes of the scene's emitters
// name (instances whose material gives light, emissive or unlit; punctual
// lights), each once, sorted, and whether an emitter is in none.
func (s *Scene) LightGroupNames() (names []string, unassigned bool) {
	add := func(name string) {
		if name == "" {
			unassigned = true
		} else if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for i, in := range s.Instances {
		if s.Materials[in.Material].GivesLight() {
			add(s.InstanceLightGroup(i))
		}
	}
	for i := range s.Lights {
		add(s.PunctualLightGroup(i))
	}
	slices.Sort(names)
	return names, unassigned
}
