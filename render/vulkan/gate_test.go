package vulkan

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// names are the requirements' names, for comparisons.
func names(reqs []requirement) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.name)
	}
	return out
}

// TestGateReadsTheModules: the gate reads what the committed modules
// declare (capabilities, extensions) and the clock's scope: the clock
// variants read the device clock, which needs shaderDeviceClock (the
// subgroup clock would mix subgroups across reorderThreadNV); the path
// without the clock needs no clock at all.
func TestGateReadsTheModules(t *testing.T) {
	for _, c := range []struct {
		path   string
		clock  bool
		want   []string
		absent []string
	}{
		{PathSER, true, []string{"VK_NV_ray_tracing_invocation_reorder", "VK_KHR_ray_tracing_pipeline", "VK_KHR_shader_clock",
			"VkPhysicalDeviceShaderClockFeaturesKHR::shaderDeviceClock"}, []string{"VkPhysicalDeviceShaderClockFeaturesKHR::shaderSubgroupClock"}},
		{PathRT, true, []string{"VK_KHR_ray_tracing_pipeline", "VkPhysicalDeviceShaderClockFeaturesKHR::shaderDeviceClock"}, []string{"VK_NV_ray_tracing_invocation_reorder"}},
		{PathRT, false, []string{"VK_KHR_ray_tracing_pipeline"}, []string{"VK_KHR_shader_clock", "VkPhysicalDeviceShaderClockFeaturesKHR::shaderDeviceClock"}},
		{PathRayQuery, false, []string{"VK_KHR_ray_query"}, []string{"VK_KHR_ray_tracing_pipeline"}},
		// The sorting wavefront on the pipeline runs where rt runs: its
		// compute stages need no ray queries (NVIDIA's drivers offer none).
		{PathRTSorted, false, []string{"VK_KHR_ray_tracing_pipeline"}, []string{"VK_KHR_ray_query", "VkPhysicalDeviceRayQueryFeaturesKHR::rayQuery"}},
	} {
		mods, err := modules(c.path, c.clock)
		if err != nil {
			t.Fatal(err)
		}
		reqs, err := pathRequirements(c.path, mods)
		if err != nil {
			t.Fatalf("%s clock %v: %v", c.path, c.clock, err)
		}
		got := names(reqs)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s clock %v: no %s in %v", c.path, c.clock, w, got)
			}
		}
		for _, a := range c.absent {
			if slices.Contains(got, a) {
				t.Errorf("%s clock %v: %s required", c.path, c.clock, a)
			}
		}
	}
}

// TestGateReadsTheSortVariants: the sort's subgroup variants need the
// subgroup ballots in compute shaders, and rt-sorted's in its raygen
// besides (read from the module's entry point); a device whose subgroup
// properties leave out the raygen stage (lavapipe's) runs rayquery's
// variants and not rt-sorted's.
func TestGateReadsTheSortVariants(t *testing.T) {
	compute, raygen := subgroupBallot.name, subgroupBallotRaygen.name
	for _, c := range []struct {
		path   string
		want   []string
		absent []string
	}{
		{PathRayQuery, []string{compute}, []string{raygen}},
		{PathRTSorted, []string{compute, raygen}, nil},
	} {
		mods, err := subgroupSortModules(c.path)
		if err != nil {
			t.Fatal(err)
		}
		reqs, err := pathRequirements(c.path, mods)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		got := names(reqs)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: no %s in %v", c.path, w, got)
			}
		}
		for _, a := range c.absent {
			if slices.Contains(got, a) {
				t.Errorf("%s: %s required", c.path, a)
			}
		}
		plain, err := modules(c.path, false)
		if err != nil {
			t.Fatal(err)
		}
		if reqs, _ := pathRequirements(c.path, plain); slices.Contains(names(reqs), compute) {
			t.Errorf("%s's plain modules need subgroup ballots", c.path)
		}
	}
	var a arena
	defer a.free()
	s := newIn[subgroupSupport](&a)
	setSubgroupSupport(s, &physicalDeviceSubgroupProperties{supportedStages: 0xf0, supportedOperations: 0x6ff}) // lavapipe's
	if s.ballotCompute != 1 || s.ballotRaygen != 0 {
		t.Errorf("lavapipe's subgroup properties read as %+v", *s)
	}
	setSubgroupSupport(s, &physicalDeviceSubgroupProperties{supportedStages: 0x3fff, supportedOperations: 0x7}) // no ballot
	if s.ballotCompute != 0 || s.ballotRaygen != 0 {
		t.Errorf("subgroup properties without ballots read as %+v", *s)
	}
}

// module assembles a SPIR-V module: the header with a version, then
// instructions given as their words.
func module(version uint32, instructions ...[]uint32) []byte {
	words := []uint32{0x07230203, version, 0, 100, 0}
	for _, ins := range instructions {
		words = append(words, uint32(len(ins))<<16|ins[0])
		words = append(words, ins[1:]...)
	}
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// str is a SPIR-V literal string's words.
func str(s string) []uint32 {
	b := append([]byte(s), make([]byte, 4-len(s)%4)...)
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// TestGateRefusesWhatItDoesNotKnow: a module newer than Vulkan 1.2
// consumes, an extension or a capability or a clock scope the tables do
// not know are errors naming them, not a device that fails later; a
// subgroup clock needs shaderSubgroupClock.
func TestGateRefusesWhatItDoesNotKnow(t *testing.T) {
	shader := []uint32{opCapability, 1}
	for _, c := range []struct {
		code []byte
		want string
	}{
		{module(0x00010600, shader), "SPIR-V 1.6"},
		{module(0x00010500, shader, append([]uint32{opExtension}, str("SPV_EXT_unheard_of")...)), "SPV_EXT_unheard_of"},
		{module(0x00010500, []uint32{opCapability, 4242}), "capability 4242"},
		{module(0x00010500, shader, []uint32{opConstant, 1, 7, 2}, []uint32{opReadClockKHR, 2, 8, 7}), "scope 2"},
		{[]byte("not spir-v at all"), "not a SPIR-V module"},
	} {
		_, err := pathRequirements(PathRT, [][]byte{c.code})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error naming %q, got %v", c.want, err)
		}
	}
	sub := module(0x00010500, shader, append([]uint32{opExtension}, str("SPV_KHR_shader_clock")...),
		[]uint32{opConstant, 1, 7, scopeSubgroup}, []uint32{opReadClockKHR, 2, 8, 7})
	reqs, err := pathRequirements(PathRT, [][]byte{sub})
	if err != nil || !slices.Contains(names(reqs), "VkPhysicalDeviceShaderClockFeaturesKHR::shaderSubgroupClock") {
		t.Errorf("a subgroup clock: %v, %v", names(reqs), err)
	}
}
