package vulkan

// The project's own binding for what github.com/vulkan-go/vulkan (Vulkan
// 1.1.88) lacks: features2/properties2 chains, buffer device address,
// acceleration structures, ray-tracing pipelines, SER and LSS, and the
// debug-utils messenger the validation tests read. It is written from the
// Vulkan specification, needs no Vulkan header, and loads libvulkan.so.1 at
// run time.
//
// Every entry point is called through one trampoline per arity that passes
// each argument as a 64-bit integer and takes the result from the integer
// return register. Vulkan's entry points take only handles, pointers and
// 32- or 64-bit integers and return void, VkResult or VkDeviceAddress, which
// the x86-64 and AArch64 C calling conventions pass that way. The rest of
// the package calls them through typed function tables (funcs.go), loaded
// once per instance and per device. Structures are Go mirrors of the
// specification's, allocated in C memory (an arena), so nothing the driver
// sees points into Go's heap; the constants they hold are typed by their
// enumeration (enums.go).

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;

static void *sertraceOpen(const char *name, char **err) {
	void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		*err = dlerror();
		return NULL;
	}
	void *gipa = dlsym(lib, "vkGetInstanceProcAddr");
	if (gipa == NULL) {
		*err = "no vkGetInstanceProcAddr in the library";
	}
	return gipa;
}

static u64 sertraceCall(void *fn, int n, const u64 *a) {
	switch (n) {
	case 0: return ((u64 (*)(void))fn)();
	case 1: return ((u64 (*)(u64))fn)(a[0]);
	case 2: return ((u64 (*)(u64, u64))fn)(a[0], a[1]);
	case 3: return ((u64 (*)(u64, u64, u64))fn)(a[0], a[1], a[2]);
	case 4: return ((u64 (*)(u64, u64, u64, u64))fn)(a[0], a[1], a[2], a[3]);
	case 5: return ((u64 (*)(u64, u64, u64, u64, u64))fn)(a[0], a[1], a[2], a[3], a[4]);
	case 6: return ((u64 (*)(u64, u64, u64, u64, u64, u64))fn)(a[0], a[1], a[2], a[3], a[4], a[5]);
	case 7: return ((u64 (*)(u64, u64, u64, u64, u64, u64, u64))fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
	case 8: return ((u64 (*)(u64, u64, u64, u64, u64, u64, u64, u64))fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
	case 9: return ((u64 (*)(u64, u64, u64, u64, u64, u64, u64, u64, u64))fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
	}
	return 0;
}

static void *sertraceDeviceProc(void *gdpa, void *device, const char *name) {
	return ((void *(*)(void *, const char *))gdpa)(device, name);
}

static void *sertraceProc(void *gipa, void *instance, const char *name) {
	return ((void *(*)(void *, const char *))gipa)(instance, name);
}

// The validation messenger keeps a count and the first messages.
#define SERTRACE_KEEP 16
static int sertraceMessages;
static char sertraceMessage[SERTRACE_KEEP][512];

struct sertraceCallbackData {
	uint32_t sType;
	const void *pNext;
	uint32_t flags;
	const char *pMessageIdName;
	int32_t messageIdNumber;
	const char *pMessage;
};

static uint32_t sertraceMessenger(uint32_t severity, uint32_t types, const struct sertraceCallbackData *data, void *user) {
	int i = __atomic_fetch_add(&sertraceMessages, 1, __ATOMIC_SEQ_CST);
	if (getenv("SERTRACE_VULKAN_DEBUG") != NULL && data != NULL && data->pMessage != NULL) {
		fprintf(stderr, "vulkan validation: %s\n", data->pMessage);
	}
	if (i < SERTRACE_KEEP && data != NULL && data->pMessage != NULL) {
		strncpy(sertraceMessage[i], data->pMessage, sizeof sertraceMessage[i] - 1);
	}
	return 0;
}
static void *sertraceMessengerFn(void) { return (void *)sertraceMessenger; }
static int sertraceMessageCount(void) { return __atomic_load_n(&sertraceMessages, __ATOMIC_SEQ_CST); }
static const char *sertraceMessageAt(int i) { return sertraceMessage[i]; }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// loaderName is the library sertrace loads; SERTRACE_VULKAN_LIBRARY
// overrides it (tests use it to see what happens without a loader).
func loaderName() string {
	if n := os.Getenv("SERTRACE_VULKAN_LIBRARY"); n != "" {
		return n
	}
	return "libvulkan.so.1"
}

// openLoader loads the Vulkan loader and returns its vkGetInstanceProcAddr.
func openLoader() (unsafe.Pointer, error) {
	name := C.CString(loaderName())
	defer C.free(unsafe.Pointer(name))
	var cerr *C.char
	p := C.sertraceOpen(name, &cerr)
	if p == nil {
		return nil, fmt.Errorf("no Vulkan loader: %s", C.GoString(cerr))
	}
	return p, nil
}

// instanceProc looks an entry point up with vkGetInstanceProcAddr.
func instanceProc(gipa, instance unsafe.Pointer, name string) unsafe.Pointer {
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	return C.sertraceProc(gipa, instance, n)
}

// deviceProc looks an entry point up with vkGetDeviceProcAddr.
func deviceProc(gdpa, device unsafe.Pointer, name string) unsafe.Pointer {
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	return C.sertraceDeviceProc(gdpa, device, n)
}

// call calls entry point fn with integer or pointer arguments. Only the
// typed function tables (funcs.go) call it, each entry point in one place.
func call(fn unsafe.Pointer, args ...uintptr) uint64 {
	if fn == nil {
		panic("vulkan: call of an entry point that was not loaded")
	}
	var a [9]C.u64
	for i, v := range args {
		a[i] = C.u64(v)
	}
	return uint64(C.sertraceCall(fn, C.int(len(args)), &a[0]))
}

// result turns a VkResult return value into an error.
func result(what string, r uint64) error {
	code := int32(uint32(r))
	if code >= 0 {
		return nil
	}
	return &vkError{what: what, code: code}
}

type vkError struct {
	what string
	code int32
}

// Error names the failing call and the VkResult.
func (e *vkError) Error() string {
	names := map[int32]string{-1: "out of host memory", -2: "out of device memory", -3: "initialization failed",
		-4: "device lost", -5: "memory map failed", -6: "layer not present", -7: "extension not present",
		-8: "feature not present", -9: "incompatible driver", -13: "unknown error", -1000257000: "invalid opaque capture address",
		-1000012000: "invalid shader", -1000069000: "out of pool memory"}
	if n, ok := names[e.code]; ok {
		return fmt.Sprintf("%s: %s (VkResult %d)", e.what, n, e.code)
	}
	return fmt.Sprintf("%s: VkResult %d", e.what, e.code)
}

// ErrDeviceLost is what a lost device's calls return (errors.Is).
var ErrDeviceLost = errors.New("device lost")

// Is makes a VK_ERROR_DEVICE_LOST match ErrDeviceLost.
func (e *vkError) Is(target error) bool {
	return target == ErrDeviceLost && e.code == int32(vk.ErrorDeviceLost)
}

// arena allocates C memory for the structures of one batch of calls.
type arena struct{ blocks []unsafe.Pointer }

func (a *arena) alloc(size uintptr) unsafe.Pointer {
	p := C.calloc(1, C.size_t(max(size, 1)))
	if p == nil {
		panic("vulkan: out of host memory")
	}
	a.blocks = append(a.blocks, p)
	return p
}

// cstr copies s into the arena, NUL-terminated.
func (a *arena) cstr(s string) *byte {
	p := (*byte)(a.alloc(uintptr(len(s) + 1)))
	copy(unsafe.Slice(p, len(s)), s)
	return p
}

func (a *arena) free() {
	for _, p := range a.blocks {
		C.free(p)
	}
	a.blocks = nil
}

// newIn allocates a zeroed T in the arena.
func newIn[T any](a *arena) *T {
	var z T
	return (*T)(a.alloc(unsafe.Sizeof(z)))
}

// sliceIn allocates n zeroed Ts in the arena.
func sliceIn[T any](a *arena, n int) []T {
	var z T
	return unsafe.Slice((*T)(a.alloc(unsafe.Sizeof(z)*uintptr(max(n, 1)))), max(n, 1))[:n]
}

func ptr[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

// validationMessages are what the validation layer has reported so far in
// this process: the count, and the text of the first few.
func validationMessages() (int, []string) {
	n := int(C.sertraceMessageCount())
	var out []string
	for i := 0; i < min(n, C.SERTRACE_KEEP); i++ {
		out = append(out, C.GoString(C.sertraceMessageAt(C.int(i))))
	}
	return n, out
}

func messengerCallback() unsafe.Pointer { return C.sertraceMessengerFn() }

// chained is the head every structure of a pNext chain starts with.
type chained struct {
	sType vk.StructureType
	pNext unsafe.Pointer
}

// chainIn allocates a T (a structure that starts with sType and pNext) in
// the arena, sets its sType, and links it after *tail, which it becomes.
func chainIn[T any](a *arena, tail **chained, sType vk.StructureType) *T {
	p := newIn[T](a)
	h := (*chained)(unsafe.Pointer(p))
	h.sType = sType
	(*tail).pNext = unsafe.Pointer(p)
	*tail = h
	return p
}

type vkBool = uint32

type physicalDeviceFeatures2 struct {
	sType    vk.StructureType
	pNext    unsafe.Pointer
	features [55]vkBool // VkPhysicalDeviceFeatures, in the specification's order
}

// Indices into VkPhysicalDeviceFeatures.
const (
	featShaderFloat64 = 39
	featShaderInt64   = 40
	featShaderInt16   = 41
)

type physicalDeviceVulkan11Features struct {
	sType vk.StructureType
	pNext unsafe.Pointer
	f     [12]vkBool
}

type physicalDeviceVulkan12Features struct {
	sType vk.StructureType
	pNext unsafe.Pointer
	f     [47]vkBool
}

// Indices into VkPhysicalDeviceVulkan12Features.
const (
	feat12StorageBuffer8BitAccess = 2
	feat12ShaderInt8              = 8
	feat12ScalarBlockLayout       = 31
	feat12BufferDeviceAddress     = 38
	feat12VulkanMemoryModel       = 41
)

type physicalDeviceAccelerationStructureFeatures struct {
	sType                 vk.StructureType
	pNext                 unsafe.Pointer
	accelerationStructure vkBool
	rest                  [4]vkBool
}

type physicalDeviceRayTracingPipelineFeatures struct {
	sType                                                 vk.StructureType
	pNext                                                 unsafe.Pointer
	rayTracingPipeline                                    vkBool
	rayTracingPipelineShaderGroupHandleCaptureReplay      vkBool
	rayTracingPipelineShaderGroupHandleCaptureReplayMixed vkBool
	rayTracingPipelineTraceRaysIndirect                   vkBool
	rayTraversalPrimitiveCulling                          vkBool
}

type physicalDeviceRayQueryFeatures struct {
	sType    vk.StructureType
	pNext    unsafe.Pointer
	rayQuery vkBool
}

type physicalDeviceShaderClockFeatures struct {
	sType               vk.StructureType
	pNext               unsafe.Pointer
	shaderSubgroupClock vkBool
	shaderDeviceClock   vkBool
}

type physicalDeviceRayTracingInvocationReorderFeatures struct {
	sType                       vk.StructureType
	pNext                       unsafe.Pointer
	rayTracingInvocationReorder vkBool
}

// VK_NV_ray_tracing_linear_swept_spheres.
type physicalDeviceRayTracingLinearSweptSpheresFeatures struct {
	sType              vk.StructureType
	pNext              unsafe.Pointer
	spheres            vkBool
	linearSweptSpheres vkBool
}

type physicalDeviceRayTracingPipelineProperties struct {
	sType                              vk.StructureType
	pNext                              unsafe.Pointer
	shaderGroupHandleSize              uint32
	maxRayRecursionDepth               uint32
	maxShaderGroupStride               uint32
	shaderGroupBaseAlignment           uint32
	shaderGroupHandleCaptureReplaySize uint32
	maxRayDispatchInvocationCount      uint32
	shaderGroupHandleAlignment         uint32
	maxRayHitAttributeSize             uint32
}

type physicalDeviceRayTracingInvocationReorderProperties struct {
	sType       vk.StructureType
	pNext       unsafe.Pointer
	reorderHint reorderMode
}

// physicalDeviceSubgroupProperties is VkPhysicalDeviceSubgroupProperties
// (Vulkan 1.1).
type physicalDeviceSubgroupProperties struct {
	sType                     vk.StructureType
	pNext                     unsafe.Pointer
	subgroupSize              uint32
	supportedStages           vk.ShaderStageFlags
	supportedOperations       uint32
	quadOperationsInAllStages vkBool
}

type physicalDeviceMaintenance3Properties struct {
	sType                   vk.StructureType
	pNext                   unsafe.Pointer
	maxPerSetDescriptors    uint32
	maxMemoryAllocationSize uint64
}

type physicalDeviceMaintenance4Properties struct {
	sType         vk.StructureType
	pNext         unsafe.Pointer
	maxBufferSize uint64
}

type physicalDeviceDriverProperties struct {
	sType       vk.StructureType
	pNext       unsafe.Pointer
	driverID    uint32
	driverName  [256]byte
	driverInfo  [256]byte
	conformance [4]uint8
}

// physicalDeviceProperties2's properties member is VkPhysicalDeviceProperties,
// 824 bytes on 64-bit platforms; sertrace reads it through vulkan-go and
// only needs the chain here.
type physicalDeviceProperties2 struct {
	sType      vk.StructureType
	pNext      unsafe.Pointer
	properties [824]byte
}

// physicalDeviceMemoryProperties2's memoryProperties member is
// VkPhysicalDeviceMemoryProperties (520 bytes, 8-aligned), which
// sertrace reads through vulkan-go; the call is for the budget chained
// after it.
type physicalDeviceMemoryProperties2 struct {
	sType            vk.StructureType
	pNext            unsafe.Pointer
	memoryProperties [65]uint64
}

// physicalDeviceMemoryBudgetProperties is VK_EXT_memory_budget's: per heap,
// what the process may allocate in all and what it has.
type physicalDeviceMemoryBudgetProperties struct {
	sType      vk.StructureType
	pNext      unsafe.Pointer
	heapBudget [vk.MaxMemoryHeaps]uint64
	heapUsage  [vk.MaxMemoryHeaps]uint64
}

type memoryAllocateFlagsInfo struct {
	sType      vk.StructureType
	pNext      unsafe.Pointer
	flags      vk.MemoryAllocateFlags
	deviceMask uint32
}

type bufferDeviceAddressInfo struct {
	sType  vk.StructureType
	pNext  unsafe.Pointer
	buffer uint64
}

type debugUtilsMessengerCreateInfo struct {
	sType           vk.StructureType
	pNext           unsafe.Pointer
	flags           uint32
	messageSeverity vk.DebugUtilsMessageSeverityFlags
	messageType     vk.DebugUtilsMessageTypeFlags
	callback        unsafe.Pointer
	userData        unsafe.Pointer
}

// VkAccelerationStructureGeometryTrianglesDataKHR, the largest member of
// the geometry union (64 bytes).
type asTrianglesData struct {
	sType        vk.StructureType
	pNext        unsafe.Pointer
	vertexFormat vk.Format
	vertexData   uint64
	vertexStride uint64
	maxVertex    uint32
	indexType    vk.IndexType
	indexData    uint64
	transform    uint64
}

type asAabbsData struct {
	sType  vk.StructureType
	pNext  unsafe.Pointer
	data   uint64
	stride uint64
	_      [32]byte // the rest of the union
}

type asInstancesData struct {
	sType           vk.StructureType
	pNext           unsafe.Pointer
	arrayOfPointers vkBool
	data            uint64
	_               [32]byte
}

type asGeometry struct {
	sType        vk.StructureType
	pNext        unsafe.Pointer
	geometryType geometryType
	geometry     [8]uint64 // one of the *Data structures above (the union is 8-byte aligned)
	flags        uint32    // VkGeometryFlagsKHR
}

type asBuildGeometryInfo struct {
	sType         vk.StructureType
	pNext         unsafe.Pointer
	typ           asType
	flags         buildASFlags
	mode          buildASMode
	src, dst      accelerationStructure
	geometryCount uint32
	pGeometries   *asGeometry
	ppGeometries  unsafe.Pointer
	scratch       uint64
}

type asBuildRangeInfo struct {
	primitiveCount, primitiveOffset, firstVertex, transformOffset uint32
}

type asBuildSizesInfo struct {
	sType                                   vk.StructureType
	pNext                                   unsafe.Pointer
	asSize, updateScratchSize, buildScratch uint64
}

type asCreateInfo struct {
	sType         vk.StructureType
	pNext         unsafe.Pointer
	createFlags   uint32
	buffer        uint64
	offset        uint64
	size          uint64
	typ           asType
	deviceAddress uint64
}

// asInstance is VkAccelerationStructureInstanceKHR (64 bytes).
type asInstance struct {
	transform   [12]float32
	customMask  uint32 // instanceCustomIndex:24, mask:8
	sbtFlags    uint32 // instanceShaderBindingTableRecordOffset:24, flags:8
	blasAddress uint64
}

type asDeviceAddressInfo struct {
	sType vk.StructureType
	pNext unsafe.Pointer
	as    accelerationStructure
}

type copyASInfo struct {
	sType    vk.StructureType
	pNext    unsafe.Pointer
	src, dst accelerationStructure
	mode     copyASMode
}

type pipelineShaderStageCreateInfo struct {
	sType          vk.StructureType
	pNext          unsafe.Pointer
	flags          uint32
	stage          vk.ShaderStageFlags // one VkShaderStageFlagBits
	module         uint64
	name           *byte
	specialization unsafe.Pointer
}

type rayTracingShaderGroupCreateInfo struct {
	sType                                  vk.StructureType
	pNext                                  unsafe.Pointer
	typ                                    shaderGroupType
	general, closestHit, anyHit, intersect uint32
	captureReplay                          unsafe.Pointer
}

type rayTracingPipelineCreateInfo struct {
	sType             vk.StructureType
	pNext             unsafe.Pointer
	flags             uint32
	stageCount        uint32
	stages            *pipelineShaderStageCreateInfo
	groupCount        uint32
	groups            *rayTracingShaderGroupCreateInfo
	maxRecursionDepth uint32
	libraryInfo       unsafe.Pointer
	libraryInterface  unsafe.Pointer
	dynamicState      unsafe.Pointer
	layout            uint64
	basePipeline      uint64
	basePipelineIndex int32
}

type stridedDeviceAddressRegion struct {
	address, stride, size uint64
}

const shaderUnused = ^uint32(0)
