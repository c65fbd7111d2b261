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
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/viper"

	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/render/vulkan"
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
	Reorder  []string `mapstructure:"reorder"` // none, shader, material:BITS, coherence:BITS
	Threads  int      `mapstructure:"threads"`
	Accel    string   `mapstructure:"accel"` // the cpu backend's tracer: auto, embree or bvh
	// Backends are what runs the matrix: cpu (the emulator), vulkan:rt
	// (traceRayEXT: no reordering, one cell per scene), vulkan:ser (hit
	// objects and reorderThreadNV: hardware reordering, every scheme),
	// vulkan:rt-sorted (the wavefront on the ray-tracing pipeline: software
	// reordering by a counting sort of the same keys, every scheme) and
	// vulkan:rayquery (the same wavefront by ray queries). A Vulkan path
	// that no device runs is skipped, and the results say why.
	Backends []string `mapstructure:"backends"`
	dir      string
}

var configKeys = []string{"scenes", "res", "spp", "max_depth", "warmup", "repeats", "reorder", "threads", "accel", "backends"}

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
	if err := render.CheckAccel(cfg.Accel); err != nil {
		return nil, fmt.Errorf("config %s: accel: %v", path, err)
	}
	if len(cfg.Backends) == 0 {
		cfg.Backends = []string{"cpu"}
	}
	known := []string{"cpu"}
	for _, p := range vulkan.PathNames {
		known = append(known, "vulkan:"+p)
	}
	for _, b := range cfg.Backends {
		if !slices.Contains(known, b) {
			return nil, fmt.Errorf("config %s: unknown backend %q (%s)", path, b, strings.Join(known, ", "))
		}
	}
	if !slices.Contains(cfg.Reorder, "none") {
		cfg.Reorder = append([]string{"none"}, cfg.Reorder...) // the baseline every speedup is against
	}
	for _, r := range cfg.Reorder {
		if _, err := parseScheme(r); err != nil {
			return nil, fmt.Errorf("config %s: %v", path, err)
		}
	}
	return cfg, nil
}

func parseScheme(s string) (render.Reorder, error) {
	if s == "" || s == "sort" || s == "off" || s == "material" {
		return render.Reorder{}, fmt.Errorf("unknown reorder scheme %q (none, shader, material:BITS, coherence:BITS)", s)
	}
	return render.ParseReorder(s)
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
	Predicted   float64 `json:"predicted_speedup"` // warp shader passes of no reordering over this scheme's, both on packed waves (the CPU emulator's count)
	// OverRT is, on a GPU, the median over rounds of the rt cell's time
	// (traceRayEXT, nothing reordered) over this cell's in the same round:
	// what a path and scheme buy over the plain pipeline; 0 without an rt cell.
	OverRT     float64 `json:"speedup_over_rt,omitempty"`
	Timer      string  `json:"timer"`          // what the times are: "wall" (the CPU render) or "gpu" (timestamp queries around the launches)
	WallMS     float64 `json:"wall_median_ms"` // the median wall-clock time of the render, whatever the timer
	SIMTBefore float64 `json:"simt_efficiency_before"`
	SIMTAfter  float64 `json:"simt_efficiency_after"`
	times      []float64
	walls      []float64
	rays       int64
	passes     float64 // warp shader passes after this scheme's reordering (packed waves)
}

// Device describes what ran the benchmark.
type Device struct {
	Name        string `json:"name"`
	Driver      string `json:"driver"`
	ReorderMode string `json:"reorder_mode"`
	Threads     int    `json:"threads"`
	Accel       string `json:"accel,omitempty"` // the CPU backend's tracer: "embree 3.13.5" or "bvh"
	GoVersion   string `json:"go_version"`
	Clocks      string `json:"clocks"` // as read when the run started, or why they could not be
	Note        string `json:"note"`
}

// Results is results.json.
type Results struct {
	Device  Device                  `json:"device"`
	GPU     *Device                 `json:"gpu,omitempty"`     // the Vulkan device of the vulkan cells
	Skipped []string                `json:"skipped,omitempty"` // backends of the config that could not run here, and why
	Version string                  `json:"sertrace_version"`
	Config  Config                  `json:"config"`
	Date    string                  `json:"date"`
	Cells   []Cell                  `json:"cells"`
	Films   map[string]*render.Film `json:"-"` // per scene (and GPU path), a run for its cost heatmap
	gpu     *vulkan.Device          // the device of the vulkan cells
}

// Run measures the matrix.
func Run(ctx context.Context, cfg *Config, version string, log func(string)) (*Results, error) {
	res := &Results{Config: *cfg, Version: version, Date: time.Now().UTC().Format(time.RFC3339), Films: map[string]*render.Film{},
		Device: Device{Name: cpu.ModelName(), Driver: "sertrace CPU emulator", ReorderMode: "emulated", Threads: threads(cfg),
			GoVersion: runtime.Version(), Clocks: cpuClocks(),
			Note: "CPU backend: reordering changes the order in which the emulator shades; times are the render's wall clock, BVH builds excluded. " +
				"predicted_speedup is what the emulator's SIMT counts predict for a GPU that reorders this way: warp shader passes " +
				"of the live paths packed in launch order over those packed after reordering (compaction itself is not counted)."}}
	backends, err := chooseBackends(cfg, res)
	if err != nil {
		return nil, err
	}
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
		var cells []Cell
		var runners []render.Backend
		for _, be := range backends {
			for _, scheme := range cfg.Reorder {
				if be.path == vulkan.PathRT && scheme != "none" {
					continue // traceRayEXT has nothing to reorder
				}
				c := Cell{Scene: filepath.Base(path), Backend: be.name, Path: be.path, Reorder: scheme, Timer: "wall"}
				if be.name == "vulkan" {
					c.Timer = "gpu"
				}
				cells = append(cells, c)
				runners = append(runners, be.backend)
			}
		}
		// Interleave: every round runs every cell once, starting with a
		// different one each round, after a garbage collection, so that drifts
		// in the machine's state touch them all alike.
		n := len(cells)
		for round := 0; round < cfg.Warmup+cfg.Repeats; round++ {
			for k := 0; k < n; k++ {
				i := (round + k) % n
				c := &cells[i]
				reorder, _ := parseScheme(c.Reorder)
				opts := render.Options{Width: w, Height: h, SPP: cfg.SPP, MaxDepth: cfg.MaxDepth, Threads: cfg.Threads, Accel: cfg.Accel,
					EnvColor: [3]float32{0.2, 0.2, 0.2}, Reorder: reorder}
				film := render.NewFilm(w, h)
				runtime.GC()
				stats, err := render.Render(ctx, runners[i], sc, opts, film, nil)
				if err != nil {
					return nil, fmt.Errorf("%s, %s %s, reorder %s: %w", path, c.Backend, c.Path, c.Reorder, err)
				}
				if c.Backend == "cpu" {
					res.Device.Threads, res.Device.Accel = stats.Threads, stats.Accel
				}
				if round < cfg.Warmup {
					continue
				}
				// The render's own time: building the BVHs (and, on the GPU,
				// the device, acceleration structures and pipeline) is left out.
				t := max(stats.RenderSeconds, 1e-9) * 1000
				c.walls = append(c.walls, t)
				if c.Timer == "gpu" {
					t = max(stats.GPUSeconds, 1e-9) * 1000
				}
				c.times = append(c.times, t)
				c.rays = stats.Rays.Total() // the same every run: the image does not depend on the scheme
				if c.Backend == "cpu" {
					c.SIMTBefore, c.SIMTAfter, c.passes = simt(stats)
					res.Films[c.Scene] = film
				}
			}
			if log != nil {
				log(fmt.Sprintf("%s: round %d of %d", filepath.Base(path), round+1, cfg.Warmup+cfg.Repeats))
			}
		}
		// One more run per GPU path, untimed, with the shader clock on: its
		// per-pixel cost heatmap (the timed runs read no clock).
		for _, be := range backends {
			if be.name != "vulkan" {
				continue
			}
			opts := render.Options{Width: w, Height: h, SPP: cfg.SPP, MaxDepth: cfg.MaxDepth, EnvColor: [3]float32{0.2, 0.2, 0.2}, GPUCost: true}
			film := render.NewFilm(w, h)
			if _, err := render.Render(ctx, be.backend, sc, opts, film, nil); err != nil {
				return nil, fmt.Errorf("%s, %s %s, clock run: %w", path, be.name, be.path, err)
			}
			res.Films[filepath.Base(path)+" "+be.path] = film
		}
		for i := range cells {
			c := &cells[i]
			sorted := slices.Clone(c.times)
			slices.Sort(sorted)
			c.Runs = len(sorted)
			c.MinMS, c.MaxMS, c.MedianMS = sorted[0], sorted[len(sorted)-1], medianOf(sorted)
			walls := slices.Clone(c.walls)
			slices.Sort(walls)
			c.WallMS = medianOf(walls)
			c.SamplesPerS = float64(w*h*cfg.SPP) / (c.MedianMS / 1000)
			c.RaysPerS = float64(c.rays) / (c.MedianMS / 1000)
		}
		for i := range cells {
			c := &cells[i]
			// The baseline: no reordering on the same backend and path.
			base := &cells[slices.IndexFunc(cells, func(b Cell) bool { return b.Backend == c.Backend && b.Path == c.Path && b.Reorder == "none" })]
			// Paired by round: each ratio compares runs that shared the machine's state.
			ratios := make([]float64, len(c.times))
			for r := range ratios {
				ratios[r] = base.times[r] / c.times[r]
			}
			slices.Sort(ratios)
			c.Speedup, c.SpeedupMin, c.SpeedupMax = medianOf(ratios), ratios[0], ratios[len(ratios)-1]
			if k := slices.IndexFunc(cells, func(b Cell) bool { return b.Backend == "vulkan" && b.Path == vulkan.PathRT }); k >= 0 && c.Backend == "vulkan" {
				over := make([]float64, len(c.times))
				for r := range over {
					over[r] = cells[k].times[r] / c.times[r]
				}
				slices.Sort(over)
				c.OverRT = medianOf(over)
			}
			// The prediction is the emulator's, for the same scheme.
			if k := slices.IndexFunc(cells, func(b Cell) bool { return b.Backend == "cpu" && b.Reorder == c.Reorder }); k >= 0 {
				cpuBase := &cells[slices.IndexFunc(cells, func(b Cell) bool { return b.Backend == "cpu" && b.Reorder == "none" })]
				c.Predicted = cpuBase.passes / max(cells[k].passes, 1e-9)
				if c.Backend != "cpu" {
					c.SIMTBefore, c.SIMTAfter = cells[k].SIMTBefore, cells[k].SIMTAfter
				}
			}
		}
		res.Cells = append(res.Cells, cells...)
	}
	return res, nil
}

type benchBackend struct {
	name, path string
	backend    render.Backend
}

// chooseBackends makes the config's backends, leaving out (and recording)
// Vulkan paths that no device here runs.
func chooseBackends(cfg *Config, res *Results) ([]benchBackend, error) {
	var out []benchBackend
	var gpu *vulkan.Device // every GPU cell runs on this one device
	var noGPU string
	for _, b := range cfg.Backends {
		if b == "cpu" {
			out = append(out, benchBackend{"cpu", "emulated-ser", cpu.Backend{}})
			continue
		}
		if gpu == nil && noGPU == "" {
			gpu, noGPU = chooseDevice(cfg)
		}
		path := strings.TrimPrefix(b, "vulkan:")
		if gpu == nil {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %s", b, noGPU))
			continue
		}
		if st := gpu.Paths[path]; !st.Available {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %s: %s", b, gpu.Name, st.Reason))
			continue
		}
		out = append(out, benchBackend{"vulkan", path, vulkan.Backend{Path: path, Device: gpu.Index, Validation: vulkan.ValidationRequested()}})
	}
	if gpu != nil {
		mode := "absent (no VK_NV_ray_tracing_invocation_reorder)"
		note := "GPU times are timestamp queries around each launch, summed over the render's launches; building the device, acceleration structures and pipeline is left out."
		if gpu.ReorderMode != nil {
			mode = *gpu.ReorderMode
			if mode == "none" {
				note += " The driver reports reorder mode none: reorderThreadNV is a no-op here, so ser cells measure the hit-object path without reordering."
			}
		}
		res.gpu = gpu
		res.GPU = &Device{Name: gpu.Name, Driver: gpu.Driver, ReorderMode: mode, GoVersion: runtime.Version(), Clocks: gpuClocks(*gpu), Note: note}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("none of the backends %v can run here (%s)", cfg.Backends, strings.Join(res.Skipped, "; "))
	}
	return out, nil
}

// chooseDevice picks the device for the GPU cells: the first hardware
// device that runs one of the config's Vulkan paths, else a software one
// (lavapipe) that does; or says why there is none.
func chooseDevice(cfg *Config) (*vulkan.Device, string) {
	devs, err := vulkan.Devices()
	if err != nil {
		return nil, err.Error()
	}
	runs := func(d vulkan.Device) bool {
		for _, b := range cfg.Backends {
			if p := strings.TrimPrefix(b, "vulkan:"); p != b && d.Paths[p].Available {
				return true
			}
		}
		return false
	}
	for _, software := range []bool{false, true} {
		for i, d := range devs {
			if (d.Type == "cpu") == software && runs(d) {
				return &devs[i], ""
			}
		}
	}
	if len(devs) == 0 {
		return nil, "no Vulkan device"
	}
	var why []string
	for _, d := range devs {
		why = append(why, d.Name+": "+d.Paths[vulkan.PathRT].Reason)
	}
	return nil, strings.Join(why, "; ")
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

// cpuClocks reads the cores' current frequencies where Linux says them.
func cpuClocks() string {
	mhz, err := cpuinfo("cpu MHz")
	if err != nil {
		return "not readable: " + err.Error()
	}
	if len(mhz) == 0 {
		return "not readable: /proc/cpuinfo has no cpu MHz"
	}
	return "cpu MHz " + strings.Join(mhz, ", ")
}

// cpuinfo is every value /proc/cpuinfo gives key (one per core).
func cpuinfo(key string) ([]string, error) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == key {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out, nil
}

// gpuClocks asks nvidia-smi for an NVIDIA GPU's SM and memory clocks (now
// and at most); other GPUs' clocks are not read.
func gpuClocks(d vulkan.Device) string {
	if d.Type == "cpu" {
		return "a software device: " + cpuClocks()
	}
	out, err := exec.Command("nvidia-smi", "--query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem", "--format=csv,noheader").Output()
	if err != nil {
		return "not readable (nvidia-smi: " + err.Error() + ")"
	}
	return "nvidia-smi name, SM clock, max SM clock, memory clock, max memory clock: " + strings.TrimSpace(string(out))
}
