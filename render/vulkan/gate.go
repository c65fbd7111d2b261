package vulkan

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// featureChain is a VkPhysicalDeviceFeatures2 chain: queried, it says what a
// device supports; passed to vkCreateDevice, what sertrace enables.
type featureChain struct {
	f2    *physicalDeviceFeatures2
	v11   *physicalDeviceVulkan11Features
	v12   *physicalDeviceVulkan12Features
	as    *physicalDeviceAccelerationStructureFeatures
	rtp   *physicalDeviceRayTracingPipelineFeatures
	rq    *physicalDeviceRayQueryFeatures
	clock *physicalDeviceShaderClockFeatures
	ser   *physicalDeviceRayTracingInvocationReorderFeatures
	lss   *physicalDeviceRayTracingLinearSweptSpheresFeatures
}

// newFeatureChain links the structures of the extensions the device has.
func newFeatureChain(a *arena, exts map[string]bool) *featureChain {
	c := &featureChain{f2: newIn[physicalDeviceFeatures2](a)}
	c.f2.sType = stPhysicalDeviceFeatures2
	tail := (*chained)(unsafe.Pointer(c.f2))
	c.v11 = chainIn[physicalDeviceVulkan11Features](a, &tail, stPhysicalDeviceVulkan11Features)
	c.v12 = chainIn[physicalDeviceVulkan12Features](a, &tail, stPhysicalDeviceVulkan12Features)
	if exts["VK_KHR_acceleration_structure"] {
		c.as = chainIn[physicalDeviceAccelerationStructureFeatures](a, &tail, stPhysicalDeviceAccelerationStructureFeatures)
	}
	if exts["VK_KHR_ray_tracing_pipeline"] {
		c.rtp = chainIn[physicalDeviceRayTracingPipelineFeatures](a, &tail, stPhysicalDeviceRayTracingPipelineFeatures)
	}
	if exts["VK_KHR_ray_query"] {
		c.rq = chainIn[physicalDeviceRayQueryFeatures](a, &tail, stPhysicalDeviceRayQueryFeatures)
	}
	if exts["VK_KHR_shader_clock"] {
		c.clock = chainIn[physicalDeviceShaderClockFeatures](a, &tail, stPhysicalDeviceShaderClockFeatures)
	}
	if exts["VK_NV_ray_tracing_invocation_reorder"] {
		c.ser = chainIn[physicalDeviceRayTracingInvocationReorderFeatures](a, &tail, stPhysicalDeviceRayTracingInvocationReorderFeatures)
	}
	if exts["VK_NV_ray_tracing_linear_swept_spheres"] {
		c.lss = chainIn[physicalDeviceRayTracingLinearSweptSpheresFeatures](a, &tail, stPhysicalDeviceRayTracingLinearSweptSpheresFeatures)
	}
	return c
}

// requirement is one thing a path needs of a device: a feature (a VkBool32
// of the chain), the extension that brings it, or both.
type requirement struct {
	name      string // the feature as the specification names it
	extension string // "" when core in Vulkan 1.2
	field     func(*featureChain) *uint32
}

func core(i int) func(*featureChain) *uint32 {
	return func(c *featureChain) *uint32 { return &c.f2.features[i] }
}
func v12(i int) func(*featureChain) *uint32 {
	return func(c *featureChain) *uint32 { return &c.v12.f[i] }
}

// capabilityRequirements is the Vulkan specification's table of SPIR-V
// capabilities (appendix "Vulkan Environment for SPIR-V") for the
// capabilities sertrace's shaders can declare. A capability missing here
// makes the path unavailable, naming it.
var capabilityRequirements = map[uint32][]requirement{
	1:    nil, // Shader
	10:   {{name: "VkPhysicalDeviceFeatures::shaderFloat64", field: core(featShaderFloat64)}},
	11:   {{name: "VkPhysicalDeviceFeatures::shaderInt64", field: core(featShaderInt64)}},
	22:   {{name: "VkPhysicalDeviceFeatures::shaderInt16", field: core(featShaderInt16)}},
	39:   {{name: "VkPhysicalDeviceVulkan12Features::shaderInt8", field: v12(feat12ShaderInt8)}},
	4448: {{name: "VkPhysicalDeviceVulkan12Features::storageBuffer8BitAccess", field: v12(feat12StorageBuffer8BitAccess)}},
	4472: {{name: "VkPhysicalDeviceRayQueryFeaturesKHR::rayQuery", extension: "VK_KHR_ray_query",
		field: func(c *featureChain) *uint32 { return fieldOf(c.rq, func() *uint32 { return &c.rq.rayQuery }) }}},
	4479: {{name: "VkPhysicalDeviceRayTracingPipelineFeaturesKHR::rayTracingPipeline", extension: "VK_KHR_ray_tracing_pipeline",
		field: func(c *featureChain) *uint32 {
			return fieldOf(c.rtp, func() *uint32 { return &c.rtp.rayTracingPipeline })
		}}},
	5055: {{name: "VkPhysicalDeviceShaderClockFeaturesKHR::shaderSubgroupClock", extension: "VK_KHR_shader_clock",
		field: func(c *featureChain) *uint32 {
			return fieldOf(c.clock, func() *uint32 { return &c.clock.shaderSubgroupClock })
		}}},
	5345: {{name: "VkPhysicalDeviceVulkan12Features::vulkanMemoryModel", field: v12(feat12VulkanMemoryModel)}},
	5347: {{name: "VkPhysicalDeviceVulkan12Features::bufferDeviceAddress", field: v12(feat12BufferDeviceAddress)}},
	5383: {{name: "VkPhysicalDeviceRayTracingInvocationReorderFeaturesNV::rayTracingInvocationReorder", extension: "VK_NV_ray_tracing_invocation_reorder",
		field: func(c *featureChain) *uint32 {
			return fieldOf(c.ser, func() *uint32 { return &c.ser.rayTracingInvocationReorder })
		}}},
}

// fieldOf returns get() when the structure is in the chain, else nil.
func fieldOf[T any](s *T, get func() *uint32) *uint32 {
	if s == nil {
		return nil
	}
	return get()
}

// bufferRequirements are what every path needs beyond its shaders'
// capabilities: the shaders read every buffer through its device address,
// in the scalar block layout (SPIR-V has no capability for that).
var bufferRequirements = []requirement{
	{name: "VkPhysicalDeviceVulkan12Features::scalarBlockLayout", field: v12(feat12ScalarBlockLayout)},
	{name: "VkPhysicalDeviceVulkan12Features::bufferDeviceAddress", field: v12(feat12BufferDeviceAddress)},
}

// rayTracingRequirements are what the paths that build acceleration
// structures need besides.
var rayTracingRequirements = append([]requirement{
	{name: "VkPhysicalDeviceAccelerationStructureFeaturesKHR::accelerationStructure", extension: "VK_KHR_acceleration_structure",
		field: func(c *featureChain) *uint32 {
			return fieldOf(c.as, func() *uint32 { return &c.as.accelerationStructure })
		}},
	{name: "VK_KHR_deferred_host_operations", extension: "VK_KHR_deferred_host_operations"},
}, bufferRequirements...)

// spirvCapabilities reads the OpCapability operands of a SPIR-V module.
func spirvCapabilities(code []byte) ([]uint32, error) {
	if len(code)%4 != 0 || len(code) < 20 || binary.LittleEndian.Uint32(code) != 0x07230203 {
		return nil, fmt.Errorf("not a SPIR-V module")
	}
	var caps []uint32
	for i := 20; i+4 <= len(code); {
		w := binary.LittleEndian.Uint32(code[i:])
		op, n := w&0xffff, int(w>>16)
		if n == 0 || i+4*n > len(code) {
			return nil, fmt.Errorf("malformed SPIR-V at byte %d", i)
		}
		if op == 17 && n == 2 { // OpCapability
			caps = append(caps, binary.LittleEndian.Uint32(code[i+4:]))
		}
		i += 4 * n
	}
	return caps, nil
}

// pathRequirements is what a set of modules needs, in a stable order.
func pathRequirements(path string, modules [][]byte) ([]requirement, error) {
	seen := map[uint32]bool{}
	for _, m := range modules {
		caps, err := spirvCapabilities(m)
		if err != nil {
			return nil, err
		}
		for _, c := range caps {
			seen[c] = true
		}
	}
	var ids []uint32
	for c := range seen {
		ids = append(ids, c)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	base := rayTracingRequirements
	if path == pathDenoise {
		base = bufferRequirements // builds no acceleration structure
	}
	reqs := append([]requirement(nil), base...)
	for _, c := range ids {
		r, ok := capabilityRequirements[c]
		if !ok {
			return nil, fmt.Errorf("the shaders declare SPIR-V capability %d, which sertrace's capability table does not know", c)
		}
		reqs = append(reqs, r...)
	}
	return reqs, nil
}

// missing checks requirements against what a device supports and returns
// every missing one as a reason, or "".
func missing(reqs []requirement, exts map[string]bool, supported *featureChain) string {
	var out []string
	for _, r := range reqs {
		if r.extension != "" && !exts[r.extension] {
			out = append(out, "extension "+r.extension+" is missing")
			continue
		}
		if r.field != nil {
			if f := r.field(supported); f == nil || *f == 0 {
				out = append(out, "feature "+r.name+" is not supported")
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(dedupe(out), "; ")
}

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// enable sets the requirements' features in a chain for vkCreateDevice and
// returns the extensions to enable.
func enable(reqs []requirement, c *featureChain) []string {
	var exts []string
	for _, r := range reqs {
		if r.extension != "" {
			exts = append(exts, r.extension)
		}
		if r.field != nil {
			if f := r.field(c); f != nil {
				*f = 1
			}
		}
	}
	return dedupe(exts)
}

func deviceExtensions(pd vk.PhysicalDevice) map[string]bool {
	var n uint32
	vk.EnumerateDeviceExtensionProperties(pd, "", &n, nil)
	props := make([]vk.ExtensionProperties, n)
	if n > 0 {
		vk.EnumerateDeviceExtensionProperties(pd, "", &n, props)
	}
	exts := map[string]bool{}
	for _, p := range props[:n] {
		p.Deref()
		exts[cString(p.ExtensionName[:])] = true
	}
	return exts
}
