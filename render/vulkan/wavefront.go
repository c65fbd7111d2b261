package vulkan

import (
	"fmt"
	"os"
	"slices"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"sertrace/render/kernel"
	"sertrace/render/layout"
)

// wavefront runs a launch's paths a bounce at a time: trace every live
// path's ray into a hit record, sort the records by the reorder key (a
// counting sort: count, scan, scatter), shade, compact. The ray-query
// path traces and shades in compute shaders by ray queries; rt-sorted in
// two raygen launches of a ray-tracing pipeline (rt). The other stages
// are compute shaders both share, as are the buffers.
type wavefront struct {
	*waveKernels
	counters *buffer
	times    vk.QueryPool
	maxPaths int
}

// waveKernels are a path's compute pipelines, made once per device and
// kept across its renders: a wavefront's stages, or, on the rt and ser
// paths, the resolve alone (their raygen traces whole paths into the
// slots that wave_resolve sums).
type waveKernels struct {
	layout    vk.PipelineLayout
	modules   []vk.ShaderModule
	pipelines map[string]vk.Pipeline // by the plain module's name, whichever variant it runs
	rt        *pipeline              // rt-sorted's trace and shade raygens; nil on the other paths
	subgroup  bool                   // the sort's subgroup variants (subgroupSortVariants)
	indirect  bool                   // rt-sorted's launches read their size from the counters
}

// resolveModule sums each sampled pixel's paths, in sample order, into
// the film: the last stage of every path's launch.
const resolveModule = "wave_resolve.comp"

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

// The rt-sorted pipeline's raygen regions.
const (
	raygenTrace = 0
	raygenShade = 1
)

// newWaveKernels makes a path's compute pipelines (a wavefront's, or the
// resolve of the rt and ser paths), and decides how a wavefront runs:
// the sort's subgroup variants and rt-sorted's indirect launches where
// the device has them, unless SERTRACE_WAVEFRONT=plain (the kept device
// keeps both forms: kernelKey).
func (d *device) newWaveKernels(path string) (_ *waveKernels, err error) {
	plain := plainWavefront()
	k := &waveKernels{pipelines: map[string]vk.Pipeline{}, subgroup: slices.Contains(d.info.SubgroupSort, path) && !plain,
		indirect: path == PathRTSorted && d.traceIndirect && !plain}
	variant := func(name string) string {
		if k.subgroup {
			return subgroupSortName(name)
		}
		return name
	}
	defer func() {
		if err != nil {
			k.destroy(d)
		}
	}()
	if k.layout, err = d.pushLayout(stageCompute, int(unsafe.Sizeof(wavefrontPush{}))); err != nil {
		return nil, err
	}
	names := waveModules
	switch path {
	case PathRT, PathSER:
		names = []string{resolveModule}
	case PathRayQuery:
		names = append(append([]string{}, waveModules...), rayQueryModules...)
	default:
		ps := pathShaders(path, false)
		ps.raygens = []string{variant(ps.raygens[raygenTrace]), ps.raygens[raygenShade]}
		if k.rt, err = d.newPipeline(path, ps); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		m, err := d.shaderModule(variant(name))
		if err != nil {
			return nil, err
		}
		k.modules = append(k.modules, m)
		if k.pipelines[name], err = d.computePipeline(name, m, k.layout); err != nil {
			return nil, err
		}
	}
	return k, nil
}

func (k *waveKernels) destroy(d *device) {
	if k == nil {
		return
	}
	k.rt.destroy(d)
	for _, p := range k.pipelines {
		vk.DestroyPipeline(d.handle, p, nil)
	}
	for _, m := range k.modules {
		vk.DestroyShaderModule(d.handle, m, nil)
	}
	if k.layout != nil {
		vk.DestroyPipelineLayout(d.handle, k.layout, nil)
	}
}

// plainWavefront says whether SERTRACE_WAVEFRONT=plain asks for the
// wavefronts as they were before their launches and counts were made to
// pay: rt-sorted's launches over every path slot, and the sort's counts
// and scatter one atomic a path. It makes the same image; benchmarks
// measure what the rest gains by it.
func plainWavefront() bool { return os.Getenv("SERTRACE_WAVEFRONT") == "plain" }

// newSlots makes a render's slotBuffers for maxPaths paths a launch (its
// light by group: integrator.glsl's addGroupLight).
func (d *device) newSlots(r *renderer, maxPaths int, wave bool) error {
	for _, b := range slotBuffers(&r.params, wave, r.groups) {
		buf, err := d.newBuffer(b.bytes*uint64(maxPaths), 0, memDevice, false)
		if err != nil {
			return err
		}
		*b.addr = buf.addr
	}
	return nil
}

// newWavefront makes a render's wavefront: the device's kernels, and
// buffers for maxPaths paths a launch.
func (d *device) newWavefront(r *renderer, kernels *waveKernels, maxPaths int) (_ *wavefront, err error) {
	w := &wavefront{waveKernels: kernels, maxPaths: maxPaths}
	defer func() {
		if err != nil {
			w.destroy(d)
		}
	}()
	p := &r.params
	bits, flags := r.opts.Reorder.Hint()
	keyCount, materialKeys := kernel.SortKeySpace(bits, flags, uint32(len(r.p.materials)))
	p.KeyCount, p.KeyMaterials = keyCount, materialKeys
	keys := int(keyCount)
	if err := d.newSlots(r, maxPaths, true); err != nil {
		return nil, err
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
func (k *waveKernels) dispatch(d *device, name string, push *wavefrontPush, n int) {
	vk.CmdBindPipeline(d.cmd, vk.PipelineBindPointCompute, k.pipelines[name])
	vk.CmdPushConstants(d.cmd, k.layout, stageCompute, 0, uint32(unsafe.Sizeof(*push)), unsafe.Pointer(push))
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

// barrier orders one stage's buffer writes before the next stage's reads,
// indirect arguments included.
func (w *wavefront) barrier(d *device) {
	stages := stageComputeShader
	if w.rt != nil {
		stages |= stageRayTracing
	}
	d.barrier(stages, accessShaderWrite, stages|stageDrawIndirect, accessShaderRead|accessShaderWrite|accessIndirectCommandRead)
}

// traceRays runs one of rt-sorted's raygen stages over the bounce's live
// paths, in the rows the counters hold (vkCmdTraceRaysIndirectKHR), or
// without it over the launch's paths (those past the live count return at
// once).
func (w *wavefront) traceRays(d *device, raygen int, push *wavefrontPush, paths int) {
	width, height := traceRows(paths)
	args := uint64(0)
	if w.indirect {
		args = w.counters.addr + 4*layout.CounterTrace
	}
	w.rt.trace(d, raygen, unsafe.Pointer(push), uint32(unsafe.Sizeof(*push)), width, height, args)
}

// traceRows is wave_compute.glsl's traceRowsFor: the launch (width,
// height) that covers n invocations in rows of layout.TraceRowWidth.
func traceRows(n int) (width, height uint32) {
	w := max(1, min(n, layout.TraceRowWidth))
	return uint32(w), uint32((n + w - 1) / w)
}

// launch runs spp samples per pixel from sample first through the
// wavefront: all bounces in one submission, the queues and their counts
// staying on the device. The timestamps wait for the work before them.
func (w *wavefront) launch(r *renderer, first, spp int) (time.Duration, stageTimes, error) {
	d := r.d
	n := r.sampled // the launch's sampled pixels: its rows' (the image's or its band's), or those listed
	paths := n * spp
	if paths > w.maxPaths {
		return 0, stageTimes{}, fmt.Errorf("render failed: internal error: a launch of %d paths in buffers for %d", paths, w.maxPaths)
	}
	r.params.FirstSample, r.params.Samples, r.params.PathCount = uint32(first), uint32(spp), uint32(paths)
	r.threads = max(r.threads, paths)
	copy(r.pbuf.data, unsafe.Slice((*byte)(unsafe.Pointer(&r.params)), unsafe.Sizeof(r.params)))
	if err := d.begin(); err != nil {
		return 0, stageTimes{}, err
	}
	w.resetCounters(d, r, paths)
	bounces := r.opts.MaxDepth + 1
	vk.CmdResetQueryPool(d.cmd, w.times, 0, uint32(4*bounces))
	push := wavefrontPush{params: r.pbuf.addr}
	w.dispatch(d, "wave_generate.comp", &push, paths)
	w.barrier(d)
	stamp := func(q uint32) { vk.CmdWriteTimestamp(d.cmd, vk.PipelineStageBottomOfPipeBit, w.times, q) }
	for b := 0; b < bounces; b++ {
		push.bounce = uint32(b)
		q := uint32(4 * b)
		stamp(q)
		w.trace(d, &push, paths)
		stamp(q + 1)
		if r.params.SortOn != 0 {
			w.sort(d, &push)
		}
		stamp(q + 2)
		w.shade(d, &push, paths)
		stamp(q + 3)
	}
	w.dispatch(d, resolveModule, &push, n)
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

// trace records a bounce's trace stage: every live path's ray into its hit
// record, its sort key counted (paths: the launch's, which the live count
// never exceeds).
func (w *wavefront) trace(d *device, push *wavefrontPush, paths int) {
	w.stage(d, push, paths, raygenTrace, "rq_trace.comp")
}

// stage records rt-sorted's raygen launch over the launch's paths, or the
// ray-query path's compute shader over the live ones.
func (w *wavefront) stage(d *device, push *wavefrontPush, paths, raygen int, compute string) {
	if w.rt != nil {
		w.traceRays(d, raygen, push, paths)
	} else {
		w.dispatchIndirect(d, compute, push)
	}
	w.barrier(d)
}

// sort records the counting sort of the bounce's hits by key into the
// sorted queue: the scan of the counts, then the scatter.
func (w *wavefront) sort(d *device, push *wavefrontPush) {
	w.dispatch(d, "wave_scan.comp", push, 1)
	w.barrier(d)
	w.dispatchIndirect(d, "wave_scatter.comp", push)
	w.barrier(d)
}

// shade records a bounce's shading, then the next bounce's live count.
func (w *wavefront) shade(d *device, push *wavefrontPush, paths int) {
	w.stage(d, push, paths, raygenShade, "rq_shade.comp")
	w.dispatch(d, "wave_advance.comp", push, 1)
	w.barrier(d)
}

// resetCounters records the clearing of the film and the counters, and the
// first bounce's live count and dispatch size, before the stages run.
func (w *wavefront) resetCounters(d *device, r *renderer, paths int) {
	vk.CmdFillBuffer(d.cmd, r.film.handle, 0, vk.DeviceSize(vk.WholeSize), 0)
	vk.CmdFillBuffer(d.cmd, w.counters.handle, 0, vk.DeviceSize(vk.WholeSize), 0)
	d.barrier(stageTransfer, accessTransferWrite, stageTransfer, accessTransferWrite)
	gx, gy := groupsFor(paths)
	tw, th := traceRows(paths)
	head := []uint32{uint32(paths), 0, gx, gy, 1, tw, th, 1} // live, next, dispatch x, y, z, trace width, height, depth
	vk.CmdUpdateBuffer(d.cmd, w.counters.handle, 0, vk.DeviceSize(4*len(head)), &head[0])
	stages := stageComputeShader | stageDrawIndirect
	if w.rt != nil {
		stages |= stageRayTracing
	}
	d.barrier(stageTransfer, accessTransferWrite, stages, accessShaderRead|accessShaderWrite|accessIndirectCommandRead)
}

// destroy destroys the render's query pool; its buffers go with the
// render's memory, its kernels with the device.
func (w *wavefront) destroy(d *device) {
	if w == nil {
		return
	}
	if w.times != nil {
		vk.DestroyQueryPool(d.handle, w.times, nil)
	}
}
