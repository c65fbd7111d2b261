// Package vulkan is the Vulkan backend (docs/design/10-vulkan.md): the loader,
// devices and the capability gate, memory, acceleration structures, the
// ray-tracing pipeline and its shader binding table, and readback into the
// film.
package vulkan

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// instance is a Vulkan instance with the entry points sertrace's own
// binding uses.
type instance struct {
	handle    vk.Instance
	gipa      unsafe.Pointer
	fn        instanceFuncs
	messenger debugUtilsMessenger
}

var (
	loaderOnce sync.Once
	loaderGIPA unsafe.Pointer
	loaderErr  error
)

// load opens the Vulkan loader once per process and hands its
// vkGetInstanceProcAddr to vulkan-go.
func load() (unsafe.Pointer, error) {
	loaderOnce.Do(func() {
		loaderGIPA, loaderErr = openLoader()
		if loaderErr != nil {
			return
		}
		vk.SetGetInstanceProcAddr(loaderGIPA)
		if err := vk.Init(); err != nil {
			loaderErr = fmt.Errorf("Vulkan loader: %v", err)
		}
	})
	return loaderGIPA, loaderErr
}

// ValidationRequested reports whether SERTRACE_VULKAN_VALIDATION asks for the
// Khronos validation layer (the tests set it).
func ValidationRequested() bool {
	v := os.Getenv("SERTRACE_VULKAN_VALIDATION")
	return v != "" && v != "0"
}

// instances are the process's Vulkan instances, one without the validation
// layer and one with it, each created on first use and kept until the
// process ends: every device is created on one of them. NVIDIA's driver
// (580, on an H200) refused vkCreateInstance for good (incompatible driver)
// after some thirty instances had been created and destroyed in one
// process, so that a batch, a benchmark or the tests stopped rendering
// there; one instance per process is what drivers are written for.
// A failure is kept too: trying again would create (and destroy) more
// instances. A lost device leaves its instance usable (the specification
// confines VK_ERROR_DEVICE_LOST to the device), so the next render creates
// its device on the same instance.
var instances struct {
	sync.Mutex
	made [2]*instance // by validation
	err  [2]error
	// vkLoaded says whether vulkan-go's instance-level entry points have
	// been loaded: from the first instance, once, since InitInstance
	// rewrites globals that other goroutines' calls read.
	vkLoaded bool
}

// processInstance returns the process's instance with or without the
// validation layer, creating it the first time. It is never destroyed.
func processInstance(validation bool) (*instance, error) {
	instances.Lock()
	defer instances.Unlock()
	k := 0
	if validation {
		k = 1
	}
	if instances.made[k] == nil && instances.err[k] == nil {
		instances.made[k], instances.err[k] = createInstance(validation)
	}
	return instances.made[k], instances.err[k]
}

// createInstance creates a Vulkan 1.2 instance, with the validation layer and a
// messenger that records its messages when validation is set. It runs with
// instances locked.
func createInstance(validation bool) (*instance, error) {
	gipa, err := load()
	if err != nil {
		return nil, err
	}
	var layers, exts, extNames []string
	if validation {
		if !hasInstanceLayer("VK_LAYER_KHRONOS_validation") {
			return nil, errors.New("the Khronos validation layer is not installed (Debian: vulkan-validationlayers)")
		}
		layers = append(layers, "VK_LAYER_KHRONOS_validation\x00")
		extNames = append(extNames, "VK_EXT_debug_utils")
		exts = append(exts, "VK_EXT_debug_utils\x00")
	}
	var pin runtime.Pinner // vulkan-go keeps pointers to these in C memory during the call
	defer pin.Unpin()
	for _, n := range append(append([]string{}, layers...), exts...) {
		pin.Pin(unsafe.StringData(n))
	}
	info := vk.InstanceCreateInfo{
		SType: vk.StructureTypeInstanceCreateInfo,
		PApplicationInfo: &vk.ApplicationInfo{
			SType: vk.StructureTypeApplicationInfo, PApplicationName: "sertrace\x00", PEngineName: "sertrace\x00",
			ApiVersion: vk.MakeVersion(1, 2, 0),
		},
		EnabledLayerCount: uint32(len(layers)), PpEnabledLayerNames: layers,
		EnabledExtensionCount: uint32(len(exts)), PpEnabledExtensionNames: exts,
	}
	var h vk.Instance
	if err := result("vkCreateInstance", uint64(uint32(vk.CreateInstance(&info, nil, &h)))); err != nil {
		return nil, err
	}
	if !instances.vkLoaded {
		if err := vk.InitInstance(h); err != nil {
			return nil, err
		}
		instances.vkLoaded = true
	}
	in := &instance{handle: h, gipa: gipa}
	if err := in.fn.load(gipa, h, extNames); err != nil {
		in.destroy()
		return nil, err
	}
	if validation {
		var a arena
		defer a.free()
		ci := newIn[debugUtilsMessengerCreateInfo](&a)
		ci.sType = stDebugUtilsMessengerCreateInfo
		ci.messageSeverity = severityWarning | severityError
		ci.messageType = messageGeneral | messageValidation | messagePerformance
		ci.callback = messengerCallback()
		m := newIn[debugUtilsMessenger](&a)
		if err := in.fn.createDebugUtilsMessenger(h, ci, m); err != nil {
			in.destroy()
			return nil, err
		}
		in.messenger = *m
	}
	return in, nil
}

func hasInstanceLayer(name string) bool {
	var n uint32
	vk.EnumerateInstanceLayerProperties(&n, nil)
	props := make([]vk.LayerProperties, n)
	vk.EnumerateInstanceLayerProperties(&n, props)
	for _, p := range props {
		p.Deref()
		if cString(p.LayerName[:]) == name {
			return true
		}
	}
	return false
}

func (in *instance) destroy() {
	if in.messenger != 0 {
		in.fn.destroyDebugUtilsMessenger(in.handle, in.messenger)
	}
	vk.DestroyInstance(in.handle, nil)
}

func (in *instance) physicalDevices() []vk.PhysicalDevice {
	var n uint32
	vk.EnumeratePhysicalDevices(in.handle, &n, nil)
	devs := make([]vk.PhysicalDevice, n)
	if n > 0 {
		vk.EnumeratePhysicalDevices(in.handle, &n, devs)
	}
	return devs[:n]
}

func cString(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

// ValidationErrors returns an error listing what the validation layer
// reported in this process, or nil when it reported nothing.
func ValidationErrors() error {
	n, msgs := validationMessages()
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d validation messages, the first: %s", n, strings.Join(msgs, "\n"))
}
