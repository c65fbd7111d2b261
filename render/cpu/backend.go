package cpu

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"sertrace/render"
	"sertrace/scene"
)

// Backend is the CPU renderer: the emulated pipeline and the path tracer.
type Backend struct{}

// Name is "cpu".
func (Backend) Name() string { return "cpu" }

const tileSize = 16

// Render traces opts.SPP samples per pixel into film, in passes of 1, 2, 4,
// ... samples up to a cap of about four million paths a pass (a schedule
// fixed by the image size, so the sums and the image never depend on timing
// or threads). A cancellation (Ctrl-C) is answered between tiles; the pass
// it interrupts is dropped, and the film keeps every completed pass, marked
// partial. A panic in a worker ends the render with an error.
func (Backend) Render(ctx context.Context, sc *scene.Scene, opts render.Options, film *render.Film, progress render.Progress) (*render.Stats, error) {
	if err := opts.Validate(sc); err != nil {
		return nil, err
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = min(threads, (opts.Width+tileSize-1)/tileSize*((opts.Height+tileSize-1)/tileSize))
	stats := &render.Stats{Backend: "cpu", Path: "emulated-ser", Width: opts.Width, Height: opts.Height, Threads: threads}
	stats.Warnings = materialWarnings(sc)
	start := time.Now()
	acc, chosen, note, err := NewAccel(sc, func(inst, prim int, u, v float32) bool {
		in := &sc.Instances[inst]
		mat := &sc.Materials[in.Material]
		return alphaAt(sc, mat, &sc.Meshes[in.Geometry.Index], prim, u, v) >= mat.AlphaCutoff
	}, opts.Accel)
	if err != nil {
		return nil, err
	}
	defer acc.Release()
	stats.Accel = chosen
	if note != "" {
		embreeNoteOnce.Do(func() { stats.Warnings = append(stats.Warnings, note) })
	}
	stats.BuildSeconds = time.Since(start).Seconds()
	r := newRenderer(sc, acc, opts)

	var tiles []tile
	for y := 0; y < opts.Height; y += tileSize {
		for x := 0; x < opts.Width; x += tileSize {
			tiles = append(tiles, tile{x, y, min(x+tileSize, opts.Width), min(y+tileSize, opts.Height)})
		}
	}
	workers := make([]*worker, threads)
	for i := range workers {
		workers[i] = &worker{r: r}
	}
	n := opts.Width * opts.Height
	pass := newPassBuffers(n)
	renderStart := time.Now()
	resumed := film.Samples // a checkpoint's samples: not timed here
	maxPass := 1
	for maxPass < 64 && maxPass*2*n <= 1<<22 {
		maxPass *= 2
	}
	spp := 1
	for film.Samples < opts.SPP {
		spp = min(spp, opts.SPP-film.Samples, maxPass)
		spp = render.FitToBudget(spp, opts.TimeBudget, time.Since(renderStart), film.Samples-resumed)
		var next, done atomic.Int64
		var wg sync.WaitGroup
		var panicked atomic.Value
		passCtx, cancel := context.WithCancel(ctx)
		for _, w := range workers {
			wg.Add(1)
			go func(w *worker) {
				defer wg.Done()
				defer func() {
					if r := recover(); r != nil {
						panicked.Store(fmt.Sprint(r))
						cancel()
					}
				}()
				for passCtx.Err() == nil {
					i := int(next.Add(1) - 1)
					if i >= len(tiles) {
						return
					}
					w.renderTile(tiles[i], film.Samples, spp, pass)
					if progress != nil {
						progress((float64(film.Samples) + float64(spp)*float64(done.Add(1))/float64(len(tiles))) / float64(opts.SPP))
					}
				}
			}(w)
		}
		wg.Wait()
		cancel()
		if p := panicked.Load(); p != nil {
			return nil, fmt.Errorf("render failed: internal error: %v", p)
		}
		if err = ctx.Err(); err != nil {
			film.Partial = true
			break
		}
		addPass(film, pass)
		film.Samples += spp
		spp *= 2
		if opts.TimeBudget > 0 && time.Since(renderStart) >= opts.TimeBudget {
			break // the budget is spent: what is there is the image
		}
	}
	stats.RenderSeconds = time.Since(renderStart).Seconds()
	stats.SamplesPerPixel = film.Samples
	stats.Partial = film.Partial
	collect(stats, workers)
	if stats.RenderSeconds > 0 {
		stats.SamplesPerSec = float64(film.Samples-resumed) * float64(n) / stats.RenderSeconds
		stats.RaysPerSec = float64(stats.Rays.Total()) / stats.RenderSeconds
	}
	return stats, err
}

// addPass moves a completed pass into the film (in float64) and clears it.
func addPass(film *render.Film, pass *passBuffers) {
	for _, pair := range []struct {
		film []float64
		pass []float32
	}{{film.Beauty, pass.beauty}, {film.Albedo, pass.albedo}, {film.Normal, pass.normal}, {film.Depth, pass.depth},
		{film.LumSq, pass.lumSq}, {film.Cost, pass.cost}, {film.PathLength, pass.pathLength}, {film.SIMT, pass.simt},
		{film.Diffuse, pass.diffuse}, {film.Specular, pass.specular}, {film.DiffuseAlbedo, pass.diffAlbedo}, {film.SpecularAlbedo, pass.specAlbedo},
		{film.DiffuseLumSq, pass.diffLumSq}, {film.SpecularLumSq, pass.specLumSq}} {
		render.AddSums(pair.film, pair.pass)
		clear(pair.pass)
	}
}

// collect sums the workers' ray counts and SIMT figures into the stats.
func collect(stats *render.Stats, workers []*worker) {
	var bounces []simt
	for _, w := range workers {
		stats.Rays.Camera += w.rays.Camera
		stats.Rays.Extension += w.rays.Extension
		stats.Rays.Shadow += w.rays.Shadow
		for len(bounces) < len(w.bounces) {
			bounces = append(bounces, simt{})
		}
		for i, b := range w.bounces {
			s := &bounces[i]
			s.paths += b.paths
			s.warps += b.warps
			s.passes += b.passes
			s.materialsWarp += b.materialsWarp
			s.warpsAfter += b.warpsAfter
			s.passesAfter += b.passesAfter
			s.materialsWarpAfter += b.materialsWarpAfter
		}
	}
	for i, b := range bounces {
		if b.warps == 0 || b.warpsAfter == 0 {
			continue
		}
		stats.Bounces = append(stats.Bounces, render.BounceStat{
			Bounce:                i,
			Paths:                 b.paths,
			Warps:                 b.warps,
			ShadersPerWarp:        float64(b.passes) / float64(b.warps),
			ShadersPerWarpAfter:   float64(b.passesAfter) / float64(b.warpsAfter),
			MaterialsPerWarp:      float64(b.materialsWarp) / float64(b.warps),
			MaterialsPerWarpAfter: float64(b.materialsWarpAfter) / float64(b.warpsAfter),
			Efficiency:            float64(b.paths) / float64(warpSize*b.passes),
			EfficiencyAfter:       float64(b.paths) / float64(warpSize*b.passesAfter),
		})
	}
}

// materialWarnings says what of the scene's materials this renderer does
// not reproduce yet.
func materialWarnings(sc *scene.Scene) []string {
	var out []string
	used := map[int]bool{}
	hairOnSurfaces := map[int]bool{}
	for _, in := range sc.Instances {
		used[in.Material] = true
		if sc.Materials[in.Material].Hair != nil && in.Geometry.Kind != scene.SweptSpheres {
			hairOnSurfaces[in.Material] = true
		}
	}
	blended, hair := 0, len(hairOnSurfaces)
	for i := range sc.Materials {
		if !used[i] {
			continue
		}
		if sc.Materials[i].AlphaMode == scene.AlphaBlend {
			blended++
		}
	}
	if hair > 0 {
		out = append(out, fmt.Sprintf("%d hair materials are on triangles or spheres, which render with their glTF factors (the hair BSDF needs strands)", hair))
	}
	if blended > 0 {
		out = append(out, fmt.Sprintf("%d materials use alphaMode BLEND, which renders opaque", blended))
	}
	return out
}
