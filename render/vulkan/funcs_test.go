package vulkan

import (
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

// pathCalls are the device entry points of sertrace's own binding that
// each path calls: all of them for the ray-tracing pipeline paths, all but
// the pipeline's for the ray-query path, and the buffer addresses alone for
// the denoiser's and the probe's compute shaders.
func pathCalls(path string, all []entryPoint) []string {
	pipelineOnly := []string{"vkCreateRayTracingPipelinesKHR", "vkGetRayTracingShaderGroupHandlesKHR", "vkCmdTraceRaysKHR", "vkCmdTraceRaysIndirectKHR"}
	var out []string
	for _, e := range all {
		switch {
		case path == PathSER || path == PathRT,
			path == PathRayQuery && !slices.Contains(pipelineOnly, e.name),
			e.name == "vkGetBufferDeviceAddress":
			out = append(out, e.name)
		}
	}
	return out
}

// boundFields binds the entries one by one into table, a zero function
// table, and returns the field each sets; an entry that sets no new field
// or several (two entries binding one field, say), a name listed twice, or
// a field no entry sets fails the test.
func boundFields(t *testing.T, table reflect.Value, entries []entryPoint) []int {
	t.Helper()
	set := func() []bool {
		out := make([]bool, table.NumField())
		for j := range out {
			out[j] = !table.Field(j).IsNil()
		}
		return out
	}
	var dummy byte
	fields := make([]int, len(entries))
	names := map[string]bool{}
	for i, e := range entries {
		if names[e.name] {
			t.Errorf("%s: listed twice", e.name)
		}
		names[e.name] = true
		before := set()
		e.bind(vkFunc{name: e.name, addr: unsafe.Pointer(&dummy)})
		var bound []int
		for j, now := range set() {
			if now && !before[j] {
				bound = append(bound, j)
			}
		}
		fields[i] = -1
		if len(bound) != 1 {
			t.Errorf("%s binds %d fields of %s that no entry before it bound, want 1", e.name, len(bound), table.Type())
			continue
		}
		fields[i] = bound[0]
	}
	for j := 0; j < table.NumField(); j++ {
		if !slices.Contains(fields, j) {
			t.Errorf("%s.%s: no entry binds it", table.Type(), table.Type().Field(j).Name)
		}
	}
	return fields
}

// TestEntryPointsLoad checks the function tables: each entry binds its
// own field and every field has an entry; each path's extensions bring
// every entry point the path calls (ser included, from its shaders, which
// no lavapipe runs); and on the device, for each path it runs, the tables
// load (a misspelt name, or one the driver lacks, fails the load, naming
// it), with every entry point of Vulkan 1.2 and of the extensions enabled,
// those the path calls among them, and no other.
func TestEntryPointsLoad(t *testing.T) {
	var inst instanceFuncs
	instEntries := inst.entryPoints()
	boundFields(t, reflect.ValueOf(&inst).Elem(), instEntries)
	var dev deviceFuncs
	devEntries := dev.entryPoints()
	devFields := boundFields(t, reflect.ValueOf(&dev).Elem(), devEntries)
	if t.Failed() {
		return
	}
	from := map[string]string{}
	for _, e := range devEntries {
		from[e.name] = e.from
	}

	// What each path enables, from its shaders, brings what it calls.
	for _, path := range gatedPaths {
		mods, err := modules(path, false)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		reqs, err := pathRequirements(path, mods)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var a arena
		exts := enable(reqs, newFeatureChain(&a, map[string]bool{}))
		a.free()
		for _, name := range pathCalls(path, devEntries) {
			f, ok := from[name]
			if !ok {
				t.Errorf("path %s calls %s, which no entry loads", path, name)
			} else if f != "" && !slices.Contains(exts, f) {
				t.Errorf("path %s calls %s, of %s, which the path does not enable (it enables %v)", path, name, f, exts)
			}
		}
	}

	// The tables the device loads.
	d0 := deviceFor(t, PathRayQuery)
	ran := 0
	for _, path := range gatedPaths {
		if st := d0.status[path]; !st.Available {
			t.Logf("path %s: not on %s (%s)", path, d0.Name, st.Reason)
			continue
		}
		d, err := openDevice(path, d0.Index, true)
		if err != nil {
			t.Errorf("path %s: %v", path, err)
			continue
		}
		ran++
		t.Logf("path %s: extensions %v", path, d.extensions)
		fields := reflect.ValueOf(&d.fn).Elem()
		for i, e := range devEntries {
			loaded := !fields.Field(devFields[i]).IsNil()
			want := e.from == "" || slices.Contains(d.extensions, e.from)
			if loaded != want {
				t.Errorf("path %s (extensions %v): %s loaded %v, want %v", path, d.extensions, e.name, loaded, want)
			}
			if !loaded && slices.Contains(pathCalls(path, devEntries), e.name) {
				t.Errorf("path %s calls %s, which is not loaded", path, e.name)
			}
		}
		// With validation the instance has VK_EXT_debug_utils: all of it.
		in := reflect.ValueOf(&d.in.fn).Elem()
		for j := 0; j < in.NumField(); j++ {
			if in.Field(j).IsNil() {
				t.Errorf("path %s: instanceFuncs.%s is not loaded", path, in.Type().Field(j).Name)
			}
		}
		d.destroy()
	}
	if ran == 0 {
		t.Fatalf("%s runs no path", d0.Name)
	}

	// Without validation, all but the debug messenger's.
	in, err := processInstance(false)
	if err != nil {
		t.Fatal(err)
	}
	if in.fn.getDeviceProcAddr == nil || in.fn.getPhysicalDeviceProperties2 == nil || in.fn.getPhysicalDeviceFeatures2 == nil {
		t.Errorf("instance entry points of Vulkan 1.1 not loaded without validation")
	}
	if in.fn.createDebugUtilsMessenger != nil || in.fn.destroyDebugUtilsMessenger != nil {
		t.Errorf("VK_EXT_debug_utils's entry points loaded without the extension")
	}
}

// TestLoadingNamesWhatIsMissing: a table whose lookup finds nothing fails
// with an error naming each entry point of the core and of the extensions
// enabled, and none of the others.
func TestLoadingNamesWhatIsMissing(t *testing.T) {
	var f deviceFuncs
	err := loadEntryPoints("the driver", f.entryPoints(), []string{"VK_KHR_acceleration_structure"},
		func(string) unsafe.Pointer { return nil })
	want := "the driver has no vkGetBufferDeviceAddress, vkCreateAccelerationStructureKHR, vkDestroyAccelerationStructureKHR, " +
		"vkGetAccelerationStructureBuildSizesKHR, vkCmdBuildAccelerationStructuresKHR, vkGetAccelerationStructureDeviceAddressKHR, " +
		"vkCmdWriteAccelerationStructuresPropertiesKHR, vkCmdCopyAccelerationStructureKHR"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
