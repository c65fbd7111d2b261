package batch

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

// section is the value of the config's top-level key, its alias
// resolved, or nil.
func section(root *yaml.Node, key string) *yaml.Node {
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	top := root.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == key {
			return resolved(top.Content[i+1])
		}
	}
	return nil
}

// jobNode is the node of jobs[i], its alias resolved, or nil.
func jobNode(root *yaml.Node, i int) *yaml.Node {
	jobs := section(root, "jobs")
	if jobs == nil || jobs.Kind != yaml.SequenceNode || i >= len(jobs.Content) {
		return nil
	}
	return resolved(jobs.Content[i])
}

// resolved is the node an alias stands for, or n.
func resolved(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// isMerge reports whether k is YAML's merge key, <<, as the decoder takes
// it: plain, not quoted.
func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "" || k.Tag == "!" || k.ShortTag() == "!!merge")
}

// mergedMappings are the mappings that the value of a merge key names, in
// the order the decoder takes them (the first to hold a key wins), or an
// error at the value's line: the decoder merges a mapping, an alias of
// one, or a list of those, and nothing else.
func mergedMappings(v *yaml.Node, where string) ([]*yaml.Node, error) {
	list := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		list = v.Content
	}
	var out []*yaml.Node
	for _, n := range list {
		if m := resolved(n); m != nil && m.Kind == yaml.MappingNode {
			out = append(out, m)
			continue
		}
		what := nodeKind(n)
		if n.Kind == yaml.AliasNode {
			what = "*" + cut(n.Value) + ", " + nodeKind(resolved(n))
		}
		return nil, fmt.Errorf("line %d (%s): << merges a mapping or a list of them (<<: *base, <<: [*a, *b]), not %s", n.Line, where, what)
	}
	return out, nil
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return "a value"
}

// keyIn is the node of key in mapping m or in the mappings it merges, the
// one whose value the decoder keeps (m's own, then its merges' in order,
// each with its own merges, depth first), and whether it came by a merge;
// nil where none holds it.
func keyIn(m *yaml.Node, key string) (k *yaml.Node, merged bool) {
	seen := map[*yaml.Node]bool{}
	var find func(m *yaml.Node) *yaml.Node
	find = func(m *yaml.Node) *yaml.Node {
		m = resolved(m)
		if m == nil || m.Kind != yaml.MappingNode || seen[m] {
			return nil
		}
		seen[m] = true
		var merge *yaml.Node
		for i := 0; i+1 < len(m.Content); i += 2 {
			switch k := m.Content[i]; {
			case isMerge(k):
				merge = m.Content[i+1]
			case resolved(k).Value == key:
				return k
			}
		}
		if merge != nil {
			sources, _ := mergedMappings(merge, "")
			for _, src := range sources {
				if k := find(src); k != nil {
					return k
				}
			}
		}
		return nil
	}
	m = resolved(m)
	k = find(m)
	return k, k != nil && !slices.Contains(m.Content, k)
}
