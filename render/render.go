// Package render holds what every backend shares: the options of a render,
// the camera model, the random-number streams, the film with its AOVs, the
// stats, the Backend interface, and the image writers.
package render

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"sertrace/render/layout"
	"sertrace/scene"
)

// Options are the settings of one render (docs/design/02-command-line.md).
type Options struct {
	Width, Height int
	SPP           int    // samples per pixel
	MaxDepth      int    // path vertices after the camera; 1 is direct light only
	Seed          uint32 // selects the random streams
	Camera        int    // index into Scene.Cameras
	EnvColor      [3]float32
	EnvMap        *EnvMap      // an HDR environment; replaces EnvColor when set
	Threads       int          // 0: all cores
	Filter        *PixelFilter // nil: box
	// Accel is the CPU backend's tracer: "embree" (Intel Embree, loaded at
	// run time), "bvh" (sertrace's own), or "" / "auto": Embree where it
	// loads, else the BVH.
	Accel string
	// LightSampler is how next-event estimation chooses a light: the light
	// tree (the zero value) or by power alone.
	LightSampler LightSampler
	// Reorder is how each wave is reordered before shading, on the CPU
	// emulator and the GPU's ser path (and sorted by material or not on the
	// ray-query path); the zero value is the default scheme. The image is
	// the same; the work's order is not.
	Reorder Reorder
	// GPUCost makes the Vulkan backend's pipeline paths time each pixel with
	// the shader clock (VK_KHR_shader_clock, where the device has it) for the
	// cost AOV, which otherwise counts rays.
	GPUCost bool
	// TimeBudget, when positive, sizes passes to end the render near it (after
	// at least one pass), before SPP if need be. Building the BVHs is not
	// counted.
	TimeBudget time.Duration
	// First and Count, when Count > 0, make the render a slice: samples
	// [First, First+Count) of the SPP (--samples), which MergeSlices adds
	// to the other slices' into the image the whole render would make.
	First, Count int
	// AfterPass, when set, is called after each pass with the film, whole
	// and consistent (for a periodic checkpoint).
	AfterPass func(film *Film)
	// Layers are the layers of the film the render fills (0: all of them),
	// which the GPU's accumulation buffer holds: Render and RenderBands
	// set them from their film.
	Layers Layers
	// WholePasses makes a cancelled pass add nothing to the film, which
	// then holds the same samples in every pixel: what a slice written
	// when interrupted needs (it merges by whole samples). It costs the
	// CPU buffers the size of the image; without it a cut pass leaves the
	// pixels it finished in the film (cutpass.go).
	WholePasses bool
	// BandRows, where a render is in bands (RenderBands), is the rows of
	// its bands, which a backend sizes its buffers by (0: the image's).
	BandRows int
	// LightGroups are the render's light groups (--light-groups; nil:
	// none), which a film of GroupLayers holds; Cryptomatte names what a
	// film of CoverageLayers counts.
	LightGroups *LightGroups
	Cryptomatte Cryptomatte
	// Adaptive stops sampling a pixel once its noise is below a threshold
	// (--noise-threshold; adaptive.go): SPP is then the most a pixel takes.
	Adaptive Adaptive
}

// NewFilm makes an empty film of width×height pixels of the layers in s
// for the render: its light groups and Cryptomatte's names too, where s
// has them.
func (o *Options) NewFilm(width, height int, s Layers) *Film {
	f := NewFilmWith(width, height, s, o.LightGroups.names())
	if f.Coverage != nil {
		f.Coverage.Cryptomatte = o.Cryptomatte
	}
	return f
}

// SampleRange is the samples a render takes: [first, end).
func (o *Options) SampleRange() (first, end int) {
	if o.Count > 0 {
		return o.First, o.First + o.Count
	}
	return 0, o.SPP
}

// Reorder is a reordering scheme as ParseReorder resolves --reorder: its
// mode and, for the material and coherence schemes, how many of the hint's
// low bits reorder when fewer than all (1..layout.MaxHintBits−1; 0: all
// of them, layout.MaxHintBits). ParseReorder gives each scheme one value.
type Reorder struct {
	Mode ReorderMode
	Bits int
}

// ReorderMode is a reordering scheme's kind.
type ReorderMode string

const (
	// ReorderMaterial (the zero value, the default) groups by shader, then
	// by the material hint's low bits.
	ReorderMaterial ReorderMode = ""
	ReorderShader   ReorderMode = "shader" // by shader only
	ReorderNone     ReorderMode = "none"   // launch order
	// ReorderCoherence is ReorderMaterial with Falcor-style coherence bits
	// at the top of the hint: the path ends here (a miss), it survived
	// Russian roulette, it sampled a light; the material keeps the rest.
	ReorderCoherence ReorderMode = "coherence"
)

// HintBits is what reorderThreadNV's bits argument is for the scheme, the
// one translation of it that the backends use: the hint's low bits that
// reorder, 0 to reorder by shader only, or −1 not to reorder at all.
func (r Reorder) HintBits() int {
	switch r.Mode {
	case ReorderNone:
		return -1
	case ReorderShader:
		return 0
	}
	if r.Bits <= 0 {
		return layout.MaxHintBits
	}
	return min(r.Bits, layout.MaxHintBits)
}

// Hint is the scheme as a launch gives it to the shaders
// (Params.ReorderBits and HintFlags, which kernel.ReorderHint and SortKey
// read): the hint's low bits that reorder (0: by shader only;
// layout.NoReorder: launch order) and what the hint is built from.
func (r Reorder) Hint() (bits, flags uint32) {
	switch b := r.HintBits(); {
	case b < 0:
		return layout.NoReorder, 0
	case b == 0:
		return 0, 0
	default:
		flags = layout.HintMaterial
		if r.Mode == ReorderCoherence {
			flags |= layout.HintCoherence
		}
		return uint32(b), flags
	}
}

// Limits that keep a render's memory bounded.
const (
	// 32768×32768 pixels: what a render may be. Its memory is the budget's
	// to bound (CheckMemory); an EXR too large for one film renders in
	// bands (RenderBands). A pixel's index stays within uint32.
	MaxPixels = 1 << 30
	// 8192×4096 pixels: the largest image, slice or checkpoint sertrace
	// reads, whose header a hostile file writes: every layer's film of it
	// takes 7 GiB.
	MaxFilePixels = 1 << 25
	MaxSide       = 1 << 16 // pixels a side
	MaxSPP        = 1 << 24
	MaxDepth      = 1024
)

// Validate refuses settings that cannot be rendered.
func (o *Options) Validate(sc *scene.Scene) error {
	switch {
	case o.Width < 1 || o.Height < 1 || o.Width*o.Height > MaxPixels || o.Width > MaxSide || o.Height > MaxSide:
		return fmt.Errorf("resolution %dx%d is outside 1..%d pixels a side and %d pixels in all", o.Width, o.Height, MaxSide, MaxPixels)
	case (o.Count > 0 || o.AfterPass != nil) && o.Width*o.Height > MaxFilePixels:
		return fmt.Errorf("resolution %dx%d: a slice or a batch job's checkpoint of more than %d pixels could not be read back; render it whole with sertrace render", o.Width, o.Height, MaxFilePixels)
	case o.SPP < 1 || o.SPP > MaxSPP:
		return fmt.Errorf("samples per pixel %d is outside 1..%d", o.SPP, MaxSPP)
	case o.MaxDepth < 1 || o.MaxDepth > MaxDepth:
		return fmt.Errorf("max depth %d is outside 1..%d", o.MaxDepth, MaxDepth)
	case o.Count < 0 || (o.Count > 0 && (o.First < 0 || o.First+o.Count > o.SPP)):
		return fmt.Errorf("samples %d:%d are not within the %d samples per pixel", o.First, o.Count, o.SPP)
	case o.Count > 0 && o.TimeBudget > 0:
		return fmt.Errorf("a slice of samples takes all of them: it has no time budget")
	case o.Adaptive.On() && (o.Count > 0 || o.WholePasses):
		return fmt.Errorf("a slice of samples %s", AdaptiveSliceRefusal)
	case o.Camera < 0 || o.Camera >= len(sc.Cameras):
		return fmt.Errorf("camera %d does not exist (the scene has %d)", o.Camera, len(sc.Cameras))
	}
	if err := o.Adaptive.Check(o.SPP); err != nil {
		return err
	}
	for _, c := range o.EnvColor {
		if !(c >= 0) || c > 1e30 {
			return fmt.Errorf("environment colour %v must be finite and not negative", o.EnvColor)
		}
	}
	return nil
}

// Progress receives the fraction of the render done, from any goroutine.
type Progress func(done float64)

// Backend is a device a scene renders on: it prepares a scene, and the
// session it returns renders passes of samples (Render runs them).
type Backend interface {
	Name() string
	// Prepare makes what rendering sc with opts needs on the device (the
	// acceleration structures, pipelines and buffers).
	Prepare(ctx context.Context, sc *scene.Scene, opts Options) (Session, error)
}

// Session is a scene prepared on a backend's device.
type Session interface {
	// MaxPass is the most samples per pixel that one pass takes (a GPU
	// launch's size is capped; the CPU's pass buffers are).
	MaxPass() int
	// Pass renders samples [first, first+n) of every pixel the film does
	// not mark ahead (Film.IsAhead: a cut pass's finished pixels, when it
	// completes one) nor stopped (Film.Stopped: adaptive sampling) and
	// adds their sums to film, calling progress (if not
	// nil) with the fraction of the pass done. Cancelled (ctx) or failing,
	// it returns the error, having added nothing or, pixel by pixel, what
	// it marked ahead (Film.MarkAhead; never under Options.WholePasses).
	Pass(ctx context.Context, first, n int, film *Film, progress func(float64)) error
	// Finish fills in what the backend knows of the render (its name and
	// path, device, tracer, rays, bounces, GPU time, warnings) and returns
	// what went wrong that no pass reported (a validation layer's errors).
	Finish(stats *Stats) error
	// Close frees what Prepare made.
	Close()
}

// Render renders opts.SPP samples per pixel of sc on backend b into film
// (or the slice opts.First, opts.Count), after the samples film holds
// already (a checkpoint's). Samples accumulate
// over passes of 1, 2, 4, … samples per pixel up to the session's MaxPass (a
// schedule fixed by the image size, so the sums, and the image, never
// depend on timing or threads), each fitted to what is left of
// opts.TimeBudget. A cancellation (Ctrl-C) or a failing pass (a lost device)
// keeps every completed pass and marks the film partial.
func Render(ctx context.Context, b Backend, sc *scene.Scene, opts Options, film *Film, progress Progress) (*Stats, error) {
	if err := checkRender(sc, opts); err != nil {
		return nil, err
	}
	first, _ := opts.SampleRange()
	if film.Samples == 0 && !film.Cut() {
		film.First = first
	} else if film.First != first {
		return nil, fmt.Errorf("the film holds samples from %d on, not from %d", film.First, first)
	}
	opts.Layers = film.Held()
	if film.Held()&GroupLayers != 0 && !slices.Equal(film.GroupNames, opts.LightGroups.names()) {
		return nil, fmt.Errorf("the film's light groups (%s) are not the render's (%s)", strings.Join(film.GroupNames, ", "), strings.Join(opts.LightGroups.names(), ", "))
	}
	s, stats, err := prepare(ctx, b, sc, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		s.Close()
		if opts.Width*opts.Height >= largeFrame {
			// The session's buffers, as large as the film, are garbage now:
			// collected before the writers allocate theirs, they are not
			// held at once with them.
			runtime.GC()
		}
	}()
	renderStart := time.Now()
	resumed := film.SamplesTaken() // a checkpoint's samples: not timed here
	err = renderPasses(ctx, s, opts, film, progress)
	stats.Adaptive = adaptiveStats(opts, film, nil)
	return finishStats(s, stats, film, renderStart, film.SamplesTaken()-resumed, err)
}

// largeFrame is the size, in pixels, from which a render collects its
// session's garbage when done (a collection costs milliseconds there).
const largeFrame = 1 << 21

// checkRender refuses what no backend renders: settings Validate refuses,
// and a scene beyond float32's reach.
func checkRender(sc *scene.Scene, opts Options) error {
	if err := opts.Validate(sc); err != nil {
		return err
	}
	if far := sc.Reach(); far > scene.MaxReach {
		return fmt.Errorf("the scene reaches %.3g from the origin, beyond the %.3g sertrace renders in float32: scale it down", far, scene.MaxReach)
	}
	return nil
}

// prepare prepares sc on b and starts the render's stats with the time it
// took.
func prepare(ctx context.Context, b Backend, sc *scene.Scene, opts Options) (Session, *Stats, error) {
	start := time.Now()
	s, err := b.Prepare(ctx, sc, opts)
	if err != nil {
		return nil, nil, err
	}
	return s, &Stats{Width: opts.Width, Height: opts.Height, BuildSeconds: time.Since(start).Seconds()}, nil
}

// renderPasses adds passes of 1, 2, 4, … samples per pixel to film until
// it holds opts' samples, the time budget is spent, or a pass fails (ctx
// cancelled, a lost device): then the film keeps its completed passes and
// is marked partial.
func renderPasses(ctx context.Context, s Session, opts Options, film *Film, progress Progress) (err error) {
	_, end := opts.SampleRange()
	renderStart := time.Now()
	resumed := film.Samples
	// Adaptive: the samples the last check forecast the pixels still
	// sampling would take yet (−1: no check yet), and those taken then.
	forecast, takenAtCheck := -1.0, 0.0
	for spp := 1; film.First+film.Samples < end; spp *= 2 {
		if err = ctx.Err(); err != nil {
			break
		}
		spp = min(spp, end-film.First-film.Samples, s.MaxPass())
		if opts.Adaptive.On() {
			// Passes double the samples taken (1, 1, 2, 4, …: the first
			// check, a power of two or not, is not preceded by a pass of
			// a sample) and end where pixels are checked.
			spp = min(max(film.Samples, 1), end-film.Samples, s.MaxPass(), opts.Adaptive.NextCheck(film.Samples+1, opts.SPP)-film.Samples)
		}
		spp = FitToBudget(spp, opts.TimeBudget, time.Since(renderStart), film.Samples-resumed)
		if film.Cut() {
			spp = film.Ahead // a pass cut short is completed first
			if spp > s.MaxPass() {
				err = fmt.Errorf("the film holds a pass of %d samples a pixel cut short, more than this backend's passes take (%d): continue it on the backend that rendered it (--backend cpu)", spp, s.MaxPass())
				break
			}
		}
		if err = film.beginPass(spp); err != nil {
			break
		}
		var passDone func(float64)
		if progress != nil {
			// The samples taken against those taken and still to take
			// where pixels still sample: all of theirs, or as the last
			// check forecast (adaptive), less what was taken since.
			done, active, n := film.SamplesTaken(), float64(film.Active()), float64(spp)
			rest := active * float64(end-film.First-film.Samples)
			if forecast >= 0 {
				rest = min(rest, max(forecast-(done-takenAtCheck), active*n))
			}
			passDone = func(f float64) { progress((done + active*n*f) / (done + rest)) }
		}
		before := film.Samples
		err = s.Pass(ctx, film.First+film.Samples, spp, film, passDone)
		film.SumGroups()
		if err != nil {
			film.cutPass() // which counts it whole where every pixel finished it
		} else {
			film.endPass()
		}
		// A pass that ended whole, cancelled or not, is checked: a film
		// kept at a check's count has been checked.
		if film.Samples > before && opts.Adaptive.CheckAt(film.Samples, opts.SPP) {
			_, forecast = film.Converge(opts.Adaptive.Threshold, opts.SPP)
			takenAtCheck = film.SamplesTaken()
			if film.Active() == 0 {
				film.Samples = end - film.First // every pixel stopped: the render is done
			}
		}
		if err != nil {
			break
		}
		if opts.AfterPass != nil && film.First+film.Samples < end {
			opts.AfterPass(film)
		}
		if opts.TimeBudget > 0 && time.Since(renderStart) >= opts.TimeBudget {
			break // the budget is spent: what is there is the image
		}
	}
	if cancelled := ctx.Err() != nil || errors.Is(err, context.Canceled); err != nil && cancelled && film.First+film.Samples >= end && !film.Cut() {
		err = nil // cancelled as its last pass ended whole (or its last pixels stopped): done
	}
	if err != nil {
		// A cancelled film is partial even when empty; a failed one when
		// it holds what was rendered before the failure.
		film.Partial = ctx.Err() != nil || film.Samples > 0 || film.Cut()
	}
	return err
}

// finishStats completes the stats of a render that took samples (pixel
// samples, not counting a checkpoint's) into film, and returns them with
// the render's error or, failing that, the session's.
func finishStats(s Session, stats *Stats, film *Film, renderStart time.Time, samples float64, err error) (*Stats, error) {
	stats.RenderSeconds = time.Since(renderStart).Seconds()
	if ferr := s.Finish(stats); err == nil {
		err = ferr
	}
	stats.SamplesPerPixel, stats.Partial = film.Samples, film.Partial
	if stats.RenderSeconds > 0 {
		stats.SamplesPerSec = samples / stats.RenderSeconds
		stats.RaysPerSec = float64(stats.Rays.Total()) / stats.RenderSeconds
	}
	return stats, err
}

// RenderBands renders the image of opts band by band, each band of rows
// (a multiple of 16, the CPU's tiles) to all its samples before the next,
// on one preparation of the scene, and gives each finished band (a film of
// layers whose Y0 says where it lies) to band, top to bottom, which must
// not keep it (the next band reuses it): an image of any size in the
// memory of a band. Each pixel's samples are the ones a
// render in one go takes (the random streams are the pixel's), so the
// bands make the same image. Cancelled, the band in flight is given with
// the passes it completed, marked partial, and no further band is
// rendered. It renders whole images only (no slice, no time budget). The
// backend's session is prepared for bands of rows (Options.BandRows).
func RenderBands(ctx context.Context, b Backend, sc *scene.Scene, opts Options, layers Layers, rows int, band func(*Film) error, progress Progress) (*Stats, error) {
	return RenderBandsFrom(ctx, b, sc, opts, layers, rows, 0, band, progress)
}

// RenderBandsFrom is RenderBands from row from on (a multiple of 16, or
// the image's height), the rows above it rendered before (by a run that
// was killed): the bands are the same rows of the same image.
func RenderBandsFrom(ctx context.Context, b Backend, sc *scene.Scene, opts Options, layers Layers, rows, from int, band func(*Film) error, progress Progress) (*Stats, error) {
	switch {
	case rows <= 0 || rows%16 != 0:
		return nil, fmt.Errorf("bands of %d rows: a band is a positive multiple of 16 rows", rows)
	case from < 0 || from > opts.Height || (from%16 != 0 && from != opts.Height):
		return nil, fmt.Errorf("bands from row %d of %d: the first row is a multiple of 16", from, opts.Height)
	case opts.Count > 0 || opts.TimeBudget > 0 || opts.AfterPass != nil:
		return nil, fmt.Errorf("a render in bands renders a whole image: no slice, time budget or checkpoint")
	}
	if err := checkRender(sc, opts); err != nil {
		return nil, err
	}
	opts.Layers = layers | BaseLayers
	opts.BandRows = min(rows, opts.Height)
	s, stats, err := prepare(ctx, b, sc, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	renderStart := time.Now()
	var film *Film
	taken := 0.0 // pixel samples
	var adaptive *AdaptiveStats
	var handed time.Duration
	least, rowsDone := opts.SPP, from
	for y0 := from; y0 < opts.Height && err == nil; y0 += rows {
		// One film serves every band of its height: band is done with it
		// when it returns.
		if height := min(rows, opts.Height-y0); film == nil || film.Height != height {
			film = nil // the last band's goes before the next comes
			film = opts.NewFilm(opts.Width, height, layers)
		} else {
			film.Reset()
		}
		film.Y0 = y0
		var passDone Progress
		if progress != nil {
			passDone = func(f float64) { progress((float64(y0) + f*float64(film.Height)) / float64(opts.Height)) }
		}
		err = renderPasses(ctx, s, opts, film, passDone)
		taken += film.SamplesTaken()
		adaptive = adaptiveStats(opts, film, adaptive)
		least = min(least, film.Samples)
		rowsDone += film.Height
		handStart := time.Now()
		if berr := band(film); err == nil {
			err = berr
		}
		handed += time.Since(handStart)
	}
	if film == nil { // every band was rendered before
		film = &Film{Samples: opts.SPP}
	}
	// The whole image's figures: a band's consumer's time (writing it) is
	// not rendering but writing, and the image is partial where a band is
	// short of samples or rows were not reached, whatever ended it.
	stats, err = finishStats(s, stats, film, renderStart.Add(handed), taken, err)
	stats.WriteSeconds, stats.Adaptive = handed.Seconds(), adaptive
	if rowsDone < opts.Height {
		least = 0
	}
	stats.SamplesPerPixel, stats.Partial = least, least < opts.SPP
	return stats, err
}

// ParseColor reads "R,G,B" or one value for all three.
func ParseColor(s string) ([3]float32, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 1 && len(parts) != 3 {
		return [3]float32{}, fmt.Errorf("%q is not R,G,B or one value", s)
	}
	var c [3]float32
	for i := range c {
		f, err := strconv.ParseFloat(strings.TrimSpace(parts[min(i, len(parts)-1)]), 32)
		if err != nil || !(f >= 0 && f <= 1e30) { // NaN too
			return c, fmt.Errorf("%q: components must be finite and not negative", s)
		}
		c[i] = float32(f)
	}
	return c, nil
}

// ParseResolution reads "WxH"; empty means 800 wide with the camera's
// aspect ratio (4:3 when it has none).
func ParseResolution(s string, cam scene.Camera) (int, int, error) {
	if s == "" {
		aspect := float32(4.0 / 3)
		if cam.AspectRatio > 0 {
			aspect = cam.AspectRatio
		}
		return 800, max(1, int(800/aspect+0.5)), nil
	}
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w < 1 || h < 1 {
		return 0, 0, fmt.Errorf("%q is not WxH", s)
	}
	return w, h, nil
}

// FitToBudget shrinks a pass of spp samples per pixel to what is left of a
// time budget, by the time per sample of the rendered samples so far (those
// of this render, not of a film it resumed); with none rendered yet, or no
// budget, the pass stays as it is. A pass is at least one sample.
func FitToBudget(spp int, budget, elapsed time.Duration, rendered int) int {
	if budget <= 0 || rendered <= 0 {
		return spp
	}
	perSample := elapsed / time.Duration(rendered)
	return max(1, min(spp, int((budget-elapsed)/max(perSample, 1))))
}
