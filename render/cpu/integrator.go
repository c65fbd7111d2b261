package cpu

import (
	"math"
	"unsafe"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// pathState is everything one path carries between bounces: layout.Path,
// the GPU's payload and wavefront element, declared once for both, and what
// only the emulator keeps.
type pathState struct {
	layout.Path
	keySlot int32   // its pixel's slot in the worker's stream keys
	simt    float32 // sum over its bounces of its warp's SIMT efficiency (launch order)
	index   int32   // its place in the worker's paths: of its light groups' too
}

// pathOf is the path state whose layout.Path (its first field) p is: what
// the kernel's providers are handed.
func pathOf(p *layout.Path) *pathState {
	return (*pathState)(unsafe.Pointer(p))
}

// The kernel hands the providers a pathState's layout.Path: its first
// field.
var _ = [1]struct{}{}[unsafe.Offsetof(pathState{}.Path)]

// alive is whether the path goes on to trace another ray.
func (p *pathState) alive() bool { return p.Alive != 0 }

// ray is the ray the path traces next.
func (p *pathState) ray() Ray {
	return Ray{Origin: p.Origin, Dir: p.Dir, TMax: float32(math.Inf(1))}
}

// renderer is what every worker shares, read-only, for one render.
type renderer struct {
	sc        *scene.Scene
	acc       *Accel
	lights    *lightSampler
	opts      render.Options
	camera    layout.Camera
	filter    *render.PixelFilter
	forward   scene.Vec3
	sbt       [sbtSize]shader
	hitGroups []uint8 // per instance
	// The reordering (render.Reorder.Hint, kernel.SortKeySpace).
	reorderBits, hintFlags, keyMaterials uint32
}

// worker renders tiles with buffers it reuses: nothing is allocated per path.
type worker struct {
	r        *renderer
	paths    []pathState
	hits     []HitObject
	sortKeys []uint64 // Reorder's keys, per path
	order    []int32
	sortBuf  []int32 // Reorder's scratch
	launch   []int32 // the live paths in launch order (by index)
	// The stream keys of the tile's pixels (kernel.StreamKeys), at the
	// bounce their paths were last at.
	streams  []kernel.StreamKeys
	matStamp []uint32 // count's: per material (+1, misses 0), the warp it was last seen in
	stamp    uint32
	bounces  []simt
	rays     render.RayCounts
	// Streams: a wave's rays and their hits, and the bounce's shadow rays.
	traceRays  []Ray
	traceHits  []Hit
	traceFound []bool
	shadowRays []Ray
	shadows    []shadowRay
	occluded   []bool
	stacks     *traceStacks       // the BVH walks' (made once: too large to clear per wave)
	surface    kernel.Surface     // the shading point closestHit works on
	light      kernel.LightSample // and its light sample
	// groupLight is each path's light by light group (groups a path);
	// pixel holds a pixel's light groups' and Cryptomatte's sums.
	groupLight []scene.Vec3
	groups     int
	pixel      pixelExtras
}

// AddGroupLight adds light to the path's group's (kernel.LightGroups).
func (w *worker) AddGroupLight(p *layout.Path, group uint32, l scene.Vec3) {
	if w.groups == 0 {
		return
	}
	g := &w.groupLight[int(pathOf(p).index)*w.groups+int(group)]
	*g = g.Add(l)
}

func newRenderer(sc *scene.Scene, acc *Accel, opts render.Options) *renderer {
	r := &renderer{sc: sc, acc: acc, opts: opts}
	r.reorderBits, r.hintFlags = opts.Reorder.Hint()
	_, r.keyMaterials = kernel.SortKeySpace(r.reorderBits, r.hintFlags, uint32(len(sc.Materials)))
	cam := render.NewCameraRays(sc.Cameras[opts.Camera], opts.Width, opts.Height)
	r.camera = cam.Params()
	r.filter = opts.Filter
	if r.filter == nil {
		r.filter, _ = render.NewPixelFilter("box")
	}
	r.forward = cam.Forward()
	r.lights = newLightSampler(acc, environment{color: scene.V3(opts.EnvColor), hdr: opts.EnvMap}, opts.LightSampler, opts.LightGroups)
	r.sbt[sbtMiss] = miss
	for g := range layout.HitGroupCount {
		r.sbt[sbtHitGroup+int(g)] = closestHit
	}
	r.hitGroups = make([]uint8, len(sc.Instances))
	for i := range sc.Instances {
		r.hitGroups[i] = hitGroup(sc, &sc.Instances[i])
	}
	return r
}

// random2 is the path's two numbers of a pair of dimensions (layout.Pair*).
func (w *worker) random2(p *pathState, pair uint32) (float32, float32) {
	return w.streamKeys(p).PathRandom2(&p.Path, pair)
}

// streamKeys are the keys of the path's pixel at its bounce, made once for
// all the pixel's paths in the wave (they are at the same bounce).
func (w *worker) streamKeys(p *pathState) *kernel.StreamKeys {
	k := &w.streams[p.keySlot]
	k.Set(p.Pixel, p.Bounce, w.r.opts.Seed)
	return k
}

// providers are what the shaders read and call (kernel.Providers): the
// scene's, and the path's random numbers and the worker's shadow rays.
func (w *worker) providers(p *pathState) kernel.Providers {
	r := w.r
	return kernel.Providers{Lights: r.lights, Texels: (*sceneTexels)(r.sc), Geometry: r.acc, Media: r.acc,
		Randoms: w.streamKeys(p), Tracer: w, Groups: w}
}

// miss is the miss shader (kernel.Miss).
func miss(w *worker, p *pathState, _ *HitObject) {
	kernel.Miss(w.providers(p), &p.Path, p.Dir)
}

// closestHit is the closest-hit shader (kernel.ClosestHit): one for the
// surface and the hair BSDF alike.
func closestHit(w *worker, p *pathState, h *HitObject) {
	r := w.r
	hit := layout.Hit{Instance: uint32(h.Hit.Instance), Prim: uint32(h.Hit.Prim), U: h.Hit.U, V: h.Hit.V, T: h.Hit.T}
	kernel.ClosestHit(w.providers(p), &p.Path, &w.surface, &w.light, &r.acc.materials[r.sc.Instances[hit.Instance].Material], &hit,
		h.Ray.Origin, h.Ray.Dir, uint32(r.opts.MaxDepth), r.forward, layout.ShaderAny)
}

// tile is a rectangle of the image.
type tile struct{ x0, y0, x1, y1 int }

// renderTile traces spp samples (from sample index first) of every pixel
// in t as one wavefront: trace all live paths, reorder, shade, compact, and
// again until none is left; then adds each path to its pixel in path order.
func (w *worker) renderTile(t tile, first, spp int, out *passOut) {
	r := w.r
	n := (t.x1 - t.x0) * (t.y1 - t.y0) * spp
	if w.stacks == nil {
		w.stacks = new(traceStacks)
	}
	w.paths = render.Grow(w.paths, n)
	w.hits = render.Grow(w.hits, n)
	w.sortKeys = render.Grow(w.sortKeys, n)
	pixels := (t.x1 - t.x0) * (t.y1 - t.y0)
	w.streams = render.Grow(w.streams, pixels)
	k := 0
	for y := t.y0; y < t.y1; y++ {
		for x := t.x0; x < t.x1; x++ {
			if out.skip((y-out.y0)*out.width + x) {
				continue
			}
			for s := 0; s < spp; s++ {
				p := &w.paths[k]
				p.keySlot, p.simt, p.index = int32(k/spp), 0, int32(k)
				keys := &w.streams[p.keySlot]
				keys.Set(uint32(y*r.opts.Width+x), 0, r.opts.Seed)
				kernel.StartPath(&p.Path, keys, r.filter, &r.camera, uint32(x), uint32(y), uint32(r.opts.Width), uint32(first+s))
				k++
			}
		}
	}
	n = k // less the pixels a cut pass finished
	if w.groups = len(out.groups); w.groups > 0 {
		w.groupLight = render.Grow(w.groupLight, n*w.groups)
		clear(w.groupLight[:n*w.groups])
	}
	w.rays.Camera += int64(n)
	launch := w.launch[:0]
	for i := 0; i < n; i++ {
		launch = append(launch, int32(i))
	}
	for bounce := 0; len(launch) > 0; bounce++ {
		w.TraceRays(launch, bounce == 0)
		for _, i := range launch {
			w.paths[i].Rays++
		}
		if bounce > 0 {
			w.rays.Extension += int64(len(launch))
		}
		order := append(w.order[:0], launch...)
		if r.reorderBits != layout.NoReorder {
			w.Reorder(order)
		}
		for len(w.bounces) <= bounce {
			w.bounces = append(w.bounces, simt{})
		}
		w.count(&w.bounces[bounce], launch, order)
		for _, i := range order {
			w.ExecuteShader(&w.paths[i], &w.hits[i])
		}
		w.order = order
		w.traceShadows()
		// Compact: the survivors, in launch order.
		k := 0
		for _, i := range launch {
			if w.paths[i].alive() {
				launch[k] = i
				k++
			}
		}
		launch = launch[:k]
	}
	w.launch = launch
	// A pixel's samples are consecutive paths: they are summed exactly in
	// a local accumulator and join the film (or the pass buffers) at once.
	var sums pixelSums
	for i := 0; i < n; i += spp {
		px := int(w.paths[i].Pixel) - out.y0*out.width // the image's pixel in the band's film
		if b := out.buffers; b != nil && b.sums == nil {
			v := layerValues(&w.paths[i])
			b.storeSample(px, &v)
			continue
		}
		sums = pixelSums{}
		for j := i; j < i+spp; j++ {
			v := layerValues(&w.paths[j])
			sums.add(&v, out.held)
		}
		w.pixelExtras(i, spp, out)
		out.pixel(px, &sums, &w.pixel)
	}
}

// layerValues is what a path adds to each film layer, channel by channel
// (kernel.SampleOf, and the emulator's SIMT efficiency).
func layerValues(p *pathState) (v [render.NumLayers][3]float32) {
	s := kernel.SampleOf(&p.Path)
	set3 := func(l render.Layer, x scene.Vec3) { v[l] = [3]float32{x.X, x.Y, x.Z} }
	set3(render.LayerBeauty, s.Beauty)
	set3(render.LayerDiffuse, s.Diffuse)
	set3(render.LayerSpecular, s.Specular)
	set3(render.LayerDiffuseAlbedo, s.DiffAlbedo)
	set3(render.LayerSpecularAlbedo, s.SpecAlbedo)
	set3(render.LayerAlbedo, s.Albedo)
	set3(render.LayerNormal, s.Normal)
	v[render.LayerDepth][0] = s.Depth
	v[render.LayerLumSq][0] = s.LumSq
	v[render.LayerDiffuseLumSq][0] = s.DiffLumSq
	v[render.LayerSpecularLumSq][0] = s.SpecLumSq
	v[render.LayerCost][0] = s.Cost
	v[render.LayerPathLength][0] = s.PathLength
	v[render.LayerSIMT][0] = p.simt / float32(p.Bounce+1) // the waves it was in
	return v
}

// pixelSums are one pixel's sums over a pass: the exact layers' 128-bit
// sums in their units (render.QuantizeLayer) and the statistics' plain
// sums.
type pixelSums struct {
	hi, lo [render.NumLayers][3]int64
	plain  [render.NumLayers]float64
}

// add adds a path's layerValues to the layers held.
func (a *pixelSums) add(v *[render.NumLayers][3]float32, held render.Layers) {
	for l, info := range render.FilmLayers {
		switch {
		case !held.Has(render.Layer(l)):
			continue
		case !info.Exact:
			a.plain[l] += float64(v[l][0])
			continue
		}
		for c := range info.Channels {
			hi, lo := render.QuantizeLayer(render.Layer(l), v[l][c])
			render.AddFixed(&a.hi[l][c], &a.lo[l][c], hi, lo)
		}
	}
}

// store writes the pixel's sums into pass buffers that hold nothing of
// this pass for it yet (each pixel belongs to one tile).
func (a *pixelSums) store(out *render.Film, px int) {
	for l, info := range render.FilmLayers {
		sums := &out.Sums[l]
		switch {
		case sums.Len() == 0:
			// a layer no output asked for
		case info.Exact:
			for c := range info.Channels {
				sums.StoreFixed(info.Channels*px+c, a.hi[l][c], a.lo[l][c])
			}
		default:
			sums.Plain[px] = a.plain[l]
		}
	}
}

// addTo adds the pixel's sums to film's pixel px, which other goroutines'
// tiles do not hold.
func (a *pixelSums) addTo(film *render.Film, px int) {
	for l, info := range render.FilmLayers {
		sums := &film.Sums[l]
		switch {
		case sums.Len() == 0:
		case info.Exact:
			for c := range info.Channels {
				sums.AddShared(info.Channels*px+c, a.hi[l][c], a.lo[l][c])
			}
		default:
			sums.Plain[px] += a.plain[l]
		}
	}
}
