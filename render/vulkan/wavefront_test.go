package vulkan

import (
	"testing"
	"unsafe"

	"sertrace/render"
	"sertrace/render/layout"
	"sertrace/scene"
)

// TestSortIsAPermutationGroupedByKey runs the first bounce's trace and sort
// on the particle cloud (a hundred materials) and reads the sorted queue
// back: it holds every live path exactly once, its keys never decrease, and
// each key's bin is as large as the hits with that key.
func TestSortIsAPermutationGroupedByKey(t *testing.T) {
	dev := deviceFor(t, PathRayQuery)
	sc, err := scene.Load("../../scenes/particles.glb")
	if err != nil {
		t.Fatal(err)
	}
	d, err := openDevice(PathRayQuery, dev.Index, true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.destroy()
	opts := render.Options{Width: 24, Height: 16, SPP: 1, MaxDepth: 2, EnvColor: [3]float32{1, 1, 1}}
	r, err := newRenderer(d, sc, opts, PathRayQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer r.destroy()
	w := r.wave
	spp := 2
	paths := opts.Width * opts.Height * spp
	r.params.Samples, r.params.PathCount, r.params.SortOn = uint32(spp), uint32(paths), 1
	copy(r.pbuf.data, unsafe.Slice((*byte)(unsafe.Pointer(&r.params)), unsafe.Sizeof(r.params)))
	if err := d.begin(); err != nil {
		t.Fatal(err)
	}
	w.resetCounters(d, r, paths)
	push := wavefrontPush{params: r.pbuf.addr}
	w.dispatch(d, "rq_generate.comp", &push, paths)
	computeBarrier(d)
	w.dispatchIndirect(d, "rq_trace.comp", &push)
	computeBarrier(d)
	w.dispatch(d, "rq_scan.comp", &push, 1)
	computeBarrier(d)
	w.dispatchIndirect(d, "rq_scatter.comp", &push)
	d.barrier(stageComputeShader, accessShaderWrite, stageHost, accessHostRead)
	if err := d.submit(); err != nil {
		t.Fatal(err)
	}
	if err := ValidationErrors(); err != nil {
		t.Fatal(err)
	}
	sorted := readBack[uint32](d, r.params.Sorted, paths)
	hits := readBack[layout.Hit](d, r.params.Hits, paths)
	seen := make([]bool, paths)
	bins := map[uint32]int{}
	for _, h := range hits {
		bins[h.Key]++
	}
	if len(bins) < 10 {
		t.Fatalf("only %d distinct keys among %d hits: the test checks little", len(bins), paths)
	}
	prev := uint32(0)
	for i, p := range sorted {
		if int(p) >= paths || seen[p] {
			t.Fatalf("slot %d: path %d out of range or repeated", i, p)
		}
		seen[p] = true
		k := hits[p].Key
		if k < prev {
			t.Fatalf("slot %d: key %d after %d", i, k, prev)
		}
		prev = k
	}
	if w.counters.data == nil {
		t.Skip("the counters are not host-visible on this device")
	}
	counters := unsafe.Slice((*uint32)(unsafe.Pointer(&w.counters.data[0])), len(w.counters.data)/4)
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
