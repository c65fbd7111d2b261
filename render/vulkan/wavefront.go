package vulkan

import (
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"sertrace/render/layout"
)

// wavefront is the ray-query path: compute pipelines for the stages of a
// bounce — trace by ray query, sort the hits by material (a counting sort:
// count, scan, scatter), shade, compact — and the buffers they share.
type wavefront struct {
	layout    vk.PipelineLayout
	modules   []vk.ShaderModule
	pipelines map[string]vk.Pipeline
	counters  *buffer
	times     vk.QueryPool
	maxPaths  int
}

// Stage times of a launch, summed over its bounces.
type stageTimes struct {
	trace, sort, shade time.Duration
}

// wavefrontPush is the stages' push constant.
type wavefrontPush struct {
	params uint64
	bounce uint32
	pad    uint32
}

func (d *device) newWavefront(r *renderer, maxPaths int) (w *wavefront, err error) {
	w = &wavefront{pipelines: map[string]vk.Pipeline{}, maxPaths: maxPaths}
	defer func() {
		if err != nil {
			w.destroy(d)
			w = nil
		}
	}()
	if w.layout, err = d.pushLayout(stageCompute, int(unsafe.Sizeof(wavefrontPush{}))); err != nil {
		return nil, err
	}
	for _, name := range wavefrontModules {
		m, err := d.shaderModule(name)
		if err != nil {
			return nil, err
		}
		w.modules = append(w.modules, m)
		if w.pipelines[name], err = d.computePipeline(name, m, w.layout); err != nil {
			return nil, err
		}
	}
	p := &r.params
	keys := len(r.p.materials) + 1
	p.KeyCount = uint32(keys)
	bufs := []struct {
		addr *uint64
		size int
	}{{&p.Paths, maxPaths * int(unsafe.Sizeof(layout.Path{}))}, {&p.Hits, maxPaths * int(unsafe.Sizeof(layout.Hit{}))},
		{&p.QueueA, 4 * maxPaths}, {&p.QueueB, 4 * maxPaths}, {&p.Sorted, 4 * maxPaths}}
	for _, b := range bufs {
		buf, err := d.newBuffer(uint64(b.size), 0, memDevice, false)
		if err != nil {
			return nil, err
		}
		*b.addr = buf.addr
	}
	counters, err := d.newBuffer(uint64(4*(layout.CounterKeys+2*keys)), usageIndirect, memDevice, false)
	if err != nil {
		return nil, err
	}
	w.counters, p.Counters = counters, counters.addr
	bounces := r.opts.MaxDepth + 1
	if w.times, err = d.newTimestampPool(4 * bounces); err != nil {
		return nil, err
	}
	return w, nil
}

// dispatch runs a stage over n invocations, in groups laid out in 2D (one
// dimension holds at most 65535 groups on many devices; rq_common.glsl's
// flatIndex undoes the layout).
func (w *wavefront) dispatch(d *device, name string, push *wavefrontPush, n int) {
	vk.CmdBindPipeline(d.cmd, vk.PipelineBindPointCompute, w.pipelines[name])
	vk.CmdPushConstants(d.cmd, w.layout, stageCompute, 0, uint32(unsafe.Sizeof(*push)), unsafe.Pointer(push))
	x, y := groupsFor(n)
	vk.CmdDispatch(d.cmd, x, y, 1)
}

// groupsFor is rq_common.glsl's groupsFor: a 2D group count covering n.
func groupsFor(n int) (x, y uint32) {
	groups := (n + layout.WavefrontGroup - 1) / layout.WavefrontGroup
	gx := min(groups, 65535)
	if gx == 0 {
		return 0, 1
	}
	return uint32(gx), uint32((groups + gx - 1) / gx)
}

func (w *wavefront) dispatchIndirect(d *device, name string, push *wavefrontPush) {
	vk.CmdBindPipeline(d.cmd, vk.PipelineBindPointCompute, w.pipelines[name])
	vk.CmdPushConstants(d.cmd, w.layout, stageCompute, 0, uint32(unsafe.Sizeof(*push)), unsafe.Pointer(push))
	vk.CmdDispatchIndirect(d.cmd, w.counters.handle, vk.DeviceSize(4*layout.CounterDispatch))
}

// computeBarrier orders one stage's buffer writes before the next stage's
// reads, indirect arguments included.
func computeBarrier(d *device) {
	d.barrier(stageComputeShader, accessShaderWrite, stageComputeShader|stageDrawIndirect, accessShaderRead|accessShaderWrite|accessIndirectCommandRead)
}

// launch runs spp samples per pixel from sample first through the
// wavefront: all bounces in one submission, the queues and their counts
// staying on the device.
func (w *wavefront) launch(r *renderer, first, spp int) (time.Duration, stageTimes, error) {
	d := r.d
	n := r.opts.Width * r.opts.Height
	paths := n * spp
	r.params.FirstSample, r.params.Samples, r.params.PathCount = uint32(first), uint32(spp), uint32(paths)
	copy(r.pbuf.data, unsafe.Slice((*byte)(unsafe.Pointer(&r.params)), unsafe.Sizeof(r.params)))
	if err := d.begin(); err != nil {
		return 0, stageTimes{}, err
	}
	w.resetCounters(d, r, paths)
	bounces := r.opts.MaxDepth + 1
	vk.CmdResetQueryPool(d.cmd, w.times, 0, uint32(4*bounces))
	push := wavefrontPush{params: r.pbuf.addr}
	w.dispatch(d, "rq_generate.comp", &push, paths)
	computeBarrier(d)
	for b := 0; b < bounces; b++ {
		push.bounce = uint32(b)
		q := uint32(4 * b)
		vk.CmdWriteTimestamp(d.cmd, vk.PipelineStageComputeShaderBit, w.times, q)
		w.dispatchIndirect(d, "rq_trace.comp", &push)
		computeBarrier(d)
		vk.CmdWriteTimestamp(d.cmd, vk.PipelineStageComputeShaderBit, w.times, q+1)
		if r.params.SortOn != 0 {
			w.dispatch(d, "rq_scan.comp", &push, 1)
			computeBarrier(d)
			w.dispatchIndirect(d, "rq_scatter.comp", &push)
			computeBarrier(d)
		}
		vk.CmdWriteTimestamp(d.cmd, vk.PipelineStageComputeShaderBit, w.times, q+2)
		w.dispatchIndirect(d, "rq_shade.comp", &push)
		computeBarrier(d)
		w.dispatch(d, "rq_advance.comp", &push, 1)
		computeBarrier(d)
		vk.CmdWriteTimestamp(d.cmd, vk.PipelineStageComputeShaderBit, w.times, q+3)
	}
	w.dispatch(d, "rq_resolve.comp", &push, n)
	d.barrier(stageComputeShader, accessShaderWrite, stageHost, accessHostRead)
	if err := d.submit(); err != nil {
		return 0, stageTimes{}, err
	}
	ts, err := d.queryResults(w.times, 4*bounces)
	if err != nil {
		return 0, stageTimes{}, err
	}
	var st stageTimes
	dur := func(a, b uint64) time.Duration { return d.elapsed(a, b, r.tick) }
	for b := 0; b < bounces; b++ {
		t := ts[4*b : 4*b+4]
		st.trace += dur(t[0], t[1])
		st.sort += dur(t[1], t[2])
		st.shade += dur(t[2], t[3])
	}
	return dur(ts[0], ts[4*bounces-1]), st, nil
}

// resetCounters records the clearing of the film and the counters, and the
// first bounce's live count and dispatch size, before the stages run.
func (w *wavefront) resetCounters(d *device, r *renderer, paths int) {
	vk.CmdFillBuffer(d.cmd, r.film.handle, 0, vk.DeviceSize(vk.WholeSize), 0)
	vk.CmdFillBuffer(d.cmd, w.counters.handle, 0, vk.DeviceSize(vk.WholeSize), 0)
	d.barrier(stageTransfer, accessTransferWrite, stageTransfer, accessTransferWrite)
	gx, gy := groupsFor(paths)
	head := []uint32{uint32(paths), 0, gx, gy, 1} // live, next, dispatch x, y, z
	vk.CmdUpdateBuffer(d.cmd, w.counters.handle, 0, vk.DeviceSize(4*len(head)), &head[0])
	d.barrier(stageTransfer, accessTransferWrite, stageComputeShader|stageDrawIndirect, accessShaderRead|accessShaderWrite|accessIndirectCommandRead)
}

func (w *wavefront) destroy(d *device) {
	if w == nil {
		return
	}
	for _, p := range w.pipelines {
		vk.DestroyPipeline(d.handle, p, nil)
	}
	for _, m := range w.modules {
		vk.DestroyShaderModule(d.handle, m, nil)
	}
	if w.layout != nil {
		vk.DestroyPipelineLayout(d.handle, w.layout, nil)
	}
	if w.times != nil {
		vk.DestroyQueryPool(d.handle, w.times, nil)
	}
}
