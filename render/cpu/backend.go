package cpu

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/scene"
)

// Backend is the CPU renderer: the emulated pipeline and the path tracer.
type Backend struct{}

// Name is "cpu".
func (Backend) Name() string { return "cpu" }

const tileSize = 16

// passSamples is the most samples per pixel a pass takes
// (render.CPUPassSamples; a test makes every pass one sample).
var passSamples = render.CPUPassSamples

// session is a scene prepared for the CPU: its acceleration structure, the
// renderer every worker shares, the workers and, for whole passes, the
// pass buffers.
type session struct {
	acc   *Accel
	r     *renderer
	opts  render.Options
	tiles []tile // row by row
	// tilesAcross is how many tiles a row of them has.
	tilesAcross int
	workers     []*worker
	pass        *passBuffers
	maxPass     int
	warnings    []string
	tracer      string
}

// Prepare builds the scene's acceleration structure (Embree's or the BVH,
// as opts.Accel says) and the workers: one per thread, at most one per
// tile.
func (Backend) Prepare(ctx context.Context, sc *scene.Scene, opts render.Options) (render.Session, error) {
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = min(threads, (opts.Width+tileSize-1)/tileSize*((opts.Height+tileSize-1)/tileSize))
	// The any-hit test of alpha-tested materials, which the traversal
	// calls once acc is made.
	var acc *Accel
	acc, chosen, note, err := NewAccel(sc, func(inst, prim int, u, v, t float32) bool {
		mat := &acc.materials[sc.Instances[inst].Material]
		return kernel.AlphaKeeps(acc, (*sceneTexels)(sc), mat, uint32(inst), uint32(prim), u, v, t)
	}, opts.Accel)
	if err != nil {
		return nil, err
	}
	s := &session{acc: acc, r: newRenderer(sc, acc, opts), opts: opts, tracer: chosen, warnings: materialWarnings(sc)}
	switch {
	case strings.Contains(note, sceneReachNote):
		s.warnings = append(s.warnings, note) // this scene's, said for each
	case note != "":
		embreeNoteOnce.Do(func() { s.warnings = append(s.warnings, note) }) // the machine's, said once
	}
	s.tilesAcross = (opts.Width + tileSize - 1) / tileSize
	for y := 0; y < opts.Height; y += tileSize {
		for x := 0; x < opts.Width; x += tileSize {
			s.tiles = append(s.tiles, tile{x, y, min(x+tileSize, opts.Width), min(y+tileSize, opts.Height)})
		}
	}
	s.workers = make([]*worker, threads)
	for i := range s.workers {
		s.workers[i] = &worker{r: s.r}
	}
	s.maxPass = passSamples(opts.Width * opts.Height)
	return s, nil
}

func (s *session) MaxPass() int { return s.maxPass }

// Pass renders the tiles on the workers, each a wavefront of its pixels'
// samples, whose sums join the film as each tile is done (passOut). A
// cancellation is answered between tiles; a panic in a worker ends the
// render with an error.
func (s *session) Pass(ctx context.Context, first, spp int, film *render.Film, progress func(float64)) error {
	if film.Width != s.opts.Width || film.Y0 < 0 || film.Y0%tileSize != 0 || film.Y0+film.Height > s.opts.Height ||
		film.Y0+film.Height != s.opts.Height && film.Height%tileSize != 0 {
		return fmt.Errorf("render failed: internal error: a film of %dx%d pixels from row %d is no band of tiles of the %dx%d image",
			film.Width, film.Height, film.Y0, s.opts.Width, s.opts.Height)
	}
	if spp > s.maxPass {
		return fmt.Errorf("render failed: internal error: a pass of %d samples a pixel, past the session's %d", spp, s.maxPass)
	}
	out := directOut(film)
	if s.opts.WholePasses && !film.Cut() {
		if s.pass == nil || !s.pass.fits(film, s.maxPass == 1) {
			s.pass = nil // the old buffers go before the new ones come
			s.pass = newPassBuffers(film, s.maxPass == 1)
		}
		s.pass.start(film.Y0)
		out.buffers = s.pass
	}
	// The film's rows: the whole image, or a band of it (render.RenderBands).
	tiles := s.tiles[film.Y0/tileSize*s.tilesAcross : (film.Y0+film.Height+tileSize-1)/tileSize*s.tilesAcross]
	var next, done atomic.Int64
	var wg sync.WaitGroup
	var panicked atomic.Value
	passCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, w := range s.workers {
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
				w.renderTile(tiles[i], first, spp, out)
				if progress != nil {
					progress(float64(done.Add(1)) / float64(len(tiles)))
				}
			}
		}(w)
	}
	wg.Wait()
	if p := panicked.Load(); p != nil {
		return fmt.Errorf("render failed: internal error: %v", p)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if out.buffers != nil {
		return out.buffers.addTo(film)
	}
	return nil
}

func (s *session) Finish(stats *render.Stats) error {
	stats.Backend, stats.Path, stats.Threads, stats.Accel = "cpu", "emulated-ser", len(s.workers), s.tracer
	stats.Warnings = append(stats.Warnings, s.warnings...)
	collect(stats, s.workers)
	return nil
}

// Close releases the acceleration structure and lets the pass buffers and
// the workers' wavefronts go.
func (s *session) Close() {
	s.acc.Release()
	s.pass, s.workers = nil, nil
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
	hairOnSurfaces := map[int]bool{}
	alphaOnPrimitives := map[int]bool{} // alpha tests run on triangles only
	for _, in := range sc.Instances {
		mat := &sc.Materials[in.Material]
		if mat.Hair != nil && in.Geometry.Kind != scene.SweptSpheres {
			hairOnSurfaces[in.Material] = true
		}
		if mat.AlphaTested() && in.Geometry.Kind != scene.Triangles {
			alphaOnPrimitives[in.Material] = true
		}
	}
	if n := len(hairOnSurfaces); n > 0 {
		out = append(out, fmt.Sprintf("%d hair materials are on triangles or spheres, which render with their glTF factors (the hair BSDF needs strands)", n))
	}
	if n := len(alphaOnPrimitives); n > 0 {
		out = append(out, fmt.Sprintf("%d materials with alphaMode MASK or BLEND are on spheres or strands, which render opaque (only triangles are alpha-tested)", n))
	}
	return out
}
