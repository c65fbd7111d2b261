package vulkan

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"sertrace/shaders"
)

// device is a logical device made for one path, with the entry points of
// sertrace's own binding (those of the extensions it enabled), a queue, a
// command buffer, and memory blocks that buffers are sub-allocated from.
type device struct {
	in            *instance
	info          Device
	handle        vk.Device
	queue         vk.Queue
	family        uint32
	pool          vk.CommandPool
	cmd           vk.CommandBuffer
	fence         vk.Fence
	memProps      vk.PhysicalDeviceMemoryProperties
	rtProps       physicalDeviceRayTracingPipelineProperties
	fn            deviceFuncs
	extensions    []string // the device extensions enabled
	blocks        []*memBlock
	buffers       []*buffer
	tempBuffers   []*buffer
	path          string // what it was opened for: with a render path, it runs them all
	timestampBits uint32
	traceIndirect bool // rayTracingPipelineTraceRaysIndirect enabled: rt-sorted launches the live paths only

	// Kept across renders (kept.go): the paths' pipelines, the
	// allocations up to their end, the last scene, the pipeline cache.
	pipes         map[pipelineKey]*pipeline
	kernels       map[string]*waveKernels
	pipelineMark  memMark
	scene         *keptScene
	pipelineCache vk.PipelineCache
	cacheFile     string // "": no persistent cache
	cacheLoaded   int    // bytes of driver data the cache began with
}

// openDevice picks a device that can run path (the first that can, or the
// one numbered index when index ≥ 0; path "": the best path of the first
// device that runs one) and creates it. A device for a render path enables
// what every render path the device runs needs, the shader-clock variants'
// included where it has the clock, so that one device serves every path
// and job of the process (kept.go); the denoiser's and the probe's enable
// what their shaders need.
func openDevice(path string, index int, validation bool) (*device, error) {
	in, err := processInstance(validation)
	if err != nil {
		return nil, err
	}
	var chosen *Device
	var reasons []string
	for i, pd := range in.physicalDevices() {
		if index >= 0 && i != index {
			continue
		}
		d := describe(in, i, pd)
		if path == "" && d.Best() != "" {
			path = d.Best()
		}
		if st := d.status[path]; st.Available {
			chosen = &d
			break
		} else if path != "" {
			reasons = append(reasons, fmt.Sprintf("%s: %s", d.Name, st.Reason))
		} else {
			reasons = append(reasons, fmt.Sprintf("%s runs no path: %s", d.Name, d.Paths[PathRayQuery].Reason))
		}
	}
	if chosen == nil {
		if len(reasons) == 0 {
			if index >= 0 {
				return nil, fmt.Errorf("no Vulkan device %d", index)
			}
			return nil, errors.New("no Vulkan device")
		}
		return nil, fmt.Errorf("no device can run path %s (%s)", path, strings.Join(reasons, "; "))
	}
	d := &device{in: in, info: *chosen, path: path}
	if err := d.create(); err != nil {
		d.destroy()
		return nil, err
	}
	return d, nil
}

func (d *device) create() error {
	pd := d.info.handle
	var n uint32
	vk.GetPhysicalDeviceQueueFamilyProperties(pd, &n, nil)
	fams := make([]vk.QueueFamilyProperties, n)
	vk.GetPhysicalDeviceQueueFamilyProperties(pd, &n, fams)
	d.family = ^uint32(0)
	for i, f := range fams {
		f.Deref()
		if f.QueueFlags&vk.QueueFlags(vk.QueueComputeBit) != 0 {
			d.family = uint32(i)
			d.timestampBits = f.TimestampValidBits
			break
		}
	}
	if d.family == ^uint32(0) {
		return errors.New("the device has no compute queue")
	}
	reqs, err := d.requirements()
	if err != nil {
		return err
	}
	var a arena
	defer a.free()
	// The chain holds the structures of the extensions enabled, no others.
	needed := map[string]bool{}
	for _, r := range reqs {
		if r.extension != "" {
			needed[r.extension] = true
		}
	}
	chain := newFeatureChain(&a, needed)
	exts := enable(reqs, chain)
	if chain.rtp != nil && d.info.TraceRaysIndirect { // optional: rt-sorted launches every path slot without it
		chain.rtp.rayTracingPipelineTraceRaysIndirect = 1
		d.traceIndirect = true
	}
	if d.info.exts[memoryBudgetExtension] {
		exts = append(exts, memoryBudgetExtension) // the budget that sizes launches (launches.go)
	}
	names := make([]string, len(exts))
	var pin runtime.Pinner // vulkan-go keeps pointers to these strings in C memory during the call
	defer pin.Unpin()
	for i, e := range exts {
		names[i] = e + "\x00"
		pin.Pin(unsafe.StringData(names[i]))
	}
	priorities := []float32{1}
	pin.Pin(&priorities[0])
	info := vk.DeviceCreateInfo{
		SType: vk.StructureTypeDeviceCreateInfo, PNext: unsafe.Pointer(chain.f2),
		QueueCreateInfoCount: 1,
		PQueueCreateInfos: []vk.DeviceQueueCreateInfo{{SType: vk.StructureTypeDeviceQueueCreateInfo,
			QueueFamilyIndex: d.family, QueueCount: 1, PQueuePriorities: priorities}},
		EnabledExtensionCount: uint32(len(names)), PpEnabledExtensionNames: names,
	}
	var dev vk.Device
	if err := result("vkCreateDevice", uint64(uint32(vk.CreateDevice(pd, &info, nil, &dev)))); err != nil {
		return err
	}
	d.handle, d.extensions = dev, exts
	// The entry points of Vulkan 1.2 and of the extensions enabled, all of
	// which must be there.
	if err := d.fn.load(d.in, dev, exts); err != nil {
		return err
	}
	var q vk.Queue
	vk.GetDeviceQueue(d.handle, d.family, 0, &q)
	d.queue = q
	var mp vk.PhysicalDeviceMemoryProperties
	vk.GetPhysicalDeviceMemoryProperties(pd, &mp)
	mp.Deref()
	d.memProps = mp

	p2 := newIn[physicalDeviceProperties2](&a)
	p2.sType = stPhysicalDeviceProperties2
	tail := (*chained)(unsafe.Pointer(p2))
	// The ray-tracing pipeline's properties exist only with its extension.
	var rt *physicalDeviceRayTracingPipelineProperties
	if slices.Contains(exts, "VK_KHR_ray_tracing_pipeline") {
		rt = chainIn[physicalDeviceRayTracingPipelineProperties](&a, &tail, stPhysicalDeviceRayTracingPipelineProperties)
	}
	d.in.fn.getPhysicalDeviceProperties2(pd, p2)
	if rt != nil {
		d.rtProps = *rt
		d.rtProps.pNext = nil
	}

	var pool vk.CommandPool
	if err := result("vkCreateCommandPool", uint64(uint32(vk.CreateCommandPool(d.handle, &vk.CommandPoolCreateInfo{
		SType: vk.StructureTypeCommandPoolCreateInfo, Flags: vk.CommandPoolCreateFlags(vk.CommandPoolCreateResetCommandBufferBit),
		QueueFamilyIndex: d.family}, nil, &pool)))); err != nil {
		return err
	}
	d.pool = pool
	cmds := make([]vk.CommandBuffer, 1)
	if err := result("vkAllocateCommandBuffers", uint64(uint32(vk.AllocateCommandBuffers(d.handle, &vk.CommandBufferAllocateInfo{
		SType: vk.StructureTypeCommandBufferAllocateInfo, CommandPool: pool, Level: vk.CommandBufferLevelPrimary,
		CommandBufferCount: 1}, cmds)))); err != nil {
		return err
	}
	d.cmd = cmds[0]
	var fence vk.Fence
	err = result("vkCreateFence", uint64(uint32(vk.CreateFence(d.handle, &vk.FenceCreateInfo{SType: vk.StructureTypeFenceCreateInfo}, nil, &fence))))
	d.fence = fence
	if err != nil {
		return err
	}
	return d.openPipelineCache()
}

// requirements are what the device enables: its path's, or for a render
// path those of every render path the device runs, with the shader-clock
// variants of the pipeline paths where the device has the clock (they
// differ from the plain raygen by ShaderClockKHR alone).
func (d *device) requirements() ([]requirement, error) {
	paths := []string{d.path}
	if slices.Contains(PathNames, d.path) {
		paths = nil
		for _, p := range PathNames {
			if d.info.status[p].Available {
				paths = append(paths, p)
			}
		}
	}
	var reqs []requirement
	for _, p := range paths {
		for _, clock := range []bool{false, true} {
			if clock && !(d.info.ShaderClock && (p == PathSER || p == PathRT)) {
				continue
			}
			mods, err := modules(p, clock)
			if err != nil {
				return nil, err
			}
			r, err := pathRequirements(p, mods)
			if err != nil {
				return nil, err
			}
			reqs = append(reqs, r...)
		}
	}
	return reqs, nil
}

// begin starts recording the command buffer.
func (d *device) begin() error {
	vk.ResetCommandBuffer(d.cmd, 0)
	return result("vkBeginCommandBuffer", uint64(uint32(vk.BeginCommandBuffer(d.cmd, &vk.CommandBufferBeginInfo{
		SType: vk.StructureTypeCommandBufferBeginInfo, Flags: vk.CommandBufferUsageFlags(vk.CommandBufferUsageOneTimeSubmitBit)}))))
}

// submit ends recording, submits, and waits for the queue to finish.
func (d *device) submit() error {
	if err := result("vkEndCommandBuffer", uint64(uint32(vk.EndCommandBuffer(d.cmd)))); err != nil {
		return err
	}
	vk.ResetFences(d.handle, 1, []vk.Fence{d.fence})
	cmds := []vk.CommandBuffer{d.cmd}
	var pin runtime.Pinner
	pin.Pin(&cmds[0])
	defer pin.Unpin()
	if err := result("vkQueueSubmit", uint64(uint32(vk.QueueSubmit(d.queue, 1, []vk.SubmitInfo{{
		SType: vk.StructureTypeSubmitInfo, CommandBufferCount: 1, PCommandBuffers: cmds}}, d.fence)))); err != nil {
		return err
	}
	return result("vkWaitForFences", uint64(uint32(vk.WaitForFences(d.handle, 1, []vk.Fence{d.fence}, vk.True, ^uint64(0)))))
}

// barrier makes the writes of the stages before visible to those after.
func (d *device) barrier(srcStage vk.PipelineStageFlags, srcAccess vk.AccessFlags, dstStage vk.PipelineStageFlags, dstAccess vk.AccessFlags) {
	vk.CmdPipelineBarrier(d.cmd, srcStage, dstStage, 0, 1,
		[]vk.MemoryBarrier{{SType: vk.StructureTypeMemoryBarrier, SrcAccessMask: srcAccess, DstAccessMask: dstAccess}},
		0, nil, 0, nil)
}

func (d *device) destroy() {
	if d.handle != nil {
		vk.DeviceWaitIdle(d.handle)
		if d.scene != nil {
			d.scene.acc.destroy(d)
		}
		for _, p := range d.pipes {
			p.destroy(d)
		}
		for _, k := range d.kernels {
			k.destroy(d)
		}
		if d.pipelineCache != nil {
			vk.DestroyPipelineCache(d.handle, d.pipelineCache, nil)
		}
		for _, b := range append(d.buffers, d.tempBuffers...) {
			vk.DestroyBuffer(d.handle, b.handle, nil)
		}
		for _, b := range d.blocks {
			vk.FreeMemory(d.handle, b.mem, nil)
		}
		if d.fence != nil {
			vk.DestroyFence(d.handle, d.fence, nil)
		}
		if d.pool != nil {
			vk.DestroyCommandPool(d.handle, d.pool, nil)
		}
		vk.DestroyDevice(d.handle, nil)
	}
}

// elapsed is the time between two timestamps of the queue, in the bits the
// queue family's timestamps have (0: none, and no time).
func (d *device) elapsed(t0, t1 uint64, tick float64) time.Duration {
	if d.timestampBits == 0 {
		return 0
	}
	diff := t1 - t0
	if d.timestampBits < 64 {
		diff &= 1<<d.timestampBits - 1
	}
	return time.Duration(float64(diff) * tick)
}

// --- Queries ----------------------------------------------------------------

func (d *device) newQueryPool(n int) (vk.QueryPool, error) {
	var pool vk.QueryPool
	err := result("vkCreateQueryPool", uint64(uint32(vk.CreateQueryPool(d.handle, &vk.QueryPoolCreateInfo{
		SType: vk.StructureTypeQueryPoolCreateInfo, QueryType: queryCompactedSize, QueryCount: uint32(n)}, nil, &pool))))
	return pool, err
}

func (d *device) newTimestampPool(n int) (vk.QueryPool, error) {
	var pool vk.QueryPool
	err := result("vkCreateQueryPool", uint64(uint32(vk.CreateQueryPool(d.handle, &vk.QueryPoolCreateInfo{
		SType: vk.StructureTypeQueryPoolCreateInfo, QueryType: vk.QueryTypeTimestamp, QueryCount: uint32(n)}, nil, &pool))))
	return pool, err
}

func (d *device) resetQueryPool(pool vk.QueryPool, n int) {
	vk.CmdResetQueryPool(d.cmd, pool, 0, uint32(n))
}

func (d *device) destroyQueryPool(pool vk.QueryPool) { vk.DestroyQueryPool(d.handle, pool, nil) }

// queryResults reads n 64-bit results, waiting for them.
func (d *device) queryResults(pool vk.QueryPool, n int) ([]uint64, error) {
	out := make([]uint64, n)
	err := result("vkGetQueryPoolResults", uint64(uint32(vk.GetQueryPoolResults(d.handle, pool, 0, uint32(n), uint(8*n),
		unsafe.Pointer(&out[0]), 8, vk.QueryResultFlags(vk.QueryResult64Bit|vk.QueryResultWaitBit)))))
	return out, err
}

// shaderModule makes a module of an embedded SPIR-V stage; the caller
// destroys it.
func (d *device) shaderModule(name string) (vk.ShaderModule, error) {
	code, err := shaders.SPIRV(name)
	if err != nil {
		return nil, err
	}
	var a arena // the code in C memory: vulkan-go keeps a pointer to it
	defer a.free()
	words := sliceIn[uint32](&a, len(code)/4)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(code)), code)
	var m vk.ShaderModule
	err = result("vkCreateShaderModule "+name, uint64(uint32(vk.CreateShaderModule(d.handle, &vk.ShaderModuleCreateInfo{
		SType: vk.StructureTypeShaderModuleCreateInfo, CodeSize: uint(len(code)), PCode: words}, nil, &m))))
	return m, err
}

// computePipeline makes the compute pipeline of a module and a layout.
func (d *device) computePipeline(name string, m vk.ShaderModule, layout vk.PipelineLayout) (vk.Pipeline, error) {
	pipes := make([]vk.Pipeline, 1)
	if err := result("vkCreateComputePipelines "+name, uint64(uint32(vk.CreateComputePipelines(d.handle, d.pipelineCache, 1, []vk.ComputePipelineCreateInfo{{
		SType: vk.StructureTypeComputePipelineCreateInfo,
		Stage: vk.PipelineShaderStageCreateInfo{SType: vk.StructureTypePipelineShaderStageCreateInfo, Stage: vk.ShaderStageComputeBit,
			Module: m, PName: "main\x00"},
		Layout: layout}}, nil, pipes)))); err != nil {
		return nil, fmt.Errorf("the compute pipeline %s failed to build: %w", name, err)
	}
	return pipes[0], nil
}

// dispatchOnce runs the compute shader module once: its pipeline made,
// push (size bytes) pushed, groups dispatched, and the host waiting until
// its writes are visible. The denoiser and the probe shader run so.
func (d *device) dispatchOnce(module string, push unsafe.Pointer, size int, groupsX, groupsY uint32) error {
	m, err := d.shaderModule(module)
	if err != nil {
		return err
	}
	defer vk.DestroyShaderModule(d.handle, m, nil)
	pl, err := d.pushLayout(stageCompute, size)
	if err != nil {
		return err
	}
	defer vk.DestroyPipelineLayout(d.handle, pl, nil)
	pipe, err := d.computePipeline(module, m, pl)
	if err != nil {
		return err
	}
	defer vk.DestroyPipeline(d.handle, pipe, nil)
	if err := d.begin(); err != nil {
		return err
	}
	vk.CmdBindPipeline(d.cmd, vk.PipelineBindPointCompute, pipe)
	vk.CmdPushConstants(d.cmd, pl, stageCompute, 0, uint32(size), push)
	vk.CmdDispatch(d.cmd, groupsX, groupsY, 1)
	d.barrier(stageComputeShader, accessShaderWrite, stageHost, accessHostRead)
	return d.submit()
}

// pushLayout makes a pipeline layout with one push-constant range.
func (d *device) pushLayout(stages vk.ShaderStageFlags, size int) (vk.PipelineLayout, error) {
	var pl vk.PipelineLayout
	err := result("vkCreatePipelineLayout", uint64(uint32(vk.CreatePipelineLayout(d.handle, &vk.PipelineLayoutCreateInfo{
		SType: vk.StructureTypePipelineLayoutCreateInfo, PushConstantRangeCount: 1,
		PPushConstantRanges: []vk.PushConstantRange{{StageFlags: stages, Size: uint32(size)}}}, nil, &pl))))
	return pl, err
}
