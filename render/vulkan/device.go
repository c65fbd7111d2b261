package vulkan

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
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

// --- Memory -----------------------------------------------------------------

// Buffers are sub-allocated from blocks of at least blockSize bytes, one
// memory type per block. What a buffer is for picks the type:
//   - memDevice: device-local (mapped too where the type is also host-visible,
//     as on lavapipe or a GPU with resizable BAR); uploads to it go through a
//     staging buffer when it is not;
//   - memUpload: host-visible and coherent, for what the host writes every
//     launch (the parameter block);
//   - memReadback: host-visible, cached where the device offers it, for
//     what the host reads (the accumulation buffer).
//
// Temporary buffers (scratch, staging, uncompacted BLASes, build inputs)
// live in blocks of their own, freed by freeTemp once the build is done.
const blockSize = 64 << 20

type memKind int

const (
	memDevice memKind = iota
	memUpload
	memReadback
)

type memBlock struct {
	mem    vk.DeviceMemory
	typ    uint32
	size   uint64
	used   uint64
	mapped unsafe.Pointer
	temp   bool
}

type buffer struct {
	handle vk.Buffer
	size   uint64
	addr   uint64
	data   []byte // mapped memory, nil where the memory is not host-visible
	temp   bool
}

// memoryTypes lists the types a buffer of kind may use, best first.
func (d *device) memoryTypes(bits uint32, kind memKind) []uint32 {
	type cand struct {
		i     uint32
		score int
	}
	var cands []cand
	for i := uint32(0); i < d.memProps.MemoryTypeCount; i++ {
		if bits&(1<<i) == 0 {
			continue
		}
		t := d.memProps.MemoryTypes[i]
		t.Deref()
		f := t.PropertyFlags
		score := 0
		switch kind {
		case memDevice:
			if f&memDeviceLocal != 0 {
				score += 4
			}
			if f&memHostVisible != 0 {
				score++ // mapped: no staging copy
			}
		case memUpload, memReadback:
			if f&(memHostVisible|memHostCoherent) != memHostVisible|memHostCoherent {
				continue
			}
			if kind == memReadback && f&memHostCached != 0 {
				score += 2
			}
			if kind == memUpload && f&memDeviceLocal != 0 {
				score++
			}
		}
		cands = append(cands, cand{i, score})
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
	out := make([]uint32, len(cands))
	for k, c := range cands {
		out[k] = c.i
	}
	return out
}

func (d *device) hostVisible(typ uint32) bool {
	t := d.memProps.MemoryTypes[typ]
	t.Deref()
	return t.PropertyFlags&memHostVisible != 0
}

// newBuffer makes a buffer of size bytes with a device address, in a block
// of a memory type that suits kind; temp buffers go in temporary blocks.
func (d *device) newBuffer(size uint64, usage vk.BufferUsageFlags, kind memKind, temp bool) (*buffer, error) {
	size = max(size, 16)
	var h vk.Buffer
	if err := result("vkCreateBuffer", uint64(uint32(vk.CreateBuffer(d.handle, &vk.BufferCreateInfo{
		SType: vk.StructureTypeBufferCreateInfo, Size: vk.DeviceSize(size),
		Usage:       usage | usageAddress | usageStorage | usageTransferDst | usageTransferSrc,
		SharingMode: vk.SharingModeExclusive}, nil, &h)))); err != nil {
		return nil, err
	}
	b := &buffer{handle: h, size: size, temp: temp}
	if temp {
		d.tempBuffers = append(d.tempBuffers, b)
	} else {
		d.buffers = append(d.buffers, b)
	}
	var req vk.MemoryRequirements
	vk.GetBufferMemoryRequirements(d.handle, h, &req)
	req.Deref()
	types := d.memoryTypes(req.MemoryTypeBits, kind)
	if len(types) == 0 {
		return nil, errors.New("the device has no memory type for sertrace's buffers")
	}
	align := max(uint64(req.Alignment), 256)
	var blk *memBlock
	var off uint64
	var err error
	for _, typ := range types {
		for _, c := range d.blocks {
			o := (c.used + align - 1) / align * align
			if c.typ == typ && c.temp == temp && o+uint64(req.Size) <= c.size {
				blk, off = c, o
				break
			}
		}
		if blk != nil {
			break
		}
		// A new block; when the type's heap is full, the next type.
		if blk, err = d.newBlock(typ, max(uint64(req.Size), blockSize), temp); err == nil {
			break
		}
		if blk, err = d.newBlock(typ, uint64(req.Size), temp); err == nil {
			break
		}
	}
	if blk == nil {
		return nil, err
	}
	blk.used = off + uint64(req.Size)
	if err := result("vkBindBufferMemory", uint64(uint32(vk.BindBufferMemory(d.handle, h, blk.mem, vk.DeviceSize(off))))); err != nil {
		return nil, err
	}
	if blk.mapped != nil {
		b.data = unsafe.Slice((*byte)(unsafe.Add(blk.mapped, off)), size)
	}
	var a arena
	defer a.free()
	info := newIn[bufferDeviceAddressInfo](&a)
	info.sType = stBufferDeviceAddressInfo
	info.buffer = uint64(uintptr(unsafe.Pointer(h)))
	b.addr = d.fn.getBufferDeviceAddress(d.handle, info)
	return b, nil
}

func (d *device) newBlock(typ uint32, size uint64, temp bool) (*memBlock, error) {
	var a arena
	defer a.free()
	flags := newIn[memoryAllocateFlagsInfo](&a)
	flags.sType = stMemoryAllocateFlagsInfo
	flags.flags = allocateDeviceAddress
	var mem vk.DeviceMemory
	err := result("vkAllocateMemory", uint64(uint32(vk.AllocateMemory(d.handle, &vk.MemoryAllocateInfo{
		SType: vk.StructureTypeMemoryAllocateInfo, PNext: unsafe.Pointer(flags), AllocationSize: vk.DeviceSize(size), MemoryTypeIndex: typ}, nil, &mem))))
	if err != nil {
		return nil, fmt.Errorf("allocating %d MiB of device memory: %w", size>>20, err)
	}
	blk := &memBlock{mem: mem, typ: typ, size: size, temp: temp}
	if d.hostVisible(typ) {
		var mapped unsafe.Pointer
		if err := result("vkMapMemory", uint64(uint32(vk.MapMemory(d.handle, mem, 0, vk.DeviceSize(size), 0, &mapped)))); err != nil {
			vk.FreeMemory(d.handle, mem, nil)
			return nil, err
		}
		blk.mapped = mapped
	}
	d.blocks = append(d.blocks, blk)
	return blk, nil
}

// freeTemp destroys the temporary buffers and frees their blocks (the
// queue must be idle).
func (d *device) freeTemp() {
	for _, b := range d.tempBuffers {
		vk.DestroyBuffer(d.handle, b.handle, nil)
	}
	d.tempBuffers = nil
	kept := d.blocks[:0]
	for _, blk := range d.blocks {
		if blk.temp {
			vk.FreeMemory(d.handle, blk.mem, nil)
			continue
		}
		kept = append(kept, blk)
	}
	d.blocks = kept
}

// memMark is a point in the device's allocations: the buffers and blocks
// made by then and how full each block was. Allocation is a bump within a
// block, so releasing to a mark frees exactly what was made after it.
type memMark struct {
	buffers int
	used    []uint64 // per block then
}

// mark records the allocations made so far. Temporary buffers (staging,
// scratch: their work done, as every upload and build waits for it) are
// freed first, so that a mark counts only blocks that stay.
func (d *device) mark() memMark {
	d.freeTemp()
	m := memMark{buffers: len(d.buffers)}
	for _, b := range d.blocks {
		m.used = append(m.used, b.used)
	}
	return m
}

// release destroys the buffers made since the mark and frees the blocks
// made since, rewinding the older blocks to how full they were (the queue
// must be idle).
func (d *device) release(m memMark) {
	d.freeTemp() // the blocks before the mark are none of them temporary
	for _, b := range d.buffers[m.buffers:] {
		vk.DestroyBuffer(d.handle, b.handle, nil)
	}
	d.buffers = d.buffers[:m.buffers]
	for _, b := range d.blocks[len(m.used):] {
		vk.FreeMemory(d.handle, b.mem, nil)
	}
	d.blocks = d.blocks[:len(m.used)]
	for i, u := range m.used {
		d.blocks[i].used = u
	}
}

// stagingUploads makes every upload go through a staging buffer, as on a
// GPU whose device-local memory the host cannot map (tests set it on
// lavapipe, whose memory is all host-visible).
var stagingUploads bool

// upload makes a device-local buffer holding data, through a staging
// buffer when its memory is not host-visible.
func (d *device) upload(data []byte, usage vk.BufferUsageFlags, temp bool) (*buffer, error) {
	b, err := d.newBuffer(uint64(len(data)), usage, memDevice, temp)
	if err != nil {
		return nil, err
	}
	if b.data != nil && !stagingUploads {
		copy(b.data, data)
		return b, nil
	}
	staging, err := d.newBuffer(uint64(len(data)), 0, memUpload, true)
	if err != nil {
		return nil, err
	}
	copy(staging.data, data)
	if err := d.begin(); err != nil {
		return nil, err
	}
	vk.CmdCopyBuffer(d.cmd, staging.handle, b.handle, 1, []vk.BufferCopy{{Size: vk.DeviceSize(max(len(data), 1))}})
	d.barrier(stageTransfer, accessTransferWrite, stageAll, accessMemoryRead)
	return b, d.submit()
}

// memoryBytes is the device memory sertrace holds now.
func (d *device) memoryBytes() uint64 {
	var n uint64
	for _, b := range d.blocks {
		n += b.size
	}
	return n
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
