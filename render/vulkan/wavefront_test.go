package vulkan

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"sertrace/internal/longtest"
	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// TestSortIsAPermutationGroupedByKey runs the first bounce's trace and sort
// on the particle cloud (a hundred materials) on both wavefronts, for each
// reordering scheme, and reads the sorted queue back: it holds every live
// path exactly once, its keys never decrease, each key's bin is as large as
// the hits with that key, and the keys order the hits as the CPU
// emulator's Reorder does (shader, then the hint's low bits).
func TestSortIsAPermutationGroupedByKey(t *testing.T) {
	longtest.Skip(t)
	sc, err := scene.Load("../../scenes/particles.glb")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{PathRayQuery, PathRTSorted, PathRayQuery + "/plain", PathRTSorted + "/plain"} {
		path, plain := strings.CutSuffix(run, "/plain")
		t.Run(run, func(t *testing.T) {
			if plain { // launches over every slot, an atomic a path (SERTRACE_WAVEFRONT=plain)
				t.Setenv("SERTRACE_WAVEFRONT", "plain")
			}
			dev := deviceFor(t, path)
			d, err := openDevice(path, dev.Index, true)
			if err != nil {
				t.Fatal(err)
			}
			defer d.destroy()
			// The renderer's counters are sized for the scheme with the most keys.
			most, _ := render.ParseReorder("coherence:16")
			opts := render.Options{Width: 24, Height: 16, SPP: 1, MaxDepth: 2, EnvColor: [3]float32{1, 1, 1}, Reorder: most}
			r, err := newRenderer(d, sc, opts, path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.destroy()
			for _, scheme := range []string{"coherence:16", "material:16", "material:4", "coherence:6", "shader"} {
				// Bounce 0 sorts every path, with no events yet; bounce 1
				// the survivors of a shading, whose events (light sampled,
				// roulette survived) the coherence bits read, from a
				// compacted queue.
				for bounce := range 2 {
					t.Run(fmt.Sprintf("%s/bounce%d", scheme, bounce), func(t *testing.T) { checkSort(t, d, r, scheme, bounce) })
				}
			}
		})
	}
}

// checkSort runs the bounces before bounce whole, then bounce's trace and
// sort, for a scheme, and checks what the sorted queue holds.
func checkSort(t *testing.T, d *device, r *renderer, scheme string, bounce int) {
	reorder, err := render.ParseReorder(scheme)
	if err != nil {
		t.Fatal(err)
	}
	w := r.wave
	spp := 2
	paths := r.opts.Width * r.opts.Height * spp
	r.params.Samples, r.params.PathCount, r.params.SortOn = uint32(spp), uint32(paths), 1
	r.params.ReorderBits, r.params.HintFlags = reorder.Hint()
	r.params.KeyCount, r.params.KeyMaterials = kernel.SortKeySpace(r.params.ReorderBits, r.params.HintFlags, uint32(len(r.p.materials)))
	copy(r.pbuf.data, unsafe.Slice((*byte)(unsafe.Pointer(&r.params)), unsafe.Sizeof(r.params)))
	if err := d.begin(); err != nil {
		t.Fatal(err)
	}
	w.resetCounters(d, r, paths)
	push := wavefrontPush{params: r.pbuf.addr}
	w.dispatch(d, "wave_generate.comp", &push, paths)
	w.barrier(d)
	for b := 0; b <= bounce; b++ {
		push.bounce = uint32(b)
		w.trace(d, &push, paths)
		w.sort(d, &push)
		if b < bounce {
			w.shade(d, &push, paths)
		}
	}
	d.barrier(stageComputeShader, accessShaderWrite, stageHost, accessHostRead)
	if err := d.submit(); err != nil {
		t.Fatal(err)
	}
	if err := ValidationErrors(); err != nil {
		t.Fatal(err)
	}
	if w.counters.data == nil {
		t.Skip("the counters are not host-visible on this device")
	}
	counters := unsafe.Slice((*uint32)(unsafe.Pointer(&w.counters.data[0])), len(w.counters.data)/4)
	live := int(counters[layout.CounterLive])
	queue := readBack[uint32](d, map[bool]uint64{true: r.params.QueueA, false: r.params.QueueB}[bounce%2 == 0], paths)[:live]
	sorted := readBack[uint32](d, r.params.Sorted, paths)[:live]
	hits := readBack[layout.Hit](d, r.params.Hits, paths)
	pathStates := readBack[layout.Path](d, r.params.Paths, paths)
	if bounce == 0 && live != paths || bounce > 0 && (live == paths || live < paths/4) {
		t.Fatalf("bounce %d: %d of %d paths live: the test checks little", bounce, live, paths)
	}
	isLive := make([]bool, paths)
	bins := map[uint32]int{}
	events := map[uint32]bool{}
	for _, p := range queue {
		isLive[p] = true
		bins[hits[p].Key]++
		events[pathStates[p].Events&3] = true
	}
	least := map[string]int{"shader": 2, "coherence:6": 8}[scheme] // the keys the scheme can tell apart here
	if least == 0 {
		least = 10
	}
	if len(bins) < least {
		t.Fatalf("only %d distinct keys among %d hits: the test checks little", len(bins), live)
	}
	if bounce > 0 && len(events) < 2 {
		t.Fatalf("bounce %d: the live paths' events are all %v: the coherence bits check little", bounce, events)
	}
	seen := make([]bool, paths)
	// The emulator's key: the SBT record (a miss 0, hit groups from 1),
	// then the hint's low bits.
	bits := reorder.HintBits()
	emulated := func(p uint32) uint64 {
		h := hits[p]
		if h.Instance == layout.MissInstance {
			return emulatedKey(0, 0, true, pathStates[p].Events, reorder, bits)
		}
		in := r.p.instances[h.Instance]
		return emulatedKey(1+in.HitGroup, in.Material, false, pathStates[p].Events, reorder, bits)
	}
	prev := uint32(0)
	for i, p := range sorted {
		if int(p) >= paths || seen[p] || !isLive[p] {
			t.Fatalf("slot %d: path %d out of range, repeated or not live", i, p)
		}
		seen[p] = true
		k := hits[p].Key
		if k < prev {
			t.Fatalf("slot %d: key %d after %d", i, k, prev)
		}
		if i > 0 {
			q := sorted[i-1]
			if a, b := emulated(q), emulated(p); (a < b) != (hits[q].Key < k) || (a == b) != (hits[q].Key == k) {
				t.Fatalf("slots %d, %d: keys %d, %d where the emulator's are %#x, %#x", i-1, i, hits[q].Key, k, a, b)
			}
		}
		prev = k
	}
	keys := int(r.params.KeyCount)
	cursors := counters[layout.CounterKeys+keys : layout.CounterKeys+2*keys]
	start := uint32(0)
	for k := 0; k < keys; k++ {
		// After the scatter each cursor stands at its bin's end.
		start += uint32(bins[uint32(k)])
		if cursors[k] != start {
			t.Fatalf("key %d: bin ends at %d, want %d", k, cursors[k], start)
		}
	}
}

// emulatedKey is render/cpu's reorder key (worker.Reorder and hint): the
// SBT record above the hint's low bits, the coherence bits at the hint's top.
func emulatedKey(sbt, material uint32, miss bool, events uint32, o render.Reorder, bits int) uint64 {
	hint := material
	if o.Mode == render.ReorderCoherence && bits > layout.CoherenceBits {
		low := bits - layout.CoherenceBits
		c := events & 3 << 1
		if miss {
			c |= 1
		}
		hint = hint&(1<<low-1) | c<<low
	}
	return uint64(sbt)<<32 | uint64(hint&(1<<bits-1))
}

// readBack copies n elements from the buffer at device address addr.
func readBack[T any](d *device, addr uint64, n int) []T {
	for _, b := range d.buffers {
		if b.addr == addr {
			out := make([]T, n)
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(out)*int(unsafe.Sizeof(out[0]))), b.data)
			return out
		}
	}
	panic("no buffer at that address")
}
