package cpu

import (
	"math/bits"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// The emulated ray-tracing pipeline (docs/design/06-cpu-backend.md):
// TraceRay fills a HitObject, Reorder permutes a wave of them the way
// reorderThreadNV does, ExecuteShader runs the closest-hit or miss shader
// that the hit object's shader-binding-table index names.

// Shader-binding-table indices: the miss shader, then the GPU pipeline's
// hit groups (layout.HitGroup), in its order.
const (
	sbtMiss     = 0
	sbtHitGroup = 1 // + layout.HitGroup
	sbtSize     = sbtHitGroup + int(layout.HitGroupCount)
)

// HitObject is what OpTypeHitObjectNV carries: a hit, a miss or nothing;
// the instance, primitive, hit kind and attributes; the ray; and the SBT
// record to run.
type HitObject struct {
	Hit  Hit // Instance −1 for a miss
	Ray  Ray
	SBT  uint8
	Live bool // false: empty (the path has ended)
}

// shader is a closest-hit or miss shader: it shades one path.
type shader func(w *worker, p *pathState, h *HitObject)

// hitGroup is the SBT index of an instance's hit group.
func hitGroup(sc *scene.Scene, in *scene.Instance) uint8 {
	return sbtHitGroup + uint8(render.HitGroupOf(sc, in))
}

// TraceRays traces the rays of the paths order names into their hit
// objects, as one stream (traceRayEXT for every thread of a launch, each
// into its own hit object); coherent says they run side by side (the
// camera's).
func (w *worker) TraceRays(order []int32, coherent bool) {
	w.traceRays = render.Grow(w.traceRays, len(order))
	w.traceHits = render.Grow(w.traceHits, len(order))
	w.traceFound = render.Grow(w.traceFound, len(order))
	for k, i := range order {
		w.traceRays[k] = w.paths[i].ray()
	}
	w.r.acc.intersectAll(w.traceRays, w.traceHits, w.traceFound, coherent, w.stacks)
	for k, i := range order {
		h := &w.hits[i]
		h.Ray, h.Live, h.Hit, h.SBT = w.traceRays[k], true, w.traceHits[k], sbtMiss
		if w.traceFound[k] {
			h.SBT = w.r.hitGroups[h.Hit.Instance]
		} else {
			h.Hit.Instance = -1
		}
	}
}

// shadowRay is a next-event estimate waiting for its visibility: the light
// it adds to its path if nothing blocks the ray.
type shadowRay struct {
	p       *layout.Path
	contrib scene.Vec3
	share   scene.Vec3
	group   uint32
}

// ShadowRay defers the shading's shadow ray to the end of the bounce, when
// the wave's shadow rays are traced together (pbrt-v4's shadow-ray queue;
// kernel.Tracer).
func (w *worker) ShadowRay(p *layout.Path, o, d scene.Vec3, tmax float32, contrib, share scene.Vec3, group uint32) {
	w.rays.Shadow++
	w.shadowRays = append(w.shadowRays, Ray{Origin: o, Dir: d, TMax: tmax})
	w.shadows = append(w.shadows, shadowRay{p: p, contrib: contrib, share: share, group: group})
}

// traceShadows traces the queued shadow rays as one stream and adds the
// light of those that reach their lights.
func (w *worker) traceShadows() {
	w.occluded = render.Grow(w.occluded, len(w.shadowRays))
	w.r.acc.occludedAll(w.shadowRays, w.occluded, w.stacks)
	for k := range w.shadows {
		if !w.occluded[k] {
			s := &w.shadows[k]
			kernel.AddShadowLight(w, s.p, s.contrib, s.share, s.group)
		}
	}
	w.shadowRays, w.shadows = w.shadowRays[:0], w.shadows[:0]
}

// Reorder sorts the wave's path indices as reorderThreadNV(hitObject, hint,
// bits) groups threads (kernel.SortKey of kernel.ReorderHint, the
// wavefronts' key): by shader first, then by the hint's low bits, most
// significant bit first; it is stable, so ties keep their order.
func (w *worker) Reorder(order []int32) {
	if len(order) == 0 {
		return
	}
	r := w.r
	keys := w.sortKeys[:len(w.hits)]
	var differ uint64 // the bits in which some keys differ from the first
	for _, i := range order {
		h := &w.hits[i]
		miss, material := h.Hit.Instance < 0, uint32(0)
		if !miss {
			material = uint32(r.sc.Instances[h.Hit.Instance].Material)
		}
		hint := kernel.ReorderHint(miss, material, w.paths[i].Events, r.reorderBits, r.hintFlags)
		keys[i] = uint64(kernel.SortKey(uint32(h.SBT), hint, r.reorderBits, r.hintFlags, r.keyMaterials))
		differ |= keys[i] ^ keys[order[0]]
	}
	w.sortBuf = render.Grow(w.sortBuf, len(order))
	radixSort(order, w.sortBuf[:len(order)], keys, differ)
}

// radixSort sorts order by keys[order[k]], stably: a counting sort per
// byte, the least significant first, of the bytes in which keys differ
// (one or two for the hints of a scene's materials). tmp is as long as
// order.
func radixSort(order, tmp []int32, keys []uint64, differ uint64) {
	src, dst := order, tmp
	for shift := uint(0); shift < 64; shift += 8 {
		if differ>>shift&0xff == 0 {
			continue
		}
		var count [256]int32
		for _, i := range src {
			count[keys[i]>>shift&0xff]++
		}
		var sum int32
		for b, c := range count {
			count[b] = sum
			sum += c
		}
		for _, i := range src {
			b := keys[i] >> shift & 0xff
			dst[count[b]] = i
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &order[0] {
		copy(order, src)
	}
}

// ExecuteShader runs the shader the hit object names.
func (w *worker) ExecuteShader(p *pathState, h *HitObject) {
	w.r.sbt[h.SBT](w, p, h)
}

// simt accumulates, for one bounce, how the wave's paths fill warps of 32.
type simt struct {
	paths, warps, passes                   int64 // launch order, ended paths idle in their lanes
	warpsAfter, passesAfter, materialsWarp int64
	materialsWarpAfter                     int64
}

const warpSize = 32

// count adds the warps of the launch (live lists the live paths by index,
// ascending: a path's lane is its index, so a warp is a run of 32 indices,
// its ended paths idle in their lanes) and of the reordered live paths.
func (w *worker) count(s *simt, live, order []int32) {
	if len(w.matStamp) < len(w.r.sc.Materials)+1 {
		w.matStamp = make([]uint32, len(w.r.sc.Materials)+1)
	}
	// countWarp counts the distinct shaders and materials of a warp's live
	// paths: a material is new to the warp when its stamp is not the warp's.
	countWarp := func(paths []int32) (shaders, materials int64) {
		w.stamp++
		if w.stamp == 0 { // wrapped: no stale stamp may match
			clear(w.matStamp)
			w.stamp = 1
		}
		var seen uint64 // shader-binding-table indices, one bit each
		for _, i := range paths {
			h := &w.hits[i]
			seen |= 1 << h.SBT
			m := 0 // misses: slot 0
			if h.Hit.Instance >= 0 {
				m = w.r.sc.Instances[h.Hit.Instance].Material + 1
			}
			if w.matStamp[m] != w.stamp {
				w.matStamp[m] = w.stamp
				materials++
			}
		}
		return int64(bits.OnesCount64(seen)), materials
	}
	for lo := 0; lo < len(live); {
		warp := live[lo] / warpSize
		hi := lo + 1
		for hi < len(live) && live[hi]/warpSize == warp {
			hi++
		}
		p, m := countWarp(live[lo:hi])
		s.warps++
		s.passes += p
		s.materialsWarp += m
		// Each live path records its warp's efficiency, for the heatmap.
		e := float32(hi-lo) / float32(warpSize*p)
		for _, i := range live[lo:hi] {
			w.paths[i].simt += e
		}
		lo = hi
	}
	for lo := 0; lo < len(order); lo += warpSize {
		p, m := countWarp(order[lo:min(lo+warpSize, len(order))])
		s.warpsAfter++
		s.passesAfter += p
		s.materialsWarpAfter += m
	}
	s.paths += int64(len(order))
}
