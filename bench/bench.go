// Package bench measures how much reordering speeds up a path tracer: for
// each scene and reordering scheme it renders the same frame several times
// after warm-up runs, interleaving the schemes so that they share the
// machine's state, and reports medians, extremes, throughput and the
// speedup over no reordering, beside the speedup that the emulator's SIMT
// figures predict for a GPU.
package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/viper"

	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/scene"
)

// Config is a benchmark suite.
type Config struct {
	Scenes   []string `mapstructure:"scenes"`
	Res      string   `mapstructure:"res"`
	SPP      int      `mapstructure:"spp"`
	MaxDepth int      `mapstructure:"max_depth"`
	Warmup   int      `mapstructure:"warmup"`
	Repeats  int      `mapstructure:"repeats"`
	Reorder  []string `mapstructure:"reorder"` // none, shader, material:BITS
	Threads  int      `mapstructure:"threads"`
	dir      string
}

var configKeys = []string{"scenes", "res", "spp", "max_depth", "warmup", "repeats", "reorder", "threads"}

// LoadConfig reads a suite; unknown keys are errors.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("config %s: %v", path, err)
	}
	for _, k := range v.AllKeys() {
		if !slices.Contains(configKeys, k) {
			return nil, fmt.Errorf("config %s: unknown key %q (keys: %s)", path, k, strings.Join(configKeys, ", "))
		}
	}
	cfg := &Config{Res: "64x48", SPP: 4, MaxDepth: 6, Warmup: 1, Repeats: 5, Reorder: []string{"none", "shader", "material:16"}, dir: filepath.Dir(path)}
	if err := v.Unmarshal(cfg); err != nil {
		return nil, fmt.Errorf("config %s: %v", path, err)
	}
	if len(cfg.Scenes) == 0 {
		return nil, fmt.Errorf("config %s: no scenes", path)
	}
	if cfg.Repeats < 1 || cfg.Warmup < 0 {
		return nil, fmt.Errorf("config %s: repeats must be at least 1 and warmup not negative", path)
	}
	if !slices.Contains(cfg.Reorder, "none") {
		cfg.Reorder = append([]string{"none"}, cfg.Reorder...) // the baseline every speedup is against
	}
	for _, r := range cfg.Reorder {
		if _, _, err := parseScheme(r); err != nil {
			return nil, fmt.Errorf("config %s: %v", path, err)
		}
	}
	return cfg, nil
}

func parseScheme(s string) (render.ReorderMode, int, error) {
	switch {
	case s == "none":
		return render.ReorderNone, 0, nil
	case s == "shader":
		return render.ReorderShader, 0, nil
	case strings.HasPrefix(s, "material:"):
		bits, err := strconv.Atoi(strings.TrimPrefix(s, "material:"))
		if err != nil || bits < 1 || bits > 32 {
			return "", 0, fmt.Errorf("reorder %q: material:BITS with BITS in 1..32", s)
		}
		return render.ReorderMaterial, bits, nil
	}
	return "", 0, fmt.Errorf("unknown reorder scheme %q (none, shader, material:BITS)", s)
}

// Cell is one scene × backend × path × scheme of the matrix.
type Cell struct {
	Scene       string  `json:"scene"`
	Backend     string  `json:"backend"`
	Path        string  `json:"path"`
	Reorder     string  `json:"reorder"`
	Runs        int     `json:"runs"`
	MedianMS    float64 `json:"median_ms"`
	MinMS       float64 `json:"min_ms"`
	MaxMS       float64 `json:"max_ms"`
	SamplesPerS float64 `json:"samples_per_s"`
	RaysPerS    float64 `json:"rays_per_s"`
	Speedup     float64 `json:"speedup"`     // median over rounds of (no reordering's time ÷ this cell's time), runs paired by round
	SpeedupMin  float64 `json:"speedup_min"` // the same ratio's smallest and largest over the rounds
	SpeedupMax  float64 `json:"speedup_max"`
	Predicted   float64 `json:"predicted_speedup"` // warp shader passes of no reordering over this scheme's, both on packed waves
	SIMTBefore  float64 `json:"simt_efficiency_before"`
	SIMTAfter   float64 `json:"simt_efficiency_after"`
	times       []float64
	rays        int64
	passes      float64 // warp shader passes after this scheme's reordering (packed waves)
}

// Device describes what ran the benchmark.
type Device struct {
	Name        string `json:"name"`
	Driver      string `json:"driver"`
	ReorderMode string `json:"reorder_mode"`
	Threads     int    `json:"threads"`
	GoVersion   string `json:"go_version"`
	Note        string `json:"note"`
}

// Results is results.json.
type Results struct {
	Device  Device                  `json:"device"`
	Version string                  `json:"sertrace_version"`
	Config  Config                  `json:"config"`
	Date    string                  `json:"date"`
	Cells   []Cell                  `json:"cells"`
	Films   map[string]*render.Film `json:"-"` // the last run of each scene, for its cost heatmap
}

// Run measures the matrix.
func Run(ctx context.Context, cfg *Config, version string, log func(string)) (*Results, error) {
	res := &Results{Config: *cfg, Version: version, Date: time.Now().UTC().Format(time.RFC3339), Films: map[string]*render.Film{},
		Device: Device{Name: cpuModel(), Driver: "sertrace CPU emulator", ReorderMode: "emulated", Threads: threads(cfg),
			GoVersion: runtime.Version(),
			Note: "CPU backend: reordering changes the order in which the emulator shades; times are the render's wall clock, BVH builds excluded. " +
				"predicted_speedup is what the emulator's SIMT counts predict for a GPU that reorders this way: warp shader passes " +
				"of the live paths packed in launch order over those packed after reordering (compaction itself is not counted)."}}
	for _, path := range cfg.Scenes {
		p := path
		if !filepath.IsAbs(p) {
			p = filepath.Join(cfg.dir, p)
		}
		sc, err := scene.Load(p)
		if err != nil {
			return nil, err
		}
		w, h, err := render.ParseResolution(cfg.Res, sc.Cameras[0])
		if err != nil {
			return nil, fmt.Errorf("res: %w", err)
		}
		cells := make([]Cell, len(cfg.Reorder))
		for i, scheme := range cfg.Reorder {
			cells[i] = Cell{Scene: filepath.Base(path), Backend: "cpu", Path: "emulated-ser", Reorder: scheme}
		}
		// Interleave: every round runs every scheme once, starting with a
		// different one each round, after a garbage collection, so that drifts
		// in the machine's state touch them all alike.
		n := len(cfg.Reorder)
		for round := 0; round < cfg.Warmup+cfg.Repeats; round++ {
			for k := 0; k < n; k++ {
				i := (round + k) % n
				mode, bits, _ := parseScheme(cfg.Reorder[i])
				opts := render.Options{Width: w, Height: h, SPP: cfg.SPP, MaxDepth: cfg.MaxDepth, Threads: cfg.Threads,
					EnvColor: [3]float32{0.2, 0.2, 0.2}, Reorder: mode, ReorderBits: bits}
				film := render.NewFilm(w, h)
				runtime.GC()
				stats, err := cpu.Backend{}.Render(ctx, sc, opts, film, nil)
				if err != nil {
					return nil, fmt.Errorf("%s, reorder %s: %w", path, cfg.Reorder[i], err)
				}
				res.Device.Threads = stats.Threads
				if round < cfg.Warmup {
					continue
				}
				// The render's own time: building the BVHs is the same for every scheme.
				c := &cells[i]
				c.times = append(c.times, max(stats.RenderSeconds, 1e-9)*1000)
				c.rays = stats.Rays.Total() // the same every run: the image does not depend on the scheme
				c.SIMTBefore, c.SIMTAfter, c.passes = simt(stats)
				res.Films[cells[i].Scene] = film
			}
			if log != nil {
				log(fmt.Sprintf("%s: round %d of %d", filepath.Base(path), round+1, cfg.Warmup+cfg.Repeats))
			}
		}
		base := &cells[slices.IndexFunc(cells, func(c Cell) bool { return c.Reorder == "none" })]
		for i := range cells {
			c := &cells[i]
			sorted := slices.Clone(c.times)
			slices.Sort(sorted)
			c.Runs = len(sorted)
			c.MinMS, c.MaxMS, c.MedianMS = sorted[0], sorted[len(sorted)-1], medianOf(sorted)
			c.SamplesPerS = float64(w*h*cfg.SPP) / (c.MedianMS / 1000)
			c.RaysPerS = float64(c.rays) / (c.MedianMS / 1000)
		}
		for i := range cells {
			c := &cells[i]
			// Paired by round: each ratio compares runs that shared the machine's state.
			ratios := make([]float64, len(c.times))
			for r := range ratios {
				ratios[r] = base.times[r] / c.times[r]
			}
			slices.Sort(ratios)
			c.Speedup, c.SpeedupMin, c.SpeedupMax = medianOf(ratios), ratios[0], ratios[len(ratios)-1]
			c.Predicted = base.passes / max(c.passes, 1e-9)
		}
		res.Cells = append(res.Cells, cells...)
	}
	return res, nil
}

func medianOf(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// simt sums the render's per-bounce figures: SIMT efficiency in launch
// order (ended paths idle in their lanes) and after the scheme's
// reordering (packed), and the warp shader passes after it.
func simt(stats *render.Stats) (before, after, passes float64) {
	var paths, passesBefore float64
	for _, b := range stats.Bounces {
		paths += float64(b.Paths)
		passesBefore += b.ShadersPerWarp * float64(b.Warps)
		passes += float64(b.Paths) / (32 * max(b.EfficiencyAfter, 1e-9))
	}
	if paths == 0 || passesBefore == 0 || passes == 0 {
		return 0, 0, 0
	}
	return paths / (32 * passesBefore), paths / (32 * passes), passes
}

func threads(cfg *Config) int {
	if cfg.Threads > 0 {
		return cfg.Threads
	}
	return runtime.GOMAXPROCS(0)
}

// cpuModel reads the processor's name where Linux says it.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}
