package vulkan

import (
	"errors"
	"fmt"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// device is a logical device made for one path, with the entry points of
// sertrace's own binding, a queue, a command buffer, and memory blocks that
// buffers are sub-allocated from.
type device struct {
	in       *instance
	info     Device
	handle   vk.Device
	queue    vk.Queue
	family   uint32
	pool     vk.CommandPool
	cmd      vk.CommandBuffer
	fence    vk.Fence
	memProps vk.PhysicalDeviceMemoryProperties
	rtProps  physicalDeviceRayTracingPipelineProperties
	fn       map[string]unsafe.Pointer
	blocks   []*memBlock
	buffers  []*buffer
	lost     bool
}

// The device entry points sertrace's own binding calls.
var deviceEntryPoints = []string{
	"vkGetBufferDeviceAddress", "vkGetAccelerationStructureBuildSizesKHR", "vkCreateAccelerationStructureKHR",
	"vkDestroyAccelerationStructureKHR", "vkCmdBuildAccelerationStructuresKHR", "vkGetAccelerationStructureDeviceAddressKHR",
	"vkCmdWriteAccelerationStructuresPropertiesKHR", "vkCmdCopyAccelerationStructureKHR", "vkCreateRayTracingPipelinesKHR",
	"vkGetRayTracingShaderGroupHandlesKHR", "vkCmdTraceRaysKHR",
}

// openDevice picks a device that can run path (the first that can, or the
// one numbered index when index ≥ 0) and creates it with what the path's
// shaders need enabled.
func openDevice(path string, index int, validation bool) (*device, error) {
	in, err := newInstance(validation)
	if err != nil {
		return nil, err
	}
	var chosen *Device
	var reasons []string
	for i, pd := range in.physicalDevices() {
		d := describe(in, i, pd)
		if index >= 0 && i != index {
			continue
		}
		if st := d.Paths[path]; st.Available {
			chosen = &d
			break
		} else {
			reasons = append(reasons, fmt.Sprintf("%s: %s", d.Name, st.Reason))
		}
	}
	if chosen == nil {
		in.destroy()
		if len(reasons) == 0 {
			if index >= 0 {
				return nil, fmt.Errorf("no Vulkan device %d", index)
			}
			return nil, errors.New("no Vulkan device")
		}
		return nil, fmt.Errorf("no device can run path %s (%s)", path, joinReasons(reasons))
	}
	d := &device{in: in, info: *chosen, fn: map[string]unsafe.Pointer{}}
	if err := d.create(path); err != nil {
		d.destroy()
		return nil, err
	}
	return d, nil
}

func joinReasons(r []string) string {
	out := ""
	for i, s := range r {
		if i > 0 {
			out += "; "
		}
		out += s
	}
	return out
}

func (d *device) create(path string) error {
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
			break
		}
	}
	if d.family == ^uint32(0) {
		return errors.New("the device has no compute queue")
	}
	mods, err := pathModules(path)
	if err != nil {
		return err
	}
	reqs, err := pathRequirements(mods)
	if err != nil {
		return err
	}
	var a arena
	defer a.free()
	chain := newFeatureChain(&a, d.info.exts)
	exts := enable(reqs, chain)
	names := make([]string, len(exts))
	for i, e := range exts {
		names[i] = e + "\x00"
	}
	info := vk.DeviceCreateInfo{
		SType: vk.StructureTypeDeviceCreateInfo, PNext: unsafe.Pointer(chain.f2),
		QueueCreateInfoCount: 1,
		PQueueCreateInfos: []vk.DeviceQueueCreateInfo{{SType: vk.StructureTypeDeviceQueueCreateInfo,
			QueueFamilyIndex: d.family, QueueCount: 1, PQueuePriorities: []float32{1}}},
		EnabledExtensionCount: uint32(len(names)), PpEnabledExtensionNames: names,
	}
	var dev vk.Device
	if err := result("vkCreateDevice", uint64(uint32(vk.CreateDevice(pd, &info, nil, &dev)))); err != nil {
		return err
	}
	d.handle = dev
	gdpa := d.in.proc("vkGetDeviceProcAddr")
	for _, name := range deviceEntryPoints {
		// An extension's entry points exist only when it is enabled (the ray-
		// query path does without the pipeline's): users check d.has.
		if p := deviceProc(gdpa, unsafe.Pointer(d.handle), name); p != nil {
			d.fn[name] = p
		}
	}
	for _, name := range []string{"vkGetBufferDeviceAddress", "vkCreateAccelerationStructureKHR", "vkCmdBuildAccelerationStructuresKHR"} {
		if d.fn[name] == nil {
			return fmt.Errorf("the driver has no %s", name)
		}
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
	rt := newIn[physicalDeviceRayTracingPipelineProperties](&a)
	rt.sType = stPhysicalDeviceRayTracingPipelineProperties
	p2.pNext = unsafe.Pointer(rt)
	call(d.in.proc("vkGetPhysicalDeviceProperties2"), uintptr(unsafe.Pointer(pd)), ptr(p2))
	d.rtProps = *rt
	d.rtProps.pNext = nil

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
	return err
}

func (d *device) call(name string, args ...uintptr) uint64 { return call(d.fn[name], args...) }

func (d *device) h() uintptr { return uintptr(unsafe.Pointer(d.handle)) }

func (d *device) cmdH() uintptr { return uintptr(unsafe.Pointer(d.cmd)) }

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
	if err := result("vkQueueSubmit", uint64(uint32(vk.QueueSubmit(d.queue, 1, []vk.SubmitInfo{{
		SType: vk.StructureTypeSubmitInfo, CommandBufferCount: 1, PCommandBuffers: []vk.CommandBuffer{d.cmd}}}, d.fence)))); err != nil {
		d.lost = errors.Is(err, ErrDeviceLost)
		return err
	}
	err := result("vkWaitForFences", uint64(uint32(vk.WaitForFences(d.handle, 1, []vk.Fence{d.fence}, vk.True, ^uint64(0)))))
	if err != nil {
		d.lost = errors.Is(err, ErrDeviceLost)
	}
	return err
}

// barrier makes the writes of the stages before visible to those after.
func (d *device) barrier(srcStage, srcAccess, dstStage, dstAccess uint32) {
	vk.CmdPipelineBarrier(d.cmd, vk.PipelineStageFlags(srcStage), vk.PipelineStageFlags(dstStage), 0, 1,
		[]vk.MemoryBarrier{{SType: vk.StructureTypeMemoryBarrier, SrcAccessMask: vk.AccessFlags(srcAccess), DstAccessMask: vk.AccessFlags(dstAccess)}},
		0, nil, 0, nil)
}

func (d *device) destroy() {
	if d.handle != nil {
		vk.DeviceWaitIdle(d.handle)
		for _, b := range d.buffers {
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
	d.in.destroy()
}

// --- Memory -----------------------------------------------------------------

// Buffers are sub-allocated from blocks of at least blockSize bytes of one
// memory type: host-visible and coherent (so uploads and readback are plain
// copies), device-local too where the device has such a type.
const blockSize = 64 << 20

type memBlock struct {
	mem      vk.DeviceMemory
	typ      uint32
	size     uint64
	used     uint64
	mapped   unsafe.Pointer
	hostOnly bool
}

type buffer struct {
	handle vk.Buffer
	size   uint64
	addr   uint64
	data   []byte // mapped memory
}

// Buffer usages.
const (
	usageTransferDst = 0x2
	usageStorage     = 0x20
	usageAddress     = 0x20000
	usageASInput     = 0x80000
	usageASStorage   = 0x100000
	usageSBT         = 0x400
)

func (d *device) memoryType(bits uint32) (uint32, error) {
	const hostVisible, coherent, deviceLocal = 0x2, 0x4, 0x1
	best := -1
	for i := uint32(0); i < d.memProps.MemoryTypeCount; i++ {
		t := d.memProps.MemoryTypes[i]
		t.Deref()
		f := uint32(t.PropertyFlags)
		if bits&(1<<i) == 0 || f&(hostVisible|coherent) != hostVisible|coherent {
			continue
		}
		if f&deviceLocal != 0 {
			return i, nil
		}
		if best < 0 {
			best = int(i)
		}
	}
	if best < 0 {
		return 0, errors.New("the device has no host-visible coherent memory for sertrace's buffers")
	}
	return uint32(best), nil
}

// newBuffer makes a buffer of size bytes with a device address, in a block.
func (d *device) newBuffer(size uint64, usage uint32) (*buffer, error) {
	size = max(size, 16)
	var h vk.Buffer
	if err := result("vkCreateBuffer", uint64(uint32(vk.CreateBuffer(d.handle, &vk.BufferCreateInfo{
		SType: vk.StructureTypeBufferCreateInfo, Size: vk.DeviceSize(size), Usage: vk.BufferUsageFlags(usage | usageAddress | usageStorage | usageTransferDst),
		SharingMode: vk.SharingModeExclusive}, nil, &h)))); err != nil {
		return nil, err
	}
	b := &buffer{handle: h, size: size}
	d.buffers = append(d.buffers, b)
	var req vk.MemoryRequirements
	vk.GetBufferMemoryRequirements(d.handle, h, &req)
	req.Deref()
	typ, err := d.memoryType(req.MemoryTypeBits)
	if err != nil {
		return nil, err
	}
	align := max(uint64(req.Alignment), 256)
	var blk *memBlock
	var off uint64
	for _, c := range d.blocks {
		o := (c.used + align - 1) / align * align
		if c.typ == typ && o+uint64(req.Size) <= c.size {
			blk, off = c, o
			break
		}
	}
	if blk == nil {
		blk, err = d.newBlock(typ, max(uint64(req.Size), blockSize))
		if err != nil {
			return nil, err
		}
	}
	blk.used = off + uint64(req.Size)
	if err := result("vkBindBufferMemory", uint64(uint32(vk.BindBufferMemory(d.handle, h, blk.mem, vk.DeviceSize(off))))); err != nil {
		return nil, err
	}
	b.data = unsafe.Slice((*byte)(unsafe.Add(blk.mapped, off)), size)
	var a arena
	defer a.free()
	info := newIn[bufferDeviceAddressInfo](&a)
	info.sType = stBufferDeviceAddressInfo
	info.buffer = uint64(uintptr(unsafe.Pointer(h)))
	b.addr = d.call("vkGetBufferDeviceAddress", d.h(), ptr(info))
	return b, nil
}

func (d *device) newBlock(typ uint32, size uint64) (*memBlock, error) {
	var a arena
	defer a.free()
	flags := newIn[memoryAllocateFlagsInfo](&a)
	flags.sType = stMemoryAllocateFlagsInfo
	flags.flags = 0x2 // VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT
	var mem vk.DeviceMemory
	err := result("vkAllocateMemory", uint64(uint32(vk.AllocateMemory(d.handle, &vk.MemoryAllocateInfo{
		SType: vk.StructureTypeMemoryAllocateInfo, PNext: unsafe.Pointer(flags), AllocationSize: vk.DeviceSize(size), MemoryTypeIndex: typ}, nil, &mem))))
	if err != nil {
		return nil, fmt.Errorf("allocating %d MiB of device memory: %w", size>>20, err)
	}
	blk := &memBlock{mem: mem, typ: typ, size: size}
	var mapped unsafe.Pointer
	if err := result("vkMapMemory", uint64(uint32(vk.MapMemory(d.handle, mem, 0, vk.DeviceSize(size), 0, &mapped)))); err != nil {
		vk.FreeMemory(d.handle, mem, nil)
		return nil, err
	}
	blk.mapped = mapped
	d.blocks = append(d.blocks, blk)
	return blk, nil
}

// upload makes a buffer holding data.
func (d *device) upload(data []byte, usage uint32) (*buffer, error) {
	b, err := d.newBuffer(uint64(len(data)), usage)
	if err != nil {
		return nil, err
	}
	copy(b.data, data)
	return b, nil
}

// memoryBytes is the device memory sertrace allocated.
func (d *device) memoryBytes() uint64 {
	var n uint64
	for _, b := range d.blocks {
		n += b.size
	}
	return n
}

// --- Queries ----------------------------------------------------------------

func (d *device) newQueryPool(n int) (vk.QueryPool, error) {
	var pool vk.QueryPool
	err := result("vkCreateQueryPool", uint64(uint32(vk.CreateQueryPool(d.handle, &vk.QueryPoolCreateInfo{
		SType: vk.StructureTypeQueryPoolCreateInfo, QueryType: vk.QueryType(queryCompactedSize), QueryCount: uint32(n)}, nil, &pool))))
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
	const result64, wait = 0x1, 0x2
	err := result("vkGetQueryPoolResults", uint64(uint32(vk.GetQueryPoolResults(d.handle, pool, 0, uint32(n), uint(8*n),
		unsafe.Pointer(&out[0]), 8, vk.QueryResultFlags(result64|wait)))))
	return out, err
}
