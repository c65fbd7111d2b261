package cpu

import (
	"math"

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
}

// alive is whether the path goes on to trace another ray.
func (p *pathState) alive() bool { return p.Alive != 0 }

// end stops the path.
func (p *pathState) end() { p.Alive = 0 }

// ray is the ray the path traces next.
func (p *pathState) ray() Ray {
	return Ray{Origin: p.Origin, Dir: p.Dir, TMax: float32(math.Inf(1))}
}

// renderer is what every worker shares, read-only, for one render.
type renderer struct {
	sc          *scene.Scene
	acc         *Accel
	lights      *lightSampler
	opts        render.Options
	cam         render.CameraRays
	filter      *render.PixelFilter
	forward     scene.Vec3
	sbt         [sbtSize]shader
	hitGroups   []uint8 // per instance
	reorderBits int     // −1: no reordering
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
	surface    surface            // the shading point closestHit works on
	light      kernel.LightSample // and its light sample
}

func newRenderer(sc *scene.Scene, acc *Accel, opts render.Options) *renderer {
	r := &renderer{sc: sc, acc: acc, opts: opts, reorderBits: opts.Reorder.HintBits()}
	r.cam = render.NewCameraRays(sc.Cameras[opts.Camera], opts.Width, opts.Height)
	r.filter = opts.Filter
	if r.filter == nil {
		r.filter, _ = render.NewPixelFilter("box")
	}
	r.forward = r.cam.Forward()
	r.lights = newLightSampler(acc, environment{color: scene.V3(opts.EnvColor), hdr: opts.EnvMap})
	r.sbt[sbtMiss] = miss
	for g := range layout.HitGroupCount {
		r.sbt[sbtHitGroup+int(g)] = closestHit // one Go shader: the surface and the hair BSDF alike
	}
	r.hitGroups = make([]uint8, len(sc.Instances))
	for i := range sc.Instances {
		r.hitGroups[i] = hitGroup(sc, &sc.Instances[i])
	}
	return r
}

// random is the path's number in a dimension (layout.Dim*) at its bounce.
func (w *worker) random(p *pathState, dim uint32) float32 {
	return w.streamKeys(p).Random(p.SampleIndex, dim)
}

// random2 is the path's two numbers of a pair of dimensions (layout.Pair*).
func (w *worker) random2(p *pathState, pair uint32) (float32, float32) {
	return w.streamKeys(p).Random2(p.SampleIndex, pair)
}

// streamKeys are the keys of the path's pixel at its bounce, made once for
// all the pixel's paths in the wave (they are at the same bounce).
func (w *worker) streamKeys(p *pathState) *kernel.StreamKeys {
	k := &w.streams[p.keySlot]
	k.Set(p.Pixel, p.Bounce, w.r.opts.Seed)
	return k
}

// absorb applies Beer–Lambert absorption over a distance t inside the
// path's medium (KHR_materials_volume's attenuation colour and distance).
func (r *renderer) absorb(p *pathState, t float32) {
	p.Throughput = p.Throughput.Mul3(r.transmittance(p, t))
}

// transmittance is what the path's medium lets through over distance t
// (one path is in one medium at a time: nested volumes are not tracked).
func (r *renderer) transmittance(p *pathState, t float32) scene.Vec3 {
	if p.Medium < 0 {
		return scene.Vec3{X: 1, Y: 1, Z: 1}
	}
	m := &r.sc.Materials[p.Medium]
	if math.IsInf(float64(m.AttenuationDistance), 1) {
		return scene.Vec3{X: 1, Y: 1, Z: 1}
	}
	channel := func(color float32) float32 {
		if sigma := -math.Log(float64(max(color, 1e-6))) / float64(m.AttenuationDistance); sigma > 0 {
			return float32(math.Exp(-sigma * float64(t)))
		}
		return 1
	}
	c := m.AttenuationColor
	return scene.Vec3{X: channel(c.X), Y: channel(c.Y), Z: channel(c.Z)}
}

func miss(w *worker, p *pathState, _ *HitObject) {
	w.r.absorb(p, float32(math.Inf(1)))
	env := w.r.lights.env.radiance(p.Dir)
	weight := float32(1)
	if p.Bounce > 0 && p.PrevPdf > 0 {
		weight = kernel.PowerHeuristic(p.PrevPdf, kernel.PdfEnvironment(w.r.lights, p.Dir))
	}
	kernel.AddLight(&p.Path, p.Throughput.Mul3(env).Scale(weight))
	p.end()
}

// closestHit shades a surface: emission (MIS-weighted against light
// sampling), next-event estimation, then a BSDF sample for the next ray,
// with Russian roulette after three bounces.
func closestHit(w *worker, p *pathState, h *HitObject) {
	r := w.r
	r.absorb(p, h.Hit.T)
	s := &w.surface
	r.acc.shade(s, &h.Hit, &h.Ray)
	wo := h.Ray.Dir.Scale(-1)
	woLocal := s.frame.ToLocal(wo)
	// What the first hit's albedos, the light sample and the next direction
	// need of wo, computed once a hit, and only when one of them is taken.
	var terms kernel.WoTerms
	haveTerms := false
	if p.Bounce == 0 {
		p.Albedo, p.Normal, p.Depth = s.albedo, s.frame.N, h.Hit.T*h.Ray.Dir.Dot(r.forward)
		if s.aovNormal != (scene.Vec3{}) {
			p.Normal = s.aovNormal
		}
		if s.isHair {
			p.DiffAlbedo = s.albedo
		} else if !s.unlit { // an unlit surface reflects nothing: its light is the camera's direct view
			terms, haveTerms = s.bsdf.Terms(woLocal), true
			p.DiffAlbedo, p.SpecAlbedo = s.bsdf.AlbedosWith(&terms, woLocal)
		}
	}
	if s.emit != (scene.Vec3{}) {
		weight := float32(1)
		if p.Bounce > 0 && p.PrevPdf > 0 {
			weight = kernel.PowerHeuristic(p.PrevPdf, kernel.PdfEmitter(r.lights, int(h.Hit.Instance), int(h.Hit.Prim), h.Hit.T, s.ng.Dot(wo), h.Ray.Origin))
		}
		kernel.AddLight(&p.Path, p.Throughput.Mul3(s.emit).Scale(weight))
	}
	if s.unlit || int(p.Bounce) >= r.opts.MaxDepth {
		p.end()
		return
	}
	// A dispersive interface refracts by the path's one wavelength, which
	// the first such interface picks (DimBSDFW: surfaces do not use it)
	// and weighs the throughput by.
	if !s.isHair && s.mat.Dispersion > 0 && s.bsdf.Transmission > 0 && !s.bsdf.Thin {
		if p.Wavelength == 0 {
			p.Wavelength = kernel.SampleWavelength(w.random(p, layout.DimBSDFW))
			p.Throughput = p.Throughput.Mul3(kernel.WavelengthWeights(p.Wavelength))
		}
		n := kernel.DispersionIOR(kernel.GlassIOR(s.mat), s.mat.Dispersion, p.Wavelength)
		if s.front {
			s.bsdf.Eta = n
		} else {
			s.bsdf.Eta = 1 / n
		}
		haveTerms = false // the glass's terms depend on its index
	}
	if !s.isHair && !haveTerms && woLocal.Z > 0 { // (below the surface the BSDF reads none)
		terms = s.bsdf.Terms(woLocal)
	}
	p.Events = 0
	// Next-event estimation. Surfaces reflect only (light from below the
	// geometric surface cannot reach them); hair also transmits.
	pick, coin := w.random2(p, layout.PairLightPick)
	lu, lv := w.random2(p, layout.PairLightPoint)
	ls := &w.light
	if kernel.SampleLight(r.lights, ls, s.p, pick, coin, lu, lv) && (s.transmits() || ls.Wi.Dot(s.ng) > 0) {
		var f scene.Vec3
		var pdfB float32
		wiL := s.frame.ToLocal(ls.Wi)
		if s.isHair {
			f, pdfB = s.hair.Eval(woLocal, wiL)
		} else {
			f, pdfB = s.bsdf.EvalWith(&terms, woLocal, wiL)
		}
		if f != (scene.Vec3{}) {
			p.Events |= layout.EventLight
			shadow := Ray{Origin: s.originToward(ls.Wi), Dir: ls.Wi, TMax: ls.Dist * layout.ShadowRayEnd}
			w.rays.Shadow++
			p.Rays++
			contrib := p.Throughput.Mul3(f).Mul3(ls.Radiance).Mul3(r.transmittance(p, ls.Dist))
			if !ls.Delta {
				contrib = contrib.Scale(kernel.PowerHeuristic(ls.Pdf, pdfB) / ls.Pdf)
			}
			share := p.Split
			if p.Bounce == 0 {
				share = kernel.DiffuseShare(s.isHair, p.DiffAlbedo, wiL, f)
			}
			w.queueShadow(p, shadow, contrib, share) // traced with the wave's others, after shading
		}
	}
	// The next direction.
	var wiLocal, weight scene.Vec3
	var pdf float32
	var ok bool
	if s.isHair {
		lobe, azimuth := w.random2(p, layout.PairLobe)
		u, v := w.random2(p, layout.PairBSDF)
		wiLocal, weight, pdf, ok = s.hair.Sample(woLocal, lobe, u, v, azimuth)
	} else {
		u, v := w.random2(p, layout.PairBSDF)
		var lobe float32 // a Lambertian BSDF has one lobe: its number is not drawn
		if !s.bsdf.Lambertian() {
			lobe = w.random(p, layout.DimLobe)
		}
		wiLocal, weight, pdf, ok = s.bsdf.SampleWith(&terms, woLocal, lobe, u, v)
	}
	wi := s.frame.ToWorld(wiLocal)
	// The geometric surface decides which side the path goes on; a sample
	// that the shading frame puts on the other side is dropped.
	crosses := wi.Dot(s.ng) < 0
	if !ok || (!s.transmits() && crosses) || (!s.isHair && crosses != (wiLocal.Z < 0)) {
		p.end()
		return
	}
	// Passing through a volume's boundary enters or leaves its medium.
	if !s.isHair && crosses && s.mat.Flags&layout.MatVolume != 0 {
		if s.front {
			p.Medium = int32(r.sc.Instances[h.Hit.Instance].Material)
		} else {
			p.Medium = -1
		}
	}
	if !s.isHair && crosses && s.bsdf.Transmission > 0 && !s.bsdf.GlassThin() { // refracted (diffuse transmission does not bend)
		p.EtaScale *= s.bsdf.Eta * s.bsdf.Eta
	}
	if p.Bounce == 0 {
		p.Split = kernel.DiffuseShare(s.isHair, p.DiffAlbedo, wiLocal, weight.Scale(pdf)) // f·|cos|
	}
	origin := s.originToward(wi)
	p.Throughput = p.Throughput.Mul3(weight)
	p.PrevPdf = pdf
	p.Origin, p.Dir = origin, wi
	if p.Bounce >= layout.RouletteStart {
		rr := p.Throughput.Scale(p.EtaScale)
		q := max(layout.RouletteFloor, 1-max(rr.X, rr.Y, rr.Z))
		if w.random(p, layout.DimRoulette) < q {
			p.end()
			return
		}
		p.Throughput = p.Throughput.Scale(1 / (1 - q))
		p.Events |= layout.EventRoulette
	}
	p.Bounce++
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
				*p = pathState{Path: layout.Path{Pixel: uint32(y*r.opts.Width + x), SampleIndex: uint32(first + s), Throughput: scene.Vec3{X: 1, Y: 1, Z: 1}, Alive: 1, Medium: -1, EtaScale: 1}, keySlot: int32(k / spp)}
				rx, ry := w.random2(p, layout.PairPixel)
				jx, jy := r.filter.Sample(rx), r.filter.Sample(ry)
				o, d := r.cam.Ray(float32(x)+0.5+jx, float32(y)+0.5+jy)
				if r.cam.Lens() {
					lu, lv := w.random2(p, layout.PairLens)
					o, d = r.cam.LensRay(o, d, lu, lv)
				}
				p.Origin, p.Dir = o, d
				k++
			}
		}
	}
	n = k // less the pixels a cut pass finished
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
		if r.reorderBits >= 0 {
			w.Reorder(order, r.reorderBits)
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
		out.pixel(px, &sums)
	}
}

// layerValues is what a path adds to each film layer, channel by channel.
func layerValues(p *pathState) (v [render.NumLayers][3]float32) {
	set3 := func(l render.Layer, x scene.Vec3) { v[l] = [3]float32{x.X, x.Y, x.Z} }
	set3(render.LayerBeauty, finite3(p.Radiance)) // never let one bad sample poison a pixel
	set3(render.LayerDiffuse, finite3(p.Diffuse))
	set3(render.LayerSpecular, finite3(p.Specular))
	set3(render.LayerDiffuseAlbedo, p.DiffAlbedo)
	set3(render.LayerSpecularAlbedo, p.SpecAlbedo)
	set3(render.LayerAlbedo, p.Albedo)
	set3(render.LayerNormal, p.Normal)
	v[render.LayerDepth][0] = p.Depth
	v[render.LayerLumSq][0] = lumSq(p.Radiance)
	v[render.LayerDiffuseLumSq][0] = lumSq(p.Diffuse)
	v[render.LayerSpecularLumSq][0] = lumSq(p.Specular)
	v[render.LayerCost][0] = float32(p.Rays) // whole numbers, exact in float32
	v[render.LayerPathLength][0] = float32(p.Bounce)
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

// lumSq is the squared luminance of a sample (0 for a bad one).
func lumSq(v scene.Vec3) float32 {
	l := finiteOr0(kernel.Luminance(v))
	return l * l
}

// finite3 is v with its NaN and infinite components 0.
func finite3(v scene.Vec3) scene.Vec3 {
	return scene.Vec3{X: finiteOr0(v.X), Y: finiteOr0(v.Y), Z: finiteOr0(v.Z)}
}

func finiteOr0(v float32) float32 {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return 0
	}
	return v
}
