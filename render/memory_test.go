package render

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]uint64{"8G": 8 << 30, "512M": 512 << 20, "1.5GiB": 3 << 29, "100": 100, "2k": 2048, " 3 GB ": 3 << 30, "1T": 1 << 40} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "-1G", "0", "0.5", "lots", "1e30T", "NaN", "Inf"} {
		if _, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) read a size", in)
		}
	}
}

// TestCheckMemory: a render whose film alone passes the budget is refused
// in one line that says what it needs, the budget and where it came from;
// one well inside it is not; the machine's own memory is a budget too.
func TestCheckMemory(t *testing.T) {
	opts := Options{Width: 3840, Height: 2160}
	_, err := CheckMemory(opts, GuideLayers, "cpu", false, "500M")
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "3840x2160 render of the beauty with the albedo, normal, depth layers needs about ") ||
		!strings.Contains(err.Error(), "memory budget of 500 MB (--memory-budget)") {
		t.Errorf("a 4K render with guides under 500 MB: %v", err)
	}
	if _, err := CheckMemory(Options{Width: 64, Height: 64}, AllLayers, "vulkan", true, "500M"); err != nil {
		t.Errorf("a 64x64 render under 500 MB: %v", err)
	}
	// The need grows with what is asked: the film, the pass buffers (the
	// CPU's, for whole passes only: exact sums, or a float32 sample a
	// channel where every pass is one sample, at 4K) or the read-back
	// buffer (Vulkan), the denoiser.
	for _, c := range []struct {
		w, h   int
		whole  bool
		passes float64 // the pass buffers in films
	}{{3840, 2160, false, 0}, {3840, 2160, true, 0.5}, {512, 512, false, 0}, {512, 512, true, 1}} {
		o := Options{Width: c.w, Height: c.h, WholePasses: c.whole}
		diff := float64(FilmBytes(c.w, c.h, AllLayers) - FilmBytes(c.w, c.h, BaseLayers))
		if d := float64(MemoryNeed(o, AllLayers, "cpu", false) - MemoryNeed(o, BaseLayers, "cpu", false)); d != (1+c.passes)*diff {
			t.Errorf("%dx%d, whole passes %v: every layer adds %.0f bytes to the beauty's need, want %g times the films' difference", c.w, c.h, c.whole, d, 1+c.passes)
		}
	}
	// A band's pass buffers are those the whole image's passes take: an 8K
	// image's are one sample a pixel, though a band of 256 rows alone
	// would take passes of two.
	band := Options{Width: 7680, Height: 256, WholePasses: true}
	if inImage, alone := memoryNeed(band, GuideLayers, 0, "cpu", false, 7680*4320), MemoryNeed(band, GuideLayers, "cpu", false); inImage >= alone {
		t.Errorf("a band of an 8K image needs %d bytes, as much as one alone (%d)", inImage, alone)
	}
	base := MemoryNeed(opts, BaseLayers, "cpu", false)
	if d := MemoryNeed(opts, BaseLayers, "cpu", true); d <= base {
		t.Error("denoising needs nothing more")
	}
	if budget, from, err := MemoryBudget(""); err != nil || budget == 0 || from == "" {
		t.Errorf("no budget of this machine's own: %d (%q), %v", budget, from, err)
	}
}

// TestSizesShowTheirUnit: a size is written in the largest unit of which
// it is at least 1, so that a budget of 1K is not "0 MB".
func TestSizesShowTheirUnit(t *testing.T) {
	for b, want := range map[uint64]string{0: "0 bytes", 1: "1 byte", 1000: "1000 bytes", 1 << 10: "1 KB", 1536: "1.5 KB", 100 << 10: "100 KB",
		1<<20 - 1: "1 MB", 16 << 20: "16 MB", 500 << 20: "500 MB", 10443000: "10 MB", 10380000: "9.9 MB", 1 << 30: "1.0 GB", 3 << 29: "1.5 GB"} {
		if got := GiB(b); got != want {
			t.Errorf("GiB(%d) = %q, want %q", b, got, want)
		}
	}
	_, err := CheckMemory(Options{Width: 64, Height: 64}, BaseLayers, "cpu", false, "1K")
	if err == nil || !strings.Contains(err.Error(), "more than the memory budget of 1 KB (--memory-budget)") {
		t.Errorf("a budget of 1K: %v", err)
	}
}

// TestCheckMergeMemory: a merge past its budget is refused in one line
// with a merge's advice, never --res or AOVs, which a merge has not; its
// need counts the slice read into the film where there are two or more,
// or the denoiser where larger, and where the denoiser alone makes it
// not fit, the advice is to denoise after.
func TestCheckMergeMemory(t *testing.T) {
	const w, h = 2000, 2000
	film := FilmBytesWith(w, h, AllLayers|CoverageLayers, 0) // a slice holds Cryptomatte's counts too
	if one, two := MergeMemoryNeed(w, h, 1, 0, false), MergeMemoryNeed(w, h, 2, 0, false); two-one < film-film/100 || two-one > film+film/100 {
		t.Errorf("the second slice adds %d bytes, its film is %d", two-one, film)
	}
	_, err := CheckMergeMemory(w, h, 2, 0, false, "16M")
	if err == nil || strings.Contains(err.Error(), "--res") || strings.Contains(err.Error(), "AOV") ||
		!strings.Contains(err.Error(), "a 2000x2000 merge of 2 slices needs about ") ||
		!strings.Contains(err.Error(), "more than the memory budget of 16 MB (--memory-budget): merge on a machine with more memory, or give a larger --memory-budget where the memory is there") {
		t.Errorf("a merge over 16 MB: %v", err)
	}
	// Room for the merge and for the denoiser alone, not for both.
	budget := MergeMemoryNeed(w, h, 2, 0, true) - film/2
	_, err = CheckMergeMemory(w, h, 2, 0, true, fmt.Sprint(budget))
	if err == nil || !strings.Contains(err.Error(), "a 2000x2000 merge of 2 slices, denoised, needs about ") ||
		!strings.Contains(err.Error(), "merge without --denoise and denoise the image after (sertrace denoise)") {
		t.Errorf("a merge that fits but for its denoiser: %v", err)
	}
	if _, err := CheckMergeMemory(w, h, 2, 0, false, fmt.Sprint(budget)); err != nil {
		t.Errorf("the same merge without the denoiser: %v", err)
	}
}

// TestSetKeepsLargeSums: Set takes a sum past a sample's clamp (n times a
// squared luminance of a visible sun) in float64, not through float32.
func TestSetKeepsLargeSums(t *testing.T) {
	var s LayerSums
	s.Fixed = make([]int64, 2)
	for i, v := range []float64{6.5e18, 0.1234567890123} {
		s.Set(i, v)
		if got := s.Value(i); math.Abs(got-v) > Quantum/2+1e-15*v {
			t.Errorf("Set(%g) reads back %.17g", v, got)
		}
	}
}

// TestCgroupLimitOfParents: the least limit of the cgroup and its parents
// (v2), "max" meaning none; v1's memory controller line too.
func TestCgroupLimitOfParents(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	write("farm.slice/memory.max", "4294967296\n")
	write("farm.slice/job.scope/memory.max", "max\n")
	if got := cgroupLimitUnder(root, "0::/farm.slice/job.scope\n"); got != 4<<30 {
		t.Errorf("v2, a limit on the parent: %d, want 4 GiB", got)
	}
	write("farm.slice/job.scope/memory.max", "1073741824\n")
	if got := cgroupLimitUnder(root, "0::/farm.slice/job.scope\n"); got != 1<<30 {
		t.Errorf("v2, the child's lower limit: %d, want 1 GiB", got)
	}
	write("memory/memory.limit_in_bytes", "2147483648\n") // a v1 container sees its own at the top
	if got := cgroupLimitUnder(root, "12:cpu,cpuacct:/docker/x\n5:memory:/docker/x\n"); got != 2<<30 {
		t.Errorf("v1 in a container: %d, want 2 GiB", got)
	}
	if got := cgroupLimitUnder(root, "0::/elsewhere\n"); got != 0 {
		t.Errorf("no limit anywhere: %d", got)
	}
}
