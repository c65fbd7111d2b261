package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"sertrace/render"
	"sertrace/render/vulkan"
	"sertrace/scene"
)

// CalibrateOptions size a device's calibration: the generated Cornell box
// at Res, SPP samples per pixel and MaxDepth bounces, Warmup untimed runs
// and Repeats timed ones per path, the paths interleaved round by round.
type CalibrateOptions struct {
	Res                            string
	SPP, MaxDepth, Warmup, Repeats int
}

// DefaultCalibration is what `sertrace devices --calibrate` renders: a
// few seconds of a GPU, most of it the pipelines' first build.
var DefaultCalibration = CalibrateOptions{Res: "320x240", SPP: 4, MaxDepth: 8, Warmup: 1, Repeats: 3}

// Calibrate measures every render path device d offers, as a render with
// the default reordering scheme runs it: the median GPU time per sample
// per pixel of each. A path that fails to render is left out, said
// through log; none rendering is an error.
func Calibrate(ctx context.Context, d vulkan.Device, o CalibrateOptions, version string, log func(string)) (*vulkan.Calibration, error) {
	sc, err := scene.Generate("cornell")
	if err != nil {
		return nil, err
	}
	w, h, err := render.ParseResolution(o.Res, sc.Cameras[0])
	if err != nil {
		return nil, fmt.Errorf("calibration res: %w", err)
	}
	if o.SPP < 1 || o.Repeats < 1 || o.Warmup < 0 || o.MaxDepth < 1 {
		return nil, fmt.Errorf("calibration: %d spp, depth %d, %d warm-ups and %d runs: want at least 1 of each but warm-ups", o.SPP, o.MaxDepth, o.Warmup, o.Repeats)
	}
	paths := d.Offered()
	if len(paths) == 0 {
		return nil, fmt.Errorf("calibration of %s: it runs no render path", d.Name)
	}
	cal := vulkan.NewCalibration(d, time.Now().UTC().Format(time.RFC3339), version,
		fmt.Sprintf("cornell, %dx%d, %d spp, depth %d, median of %d runs after %d", w, h, o.SPP, o.MaxDepth, o.Repeats, o.Warmup))
	times := map[string][]float64{}
	failed := map[string]bool{}
	for round := range o.Warmup + o.Repeats {
		for k := range paths {
			p := paths[(round+k)%len(paths)]
			if failed[p] {
				continue
			}
			opts := render.Options{Width: w, Height: h, SPP: o.SPP, MaxDepth: o.MaxDepth, EnvColor: [3]float32{0.2, 0.2, 0.2}}
			stats, err := render.Render(ctx, vulkan.Backend{Path: p, Device: d.Index, Validation: vulkan.ValidationRequested()}, sc, opts, render.NewFilm(w, h), nil)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err != nil {
				failed[p] = true
				log(fmt.Sprintf("calibration of %s: path %s left out: %v", d.Name, p, err))
				continue
			}
			if round >= o.Warmup {
				times[p] = append(times[p], stats.GPUSeconds*1e9/float64(w*h*o.SPP))
			}
		}
		log(fmt.Sprintf("calibration of %s: round %d of %d", d.Name, round+1, o.Warmup+o.Repeats))
	}
	for p, ts := range times {
		slices.Sort(ts)
		cal.NsPerSample[p] = medianOf(ts)
	}
	if len(cal.NsPerSample) == 0 {
		return nil, fmt.Errorf("calibration of %s: no path rendered", d.Name)
	}
	return cal, nil
}

// Calibration is what the benchmark measured of its GPU's paths, as a
// calibration of that device: per path, the geometric mean over the
// scenes of the GPU time per sample per pixel with the scheme a render
// takes by default (material), or with none where the path was not timed
// with it (rt reorders nothing). Nil where fewer than two paths were
// timed: nothing to choose between.
func (r *Results) Calibration() *vulkan.Calibration {
	if r.gpu == nil {
		return nil
	}
	logSum, scenes := map[string]float64{}, map[string]int{}
	for _, c := range r.Cells {
		if c.Backend != "vulkan" || !(c.SamplesPerS > 0) {
			continue
		}
		s, err := parseScheme(c.Reorder)
		if err != nil {
			continue
		}
		if s != (render.Reorder{}) {
			// none stands in only for a path timed without the default scheme.
			if c.Reorder != "none" || slices.ContainsFunc(r.Cells, func(o Cell) bool {
				d, err := parseScheme(o.Reorder)
				return err == nil && o.Backend == "vulkan" && o.Path == c.Path && o.Scene == c.Scene && d == render.Reorder{}
			}) {
				continue
			}
		}
		logSum[c.Path] += math.Log(1e9 / c.SamplesPerS)
		scenes[c.Path]++
	}
	if len(scenes) < 2 {
		return nil
	}
	cal := vulkan.NewCalibration(*r.gpu, r.Date, r.Version, fmt.Sprintf("bench: %d scenes, %s, %d spp, depth %d, median of %d runs after %d",
		len(r.Config.Scenes), r.Config.Res, r.Config.SPP, r.Config.MaxDepth, r.Config.Repeats, r.Config.Warmup))
	for p, n := range scenes {
		cal.NsPerSample[p] = math.Exp(logSum[p] / float64(n))
	}
	return cal
}

// GPUDevice is the Vulkan device of the vulkan cells, or nil.
func (r *Results) GPUDevice() *vulkan.Device { return r.gpu }
