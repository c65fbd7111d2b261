// Package batch renders lists of jobs from a YAML config, unattended: one
// job after another, each failure reported and the others still run;
// finished work is recognised by a manifest of hashes and skipped; an
// interrupted job leaves a checkpoint that the next run continues from.
package batch

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"sertrace/denoise"
	"sertrace/render"
	"sertrace/scene"
)

// Job is one render of a config: its name, scene and outputs, and the
// render settings under the render flags' names.
type Job struct {
	Name          string   `mapstructure:"name" json:"name,omitempty"`
	Scene         string   `mapstructure:"scene" json:"scene,omitempty"`
	Outputs       []string `mapstructure:"outputs" json:"outputs,omitempty"`
	Denoise       bool     `mapstructure:"denoise" json:"denoise,omitempty"`
	Denoiser      string   `mapstructure:"denoiser" json:"denoiser,omitempty"`             // denoise.Denoisers
	DenoisePasses int      `mapstructure:"denoise_passes" json:"denoise_passes,omitempty"` // the network's
	// Split cuts the job's samples into this many slices, each a unit of
	// work of its own (for the shares of a batch), merged before the
	// outputs are written; the image is the same bit for bit.
	Split           int `mapstructure:"split" json:"split,omitempty"`
	render.Settings `mapstructure:",squash"`
}

// Config is a batch: where outputs go, settings every job starts from, and
// the jobs.
type Config struct {
	OutputDir string `mapstructure:"output_dir" json:"output_dir,omitempty"`
	Jobs      []Job
	Slurm     Slurm // sbatch's options, for batch --slurm
	Name      string
	path      string // the config's file, for messages
	dir       string // the config's folder: relative paths start there
}

// Slurm holds the sbatch options of a config's slurm key.
type Slurm struct {
	Partition   string   `mapstructure:"partition"`
	Time        string   `mapstructure:"time"` // sbatch --time: minutes, or [D-]HH:MM:SS
	CPUsPerTask int      `mapstructure:"cpus_per_task"`
	Extra       []string `mapstructure:"extra"` // more sbatch options, as given
}

// maxNameBytes is the longest job name: a folder's name (NAME_MAX).
const maxNameBytes = 255

// MaxSplit is the most slices a job is cut into: each is a film's worth of
// file, and a merge reads every slice's header.
const MaxSplit = 4096

var slurmKeys = []string{"partition", "time", "cpus_per_task", "extra"}

// jobKeys are the settings a job (or the defaults) may hold: its own, and
// every render setting under its flag's name (render.Settings' keys).
var jobKeys = func() []string {
	keys := []string{"name", "scene", "outputs", "denoise", "denoiser", "denoise_passes", "split"}
	render.EachSetting(&render.Settings{}, func(key string, _ reflect.Value) { keys = append(keys, key) })
	return keys
}()

var topKeys = []string{"output_dir", "defaults", "jobs", "slurm"}

// reservedNames are the batch's own files in output_dir, which no job may
// be named.
var reservedNames = []string{"summary.json", "summary.html", "batch.lock", ".summary.lock", ".slurm"}

// defaultJob holds what a job gets when neither it nor the defaults say:
// the render command's defaults (render.DefaultSettings and the denoiser's),
// under their keys, and the outputs.
var defaultJob = func() map[string]any {
	m := map[string]any{"outputs": []string{"beauty.exr", "beauty.png"},
		"denoiser": denoise.DefaultDenoiser, "denoise_passes": denoise.DefaultPasses}
	d := render.DefaultSettings()
	render.EachSetting(&d, func(key string, field reflect.Value) { m[key] = field.Interface() })
	return m
}()

// MaxConfigBytes is the most a config file may hold: 10,000 jobs of seven
// keys each take 1.9 MB and load in 1 s; 4 MB at worst (140,000 jobs of
// two keys) load in 11 s and 550 MB.
const MaxConfigBytes = 4 << 20

// maxMappingKeys is the most keys a mapping of a config may hold (a job
// has some thirty): the YAML decoder compares a mapping's keys pair by
// pair, minutes for a mapping of a few megabytes.
const maxMappingKeys = 256

// Load reads a batch config with viper, after checking every key against
// what it may hold: an unknown key is an error naming it, its line and the
// nearest valid key.
func Load(path string) (*Config, error) {
	data, err := readConfig(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("config %s: %s", path, cutMessage(err.Error()))
	}
	if err := checkKeys(&root); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	// The tree parsed is decoded (not the text parsed again): the decoder
	// resolves aliases and merge keys, and refuses anchors that expand
	// without bound.
	var tree map[string]any
	if err := root.Decode(&tree); err != nil {
		// The YAML decoder lists its errors a line each: say them in one.
		return nil, fmt.Errorf("config %s: %s", path, cutMessage(err.Error()))
	}
	v := viper.New()
	if err := v.MergeConfigMap(tree); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	cfg := &Config{OutputDir: v.GetString("output_dir"), dir: filepath.Dir(path), path: path,
		Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	if err := v.UnmarshalKey("slurm", &cfg.Slurm); err != nil {
		return nil, fmt.Errorf("config %s: slurm: %s", path, decodeProblem(err).problem)
	}
	if cfg.Slurm.CPUsPerTask < 0 {
		return nil, fmt.Errorf("config %s: slurm: cpus_per_task %d is negative", path, cfg.Slurm.CPUsPerTask)
	}
	if cfg.OutputDir == "" {
		cfg.OutputDir = "out"
	}
	// The defaults are decoded on their own first, so that a bad value there
	// is reported there and not at the first job.
	defaults := v.GetStringMap("defaults")
	base, bad := decodeJob(defaults)
	if bad == nil {
		bad = checkSettings(base)
	}
	if bad != nil {
		return nil, fmt.Errorf("config %s: %s", path, bad.place(section(&root, "defaults"), "defaults"))
	}
	rawJobs, _ := v.Get("jobs").([]any)
	if len(rawJobs) == 0 {
		return nil, fmt.Errorf("config %s: no jobs", path)
	}
	seen := map[string]bool{}
	for i, raw := range rawJobs {
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("config %s: jobs[%d] is not a mapping", path, i)
		}
		job, err := decodeJob(defaults, m)
		if err != nil {
			return nil, fmt.Errorf("config %s: %s", path, err.place(jobNode(&root, i), fmt.Sprintf("jobs[%d]", i)))
		}
		switch {
		case job.Name == "":
			return nil, fmt.Errorf("config %s: jobs[%d] has no name", path, i)
		case strings.ContainsAny(job.Name, `/\`) || job.Name == "." || job.Name == "..":
			return nil, fmt.Errorf("config %s: job name %s must be a plain folder name", path, shown(job.Name))
		case !utf8.ValidString(job.Name) || strings.IndexFunc(job.Name, unicode.IsControl) >= 0:
			// A newline, tab or NUL in a folder name breaks logs, summaries
			// and the tools that read them.
			return nil, fmt.Errorf("config %s: job name %s has a control character or is not UTF-8", path, shown(job.Name))
		case len(job.Name) > maxNameBytes:
			return nil, fmt.Errorf("config %s: job name %s is longer than the %d bytes a folder name may be", path, shown(job.Name), maxNameBytes)
		case seen[strings.ToLower(job.Name)]:
			return nil, fmt.Errorf("config %s: two jobs are named %s (names must differ in more than case)", path, shown(job.Name))
		case slices.Contains(reservedNames, strings.ToLower(job.Name)):
			return nil, fmt.Errorf("config %s: job name %s is taken by the batch's own files", path, shown(job.Name))
		case job.Scene == "":
			return nil, fmt.Errorf("config %s: job %s has no scene", path, shown(job.Name))
		}
		// Every job's settings are checked now, not at its turn, hours in.
		if err := checkSettings(job); err != nil {
			return nil, fmt.Errorf("config %s: %s", path, err.inJob(&root, i, job.Name))
		}
		switch {
		case job.Samples != "":
			return nil, fmt.Errorf("config %s: job %s: samples: a batch job is cut into slices with split: K", path, shown(job.Name))
		case job.Split < 0 || job.Split > max(min(job.SPP, MaxSplit), 1):
			return nil, fmt.Errorf("config %s: job %s: split %d must be in 0..%d (at most its spp, a sample or more a slice, and at most %d)", path, shown(job.Name), job.Split, min(job.SPP, MaxSplit), MaxSplit)
		case job.Split > 1 && job.TimeBudget > 0:
			return nil, fmt.Errorf("config %s: job %s: a split job takes all its samples: it has no time_budget", path, shown(job.Name))
		}
		seen[strings.ToLower(job.Name)] = true
		cfg.Jobs = append(cfg.Jobs, job)
	}
	return cfg, nil
}

// checkSettings refuses a job's values (or the defaults') that no scene
// makes right: what render.Settings.Check refuses, a resolution, spp or
// max_depth past what a render takes, and its outputs. (A denoiser that is
// not one fails its job alone: TestBatchDenoisers.)
func checkSettings(job Job) *valueError {
	s := job.Settings
	if err := s.Check(); err != nil {
		var se *render.SettingError
		if !errors.As(err, &se) {
			return &valueError{key: "settings", problem: cutMessage(err.Error())}
		}
		key := se.Key
		if key == "env" { // the environment's rotation or intensity
			key = "env_intensity"
			if r := float64(s.EnvRotation); math.IsNaN(r) || math.IsInf(r, 0) {
				key = "env_rotation"
			}
		}
		return &valueError{key: key, problem: cutMessage(se.Err.Error())}
	}
	if s.Res != "" { // "": the camera's aspect, known with the scene
		w, h, err := render.ParseResolution(s.Res, scene.Camera{})
		switch {
		case err != nil:
			return &valueError{key: "res", problem: cutMessage(err.Error())}
		case w > render.MaxSide || h > render.MaxSide || w*h > render.MaxPixels:
			return &valueError{key: "res", problem: fmt.Sprintf("%dx%d is outside 1..%d pixels a side and %d pixels in all", w, h, render.MaxSide, render.MaxPixels)}
		case w*h > render.MaxFilePixels:
			return &valueError{key: "res", problem: fmt.Sprintf("%dx%d is over the %d pixels that a batch job's checkpoint holds; render it whole with sertrace render", w, h, render.MaxFilePixels)}
		}
	}
	if s.SPP < 1 || s.SPP > render.MaxSPP {
		return &valueError{key: "spp", problem: fmt.Sprintf("%d is outside 1..%d", s.SPP, render.MaxSPP)}
	}
	if s.MaxDepth < 1 || s.MaxDepth > render.MaxDepth {
		return &valueError{key: "max_depth", problem: fmt.Sprintf("%d is outside 1..%d", s.MaxDepth, render.MaxDepth)}
	}
	if _, err := parseOutputs(job.Outputs); err != nil {
		return &valueError{key: "outputs", problem: cutMessage(err.Error())}
	}
	if job.Denoise {
		if err := denoise.CheckChoice(job.Denoiser, job.DenoisePasses); err != nil {
			key := "denoiser"
			if slices.Contains(denoise.Denoisers, job.Denoiser) {
				key = "denoise_passes"
			}
			return &valueError{key: key, problem: cutMessage(err.Error())}
		}
	}
	return nil
}

// decodeJob is the job that layers of settings make, each over the ones
// before it and all over defaultJob.
func decodeJob(layers ...map[string]any) (Job, *valueError) {
	jv := viper.New()
	for k, val := range defaultJob {
		jv.SetDefault(k, val)
	}
	for _, layer := range layers {
		for k, val := range layer {
			if k == "env_color" {
				c, err := colorSetting(val)
				if err != nil {
					return Job{}, &valueError{key: k, problem: err.Error()}
				}
				val = c
			}
			// The decoder truncates 4.7 to 4 where a whole number is
			// wanted: refuse it instead.
			if f, ok := val.(float64); ok && wholeKeys[k] && f != math.Trunc(f) {
				return Job{}, &valueError{key: k, problem: fmt.Sprintf("%v is not a whole number", f)}
			}
			jv.Set(k, val)
		}
	}
	var job Job
	if err := jv.Unmarshal(&job); err != nil {
		return Job{}, decodeProblem(err)
	}
	return job, nil
}

// wholeKeys are the job's keys whose values are whole numbers.
var wholeKeys = func() map[string]bool {
	keys := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
			switch {
			case opts == "squash":
				walk(f.Type)
			case f.Type.Kind() >= reflect.Int && f.Type.Kind() <= reflect.Uint64:
				keys[name] = true
			}
		}
	}
	walk(reflect.TypeOf(Job{}))
	return keys
}()

// valueError is a value of the wrong type under a key of a job or the
// defaults.
type valueError struct{ key, problem string }

// place says where the value is: the key's line in mapping m of the YAML
// tree (or in one it merges), where names m ("defaults" or "jobs[I]"),
// the key and the problem.
func (e *valueError) place(m *yaml.Node, where string) string {
	if k, _ := keyIn(m, e.key); k != nil {
		return fmt.Sprintf("line %d (%s): %s: %s", k.Line, where, e.key, e.problem)
	}
	return fmt.Sprintf("%s: %s: %s", where, e.key, e.problem)
}

// inJob says where a value of job i, named name, is: the key's line in
// the job's mapping (or in one it merges) or, where the job takes the
// value from them, in the defaults'.
func (e *valueError) inJob(root *yaml.Node, i int, name string) string {
	job := "job " + shown(name)
	if k, merged := keyIn(jobNode(root, i), e.key); k != nil {
		if merged {
			job = "merged into " + job
		}
		return fmt.Sprintf("line %d (%s): %s: %s", k.Line, job, e.key, e.problem)
	}
	if k, _ := keyIn(section(root, "defaults"), e.key); k != nil {
		return fmt.Sprintf("line %d (defaults, for %s): %s: %s", k.Line, job, e.key, e.problem)
	}
	return fmt.Sprintf("%s: %s: %s", job, e.key, e.problem)
}

// decodeProblem is the first of the decoder's complaints, in one line.
func decodeProblem(err error) *valueError {
	var de *mapstructure.DecodeError
	if !errors.As(err, &de) {
		return &valueError{key: "settings", problem: cutMessage(err.Error())}
	}
	key, _, _ := strings.Cut(de.Name(), "[") // outputs[1] is under outputs
	var value any
	var want reflect.Type
	var pe *mapstructure.ParseError
	var ue *mapstructure.UnconvertibleTypeError
	switch {
	case errors.As(err, &pe):
		value, want = pe.Value, pe.Expected.Type()
	case errors.As(err, &ue):
		value, want = ue.Value, ue.Expected.Type()
	default:
		return &valueError{key: key, problem: cutMessage(de.Unwrap().Error())}
	}
	return &valueError{key: key, problem: fmt.Sprintf("%s is not %s", quoted(value), kindName(want))}
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, not negative"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "a list"
	}
	return "text"
}

// colorSetting reads a colour given as "R,G,B" (or one value) in text, as a
// list of three numbers or as one number, into the text that
// render.ParseColor reads. Numbers are written as the decoder writes them,
// so that a job's settings (and its manifest's key) stay what they were.
func colorSetting(v any) (string, error) {
	switch c := v.(type) {
	case string:
		return c, nil
	case []any:
		if len(c) != 3 {
			return "", fmt.Errorf("a list of %d values; want three numbers [R, G, B], one number or \"R,G,B\"", len(c))
		}
		parts := make([]string, len(c))
		for i, x := range c {
			s, ok := numberText(x)
			if !ok {
				return "", fmt.Errorf("%s in the list is not a finite number", quoted(x))
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	}
	if s, ok := numberText(v); ok {
		return s, nil
	}
	return "", fmt.Errorf("%s is not a colour; want [R, G, B], one number or \"R,G,B\"", quoted(v))
}

func numberText(v any) (string, bool) {
	switch n := v.(type) {
	case int:
		return strconv.Itoa(n), true
	case int64:
		return strconv.FormatInt(n, 10), true
	case uint64:
		return strconv.FormatUint(n, 10), true
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return "", false
		}
		return strconv.FormatFloat(n, 'f', -1, 64), true
	}
	return "", false
}

// quoted is a value as a message shows it: text quoted; either cut after
// its first shownChars characters where longer, with its length.
func quoted(v any) string {
	if s, ok := v.(string); ok {
		return shown(s)
	}
	text := fmt.Sprint(v)
	if len(text) <= shownChars {
		return text
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice:
		return fmt.Sprintf("%s… (%d values)", cutAt(text, shownChars), rv.Len())
	case reflect.Map:
		return fmt.Sprintf("%s… (%d keys)", cutAt(text, shownChars), rv.Len())
	}
	return fmt.Sprintf("%s… (%d bytes)", cutAt(text, shownChars), len(text))
}

// shownChars is how much of a value a message shows: a 5 MB string in a
// config is cut to this many characters, with its length.
const shownChars = 60

// shown is s quoted, cut after shownChars characters where longer, with
// its length: "abc…"… (5242880 bytes).
func shown(s string) string {
	if c := cutAt(s, shownChars); len(c) < len(s) {
		return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(c), len(s))
	}
	return strconv.Quote(s)
}

// cut is s as shown cuts it, not quoted.
func cut(s string) string {
	if c := cutAt(s, shownChars); len(c) < len(s) {
		return fmt.Sprintf("%s… (%d bytes)", c, len(s))
	}
	return s
}

// cutAt is s's first n characters.
func cutAt(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// cutMessage is another package's message (the YAML parser's, render's)
// in one line, each long quoted value in it cut as shown cuts it (and
// the YAML parser's 'anchor'), and the whole cut after maxMessage
// characters, for what else may quote a value without bound.
func cutMessage(msg string) string {
	var b strings.Builder
	for rest := msg; rest != ""; {
		i := strings.IndexAny(rest, `"'`)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i:]
		n := 1 // the quote, where no long value follows it
		if q, err := strconv.QuotedPrefix(rest); err == nil && rest[0] == '"' {
			n = len(q)
			if s, _ := strconv.Unquote(q); len(s) > shownChars {
				b.WriteString(shown(s))
				rest = rest[n:]
				continue
			}
		} else if end := strings.IndexAny(rest[1:], "' \t"); rest[0] == '\'' && end > shownChars && rest[1+end] == '\'' {
			// An anchor: no spaces, to the next quote.
			b.WriteString("'" + cut(rest[1:1+end]) + "'")
			rest = rest[end+2:]
			continue
		}
		b.WriteString(rest[:n])
		rest = rest[n:]
	}
	msg = strings.Join(strings.Fields(b.String()), " ")
	if c := cutAt(msg, maxMessage); len(c) < len(msg) {
		return fmt.Sprintf("%s… (%d bytes)", c, len(msg))
	}
	return msg
}

// maxMessage is the longest message of another package's that Load passes
// on whole.
const maxMessage = 400

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

// readConfig reads a config of at most MaxConfigBytes: a file's size is
// checked before it is read, and the reading stops past the limit, for a
// pipe or a file that grows meanwhile.
func readConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, unwrap(err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxConfigBytes {
		return nil, fmt.Errorf("%s is over the %s a config may hold", megabytes(st.Size()), megabytes(MaxConfigBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, unwrap(err)
	}
	if len(data) > MaxConfigBytes {
		return nil, fmt.Errorf("it goes on past the %s a config may hold", megabytes(MaxConfigBytes))
	}
	return data, nil
}

// megabytes is a size in MB (of 2^20 bytes, as ParseBytes reads M),
// rounded up: a size over a limit never reads as the limit.
func megabytes(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%.1f MB", math.Ceil(float64(n)*10/(1<<20))/10)
}

func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// resolve makes a path in the config relative to the config's folder.
func (c *Config) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir, p)
}
