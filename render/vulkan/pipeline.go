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
	lights, lightProb, lightAlias, lightPdf, punctual             *buffer
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
	up(&b.lightProb, bytesOf(p.lights.Prob), 0)
	up(&b.lightAlias, bytesOf(p.lightAlias), 0)
	up(&b.lightPdf, bytesOf(p.lights.Pdf), 0)
	up(&b.punctual, bytesOf(p.punctual), 0)
	return b, err
}

// pipeline is the ray-tracing pipeline of a path and its shader binding
// table.
type pipeline struct {
	handle                 vk.Pipeline
	layout                 vk.PipelineLayout
	modules                []vk.ShaderModule
	sbt                    *buffer
	raygen, miss, hit, clb stridedDeviceAddressRegion
}

// newPipeline creates the pipeline: stages in the order of the modules
// below, groups raygen, miss, shadow miss, then per hit group (layout.Hit*)
// its radiance and shadow records.
func (d *device) newPipeline(path string) (p *pipeline, err error) {
	if d.rtProps.maxRayRecursionDepth < 2 {
		return nil, fmt.Errorf("the device traces at most %d ray levels; shadow rays from closest-hit shaders need 2", d.rtProps.maxRayRecursionDepth)
	}
	raygen := raygenModule(path, d.clock)
	type stage struct {
		module string
		flag   vk.ShaderStageFlags
	}
	stages := []stage{{raygen, stageRaygen}, {"miss.rmiss", stageMiss}, {"shadow.rmiss", stageMiss},
		{"surface.rchit", stageClosestHit}, {"hair.rchit", stageClosestHit}, {"alpha.rahit", stageAnyHit},
		{"sphere.rint", stageIntersection}, {"swept.rint", stageIntersection}}
	const (
		sRaygen, sMiss, sShadowMiss, sSurface, sHair, sAlpha, sSphere, sSwept = 0, 1, 2, 3, 4, 5, 6, 7
		unused                                                                = shaderUnused
	)
	p = &pipeline{}
	defer func() {
		if err != nil {
			p.destroy(d)
			p = nil
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
	groups := []group{gen(sRaygen), gen(sMiss), gen(sShadowMiss)}
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
	pl, err := d.pushLayout(stagesRayTracing, 8)
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
	ci.maxRecursionDepth = 2
	ci.layout = uint64(uintptr(unsafe.Pointer(pl)))
	ci.basePipelineIndex = -1
	out := newIn[vk.Pipeline](&a)
	if err := d.fn.createRayTracingPipelines(d.handle, 0, nil, 1, ci, out); err != nil {
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
	missOff := raygenSize
	missSize := alignUp(2*stride, ba)
	hitOff := missOff + missSize
	nHit := uint64(len(groups) - 3)
	hitSize := alignUp(nHit*stride, ba)
	table := make([]byte, hitOff+hitSize)
	put := func(off uint64, g int) { copy(table[off:], handles[uint64(g)*hs:uint64(g+1)*hs]) }
	put(0, 0)
	put(missOff, 1)
	put(missOff+stride, 2)
	for i := uint64(0); i < nHit; i++ {
		put(hitOff+i*stride, int(3+i))
	}
	sbt, err := d.upload(table, usageSBT, false)
	if err != nil {
		return nil, err
	}
	if sbt.addr%ba != 0 {
		return nil, fmt.Errorf("the shader binding table's address %#x is not aligned to %d", sbt.addr, ba)
	}
	p.sbt = sbt
	p.raygen = stridedDeviceAddressRegion{sbt.addr, raygenSize, raygenSize}
	p.miss = stridedDeviceAddressRegion{sbt.addr + missOff, stride, 2 * stride}
	p.hit = stridedDeviceAddressRegion{sbt.addr + hitOff, stride, nHit * stride}
	return p, nil
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
