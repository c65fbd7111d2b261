package vulkan

import (
	"errors"
	"fmt"
	"sort"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

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
