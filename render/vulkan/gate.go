package vulkan

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
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
	// subgroup is not in the chain: what the device's subgroup properties
	// say (describe fills it), read as the features are.
	subgroup *subgroupSupport
}

// subgroupSupport holds, as VkBool32s, what VkPhysicalDeviceSubgroupProperties
// says of the subgroup operations sertrace's shaders use. They are
// properties: a device that has them has nothing to enable.
type subgroupSupport struct {
	// The basic and ballot operations in compute shaders, and in
	// ray-generation shaders.
	ballotCompute, ballotRaygen vkBool
}

// The requirements of the basic and ballot subgroup operations: in a
// compute shader (the capability table's, for GroupNonUniform and
// GroupNonUniformBallot), and in a ray-generation shader besides
// (pathRequirements adds it for a raygen module that declares them).
var (
	subgroupBallot = requirement{name: "VkPhysicalDeviceSubgroupProperties: basic and ballot operations in compute shaders",
		field: func(c *featureChain) *uint32 {
			return fieldOf(c.subgroup, func() *uint32 { return &c.subgroup.ballotCompute })
		}}
	subgroupBallotRaygen = requirement{name: "VkPhysicalDeviceSubgroupProperties: basic and ballot operations in ray-generation shaders",
		field: func(c *featureChain) *uint32 {
			return fieldOf(c.subgroup, func() *uint32 { return &c.subgroup.ballotRaygen })
		}}
)

// setSubgroupSupport records in s what subgroup properties p say.
func setSubgroupSupport(s *subgroupSupport, p *physicalDeviceSubgroupProperties) {
	const basic, ballot = 0x1, 0x8 // VK_SUBGROUP_FEATURE_BASIC_BIT, VK_SUBGROUP_FEATURE_BALLOT_BIT
	ops := p.supportedOperations&(basic|ballot) == basic|ballot
	b := func(ok bool) vkBool {
		if ok {
			return 1
		}
		return 0
	}
	s.ballotCompute = b(ops && p.supportedStages&stageCompute != 0)
	s.ballotRaygen = b(ops && p.supportedStages&stageRaygen != 0)
}

// newFeatureChain links the structures of the extensions the device has.
func newFeatureChain(a *arena, exts map[string]bool) *featureChain {
	c := &featureChain{f2: newIn[physicalDeviceFeatures2](a), subgroup: newIn[subgroupSupport](a)}
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
	// ShaderClockKHR: the extension; the clock's scopes need the features
	// (clockRequirements).
	5055:                     {{name: "VK_KHR_shader_clock", extension: "VK_KHR_shader_clock"}},
	capGroupNonUniform:       {subgroupBallot},
	capGroupNonUniformBallot: {subgroupBallot},
	5345:                     {{name: "VkPhysicalDeviceVulkan12Features::vulkanMemoryModel", field: v12(feat12VulkanMemoryModel)}},
	5347:                     {{name: "VkPhysicalDeviceVulkan12Features::bufferDeviceAddress", field: v12(feat12BufferDeviceAddress)}},
	5383: {{name: "VkPhysicalDeviceRayTracingInvocationReorderFeaturesNV::rayTracingInvocationReorder", extension: "VK_NV_ray_tracing_invocation_reorder",
		field: func(c *featureChain) *uint32 {
			return fieldOf(c.ser, func() *uint32 { return &c.ser.rayTracingInvocationReorder })
		}}},
}

// The subgroup capabilities the sort's variants declare.
const (
	capGroupNonUniform       = 61
	capGroupNonUniformBallot = 64
)

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

// spirvModule is what the gate reads of a SPIR-V module: its version,
// the capabilities and extensions it declares, and the scopes at which it
// reads the clock (each needs its feature).
type spirvModule struct {
	version     uint32 // the header's: 0x00MMmm00
	raygen      bool   // an entry point is a ray-generation shader
	caps        []uint32
	extensions  []string
	clockScopes map[uint32]bool
}

// SPIR-V opcodes and the scope the gate reads.
const (
	opExtension    = 10
	opEntryPoint   = 15
	modelRayGen    = 5313 // the RayGenerationKHR execution model
	opCapability   = 17
	opConstant     = 43
	opReadClockKHR = 5056
	scopeDevice    = 1
	scopeSubgroup  = 3
)

// maxSPIRVVersion is the newest SPIR-V that Vulkan 1.2, the version
// sertrace's instance asks for, consumes (1.5).
const maxSPIRVVersion = 0x00010500

// readSPIRV reads a module's header and the instructions the gate needs.
func readSPIRV(code []byte) (spirvModule, error) {
	var m spirvModule
	if len(code)%4 != 0 || len(code) < 20 || binary.LittleEndian.Uint32(code) != 0x07230203 {
		return m, fmt.Errorf("not a SPIR-V module")
	}
	m.version = binary.LittleEndian.Uint32(code[4:])
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(code[i:]) }
	constants := map[uint32]uint32{}
	var clockScopes []uint32 // the ids of OpReadClockKHR's scopes
	for i := 20; i+4 <= len(code); {
		w := word(i)
		op, n := w&0xffff, int(w>>16)
		if n == 0 || i+4*n > len(code) {
			return m, fmt.Errorf("malformed SPIR-V at byte %d", i)
		}
		switch {
		case op == opCapability && n == 2:
			m.caps = append(m.caps, word(i+4))
		case op == opEntryPoint && n >= 2:
			m.raygen = m.raygen || word(i+4) == modelRayGen
		case op == opExtension && n >= 2:
			name := code[i+4 : i+4*n]
			if k := strings.IndexByte(string(name), 0); k >= 0 {
				name = name[:k]
			}
			m.extensions = append(m.extensions, string(name))
		case op == opConstant && n == 4: // a 32-bit constant: type, id, value
			constants[word(i+8)] = word(i + 12)
		case op == opReadClockKHR && n == 4: // type, id, scope
			clockScopes = append(clockScopes, word(i+12))
		}
		i += 4 * n
	}
	m.clockScopes = map[uint32]bool{}
	for _, id := range clockScopes {
		scope, ok := constants[id]
		if !ok {
			return m, fmt.Errorf("OpReadClockKHR's scope is not a 32-bit constant")
		}
		m.clockScopes[scope] = true
	}
	return m, nil
}

// extensionRequirements maps the SPIR-V extensions sertrace's shaders can
// declare to the Vulkan device extensions that consume them (the Vulkan
// environment for SPIR-V).
var extensionRequirements = map[string]requirement{
	"SPV_KHR_ray_tracing":              {name: "VK_KHR_ray_tracing_pipeline", extension: "VK_KHR_ray_tracing_pipeline"},
	"SPV_KHR_ray_query":                {name: "VK_KHR_ray_query", extension: "VK_KHR_ray_query"},
	"SPV_KHR_shader_clock":             {name: "VK_KHR_shader_clock", extension: "VK_KHR_shader_clock"},
	"SPV_NV_shader_invocation_reorder": {name: "VK_NV_ray_tracing_invocation_reorder", extension: "VK_NV_ray_tracing_invocation_reorder"},
}

// clockRequirements are what OpReadClockKHR needs at each scope.
var clockRequirements = map[uint32]requirement{
	scopeDevice: {name: "VkPhysicalDeviceShaderClockFeaturesKHR::shaderDeviceClock", extension: "VK_KHR_shader_clock",
		field: func(c *featureChain) *uint32 {
			return fieldOf(c.clock, func() *uint32 { return &c.clock.shaderDeviceClock })
		}},
	scopeSubgroup: {name: "VkPhysicalDeviceShaderClockFeaturesKHR::shaderSubgroupClock", extension: "VK_KHR_shader_clock",
		field: func(c *featureChain) *uint32 {
			return fieldOf(c.clock, func() *uint32 { return &c.clock.shaderSubgroupClock })
		}},
}

// pathRequirements is what a set of modules needs, in a stable order: its
// capabilities' and extensions' requirements and the device clock; a
// module newer than Vulkan 1.2 consumes, or declaring a capability or an
// extension the gate does not know, is an error.
func pathRequirements(path string, modules [][]byte) ([]requirement, error) {
	seen := map[uint32]bool{}
	extensions := map[string]bool{}
	scopes := map[uint32]bool{}
	raygenBallot := false // a raygen module that uses subgroup operations
	for _, code := range modules {
		m, err := readSPIRV(code)
		if err != nil {
			return nil, err
		}
		raygenBallot = raygenBallot || m.raygen && (slices.Contains(m.caps, capGroupNonUniform) || slices.Contains(m.caps, capGroupNonUniformBallot))
		if m.version > maxSPIRVVersion {
			return nil, fmt.Errorf("the shaders are SPIR-V %d.%d, newer than the 1.5 that Vulkan 1.2 consumes", m.version>>16&0xff, m.version>>8&0xff)
		}
		for _, c := range m.caps {
			seen[c] = true
		}
		for _, e := range m.extensions {
			extensions[e] = true
		}
		for s := range m.clockScopes {
			scopes[s] = true
		}
	}
	base := rayTracingRequirements
	if slices.Contains(computePaths, path) {
		base = bufferRequirements // builds no acceleration structure
	}
	reqs := append([]requirement(nil), base...)
	capReqs, err := inTable(seen, capabilityRequirements, func(c uint32) error {
		return fmt.Errorf("the shaders declare SPIR-V capability %d, which sertrace's capability table does not know", c)
	})
	if err != nil {
		return nil, err
	}
	for _, r := range capReqs {
		reqs = append(reqs, r...)
	}
	extReqs, err := inTable(extensions, extensionRequirements, func(e string) error {
		return fmt.Errorf("the shaders declare SPIR-V extension %s, which sertrace's extension table does not know", e)
	})
	if err != nil {
		return nil, err
	}
	clockReqs, err := inTable(scopes, clockRequirements, func(s uint32) error {
		return fmt.Errorf("the shaders read the clock at SPIR-V scope %d, which sertrace's table does not know", s)
	})
	if err != nil {
		return nil, err
	}
	reqs = append(append(reqs, extReqs...), clockReqs...)
	if raygenBallot {
		reqs = append(reqs, subgroupBallotRaygen)
	}
	return reqs, nil
}

// inTable gives table's entries for the keys, in the keys' order, or the
// error unknown makes of the first key it lacks.
func inTable[K cmp.Ordered, V any](keys map[K]bool, table map[K]V, unknown func(K) error) ([]V, error) {
	var out []V
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		v, ok := table[k]
		if !ok {
			return nil, unknown(k)
		}
		out = append(out, v)
	}
	return out, nil
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
