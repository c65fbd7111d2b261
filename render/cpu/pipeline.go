package cpu

import (
	"cmp"
	"slices"

	"sertrace/render"
	"sertrace/scene"
)

// The emulated ray-tracing pipeline (DESIGN.md, "The emulated pipeline"):
// TraceRay fills a HitObject, Reorder permutes a wave of them the way
// reorderThreadNV does, ExecuteShader runs the closest-hit or miss shader
// that the hit object's shader-binding-table index names.

// Shader-binding-table indices: the miss shader, then the GPU pipeline's
// hit groups (render.HitGroup), in its order.
const (
	sbtMiss     = 0
	sbtHitGroup = 1 // + render.HitGroup
	sbtSize     = sbtHitGroup + int(render.HitGroupCount)
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

// TraceRay traces a path's ray into its hit object.
func (w *worker) TraceRay(p *pathState, h *HitObject) {
	h.Ray, h.Live = p.ray, true
	hit, ok := w.r.acc.Intersect(&p.ray)
	h.Hit = hit
	h.SBT = sbtMiss
	if ok {
		h.SBT = w.r.hitGroups[hit.Instance]
	} else {
		h.Hit.Instance = -1
	}
}

// hint is the coherence hint of a hit object: its material (misses: 0),
// and with ReorderCoherence, above the material's bits, whether the path
// ends here (a miss), survived Russian roulette and sampled a light at its
// last vertex (the shaders' raygen does the same).
func (w *worker) hint(h *HitObject, p *pathState, bits int) uint32 {
	var hint uint32
	if h.Hit.Instance >= 0 {
		hint = uint32(w.r.sc.Instances[h.Hit.Instance].Material)
	}
	if w.r.opts.Reorder == render.ReorderCoherence && bits > render.CoherenceBits {
		low := bits - render.CoherenceBits
		var c uint32
		if h.Hit.Instance < 0 {
			c = 1
		}
		c |= uint32(p.events&3) << 1
		hint = hint&(1<<low-1) | c<<low
	}
	return hint
}

// Reorder sorts the wave's path indices as reorderThreadNV(hitObject, hint,
// bits) groups threads: by shader first, then by the hint's low bits, most
// significant bit first; it is stable, so ties keep their order.
func (w *worker) Reorder(order []int32, bits int) {
	mask := uint32(1)<<bits - 1 // bits 0: by shader only
	if bits >= 32 {
		mask = ^uint32(0)
	}
	keys := w.keys[:len(w.hits)]
	for _, i := range order {
		keys[i] = uint64(w.hits[i].SBT)<<32 | uint64(w.hint(&w.hits[i], &w.paths[i], bits)&mask)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
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

// count adds the warps of the launch-order slots (live tells which lanes
// run) and of the reordered live paths.
func (w *worker) count(s *simt, live []bool, order []int32) {
	var shaders [sbtSize]bool
	countWarp := func(slots []int32, isLive func(int32) bool) (passes, materials int64, active int) {
		clear(shaders[:])
		mats := w.matSeen[:0]
		for _, i := range slots {
			if !isLive(i) {
				continue
			}
			active++
			h := &w.hits[i]
			if !shaders[h.SBT] {
				shaders[h.SBT] = true
				passes++
			}
			m := int32(-1)
			if h.Hit.Instance >= 0 {
				m = int32(w.r.sc.Instances[h.Hit.Instance].Material)
			}
			if !slices.Contains(mats, m) {
				mats = append(mats, m)
			}
		}
		w.matSeen = mats
		return passes, int64(len(mats)), active
	}
	slots := w.slots[:0]
	for i := range live {
		slots = append(slots, int32(i))
	}
	w.slots = slots
	for lo := 0; lo < len(slots); lo += warpSize {
		warp := slots[lo:min(lo+warpSize, len(slots))]
		p, m, active := countWarp(warp, func(i int32) bool { return live[i] })
		if active > 0 {
			s.warps++
			s.passes += p
			s.materialsWarp += m
			// Each live path records its warp's efficiency, for the heatmap.
			e := float32(active) / float32(warpSize*p)
			for _, i := range warp {
				if live[i] {
					w.paths[i].simt += e
				}
			}
		}
	}
	for lo := 0; lo < len(order); lo += warpSize {
		p, m, _ := countWarp(order[lo:min(lo+warpSize, len(order))], func(int32) bool { return true })
		s.warpsAfter++
		s.passesAfter += p
		s.materialsWarpAfter += m
	}
	s.paths += int64(len(order))
}
