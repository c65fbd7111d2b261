package vulkan

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// The entry points of sertrace's own binding are the fields of two typed
// function tables: instanceFuncs, loaded once by createInstance, and
// deviceFuncs, loaded once by device.create. A field is a Go function with
// the entry point's parameters typed (handles, the binding's structures,
// counts), made in one place, the table's entry for it, which spells the
// entry point's name and says what brings it: Vulkan 1.2 itself or an
// extension. Loading looks up every entry point of Vulkan 1.2 and of the
// extensions the instance or device enabled, and fails naming each one the
// driver lacks; those of extensions not enabled stay nil (the
// ray-tracing pipeline's on a ray-query device, say), and no path calls
// them. The pointers the functions take must point into C memory (an
// arena), as binding.go says; no function takes a VkAllocationCallbacks,
// which sertrace never passes.

// vkFunc is a loaded entry point: its name, for errors, and its address.
type vkFunc struct {
	name string
	addr unsafe.Pointer
}

// call calls the entry point with integer or pointer arguments.
func (f vkFunc) call(args ...uintptr) uint64 { return call(f.addr, args...) }

// result calls an entry point that returns a VkResult and makes an error,
// naming the entry point, of a failure.
func (f vkFunc) result(args ...uintptr) error { return result(f.name, call(f.addr, args...)) }

// entryPoint is one field of a function table: the entry point's name as
// the specification spells it, what brings it ("" for Vulkan 1.2 itself,
// else the extension), and bind, which sets the field to a typed function
// of the loaded entry point.
type entryPoint struct {
	name string
	from string
	bind func(vkFunc)
}

// loadEntryPoints looks up and binds the entries of Vulkan 1.2 and of the
// extensions enabled; the error names every one that lookup does not find.
func loadEntryPoints(who string, entries []entryPoint, enabled []string, lookup func(name string) unsafe.Pointer) error {
	var missing []string
	for _, e := range entries {
		if e.from != "" && !slices.Contains(enabled, e.from) {
			continue
		}
		p := lookup(e.name)
		if p == nil {
			missing = append(missing, e.name)
			continue
		}
		e.bind(vkFunc{name: e.name, addr: p})
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s has no %s", who, strings.Join(missing, ", "))
	}
	return nil
}

// instanceFuncs are the instance-level entry points that vulkan-go (Vulkan
// 1.0 for these) lacks.
type instanceFuncs struct {
	// Vulkan 1.0 and 1.1.
	getDeviceProcAddr            func(device vk.Device, name string) unsafe.Pointer
	getPhysicalDeviceProperties2 func(pd vk.PhysicalDevice, props *physicalDeviceProperties2)
	getPhysicalDeviceFeatures2   func(pd vk.PhysicalDevice, features *physicalDeviceFeatures2)
	// getPhysicalDeviceMemoryProperties2 fills the chain after
	// the properties: VK_EXT_memory_budget's budget.
	getPhysicalDeviceMemoryProperties2 func(pd vk.PhysicalDevice, props *physicalDeviceMemoryProperties2)

	// VK_EXT_debug_utils, which the instance enables with validation.
	createDebugUtilsMessenger  func(instance vk.Instance, info *debugUtilsMessengerCreateInfo, messenger *debugUtilsMessenger) error
	destroyDebugUtilsMessenger func(instance vk.Instance, messenger debugUtilsMessenger)
}

func (t *instanceFuncs) entryPoints() []entryPoint {
	return []entryPoint{
		{"vkGetDeviceProcAddr", "", func(f vkFunc) {
			t.getDeviceProcAddr = func(device vk.Device, name string) unsafe.Pointer {
				return deviceProc(f.addr, unsafe.Pointer(device), name)
			}
		}},
		{"vkGetPhysicalDeviceProperties2", "", func(f vkFunc) {
			t.getPhysicalDeviceProperties2 = func(pd vk.PhysicalDevice, props *physicalDeviceProperties2) {
				f.call(uintptr(unsafe.Pointer(pd)), ptr(props))
			}
		}},
		{"vkGetPhysicalDeviceFeatures2", "", func(f vkFunc) {
			t.getPhysicalDeviceFeatures2 = func(pd vk.PhysicalDevice, features *physicalDeviceFeatures2) {
				f.call(uintptr(unsafe.Pointer(pd)), ptr(features))
			}
		}},
		{"vkGetPhysicalDeviceMemoryProperties2", "", func(f vkFunc) {
			t.getPhysicalDeviceMemoryProperties2 = func(pd vk.PhysicalDevice, props *physicalDeviceMemoryProperties2) {
				f.call(uintptr(unsafe.Pointer(pd)), ptr(props))
			}
		}},
		{"vkCreateDebugUtilsMessengerEXT", "VK_EXT_debug_utils", func(f vkFunc) {
			t.createDebugUtilsMessenger = func(instance vk.Instance, info *debugUtilsMessengerCreateInfo, messenger *debugUtilsMessenger) error {
				return f.result(uintptr(unsafe.Pointer(instance)), ptr(info), 0, ptr(messenger))
			}
		}},
		{"vkDestroyDebugUtilsMessengerEXT", "VK_EXT_debug_utils", func(f vkFunc) {
			t.destroyDebugUtilsMessenger = func(instance vk.Instance, messenger debugUtilsMessenger) {
				f.call(uintptr(unsafe.Pointer(instance)), uintptr(messenger), 0)
			}
		}},
	}
}

// load looks the entry points up in an instance that enabled the instance
// extensions exts.
func (t *instanceFuncs) load(gipa unsafe.Pointer, instance vk.Instance, exts []string) error {
	return loadEntryPoints("the Vulkan loader", t.entryPoints(), exts, func(name string) unsafe.Pointer {
		return instanceProc(gipa, unsafe.Pointer(instance), name)
	})
}

// deviceFuncs are the device-level entry points that vulkan-go (Vulkan
// 1.1) lacks.
type deviceFuncs struct {
	// Vulkan 1.2: every path.
	getBufferDeviceAddress func(device vk.Device, info *bufferDeviceAddressInfo) uint64

	// VK_KHR_acceleration_structure: the render paths.
	createAccelerationStructure              func(device vk.Device, info *asCreateInfo, as *accelerationStructure) error
	destroyAccelerationStructure             func(device vk.Device, as accelerationStructure)
	getAccelerationStructureBuildSizes       func(device vk.Device, typ asBuildType, info *asBuildGeometryInfo, maxPrimitiveCounts *uint32, sizes *asBuildSizesInfo)
	cmdBuildAccelerationStructures           func(cmd vk.CommandBuffer, infoCount uint32, infos *asBuildGeometryInfo, ranges **asBuildRangeInfo)
	getAccelerationStructureDeviceAddress    func(device vk.Device, info *asDeviceAddressInfo) uint64
	cmdWriteAccelerationStructuresProperties func(cmd vk.CommandBuffer, count uint32, structures *accelerationStructure, typ vk.QueryType, pool vk.QueryPool, firstQuery uint32)
	cmdCopyAccelerationStructure             func(cmd vk.CommandBuffer, info *copyASInfo)

	// VK_KHR_ray_tracing_pipeline: the ser and rt paths.
	createRayTracingPipelines       func(device vk.Device, deferred deferredOperation, cache vk.PipelineCache, count uint32, infos *rayTracingPipelineCreateInfo, pipelines *vk.Pipeline) error
	getRayTracingShaderGroupHandles func(device vk.Device, pipeline vk.Pipeline, firstGroup, groupCount uint32, dataSize uintptr, data unsafe.Pointer) error
	cmdTraceRays                    func(cmd vk.CommandBuffer, raygen, miss, hit, callable *stridedDeviceAddressRegion, width, height, depth uint32)
	cmdTraceRaysIndirect            func(cmd vk.CommandBuffer, raygen, miss, hit, callable *stridedDeviceAddressRegion, args uint64)
}

func (t *deviceFuncs) entryPoints() []entryPoint {
	const as, rtp = "VK_KHR_acceleration_structure", "VK_KHR_ray_tracing_pipeline"
	return []entryPoint{
		{"vkGetBufferDeviceAddress", "", func(f vkFunc) {
			t.getBufferDeviceAddress = func(device vk.Device, info *bufferDeviceAddressInfo) uint64 {
				return f.call(uintptr(unsafe.Pointer(device)), ptr(info))
			}
		}},

		{"vkCreateAccelerationStructureKHR", as, func(f vkFunc) {
			t.createAccelerationStructure = func(device vk.Device, info *asCreateInfo, out *accelerationStructure) error {
				return f.result(uintptr(unsafe.Pointer(device)), ptr(info), 0, ptr(out))
			}
		}},
		{"vkDestroyAccelerationStructureKHR", as, func(f vkFunc) {
			t.destroyAccelerationStructure = func(device vk.Device, s accelerationStructure) {
				f.call(uintptr(unsafe.Pointer(device)), uintptr(s), 0)
			}
		}},
		{"vkGetAccelerationStructureBuildSizesKHR", as, func(f vkFunc) {
			t.getAccelerationStructureBuildSizes = func(device vk.Device, typ asBuildType, info *asBuildGeometryInfo, maxPrimitiveCounts *uint32, sizes *asBuildSizesInfo) {
				f.call(uintptr(unsafe.Pointer(device)), uintptr(typ), ptr(info), ptr(maxPrimitiveCounts), ptr(sizes))
			}
		}},
		{"vkCmdBuildAccelerationStructuresKHR", as, func(f vkFunc) {
			t.cmdBuildAccelerationStructures = func(cmd vk.CommandBuffer, infoCount uint32, infos *asBuildGeometryInfo, ranges **asBuildRangeInfo) {
				f.call(uintptr(unsafe.Pointer(cmd)), uintptr(infoCount), ptr(infos), ptr(ranges))
			}
		}},
		{"vkGetAccelerationStructureDeviceAddressKHR", as, func(f vkFunc) {
			t.getAccelerationStructureDeviceAddress = func(device vk.Device, info *asDeviceAddressInfo) uint64 {
				return f.call(uintptr(unsafe.Pointer(device)), ptr(info))
			}
		}},
		{"vkCmdWriteAccelerationStructuresPropertiesKHR", as, func(f vkFunc) {
			t.cmdWriteAccelerationStructuresProperties = func(cmd vk.CommandBuffer, count uint32, structures *accelerationStructure, typ vk.QueryType, pool vk.QueryPool, firstQuery uint32) {
				f.call(uintptr(unsafe.Pointer(cmd)), uintptr(count), ptr(structures), uintptr(uint32(typ)), uintptr(unsafe.Pointer(pool)), uintptr(firstQuery))
			}
		}},
		{"vkCmdCopyAccelerationStructureKHR", as, func(f vkFunc) {
			t.cmdCopyAccelerationStructure = func(cmd vk.CommandBuffer, info *copyASInfo) {
				f.call(uintptr(unsafe.Pointer(cmd)), ptr(info))
			}
		}},

		{"vkCreateRayTracingPipelinesKHR", rtp, func(f vkFunc) {
			t.createRayTracingPipelines = func(device vk.Device, deferred deferredOperation, cache vk.PipelineCache, count uint32, infos *rayTracingPipelineCreateInfo, pipelines *vk.Pipeline) error {
				return f.result(uintptr(unsafe.Pointer(device)), uintptr(deferred), uintptr(unsafe.Pointer(cache)), uintptr(count), ptr(infos), 0, ptr(pipelines))
			}
		}},
		{"vkGetRayTracingShaderGroupHandlesKHR", rtp, func(f vkFunc) {
			t.getRayTracingShaderGroupHandles = func(device vk.Device, pipeline vk.Pipeline, firstGroup, groupCount uint32, dataSize uintptr, data unsafe.Pointer) error {
				return f.result(uintptr(unsafe.Pointer(device)), uintptr(unsafe.Pointer(pipeline)), uintptr(firstGroup), uintptr(groupCount), dataSize, uintptr(data))
			}
		}},
		{"vkCmdTraceRaysKHR", rtp, func(f vkFunc) {
			t.cmdTraceRays = func(cmd vk.CommandBuffer, raygen, miss, hit, callable *stridedDeviceAddressRegion, width, height, depth uint32) {
				f.call(uintptr(unsafe.Pointer(cmd)), ptr(raygen), ptr(miss), ptr(hit), ptr(callable), uintptr(width), uintptr(height), uintptr(depth))
			}
		}},
		{"vkCmdTraceRaysIndirectKHR", rtp, func(f vkFunc) {
			t.cmdTraceRaysIndirect = func(cmd vk.CommandBuffer, raygen, miss, hit, callable *stridedDeviceAddressRegion, args uint64) {
				f.call(uintptr(unsafe.Pointer(cmd)), ptr(raygen), ptr(miss), ptr(hit), ptr(callable), uintptr(args))
			}
		}},
	}
}

// load looks the entry points up in a device that enabled the device
// extensions exts.
func (t *deviceFuncs) load(in *instance, device vk.Device, exts []string) error {
	return loadEntryPoints("the driver", t.entryPoints(), exts, func(name string) unsafe.Pointer {
		return in.fn.getDeviceProcAddr(device, name)
	})
}
