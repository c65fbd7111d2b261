package vulkan

import vk "github.com/vulkan-go/vulkan"

// The Vulkan enumerations and flags that sertrace writes by value, each a
// value of its family's type, so that one family's value cannot be passed
// for another's without a conversion: VK_SHADER_STAGE_MISS_BIT_KHR and
// VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT are both 0x800, but stageMiss is a
// vk.ShaderStageFlags and stageComputeShader a vk.PipelineStageFlags. A
// family vulkan-go (Vulkan 1.1.88) declares keeps vulkan-go's type (its
// flags types are uint32, its enumerations int32, as in the C headers), so
// the values go to vulkan-go's calls as they are; the families of the
// extensions vulkan-go lacks have types here. The comments give the
// specification's names.

// Structure types (VkStructureType), for the structures of binding.go.
const (
	stPipelineShaderStageCreateInfo                       vk.StructureType = 18         // VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
	stPhysicalDeviceVulkan11Features                      vk.StructureType = 49         // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES
	stPhysicalDeviceVulkan12Features                      vk.StructureType = 51         // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
	stPhysicalDeviceFeatures2                             vk.StructureType = 1000059000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2
	stPhysicalDeviceProperties2                           vk.StructureType = 1000059001 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
	stPhysicalDeviceMemoryProperties2                     vk.StructureType = 1000059006 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2
	stPhysicalDeviceMemoryBudgetProperties                vk.StructureType = 1000237000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT
	stMemoryAllocateFlagsInfo                             vk.StructureType = 1000060000 // VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO
	stDebugUtilsMessengerCreateInfo                       vk.StructureType = 1000128004 // VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT
	stAccelerationStructureBuildGeometryInfo              vk.StructureType = 1000150000 // VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR
	stAccelerationStructureDeviceAddressInfo              vk.StructureType = 1000150002 // VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR
	stAccelerationStructureGeometryAabbsData              vk.StructureType = 1000150003 // VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_AABBS_DATA_KHR
	stAccelerationStructureGeometryInstancesData          vk.StructureType = 1000150004 // VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR
	stAccelerationStructureGeometryTrianglesData          vk.StructureType = 1000150005 // VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR
	stAccelerationStructureGeometry                       vk.StructureType = 1000150006 // VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR
	stCopyAccelerationStructureInfo                       vk.StructureType = 1000150010 // VK_STRUCTURE_TYPE_COPY_ACCELERATION_STRUCTURE_INFO_KHR
	stPhysicalDeviceAccelerationStructureFeatures         vk.StructureType = 1000150013 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR
	stRayTracingPipelineCreateInfo                        vk.StructureType = 1000150015 // VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR
	stRayTracingShaderGroupCreateInfo                     vk.StructureType = 1000150016 // VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR
	stAccelerationStructureCreateInfo                     vk.StructureType = 1000150017 // VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR
	stAccelerationStructureBuildSizesInfo                 vk.StructureType = 1000150020 // VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR
	stPhysicalDeviceShaderClockFeatures                   vk.StructureType = 1000181000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR
	stPhysicalDeviceSubgroupProperties                    vk.StructureType = 1000094000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES
	stPhysicalDeviceMaintenance3Properties                vk.StructureType = 1000168000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES
	stPhysicalDeviceMaintenance4Properties                vk.StructureType = 1000413001 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES
	stPhysicalDeviceDriverProperties                      vk.StructureType = 1000196000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES
	stBufferDeviceAddressInfo                             vk.StructureType = 1000244001 // VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO
	stPhysicalDeviceRayTracingPipelineFeatures            vk.StructureType = 1000347000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR
	stPhysicalDeviceRayTracingPipelineProperties          vk.StructureType = 1000347001 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR
	stPhysicalDeviceRayQueryFeatures                      vk.StructureType = 1000348013 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR
	stPhysicalDeviceRayTracingInvocationReorderFeatures   vk.StructureType = 1000490000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_INVOCATION_REORDER_FEATURES_NV
	stPhysicalDeviceRayTracingInvocationReorderProperties vk.StructureType = 1000490001 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_INVOCATION_REORDER_PROPERTIES_NV
	stPhysicalDeviceRayTracingLinearSweptSpheresFeatures  vk.StructureType = 1000429008 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_LINEAR_SWEPT_SPHERES_FEATURES_NV
)

// Pipeline stages (VkPipelineStageFlags), of barriers.
const (
	stageDrawIndirect  vk.PipelineStageFlags = 0x2        // VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT (the indirect dispatches' arguments)
	stageComputeShader vk.PipelineStageFlags = 0x800      // VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
	stageTransfer      vk.PipelineStageFlags = 0x1000     // VK_PIPELINE_STAGE_TRANSFER_BIT
	stageHost          vk.PipelineStageFlags = 0x4000     // VK_PIPELINE_STAGE_HOST_BIT
	stageAll           vk.PipelineStageFlags = 0x10000    // VK_PIPELINE_STAGE_ALL_COMMANDS_BIT
	stageRayTracing    vk.PipelineStageFlags = 0x00200000 // VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR
	stageASBuild       vk.PipelineStageFlags = 0x02000000 // VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR
)

// Memory accesses (VkAccessFlags), of barriers.
const (
	accessIndirectCommandRead vk.AccessFlags = 0x1        // VK_ACCESS_INDIRECT_COMMAND_READ_BIT
	accessShaderRead          vk.AccessFlags = 0x20       // VK_ACCESS_SHADER_READ_BIT
	accessShaderWrite         vk.AccessFlags = 0x40       // VK_ACCESS_SHADER_WRITE_BIT
	accessTransferWrite       vk.AccessFlags = 0x1000     // VK_ACCESS_TRANSFER_WRITE_BIT
	accessHostRead            vk.AccessFlags = 0x2000     // VK_ACCESS_HOST_READ_BIT
	accessMemoryRead          vk.AccessFlags = 0x8000     // VK_ACCESS_MEMORY_READ_BIT
	accessASRead              vk.AccessFlags = 0x00200000 // VK_ACCESS_ACCELERATION_STRUCTURE_READ_BIT_KHR
	accessASWrite             vk.AccessFlags = 0x00400000 // VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR
)

// Shader stages (VkShaderStageFlags), of pipeline stages and push-constant
// ranges: not pipeline stages (stageMiss is not stageComputeShader).
const (
	stageCompute      vk.ShaderStageFlags = 0x20   // VK_SHADER_STAGE_COMPUTE_BIT
	stageRaygen       vk.ShaderStageFlags = 0x100  // VK_SHADER_STAGE_RAYGEN_BIT_KHR
	stageAnyHit       vk.ShaderStageFlags = 0x200  // VK_SHADER_STAGE_ANY_HIT_BIT_KHR
	stageClosestHit   vk.ShaderStageFlags = 0x400  // VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR
	stageMiss         vk.ShaderStageFlags = 0x800  // VK_SHADER_STAGE_MISS_BIT_KHR
	stageIntersection vk.ShaderStageFlags = 0x1000 // VK_SHADER_STAGE_INTERSECTION_BIT_KHR

	// stagesRayTracing are the ray-tracing pipeline's stages (0x1f00).
	stagesRayTracing = stageRaygen | stageAnyHit | stageClosestHit | stageMiss | stageIntersection
)

// Buffer usages (VkBufferUsageFlags).
const (
	usageTransferSrc vk.BufferUsageFlags = 0x1      // VK_BUFFER_USAGE_TRANSFER_SRC_BIT
	usageTransferDst vk.BufferUsageFlags = 0x2      // VK_BUFFER_USAGE_TRANSFER_DST_BIT
	usageStorage     vk.BufferUsageFlags = 0x20     // VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
	usageIndirect    vk.BufferUsageFlags = 0x100    // VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT
	usageSBT         vk.BufferUsageFlags = 0x400    // VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR
	usageAddress     vk.BufferUsageFlags = 0x20000  // VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT
	usageASInput     vk.BufferUsageFlags = 0x80000  // VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR
	usageASStorage   vk.BufferUsageFlags = 0x100000 // VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR
)

// Memory properties (VkMemoryPropertyFlags) of a memory type.
const (
	memDeviceLocal  vk.MemoryPropertyFlags = 0x1 // VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
	memHostVisible  vk.MemoryPropertyFlags = 0x2 // VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
	memHostCoherent vk.MemoryPropertyFlags = 0x4 // VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
	memHostCached   vk.MemoryPropertyFlags = 0x8 // VK_MEMORY_PROPERTY_HOST_CACHED_BIT
)

// Memory allocation (VkMemoryAllocateFlags).
const allocateDeviceAddress vk.MemoryAllocateFlags = 0x2 // VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT

// Query types (VkQueryType) and the ray-tracing pipeline's bind point
// (VkPipelineBindPoint), which vulkan-go's enumerations lack.
const (
	queryCompactedSize          vk.QueryType         = 1000150000 // VK_QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR
	pipelineBindPointRayTracing vk.PipelineBindPoint = 1000165000 // VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR
)

// The debug-utils messenger's severities and message types.
const (
	severityWarning vk.DebugUtilsMessageSeverityFlags = 0x100  // VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT
	severityError   vk.DebugUtilsMessageSeverityFlags = 0x1000 // VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT

	messageGeneral     vk.DebugUtilsMessageTypeFlags = 0x1 // VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT
	messageValidation  vk.DebugUtilsMessageTypeFlags = 0x2 // VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT
	messagePerformance vk.DebugUtilsMessageTypeFlags = 0x4 // VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT
)

// Handles of the extensions' objects, non-dispatchable: 64-bit integers.
type (
	accelerationStructure uint64 // VkAccelerationStructureKHR
	deferredOperation     uint64 // VkDeferredOperationKHR
	debugUtilsMessenger   uint64 // VkDebugUtilsMessengerEXT
)

// VkAccelerationStructureTypeKHR.
type asType uint32

const (
	asTopLevel    asType = 0 // VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR
	asBottomLevel asType = 1 // VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR
)

// VkGeometryTypeKHR.
type geometryType uint32

const (
	geometryTriangles geometryType = 0 // VK_GEOMETRY_TYPE_TRIANGLES_KHR
	geometryAABBs     geometryType = 1 // VK_GEOMETRY_TYPE_AABBS_KHR
	geometryInstances geometryType = 2 // VK_GEOMETRY_TYPE_INSTANCES_KHR
)

// VkBuildAccelerationStructureFlagsKHR.
type buildASFlags uint32

const (
	buildAllowCompaction buildASFlags = 0x2 // VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR
	buildPreferFastTrace buildASFlags = 0x4 // VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR
)

// VkBuildAccelerationStructureModeKHR.
type buildASMode uint32

const buildModeBuild buildASMode = 0 // VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR

// VkAccelerationStructureBuildTypeKHR.
type asBuildType uint32

const buildOnDevice asBuildType = 1 // VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR

// VkCopyAccelerationStructureModeKHR.
type copyASMode uint32

const copyCompact copyASMode = 1 // VK_COPY_ACCELERATION_STRUCTURE_MODE_COMPACT_KHR

// VkGeometryInstanceFlagsKHR, the top 8 bits of a TLAS instance's
// instanceShaderBindingTableRecordOffset word.
type geometryInstanceFlags uint32

const (
	instanceCullDisable geometryInstanceFlags = 0x1 // VK_GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR
	instanceForceOpaque geometryInstanceFlags = 0x4 // VK_GEOMETRY_INSTANCE_FORCE_OPAQUE_BIT_KHR
)

// VkRayTracingShaderGroupTypeKHR.
type shaderGroupType uint32

const (
	groupGeneral    shaderGroupType = 0 // VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR
	groupTriangles  shaderGroupType = 1 // VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR
	groupProcedural shaderGroupType = 2 // VK_RAY_TRACING_SHADER_GROUP_TYPE_PROCEDURAL_HIT_GROUP_KHR
)

// VkRayTracingInvocationReorderModeNV.
type reorderMode uint32

const (
	reorderModeNone    reorderMode = 0 // VK_RAY_TRACING_INVOCATION_REORDER_MODE_NONE_NV
	reorderModeReorder reorderMode = 1 // VK_RAY_TRACING_INVOCATION_REORDER_MODE_REORDER_NV
)
