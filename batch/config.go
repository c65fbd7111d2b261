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

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"sertrace/denoise"
	"sertrace/render"
	"sertrace/scene"
)

// JobConfig is one render of a config: its name, scene and outputs, and the
// render settings under the render flags' names.
type JobConfig struct {
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
	Jobs      []JobConfig
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
		case job.Split > 1 && job.NoiseThreshold > 0:
			return nil, fmt.Errorf("config %s: job %s: noise_threshold: a split job %s", path, shown(job.Name), render.AdaptiveSliceRefusal)
		}
		seen[strings.ToLower(job.Name)] = true
		job.Settings = job.Settings.Canonical()
		cfg.Jobs = append(cfg.Jobs, job)
	}
	return cfg, nil
}

// checkSettings refuses a job's values (or the defaults') that no scene
// makes right: what render.Settings.Check refuses, a resolution, spp or
// max_depth past what a render takes, and its outputs. (A denoiser that is
// not one fails its job alone: TestBatchDenoisers.)
func checkSettings(job JobConfig) *valueError {
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
	if err := (render.Adaptive{Threshold: s.NoiseThreshold, MinSPP: s.MinSPP}).Check(s.SPP); err != nil {
		return &valueError{key: "noise_threshold", problem: cutMessage(err.Error())}
	}
	if s.MaxDepth < 1 || s.MaxDepth > render.MaxDepth {
		return &valueError{key: "max_depth", problem: fmt.Sprintf("%d is outside 1..%d", s.MaxDepth, render.MaxDepth)}
	}
	outs, err := parseOutputs(job.Outputs)
	if err != nil {
		return &valueError{key: "outputs", problem: cutMessage(err.Error())}
	}
	beautyEXR := func(o output) bool {
		return o.aov == render.AOVBeauty && strings.EqualFold(filepath.Ext(o.name), ".exr")
	}
	if s.LightGroups && !slices.ContainsFunc(outs, beautyEXR) {
		return &valueError{key: "light_groups", problem: "the light groups are layers of the beauty's EXR, and the job writes none: add beauty.exr to its outputs"}
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
func decodeJob(layers ...map[string]any) (JobConfig, *valueError) {
	jv := viper.New()
	for k, val := range defaultJob {
		jv.SetDefault(k, val)
	}
	for _, layer := range layers {
		for k, val := range layer {
			if k == "env_color" {
				c, err := colorSetting(val)
				if err != nil {
					return JobConfig{}, &valueError{key: k, problem: err.Error()}
				}
				val = c
			}
			// The decoder truncates 4.7 to 4 where a whole number is
			// wanted: refuse it instead.
			if f, ok := val.(float64); ok && wholeKeys[k] && f != math.Trunc(f) {
				return JobConfig{}, &valueError{key: k, problem: fmt.Sprintf("%v is not a whole number", f)}
			}
			jv.Set(k, val)
		}
	}
	var job JobConfig
	if err := jv.Unmarshal(&job); err != nil {
		return JobConfig{}, decodeProblem(err)
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
	walk(reflect.TypeOf(JobConfig{}))
	return keys
}()

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
