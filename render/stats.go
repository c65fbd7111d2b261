package render

// Stats is what a render measured, written as JSON by --stats.
type Stats struct {
	Backend         string  `json:"backend"`
	Path            string  `json:"path"`
	Width           int     `json:"width"`
	Height          int     `json:"height"`
	SamplesPerPixel int     `json:"samples_per_pixel"`
	Partial         bool    `json:"partial"`
	Threads         int     `json:"threads"`
	Accel           string  `json:"accel,omitempty"`         // the CPU backend's tracer: "embree 3.13.5" or "bvh"
	Device          string  `json:"device,omitempty"`        // the GPU, for the Vulkan backend
	DeviceIndex     int     `json:"-"`                       // its index among the Vulkan devices
	DeviceMemory    uint64  `json:"device_memory,omitempty"` // bytes of device memory allocated
	GPUSeconds      float64 `json:"gpu_seconds,omitempty"`   // the launches' time by timestamp queries
	Launches        int     `json:"launches,omitempty"`      // the GPU's launches (a pass is one or, where the device's memory holds fewer rows, several)
	LaunchRows      int     `json:"launch_rows,omitempty"`   // the rows a launch holds at most
	// LaunchThreads is the most invocations a launch traced with at once:
	// its paths on the wavefronts, its paths over the sample batch on the
	// rt and ser paths; SampleBatch the largest sample batch of the
	// launches, the samples of a pixel one invocation traced one after
	// another (the two may come from different launches).
	LaunchThreads int `json:"launch_threads,omitempty"`
	SampleBatch   int `json:"sample_batch,omitempty"`
	// Stages are the ray-query wavefront's GPU time per stage (trace, sort,
	// shade), summed over bounces and launches.
	Stages        map[string]float64 `json:"stage_seconds,omitempty"`
	BuildSeconds  float64            `json:"build_seconds"`
	RenderSeconds float64            `json:"render_seconds"`
	WriteSeconds  float64            `json:"write_seconds,omitempty"` // writing the images (and denoising them), after the render
	SamplesPerSec float64            `json:"samples_per_second"`
	RaysPerSec    float64            `json:"rays_per_second"`
	Rays          RayCounts          `json:"rays"`
	Bounces       []BounceStat       `json:"bounces"`
	Adaptive      *AdaptiveStats     `json:"adaptive,omitempty"` // with a noise threshold
	Warnings      []string           `json:"warnings,omitempty"`
}

// RayCounts counts rays by kind.
type RayCounts struct {
	Camera    int64 `json:"camera"`
	Extension int64 `json:"extension"` // bounce rays after the first hit
	Shadow    int64 `json:"shadow"`
}

// Total is every ray traced.
func (r RayCounts) Total() int64 { return r.Camera + r.Extension + r.Shadow }

// BounceStat is the SIMT picture of one bounce of the wavefront: the paths
// shaded, grouped into warps of 32 in execution order, before and after
// reordering. Efficiency is the mean fraction of a warp's lanes that run
// each shader the warp executes (1: every warp runs one shader).
type BounceStat struct {
	Bounce              int     `json:"bounce"`
	Paths               int64   `json:"paths"`
	Warps               int64   `json:"warps"`
	ShadersPerWarp      float64 `json:"shaders_per_warp_before"`
	ShadersPerWarpAfter float64 `json:"shaders_per_warp_after"`
	// Materials per warp: the divergence that the material hint sorts away.
	MaterialsPerWarp      float64 `json:"materials_per_warp_before"`
	MaterialsPerWarpAfter float64 `json:"materials_per_warp_after"`
	Efficiency            float64 `json:"simt_efficiency_before"`
	EfficiencyAfter       float64 `json:"simt_efficiency_after"`
}

// AdaptiveStats is what adaptive sampling did (--noise-threshold).
type AdaptiveStats struct {
	Threshold float32 `json:"noise_threshold"`
	MinSPP    int     `json:"min_spp"`    // every pixel took these
	Step      int     `json:"check_step"` // samples between two checks
	// MeanSamples is the samples a pixel took, on average; MaxSamples is
	// the spp, the most a pixel takes.
	MeanSamples float64 `json:"mean_samples"`
	MaxSamples  int     `json:"max_samples"`
	// Pixels stopped below the threshold, of Pixels rendered.
	Stopped int `json:"pixels_stopped"`
	Pixels  int `json:"pixels"`
}

// adaptiveStats adds film's figures (a band's, or the whole image's) to
// a's (nil: none yet); nil without a threshold.
func adaptiveStats(opts Options, film *Film, a *AdaptiveStats) *AdaptiveStats {
	ad := opts.Adaptive
	if !ad.On() {
		return nil
	}
	if a == nil {
		a = &AdaptiveStats{Threshold: ad.Threshold, MinSPP: ad.Min(opts.SPP), Step: ad.Step(opts.SPP), MaxSamples: opts.SPP}
	}
	n := film.Width * film.Height
	taken := a.MeanSamples*float64(a.Pixels) + film.SamplesTaken()
	a.Pixels += n
	a.Stopped += n - film.Active()
	a.MeanSamples = taken / float64(max(a.Pixels, 1))
	return a
}
