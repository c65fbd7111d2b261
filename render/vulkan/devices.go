package vulkan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"sertrace/shaders"
)

// Paths a Vulkan device can render with, best first.
const (
	PathSER      = "ser"      // ray-tracing pipeline with hit objects and reorderThreadNV
	PathRT       = "rt"       // ray-tracing pipeline with traceRayEXT
	PathRayQuery = "rayquery" // compute shaders with ray queries
	// PathRTSorted is the sorting wavefront on the ray-tracing pipeline: a
	// raygen launch traces a bounce's rays into hit records, compute
	// shaders sort them by the reorder key, a second raygen launch shades
	// them in that order. Software reordering wherever rt runs.
	PathRTSorted = "rt-sorted"
)

// pathDenoise is the denoiser's compute shader: not a render path, but
// gated and created like one.
const pathDenoise = "denoise"

// PathNames lists the paths in the order auto tries them where nothing was
// measured on the device (auto.go).
var PathNames = []string{PathSER, PathRT, PathRayQuery, PathRTSorted}

// gatedPaths are what the capability gate decides for each device: the
// paths and the denoiser.
var gatedPaths = append(append([]string{}, PathNames...), computePaths...)

// computePaths are the compute shaders gated like render paths: they build
// no acceleration structure, and devices does not list them.
var computePaths = []string{pathDenoise, pathProbe}

// PathStatus says whether a device can run a path, and why not.
type PathStatus struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason"`
}

// Device is what `sertrace devices` reports of a physical device.
type Device struct {
	Index       int     `json:"index"`
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Driver      string  `json:"driver"`
	APIVersion  string  `json:"api_version"`
	ReorderMode *string `json:"reorder_mode"` // "reorder", "none", or null without VK_NV_ray_tracing_invocation_reorder
	Spheres     bool    `json:"spheres"`      // native VK_GEOMETRY_TYPE_SPHERES_NV
	LSS         bool    `json:"lss"`          // native linear swept spheres
	ShaderClock bool    `json:"shader_clock"` // VK_KHR_shader_clock, for GPU cost heatmaps
	// TraceRaysIndirect: rayTracingPipelineTraceRaysIndirect, with which
	// rt-sorted launches a bounce's live paths only.
	TraceRaysIndirect bool `json:"trace_rays_indirect"`
	// SubgroupSort: the wavefronts' sort counts and scatters a subgroup's
	// paths of one key with one atomic (the _subgroup modules), on the
	// paths listed; without subgroup ballots, one atomic a path.
	SubgroupSort []string `json:"subgroup_sort"`
	DeviceLocal  uint64   `json:"device_local_bytes"` // its largest device-local memory heap
	// MemoryBudget: VK_EXT_memory_budget, which says how much of it the
	// process may still take (what sizes a render's launches).
	MemoryBudget bool                  `json:"memory_budget"`
	VendorDevice string                `json:"vendor_device"`          // the vendor and device IDs, "10de:2335"
	Extensions   []string              `json:"ray_tracing_extensions"` // the device's extensions that tracing rays concerns, sorted (traceExtension)
	Paths        map[string]PathStatus `json:"paths"`
	Auto         AutoChoice            `json:"auto"` // the path auto takes, and why

	handle     vk.PhysicalDevice
	id         cacheIdentity // what the pipeline cache and the calibration hold for
	driverInfo string        // the driver's version string ("580.159.04")
	exts       map[string]bool
	status     map[string]PathStatus // Paths, and the denoiser's compute shader
	// maxBuffer is the largest buffer the device makes, and memory it
	// allocates at once: maxMemoryAllocationSize (Vulkan 1.1), and
	// maxBufferSize where it has Vulkan 1.3 (lavapipe's is 2 GiB).
	maxBuffer uint64
}

// Best is the path auto takes on the device (Auto), or "".
func (d *Device) Best() string { return d.Auto.Path }

// pathModules are the SPIR-V modules each path's pipeline is made of.
func pathModules(path string) ([][]byte, error) { return modules(path, false) }

// raygenModule is the raygen stage of a pipeline path, timed by the shader
// clock or not.
func raygenModule(path string, clock bool) string {
	name := "raygen"
	if path == PathSER {
		name += "_ser"
	}
	if clock {
		name += "_clock"
	}
	return name + ".rgen"
}

// modules are a path's SPIR-V modules; clock picks the pipeline paths'
// shader-clock variant.
func modules(path string, clock bool) ([][]byte, error) {
	names, err := moduleNames(path, clock)
	if err != nil {
		return nil, err
	}
	return loadModules(names)
}

// subgroupSortVariants are the modules whose sort counts or scatters, and
// their variants that do it a subgroup's key at a time (wave.glsl's
// takeCounter, built with SUBGROUP_SORT).
var subgroupSortVariants = map[string]string{
	"wave_scatter.comp": "wave_scatter_subgroup.comp",
	"rq_trace.comp":     "rq_trace_subgroup.comp",
	"rts_trace.rgen":    "rts_trace_subgroup.rgen",
}

// subgroupSortName is module name's subgroup sort variant, or name where
// it has none.
func subgroupSortName(name string) string { return cmp.Or(subgroupSortVariants[name], name) }

// subgroupSortModules are a wavefront path's modules with the subgroup
// sort's variants in place.
func subgroupSortModules(path string) ([][]byte, error) {
	names, err := moduleNames(path, false)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		names[i] = subgroupSortName(n)
	}
	return loadModules(names)
}

// loadModules are the embedded SPIR-V modules named.
func loadModules(names []string) ([][]byte, error) {
	var mods [][]byte
	for _, n := range names {
		b, err := shaders.SPIRV(n)
		if err != nil {
			return nil, err
		}
		mods = append(mods, b)
	}
	return mods, nil
}

// moduleNames are the names of a path's SPIR-V modules (modules).
func moduleNames(path string, clock bool) ([]string, error) {
	var names []string
	switch path {
	case PathSER, PathRT:
		names = append(append([]string{raygenModule(path, clock)}, hitModules...), resolveModule)
	case PathRayQuery, PathRTSorted:
		names = append(append([]string{}, waveModules...), rayQueryModules...)
		if path == PathRTSorted {
			names = append(names[:len(waveModules)], rtSortedModules...)
		}
		if clock {
			return nil, fmt.Errorf("the %s path has no shader-clock timing", path)
		}
	case pathDenoise:
		names = []string{"denoise.comp"}
	case pathProbe:
		names = []string{"probe.comp", "probe_scene.comp"}
	default:
		return nil, fmt.Errorf("no shaders for path %q", path)
	}
	return names, nil
}

// hitModules are the miss, hit and intersection shaders both pipeline
// paths share.
var hitModules = []string{"miss.rmiss", "shadow.rmiss", "surface.rchit", "hair.rchit", "alpha.rahit", "sphere.rint", "swept.rint"}

// waveModules are the compute stages both wavefronts run: new paths, the
// counting sort's scan and scatter, the next bounce's counts, the resolve
// (which rt and ser run too).
var waveModules = []string{"wave_generate.comp", "wave_scan.comp", "wave_scatter.comp", "wave_advance.comp", resolveModule}

// rayQueryModules trace and shade the ray-query path's bounces.
var rayQueryModules = []string{"rq_trace.comp", "rq_shade.comp"}

// rtSortedModules trace and shade the rt-sorted path's bounces: its
// ray-tracing pipeline's stages, in the order newSortingPipeline groups them.
var rtSortedModules = []string{"rts_trace.rgen", "rts_shade.rgen", "record.rmiss", "shadow.rmiss", "record.rchit", "alpha.rahit",
	"sphere.rint", "swept.rint"}

// Devices lists every physical device and what it can run.
func Devices() ([]Device, error) {
	in, err := processInstance(false)
	if err != nil {
		return nil, err
	}
	var out []Device
	for i, pd := range in.physicalDevices() {
		out = append(out, describe(in, i, pd))
	}
	return out, nil
}

func describe(in *instance, index int, pd vk.PhysicalDevice) Device {
	var props vk.PhysicalDeviceProperties
	vk.GetPhysicalDeviceProperties(pd, &props)
	props.Deref()
	d := Device{Index: index, Name: cString(props.DeviceName[:]), handle: pd, exts: deviceExtensions(pd),
		VendorDevice: fmt.Sprintf("%04x:%04x", props.VendorID, props.DeviceID),
		id:           cacheIdentity{props.VendorID, props.DeviceID, props.DriverVersion, props.PipelineCacheUUID},
		APIVersion:   fmt.Sprintf("%d.%d.%d", props.ApiVersion>>22, props.ApiVersion>>12&0x3ff, props.ApiVersion&0xfff),
		Type:         deviceType(props.DeviceType), Paths: map[string]PathStatus{}, status: map[string]PathStatus{}}
	var mp vk.PhysicalDeviceMemoryProperties
	vk.GetPhysicalDeviceMemoryProperties(pd, &mp)
	mp.Deref()
	for h := range min(mp.MemoryHeapCount, vk.MaxMemoryHeaps) {
		heap := mp.MemoryHeaps[h]
		heap.Deref()
		if heap.Flags&vk.MemoryHeapFlags(vk.MemoryHeapDeviceLocalBit) != 0 {
			d.DeviceLocal = max(d.DeviceLocal, uint64(heap.Size))
		}
	}
	d.MemoryBudget = d.exts[memoryBudgetExtension]
	for e := range d.exts {
		if traceExtension(e) {
			d.Extensions = append(d.Extensions, e)
		}
	}
	slices.Sort(d.Extensions)
	if props.ApiVersion < vk.MakeVersion(1, 2, 0) {
		for _, p := range gatedPaths {
			d.setStatus(p, PathStatus{Reason: "Vulkan " + d.APIVersion + " is older than 1.2"})
		}
		d.Auto = d.autoChoice()
		return d
	}
	var a arena
	defer a.free()

	// Properties: the driver, and SER's reordering mode.
	p2 := newIn[physicalDeviceProperties2](&a)
	p2.sType = stPhysicalDeviceProperties2
	tail := (*chained)(unsafe.Pointer(p2))
	drv := chainIn[physicalDeviceDriverProperties](&a, &tail, stPhysicalDeviceDriverProperties)
	subgroup := chainIn[physicalDeviceSubgroupProperties](&a, &tail, stPhysicalDeviceSubgroupProperties)
	maint3 := chainIn[physicalDeviceMaintenance3Properties](&a, &tail, stPhysicalDeviceMaintenance3Properties)
	var maint4 *physicalDeviceMaintenance4Properties
	if props.ApiVersion >= vk.MakeVersion(1, 3, 0) {
		maint4 = chainIn[physicalDeviceMaintenance4Properties](&a, &tail, stPhysicalDeviceMaintenance4Properties)
	}
	var ser *physicalDeviceRayTracingInvocationReorderProperties
	if d.exts["VK_NV_ray_tracing_invocation_reorder"] {
		ser = chainIn[physicalDeviceRayTracingInvocationReorderProperties](&a, &tail, stPhysicalDeviceRayTracingInvocationReorderProperties)
	}
	in.fn.getPhysicalDeviceProperties2(pd, p2)
	d.maxBuffer = maint3.maxMemoryAllocationSize
	if maint4 != nil && maint4.maxBufferSize > 0 {
		d.maxBuffer = min(d.maxBuffer, maint4.maxBufferSize)
	}
	d.Driver = cString(drv.driverName[:])
	if d.driverInfo = cString(drv.driverInfo[:]); d.driverInfo != "" {
		d.Driver += " " + d.driverInfo
	}
	if ser != nil {
		mode := "none"
		if ser.reorderHint == reorderModeReorder {
			mode = "reorder"
		}
		d.ReorderMode = &mode
	}

	supported := newFeatureChain(&a, d.exts)
	in.fn.getPhysicalDeviceFeatures2(pd, supported.f2)
	if supported.lss != nil {
		d.Spheres, d.LSS = supported.lss.spheres != 0, supported.lss.linearSweptSpheres != 0
	}
	d.ShaderClock = supported.clock != nil && supported.clock.shaderDeviceClock != 0
	d.TraceRaysIndirect = supported.rtp != nil && supported.rtp.rayTracingPipelineTraceRaysIndirect != 0
	setSubgroupSupport(supported.subgroup, subgroup)

	for _, p := range gatedPaths {
		mods, err := pathModules(p)
		if err != nil {
			d.setStatus(p, PathStatus{Reason: err.Error()})
			continue
		}
		st := PathStatus{Available: true}
		reqs, err := pathRequirements(p, mods)
		if err != nil {
			st = PathStatus{Reason: err.Error()}
		} else if why := missing(reqs, d.exts, supported); why != "" {
			st = PathStatus{Reason: why}
		}
		d.setStatus(p, st)
	}
	// The sort's subgroup variants, on the wavefronts the device runs.
	for _, p := range []string{PathRayQuery, PathRTSorted} {
		if !d.status[p].Available {
			continue
		}
		if mods, err := subgroupSortModules(p); err == nil {
			if reqs, err := pathRequirements(p, mods); err == nil && missing(reqs, d.exts, supported) == "" {
				d.SubgroupSort = append(d.SubgroupSort, p)
			}
		}
	}
	d.Auto = d.autoChoice()
	return d
}

// setStatus records whether the device runs path p; Paths, which users
// see, leaves out the denoiser's compute shader.
func (d *Device) setStatus(p string, st PathStatus) {
	d.status[p] = st
	if !slices.Contains(computePaths, p) {
		d.Paths[p] = st
	}
}

// traceExtension says whether a device extension concerns tracing rays:
// ray tracing and ray queries of any vendor, acceleration structures,
// reordering, swept spheres and the shader clock, the ones a report of a
// new driver should list whether or not sertrace uses them yet.
func traceExtension(name string) bool {
	for _, part := range []string{"ray_tracing", "ray_query", "acceleration_structure", "invocation_reorder", "swept_spheres", "shader_clock", "opacity_micromap", "displacement_micromap"} {
		if strings.Contains(name, part) {
			return true
		}
	}
	return false
}

func deviceType(t vk.PhysicalDeviceType) string {
	switch t {
	case vk.PhysicalDeviceTypeIntegratedGpu:
		return "integrated-gpu"
	case vk.PhysicalDeviceTypeDiscreteGpu:
		return "discrete-gpu"
	case vk.PhysicalDeviceTypeVirtualGpu:
		return "virtual-gpu"
	case vk.PhysicalDeviceTypeCpu:
		return "cpu"
	}
	return "other"
}
