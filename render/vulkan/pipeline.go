package vulkan

import (
	"fmt"
	"slices"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"sertrace/render/layout"
)

// sceneBuffers are the uploaded buffers of a packed scene.
type sceneBuffers struct {
	instances, materials, meshes, sphereSets, curveSets, textures *buffer
	positions, normals, texCoords, colors, tangents, indices      *buffer
	points, radii, segments, texels                               *buffer
	lights, lightColumns, lightPdf, lightNodes, punctual          *buffer
}

func (d *device) uploadScene(p *packed) (*sceneBuffers, error) {
	b := &sceneBuffers{}
	var err error
	asInput := usageASInput
	if !slices.Contains(d.extensions, "VK_KHR_acceleration_structure") {
		asInput = 0 // the scene probe's device builds none
	}
	up := func(dst **buffer, data []byte, usage vk.BufferUsageFlags) {
		if err == nil {
			*dst, err = d.upload(data, usage, false)
		}
	}
	up(&b.instances, bytesOf(p.instances), 0)
	up(&b.materials, bytesOf(p.materials), 0)
	up(&b.meshes, bytesOf(p.meshes), 0)
	up(&b.sphereSets, bytesOf(p.sphereSets), 0)
	up(&b.curveSets, bytesOf(p.curveSets), 0)
	up(&b.textures, bytesOf(p.textures), 0)
	up(&b.positions, bytesOf(p.positions), asInput)
	up(&b.normals, bytesOf(p.normals), 0)
	up(&b.texCoords, bytesOf(p.texCoords), 0)
	up(&b.colors, bytesOf(p.colors), 0)
	up(&b.tangents, bytesOf(p.tangents), 0)
	up(&b.indices, bytesOf(p.indices), asInput)
	up(&b.points, bytesOf(p.points), 0)
	up(&b.radii, bytesOf(p.radii), 0)
	up(&b.segments, bytesOf(p.segments), 0)
	up(&b.texels, bytesOf(p.texels), 0)
	up(&b.lights, bytesOf(p.lightEnts), 0)
	up(&b.lightColumns, bytesOf(p.lights.Columns), 0)
	up(&b.lightPdf, bytesOf(p.lights.Pdf), 0)
	up(&b.lightNodes, bytesOf(p.lights.Tree), 0)
	up(&b.punctual, bytesOf(p.punctual), 0)
	return b, err
}

// pipeline is a ray-tracing pipeline and its shader binding table: one
// raygen region per raygen stage (the render paths have one, rt-sorted's
// wavefront two: trace and shade).
type pipeline struct {
	handle    vk.Pipeline
	layout    vk.PipelineLayout
	modules   []vk.ShaderModule
	sbt       *buffer
	raygens   []stridedDeviceAddressRegion
	miss, hit stridedDeviceAddressRegion
	clb       stridedDeviceAddressRegion
}

// pipelineShaders are a pipeline's modules: its raygen stages, the radiance
// rays' miss shader, and the closest-hit shaders of surfaces and of hair;
// the shadow rays' miss, the any-hit and the intersection shaders are
// every pipeline's.
type pipelineShaders struct {
	raygens             []string
	miss, surface, hair string
	recursion           uint32 // ray levels: 2 where closest-hit shaders trace shadow rays
	push                int    // the push constant's size
}

// pathShaders are the shaders of a pipeline path, the raygen timed by the
// shader clock or not.
func pathShaders(path string, clock bool) pipelineShaders {
	if path == PathRTSorted {
		return pipelineShaders{raygens: []string{"rts_trace.rgen", "rts_shade.rgen"}, miss: "record.rmiss", surface: "record.rchit",
			hair: "record.rchit", recursion: 1, push: int(unsafe.Sizeof(wavefrontPush{}))}
	}
	return pipelineShaders{raygens: []string{raygenModule(path, clock)}, miss: "miss.rmiss", surface: "surface.rchit",
		hair: "hair.rchit", recursion: 2, push: 8}
}

// newPipeline creates a path's pipeline: stages in the order below (each
// module once), groups the raygens, miss, shadow miss, then per hit group
// (layout.Hit*) its radiance and shadow records.
func (d *device) newPipeline(path string, ps pipelineShaders) (_ *pipeline, err error) {
	if d.rtProps.maxRayRecursionDepth < ps.recursion {
		return nil, fmt.Errorf("the device traces at most %d ray levels; shadow rays from closest-hit shaders need %d", d.rtProps.maxRayRecursionDepth, ps.recursion)
	}
	type stage struct {
		module string
		flag   vk.ShaderStageFlags
	}
	var stages []stage
	index := map[string]uint32{}
	add := func(module string, flag vk.ShaderStageFlags) uint32 {
		if i, ok := index[module]; ok {
			return i
		}
		index[module] = uint32(len(stages))
		stages = append(stages, stage{module, flag})
		return index[module]
	}
	var raygens []uint32
	for _, r := range ps.raygens {
		raygens = append(raygens, add(r, stageRaygen))
	}
	sMiss, sShadowMiss := add(ps.miss, stageMiss), add("shadow.rmiss", stageMiss)
	sSurface, sHair := add(ps.surface, stageClosestHit), add(ps.hair, stageClosestHit)
	sAlpha, sSphere, sSwept := add("alpha.rahit", stageAnyHit), add("sphere.rint", stageIntersection), add("swept.rint", stageIntersection)
	const unused = shaderUnused
	p := &pipeline{}
	defer func() {
		if err != nil {
			p.destroy(d)
		}
	}()
	var a arena
	defer a.free()
	pstages := sliceIn[pipelineShaderStageCreateInfo](&a, len(stages))
	for i, s := range stages {
		m, err := d.shaderModule(s.module)
		if err != nil {
			return nil, err
		}
		p.modules = append(p.modules, m)
		pstages[i] = pipelineShaderStageCreateInfo{sType: stPipelineShaderStageCreateInfo, stage: s.flag,
			module: uint64(uintptr(unsafe.Pointer(m))), name: a.cstr("main")}
	}
	type group struct {
		typ                        shaderGroupType
		general, chit, ahit, isect uint32
	}
	gen := func(s uint32) group { return group{groupGeneral, s, unused, unused, unused} }
	var groups []group
	for _, r := range raygens {
		groups = append(groups, gen(r))
	}
	groups = append(groups, gen(sMiss), gen(sShadowMiss))
	nRaygen := len(raygens)
	hitGroups := [layout.HitGroupCount][layout.RayTypes]group{
		layout.HitTriangles:       {{groupTriangles, unused, sSurface, unused, unused}, {groupTriangles, unused, unused, unused, unused}},
		layout.HitTrianglesMasked: {{groupTriangles, unused, sSurface, sAlpha, unused}, {groupTriangles, unused, unused, sAlpha, unused}},
		layout.HitSpheres:         {{groupProcedural, unused, sSurface, unused, sSphere}, {groupProcedural, unused, unused, unused, sSphere}},
		layout.HitSweptSpheres:    {{groupProcedural, unused, sSurface, unused, sSwept}, {groupProcedural, unused, unused, unused, sSwept}},
		layout.HitHair:            {{groupProcedural, unused, sHair, unused, sSwept}, {groupProcedural, unused, unused, unused, sSwept}},
	}
	for _, hg := range hitGroups {
		groups = append(groups, hg[0], hg[1])
	}
	pgroups := sliceIn[rayTracingShaderGroupCreateInfo](&a, len(groups))
	for i, g := range groups {
		pgroups[i] = rayTracingShaderGroupCreateInfo{sType: stRayTracingShaderGroupCreateInfo, typ: g.typ, general: g.general,
			closestHit: g.chit, anyHit: g.ahit, intersect: g.isect}
	}
	pl, err := d.pushLayout(stagesRayTracing, ps.push)
	if err != nil {
		return nil, err
	}
	p.layout = pl
	ci := newIn[rayTracingPipelineCreateInfo](&a)
	ci.sType = stRayTracingPipelineCreateInfo
	ci.stageCount = uint32(len(stages))
	ci.stages = &pstages[0]
	ci.groupCount = uint32(len(groups))
	ci.groups = &pgroups[0]
	ci.maxRecursionDepth = ps.recursion
	ci.layout = uint64(uintptr(unsafe.Pointer(pl)))
	ci.basePipelineIndex = -1
	out := newIn[vk.Pipeline](&a)
	if err := d.fn.createRayTracingPipelines(d.handle, 0, d.pipelineCache, 1, ci, out); err != nil {
		return nil, fmt.Errorf("the %s pipeline failed to build: %w", path, err)
	}
	p.handle = *out

	// The shader binding table: raygen, misses, hit groups, each region
	// aligned to shaderGroupBaseAlignment, records to shaderGroupHandleAlignment.
	hs := uint64(d.rtProps.shaderGroupHandleSize)
	ha := uint64(max(d.rtProps.shaderGroupHandleAlignment, 1))
	ba := uint64(max(d.rtProps.shaderGroupBaseAlignment, 1))
	alignUp := func(v, a uint64) uint64 { return (v + a - 1) / a * a }
	stride := alignUp(hs, ha)
	handles := sliceIn[byte](&a, int(hs)*len(groups))
	if err := d.fn.getRayTracingShaderGroupHandles(d.handle, p.handle, 0, uint32(len(groups)), uintptr(len(handles)), unsafe.Pointer(&handles[0])); err != nil {
		return nil, err
	}
	raygenSize := alignUp(stride, ba)
	missOff := raygenSize * uint64(nRaygen)
	missSize := alignUp(2*stride, ba)
	hitOff := missOff + missSize
	nHit := uint64(len(groups) - nRaygen - 2)
	hitSize := alignUp(nHit*stride, ba)
	table := make([]byte, hitOff+hitSize)
	put := func(off uint64, g int) { copy(table[off:], handles[uint64(g)*hs:uint64(g+1)*hs]) }
	for i := range nRaygen {
		put(uint64(i)*raygenSize, i)
	}
	put(missOff, nRaygen)
	put(missOff+stride, nRaygen+1)
	for i := uint64(0); i < nHit; i++ {
		put(hitOff+i*stride, nRaygen+2+int(i))
	}
	sbt, err := d.upload(table, usageSBT, false)
	if err != nil {
		return nil, err
	}
	if sbt.addr%ba != 0 {
		return nil, fmt.Errorf("the shader binding table's address %#x is not aligned to %d", sbt.addr, ba)
	}
	p.sbt = sbt
	for i := range nRaygen {
		p.raygens = append(p.raygens, stridedDeviceAddressRegion{sbt.addr + uint64(i)*raygenSize, raygenSize, raygenSize})
	}
	p.miss = stridedDeviceAddressRegion{sbt.addr + missOff, stride, 2 * stride}
	p.hit = stridedDeviceAddressRegion{sbt.addr + hitOff, stride, nHit * stride}
	return p, nil
}

// trace records a launch of the pipeline's raygen stage raygen, its push
// constant the size bytes at push: of width × height invocations, or,
// where args is an address, of the size the three uint32s there hold
// (vkCmdTraceRaysIndirectKHR).
func (p *pipeline) trace(d *device, raygen int, push unsafe.Pointer, size uint32, width, height uint32, args uint64) {
	vk.CmdBindPipeline(d.cmd, pipelineBindPointRayTracing, p.handle)
	vk.CmdPushConstants(d.cmd, p.layout, stagesRayTracing, 0, size, push)
	var a arena // the regions, in C memory for the call
	defer a.free()
	regions := sliceIn[stridedDeviceAddressRegion](&a, 4)
	regions[0], regions[1], regions[2], regions[3] = p.raygens[raygen], p.miss, p.hit, p.clb
	if args != 0 {
		d.fn.cmdTraceRaysIndirect(d.cmd, &regions[0], &regions[1], &regions[2], &regions[3], args)
		return
	}
	d.fn.cmdTraceRays(d.cmd, &regions[0], &regions[1], &regions[2], &regions[3], width, height, 1)
}

func (p *pipeline) destroy(d *device) {
	if p == nil {
		return
	}
	if p.handle != nil {
		vk.DestroyPipeline(d.handle, p.handle, nil)
	}
	if p.layout != nil {
		vk.DestroyPipelineLayout(d.handle, p.layout, nil)
	}
	for _, m := range p.modules {
		vk.DestroyShaderModule(d.handle, m, nil)
	}
}
