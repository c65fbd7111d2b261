package batch

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"sertrace/render"
)

var slurmKeys = []string{"partition", "time", "cpus_per_task", "extra"}

// jobKeys are the settings a job (or the defaults) may hold: its own, and
// every render setting under its flag's name (render.Settings' keys).
var jobKeys = func() []string {
	keys := []string{"name", "scene", "outputs", "denoise", "denoiser", "denoise_passes", "split"}
	render.EachSetting(&render.Settings{}, func(key string, _ reflect.Value) { keys = append(keys, key) })
	return keys
}()

var topKeys = []string{"output_dir", "defaults", "jobs", "slurm"}

// maxMappingKeys is the most keys a mapping of a config may hold (a job
// has some thirty): the YAML decoder compares a mapping's keys pair by
// pair, minutes for a mapping of a few megabytes.
const maxMappingKeys = 256

// keyCheck walks the YAML tree for keys that are not part of a config,
// into the mappings that aliases and merge keys (<<) name; each mapping
// is checked once for each kind (a job's keys, Slurm's), however many
// aliases name it.
type keyCheck struct {
	seen map[keyCheckSeen]bool
}

type keyCheckSeen struct {
	n    *yaml.Node
	kind string
}

// checkKeys walks the YAML tree for keys that are not part of a config.
func checkKeys(root *yaml.Node) error {
	if len(root.Content) == 0 {
		return fmt.Errorf("the file is empty")
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: the config must be a mapping of output_dir, defaults and jobs", top.Line)
	}
	if err := checkSizes(top); err != nil {
		return err
	}
	c := keyCheck{seen: map[keyCheckSeen]bool{}}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, val := top.Content[i], resolved(top.Content[i+1])
		if isMerge(k) {
			return fmt.Errorf("line %d: << merges into the defaults, a job or slurm, not the config's top level", k.Line)
		}
		if err := known(k, topKeys, ""); err != nil {
			return err
		}
		switch k.Value {
		case "defaults":
			if err := c.mapping(val, jobKeys, "defaults"); err != nil {
				return err
			}
		case "slurm":
			if val.Kind != yaml.MappingNode {
				return fmt.Errorf("line %d: slurm must be a mapping of %s", val.Line, strings.Join(slurmKeys, ", "))
			}
			if err := c.mapping(val, slurmKeys, "slurm"); err != nil {
				return err
			}
		case "jobs":
			if val.Kind != yaml.SequenceNode {
				return fmt.Errorf("line %d: jobs must be a list", val.Line)
			}
			for j, job := range val.Content {
				if err := c.mapping(job, jobKeys, fmt.Sprintf("jobs[%d]", j)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkSizes refuses a mapping anywhere in the tree of more keys than
// maxMappingKeys. Aliases are not followed: each node is seen once.
func checkSizes(n *yaml.Node) error {
	if keys := len(n.Content) / 2; n.Kind == yaml.MappingNode && keys > maxMappingKeys {
		return fmt.Errorf("line %d: a mapping of %d keys; a config's mappings hold at most %d", n.Line, keys, maxMappingKeys)
	}
	for _, c := range n.Content {
		if err := checkSizes(c); err != nil {
			return err
		}
	}
	return nil
}

// mapping checks the keys of mapping n (an alias resolved) and of the
// mappings it merges against keys; where names n in messages.
func (c *keyCheck) mapping(n *yaml.Node, keys []string, where string) error {
	line := n.Line
	n = resolved(n)
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s must be a mapping", line, where)
	}
	seen := keyCheckSeen{n, where}
	if where != "slurm" {
		seen.kind = "job"
	}
	if c.seen[seen] {
		return nil
	}
	c.seen[seen] = true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !isMerge(k) {
			if err := known(k, keys, where); err != nil {
				return err
			}
			continue
		}
		sources, err := mergedMappings(n.Content[i+1], where)
		if err != nil {
			return err
		}
		for _, m := range sources {
			if err := c.mapping(m, keys, where); err != nil {
				return err
			}
		}
	}
	return nil
}

// known checks key k (an alias resolved: the decoder takes its anchor's
// value) against keys.
func known(k *yaml.Node, keys []string, where string) error {
	name := resolved(k).Value
	if slices.Contains(keys, name) {
		return nil
	}
	place := fmt.Sprintf("line %d", k.Line)
	if where != "" {
		place += " (" + where + ")"
	}
	if len(name) > 2*shownChars { // no key is near: and the distance takes its length times theirs
		return fmt.Errorf("%s: unknown key %s", place, shown(name))
	}
	return fmt.Errorf("%s: unknown key %q; did you mean %q?", place, name, nearest(name, keys))
}

// nearest is the key closest to s: by edit distance, with a key that s
// starts with (or that starts with s) counted as nearer by its length.
func nearest(s string, keys []string) string {
	best, bestD := "", 1<<30
	for _, k := range keys {
		d := editDistance(s, k)
		if strings.HasPrefix(s, k) || strings.HasPrefix(k, s) {
			d -= min(len(s), len(k))
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
