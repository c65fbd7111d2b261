package vulkan

import (
	"fmt"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"sertrace/scene"
)

// accel is the scene's acceleration structures: a BLAS per triangle mesh,
// sphere set and swept-sphere set that an instance uses (AABB geometry for
// the spheres, whose intersection shaders do the CPU backend's math), and
// a TLAS over the instances. BLASes are compacted after their build.
type accel struct {
	blas     map[scene.GeometryRef]accelerationStructure // the compacted structures
	tlas     accelerationStructure
	tlasAddr uint64
}

// buildAccel builds the acceleration structures over the uploaded scene.
func (d *device) buildAccel(sc *scene.Scene, p *packed, bufs *sceneBuffers) (_ *accel, err error) {
	acc := &accel{blas: map[scene.GeometryRef]accelerationStructure{}}
	blasAddr := map[scene.GeometryRef]uint64{}
	var uncompacted []accelerationStructure
	defer func() {
		for _, as := range uncompacted {
			d.fn.destroyAccelerationStructure(d.handle, as)
		}
		if err != nil {
			acc.destroy(d)
		}
	}()
	var geoms []scene.GeometryRef
	for i, in := range sc.Instances {
		if p.collapsed[i] {
			continue
		}
		if _, ok := acc.blas[in.Geometry]; !ok {
			acc.blas[in.Geometry] = 0
			geoms = append(geoms, in.Geometry)
		}
	}
	// Build inputs and scratch are temporary: freed once the TLAS is built.
	defer d.freeTemp()
	aabbBuf, err := d.upload(bytesOf(p.aabbs), usageASInput, true) // a small buffer even when there are none
	if err != nil {
		return nil, err
	}
	var a arena
	defer a.free()
	type build struct {
		info *asBuildGeometryInfo
		rng  *asBuildRangeInfo
		as   accelerationStructure
		ref  scene.GeometryRef
		size uint64
	}
	var builds []*build
	var scratchSize uint64
	for _, g := range geoms {
		geo := newIn[asGeometry](&a)
		geo.sType = stAccelerationStructureGeometry
		rng := newIn[asBuildRangeInfo](&a)
		switch g.Kind {
		case scene.Triangles:
			m := &p.meshes[g.Index]
			geo.geometryType = geometryTriangles
			t := (*asTrianglesData)(unsafe.Pointer(&geo.geometry[0]))
			t.sType = stAccelerationStructureGeometryTrianglesData
			t.vertexFormat = vk.FormatR32g32b32Sfloat
			t.vertexData = bufs.positions.addr + 12*uint64(m.FirstVertex)
			t.vertexStride = 12
			t.maxVertex = uint32(max(len(sc.Meshes[g.Index].Positions)-1, 0))
			t.indexType = vk.IndexTypeUint32
			t.indexData = bufs.indices.addr + 4*uint64(m.FirstIndex)
			rng.primitiveCount = m.TriangleCount
		case scene.Spheres, scene.SweptSpheres:
			geo.geometryType = geometryAABBs
			ad := (*asAabbsData)(unsafe.Pointer(&geo.geometry[0]))
			ad.sType = stAccelerationStructureGeometryAabbsData
			ad.stride = 24
			first := p.aabbFirst[g.Index]
			var count int
			if g.Kind == scene.Spheres {
				count = len(sc.SphereSets[g.Index].Centers)
			} else {
				first = p.aabbFirst[len(sc.SphereSets)+g.Index]
				count = len(sc.CurveSets[g.Index].Segments)
			}
			ad.data = aabbBuf.addr + 24*uint64(first)
			rng.primitiveCount = uint32(count)
		}
		info := newIn[asBuildGeometryInfo](&a)
		info.sType = stAccelerationStructureBuildGeometryInfo
		info.typ = asBottomLevel
		info.flags = buildPreferFastTrace | buildAllowCompaction
		info.mode = buildModeBuild
		info.geometryCount = 1
		info.pGeometries = geo
		sizes := newIn[asBuildSizesInfo](&a)
		sizes.sType = stAccelerationStructureBuildSizesInfo
		count := newIn[uint32](&a)
		*count = rng.primitiveCount
		d.fn.getAccelerationStructureBuildSizes(d.handle, buildOnDevice, info, count, sizes)
		as, err := d.createAS(asBottomLevel, sizes.asSize, true, &a)
		if err != nil {
			return nil, err
		}
		info.dst = as
		uncompacted = append(uncompacted, as)
		builds = append(builds, &build{info: info, rng: rng, as: as, ref: g, size: sizes.asSize})
		scratchSize = max(scratchSize, sizes.buildScratch)
	}
	if len(builds) > 0 {
		// One scratch buffer per build would cost memory; the builds run one
		// after another with a barrier between, sharing one.
		align := uint64(256)
		scratch, err := d.newBuffer(scratchSize+align, 0, memDevice, true)
		if err != nil {
			return nil, err
		}
		pool, err := d.newQueryPool(len(builds))
		if err != nil {
			return nil, err
		}
		defer d.destroyQueryPool(pool)
		if err := d.begin(); err != nil {
			return nil, err
		}
		d.resetQueryPool(pool, len(builds))
		for _, b := range builds {
			b.info.scratch = (scratch.addr + align - 1) / align * align
			ranges := newIn[*asBuildRangeInfo](&a)
			*ranges = b.rng
			d.fn.cmdBuildAccelerationStructures(d.cmd, 1, b.info, ranges)
			d.barrier(stageASBuild, accessASWrite, stageASBuild, accessASRead|accessASWrite)
		}
		handles := sliceIn[accelerationStructure](&a, len(builds))
		for i, b := range builds {
			handles[i] = b.as
		}
		d.fn.cmdWriteAccelerationStructuresProperties(d.cmd, uint32(len(builds)), &handles[0], queryCompactedSize, pool, 0)
		if err := d.submit(); err != nil {
			return nil, fmt.Errorf("building the BLASes: %w", err)
		}
		compacted, err := d.queryResults(pool, len(builds))
		if err != nil {
			return nil, err
		}
		// Compaction: copy each into a structure of its compacted size.
		if err := d.begin(); err != nil {
			return nil, err
		}
		for i, b := range builds {
			size := compacted[i]
			if size == 0 || size > b.size {
				size = b.size
			}
			as, err := d.createAS(asBottomLevel, size, false, &a)
			if err != nil {
				return nil, err
			}
			cp := newIn[copyASInfo](&a)
			cp.sType = stCopyAccelerationStructureInfo
			cp.src, cp.dst, cp.mode = b.as, as, copyCompact
			d.fn.cmdCopyAccelerationStructure(d.cmd, cp)
			acc.blas[b.ref] = as
		}
		// The TLAS build reads the compacted BLASes' bounds.
		d.barrier(stageASBuild, accessASWrite, stageASBuild|stageRayTracing|stageComputeShader, accessASRead)
		if err := d.submit(); err != nil {
			return nil, fmt.Errorf("compacting the BLASes: %w", err)
		}
		for ref, as := range acc.blas {
			info := newIn[asDeviceAddressInfo](&a)
			info.sType = stAccelerationStructureDeviceAddressInfo
			info.as = as
			blasAddr[ref] = d.fn.getAccelerationStructureDeviceAddress(d.handle, info)
		}
	}

	// The TLAS.
	var insts []asInstance
	if len(sc.Instances) > 1<<24 {
		return nil, fmt.Errorf("%d instances: a TLAS instance's custom index holds at most %d", len(sc.Instances), 1<<24)
	}
	for i, in := range sc.Instances {
		if p.collapsed[i] {
			continue
		}
		g := &p.instances[i]
		var x asInstance
		for r := 0; r < 3; r++ {
			copy(x.transform[4*r:4*r+4], g.ToWorld[r][:])
		}
		x.customMask = uint32(i)&0xffffff | 0xff<<24
		flags := instanceCullDisable
		if p.opaque[i] {
			flags |= instanceForceOpaque
		}
		x.sbtFlags = (p.hitGroups[i]*2)&0xffffff | uint32(flags)<<24
		x.blasAddress = blasAddr[in.Geometry]
		insts = append(insts, x)
	}
	instBuf, err := d.upload(bytesOf(append(insts, asInstance{})), usageASInput, true) // never empty
	if err != nil {
		return nil, err
	}
	geo := newIn[asGeometry](&a)
	geo.sType = stAccelerationStructureGeometry
	geo.geometryType = geometryInstances
	id := (*asInstancesData)(unsafe.Pointer(&geo.geometry[0]))
	id.sType = stAccelerationStructureGeometryInstancesData
	id.data = instBuf.addr
	info := newIn[asBuildGeometryInfo](&a)
	info.sType = stAccelerationStructureBuildGeometryInfo
	info.typ = asTopLevel
	info.flags = buildPreferFastTrace
	info.mode = buildModeBuild
	info.geometryCount = 1
	info.pGeometries = geo
	count := newIn[uint32](&a)
	*count = uint32(len(insts))
	sizes := newIn[asBuildSizesInfo](&a)
	sizes.sType = stAccelerationStructureBuildSizesInfo
	d.fn.getAccelerationStructureBuildSizes(d.handle, buildOnDevice, info, count, sizes)
	tlas, err := d.createAS(asTopLevel, sizes.asSize, false, &a)
	if err != nil {
		return nil, err
	}
	scratch, err := d.newBuffer(sizes.buildScratch+256, 0, memDevice, true)
	if err != nil {
		return nil, err
	}
	info.dst = tlas
	info.scratch = (scratch.addr + 255) / 256 * 256
	rng := newIn[asBuildRangeInfo](&a)
	rng.primitiveCount = uint32(len(insts))
	ranges := newIn[*asBuildRangeInfo](&a)
	*ranges = rng
	if err := d.begin(); err != nil {
		return nil, err
	}
	d.fn.cmdBuildAccelerationStructures(d.cmd, 1, info, ranges)
	d.barrier(stageASBuild, accessASWrite, stageRayTracing|stageComputeShader, accessASRead)
	if err := d.submit(); err != nil {
		return nil, fmt.Errorf("building the TLAS: %w", err)
	}
	acc.tlas = tlas
	ai := newIn[asDeviceAddressInfo](&a)
	ai.sType = stAccelerationStructureDeviceAddressInfo
	ai.as = tlas
	acc.tlasAddr = d.fn.getAccelerationStructureDeviceAddress(d.handle, ai)
	return acc, nil
}

// createAS makes an acceleration structure of size bytes in a new buffer.
func (d *device) createAS(typ asType, size uint64, temp bool, a *arena) (accelerationStructure, error) {
	buf, err := d.newBuffer(size, usageASStorage, memDevice, temp)
	if err != nil {
		return 0, err
	}
	ci := newIn[asCreateInfo](a)
	ci.sType = stAccelerationStructureCreateInfo
	ci.buffer = uint64(uintptr(unsafe.Pointer(buf.handle)))
	ci.size = size
	ci.typ = typ
	out := newIn[accelerationStructure](a)
	if err := d.fn.createAccelerationStructure(d.handle, ci, out); err != nil {
		return 0, err
	}
	return *out, nil
}

func (acc *accel) destroy(d *device) {
	if acc == nil {
		return
	}
	for _, as := range acc.blas {
		if as != 0 {
			d.fn.destroyAccelerationStructure(d.handle, as)
		}
	}
	if acc.tlas != 0 {
		d.fn.destroyAccelerationStructure(d.handle, acc.tlas)
	}
}
