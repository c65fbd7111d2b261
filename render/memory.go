package render

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
)

// Memory. Before a render allocates its film, MemoryNeed estimates what it
// will take and CheckMemory refuses one that does not fit the memory
// budget, in one line saying how much it needs and what to change: never
// the Go runtime's fatal "out of memory" trace halfway through a farm job.

// MemoryBudget is how much memory a render may take, and what set it:
// --memory-budget where given (ParseBytes), else the least of the
// process's cgroup limit, its address-space limit (less what the runtime
// and the libraries map without using) and the machine's memory.
func MemoryBudget(setting string) (bytes uint64, from string, err error) {
	if setting != "" {
		b, err := ParseBytes(setting)
		return b, "--memory-budget", err
	}
	bytes, from = math.MaxUint64, ""
	consider := func(b uint64, what string) {
		if b > 0 && b < bytes {
			bytes, from = b, what
		}
	}
	consider(cgroupLimit(), "the cgroup's memory limit")
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) == nil && lim.Cur != math.MaxUint64 {
		// The process maps far more addresses than it uses (Go's
		// reservations, libraries, every thread's malloc arena: 1.6 GB
		// before a render here, with 21 MB resident), and Embree's threads
		// and a Vulkan driver map more once the render starts: a limit on
		// addresses leaves less than itself to use.
		unused := vmSize() - min(vmSize(), heldBytes()/2)
		// A limit below what is mapped already leaves nothing: a budget of
		// one byte, which refuses, not none.
		consider(max(lim.Cur-min(lim.Cur, unused+addressSlack), 1), "the address-space limit (ulimit -v)")
	}
	consider(memTotal(), "the machine's memory")
	if from == "" {
		return 0, "", nil // nothing says: no check
	}
	return bytes, from, nil
}

// addressSlack is the address space a render maps beyond its memory once
// it starts: Embree's threads and their malloc arenas (330 MB measured),
// the Go heap's growth in 64 MB arenas.
const addressSlack = 512 << 20

// vmSize is the address space the process maps now (/proc/self/status),
// or 0.
func vmSize() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// ParseBytes reads a size: bytes, or a number with K, M, G or T (powers
// of 1024, an optional B or iB after).
func ParseBytes(s string) (uint64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	scale := 1.0
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			scale, t = math.Pow(1024, float64(i+1)), t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(v*scale >= 1) || v*scale >= math.MaxUint64/2 {
		return 0, fmt.Errorf("%q is not a size (such as 8G, 512M or a number of bytes)", s)
	}
	return uint64(v * scale), nil
}

// cgroupLimit is the memory limit of the process's cgroup (v2, or v1), or
// 0 where it has none.
func cgroupLimit() uint64 {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	return cgroupLimitUnder("/sys/fs/cgroup", string(data))
}

// cgroupLimitUnder is the least memory limit of the cgroup that self (the
// text of /proc/self/cgroup) names and of its parents, the hierarchy
// mounted at root: a limit on a parent slice binds its children too. A
// container that sees only its own cgroup at the mount's top (v1 without
// a cgroup namespace) finds it there.
func cgroupLimitUnder(root, self string) uint64 {
	least := uint64(0)
	consider := func(file string) {
		b, err := os.ReadFile(file)
		if err != nil {
			return
		}
		// "max", or v1's huge "no limit", are no limit.
		if v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && v < 1<<60 && (least == 0 || v < least) {
			least = v
		}
	}
	for _, line := range strings.Split(self, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dir, name string
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir, name = root, "memory.max"
		case strings.Contains(","+parts[1]+",", ",memory,"):
			dir, name = root+"/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		for p := path.Clean("/" + parts[2]); ; p = path.Dir(p) {
			consider(dir + p + "/" + name)
			if p == "/" {
				break
			}
		}
	}
	return least
}

// memTotal is the machine's memory (/proc/meminfo), or 0.
func memTotal() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// FilmBytes is the memory a film of the layers s takes at width×height.
func FilmBytes(width, height int, s Layers) uint64 { return FilmBytesWith(width, height, s, 0) }

// FilmBytesWith is FilmBytes of a film with groups light groups (where s
// has GroupLayers): 24 bytes a pixel each; Cryptomatte's counts
// (CoverageLayers) take 8 bytes a slot and, for the pixels that see more
// instances than their slots, a map's entries: 16 bytes a pixel errs high;
// each pixel's samples (SamplesLayers), 4.
func FilmBytesWith(width, height int, s Layers, groups int) uint64 {
	var bytes uint64
	for l, info := range FilmLayers {
		if (s | BaseLayers).Has(Layer(l)) {
			bytes += uint64(info.Channels) * info.wordBytes()
		}
	}
	if s&GroupLayers != 0 {
		bytes += 24 * uint64(groups)
	}
	if s&CoverageLayers != 0 {
		bytes += 8*CoverageSlots + 16
	}
	if s&SamplesLayers != 0 {
		bytes += 4 // Film.StoppedAt
	}
	return bytes * uint64(width) * uint64(height)
}

// Bytes a pixel takes beyond the film, by what holds them: estimates that
// err high, since they only refuse.
const (
	// a PNG or PFM output: a PNG's 8-bit image (4) and its encoding (at
	// most about as large, in a buffer that doubles as it grows: up to 3
	// times that at once), a block of rows resolved at a time (a PFM
	// streams); a heatmap PNG resolves its AOV whole, and a sorted copy
	// (8): 40 errs high.
	imageOutputBytes = 40
	// the denoiser: the measured peaks of sertrace denoise at
	// 1920x1080 (benchmarks/results/cpu-amd-epyc-2vcpu/denoiser-speed.md:
	// the network 2.1 GB, the regression filter 1.0 GB) are
	// about 1,000 bytes a pixel at most, the EXR read in included.
	denoiseBytes = 1000
	// each light group denoised (one after another, with the beauty's
	// guides): its noisy and its denoised mean (float32 RGB), kept until
	// the groups are shared out
	denoiseGroupBytes = 24
)

// gpuReadbackBytes is the bytes a pixel of the Vulkan backend's
// host-visible read-back buffer takes, counted (GPUFilmLayout's floats,
// the clock's among them), and as much again for the device's own buffers
// where it is a software one (lavapipe), whose device memory is the
// host's: a guess, not measured.
func gpuReadbackBytes(layers Layers) uint64 {
	_, floats := GPUFilmLayout(layers|BaseLayers, true, 1)
	return 4 * uint64(floats) * 2
}

// cpuPassPaths is about how many paths a CPU pass traces at most.
const cpuPassPaths = 1 << 22

// CPUPassSamples is the most samples per pixel a CPU pass over an image of
// pixels pixels takes: up to 64, and about cpuPassPaths paths. Above 2^21
// pixels (a little more than 1920×1080) every pass is one sample a pixel, whose
// buffers hold each channel's float32 sample, half the exact sums' size.
func CPUPassSamples(pixels int) int {
	n := 1
	for n < 64 && n*2*pixels <= cpuPassPaths {
		n *= 2
	}
	return n
}

// MemoryNeed estimates the memory a render of opts into a film of layers
// takes, with what the process holds already (the scene loaded): the
// film, the GPU's read-back buffer or, for whole passes (WholePasses), the
// CPU's pass buffers (as large, or half as large in passes of one sample),
// the writers' planes and, where denoised, the denoiser's.
func MemoryNeed(opts Options, layers Layers, backend string, denoised bool) uint64 {
	return memoryNeed(opts, layers, opts.LightGroups.Count(), backend, denoised, opts.Width*opts.Height)
}

// memoryNeed is MemoryNeed of a film of opts' size (a band's) with groups
// light groups in a render whose passes the image of imagePixels pixels
// sets (CPUPassSamples).
func memoryNeed(opts Options, layers Layers, groups int, backend string, denoised bool, imagePixels int) uint64 {
	px := uint64(opts.Width) * uint64(opts.Height)
	film := FilmBytesWith(opts.Width, opts.Height, layers, groups)
	need := heldBytes() + film + imageOutputBytes*px
	need += px / 8 // the pixels a pass has done (cutpass.go)
	if opts.Adaptive.On() {
		need += 4 * px // a check's forecast of each pixel's samples (Converge)
		if layers&SamplesLayers == 0 {
			need += 4 * px // where pixels stopped
		}
	}
	switch {
	case backend == "vulkan":
		// A launch's rows at most (the shaders index MaxFilePixels).
		need += gpuReadbackBytes(layers) * min(px, MaxFilePixels)
		if layers&GroupLayers != 0 {
			need += 2 * 12 * uint64(groups) * min(px, MaxFilePixels) // the groups' floats, read back
		}
		if layers&CoverageLayers != 0 {
			need += 2 * 4 * cpuPassPaths // each sample's instance, a pass's paths (about 4M) read back
		}
		if opts.WholePasses {
			need += film // a slice's pass in launches, until it is done
		}
		if opts.Adaptive.On() {
			// A launch's list of the pixels still sampling, and its runs
			// on the host (two of 24 bytes where every other pixel stopped).
			need += (4 + 48) * min(px, MaxFilePixels)
		}
	case !opts.WholePasses:
		// A CPU pass adds to the film as it goes.
	case CPUPassSamples(imagePixels) == 1 && layers&(GroupLayers|CoverageLayers) == 0:
		need += film / 2 // the pass buffers: a float32 sample a channel
	default:
		need += film // the pass buffers: exact sums
	}
	if denoised {
		need += (denoiseBytes + denoiseGroupBytes*uint64(groups)) * px
	}
	return need
}

// heldBytes is the memory the process holds now: the Go heap live at the
// last collection, twice (the acceleration structures copy the scene's
// geometry), and the runtime's own (stacks, metadata). A batch's previous
// job's film, garbage not collected yet, is not counted.
func heldBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	metrics.Read(s)
	v := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	runtimeOwn := v[1] - min(v[1], v[2]+v[3]+v[4]+v[5]) // total less the heap's
	return 2*v[0] + runtimeOwn
}

// CheckMemory refuses a render whose MemoryNeed passes the budget the
// setting gives (MemoryBudget), in one line: what it needs, the budget and
// what set it, and what to change. It returns the budget (0: none known).
func CheckMemory(opts Options, layers Layers, backend string, denoised bool, setting string) (uint64, error) {
	return checkBudget(MemoryNeed(opts, layers, backend, denoised), setting, func(need, budget uint64, from string) string {
		what := "the beauty"
		if extra := layers &^ BaseLayers; extra != 0 {
			what += " with the " + extra.Names() + " layer"
			if extra&(extra-1) != 0 {
				what += "s"
			}
		}
		return fmt.Sprintf("a %dx%d render of %s needs about %s, more than the memory budget of %s (%s): render it smaller (--res), ask for fewer AOVs, or give a larger --memory-budget where the memory is there",
			opts.Width, opts.Height, what, GiB(need), GiB(budget), from)
	})
}

// MergeMemoryNeed estimates the memory a merge of slices (MergeSlices)
// of a width×height render takes: the merged film, of every layer, and
// the writers' (MemoryNeed's), with the larger of what comes beside the
// film in turn: the film of the next slice read into it, and where
// denoised, the denoiser.
func MergeMemoryNeed(width, height, slices, groups int, denoised bool) uint64 {
	var reading, denoiser uint64
	layers := AllLayers | CoverageLayers | GroupLayers
	if slices > 1 {
		reading = FilmBytesWith(width, height, layers, groups)
	}
	if denoised {
		denoiser = (denoiseBytes + denoiseGroupBytes*uint64(groups)) * uint64(width) * uint64(height)
	}
	return memoryNeed(Options{Width: width, Height: height}, layers, groups, "cpu", false, width*height) + max(reading, denoiser)
}

// CheckMergeMemory is CheckMemory for a merge (MergeMemoryNeed), with a
// merge's advice: its size and layers are the slices', but its denoiser
// can run apart, after it.
func CheckMergeMemory(width, height, slices, groups int, denoised bool, setting string) (uint64, error) {
	return checkBudget(MergeMemoryNeed(width, height, slices, groups, denoised), setting, func(need, budget uint64, from string) string {
		what, change := fmt.Sprintf("%d slices", slices), "merge on a machine with more memory"
		if slices == 1 {
			what = "1 slice"
		}
		if denoised {
			what += ", denoised,"
			if MergeMemoryNeed(width, height, slices, groups, false) <= budget && heldBytes()+denoiseBytes*uint64(width)*uint64(height) <= budget {
				change = "merge without --denoise and denoise the image after (sertrace denoise), " + change
			}
		}
		return fmt.Sprintf("a %dx%d merge of %s needs about %s, more than the memory budget of %s (%s): %s, or give a larger --memory-budget where the memory is there",
			width, height, what, GiB(need), GiB(budget), from, change)
	})
}

// checkBudget refuses a need past the budget the setting gives
// (MemoryBudget) with the line refused writes; it returns the budget (0:
// none known).
func checkBudget(need uint64, setting string, refused func(need, budget uint64, from string) string) (uint64, error) {
	budget, from, err := MemoryBudget(setting)
	if err != nil || budget == 0 {
		return 0, err
	}
	if need <= budget {
		return budget, nil
	}
	return budget, &MemoryError{refused(need, budget, from)}
}

// MaxBandRows caps a band: taller bands save nothing (the scene is
// prepared once) and their films, garbage once written, are what the
// collector must keep up with. A 16384×16384 poster in bands of all the
// 2 GB budget held (1,248 rows: 0.65 GB of film and as much of pass
// buffers) peaked at 2.5 GB resident.
const MaxBandRows = 256

// MemoryError is a render refused for passing its memory budget
// (CheckMemory): one line saying what it needs and what to change.
type MemoryError struct{ Line string }

func (e *MemoryError) Error() string { return e.Line }

// BandRows is how many rows a render in bands (RenderBands) of opts into
// films of layers takes at a time within the memory budget the setting
// gives: the most that fit, up to MaxBandRows, a multiple of 16 short of
// the image, or 0 when not even 16 rows fit; and the budget. Each band
// holds its film and the CPU's pass buffers or the GPU's read-back buffer
// (on backend), and the writer its planes of a block of rows.
func BandRows(opts Options, layers Layers, backend, setting string) (rows int, budget uint64, err error) {
	budget, _, err = MemoryBudget(setting)
	if err != nil || budget == 0 {
		return 0, budget, err
	}
	band := opts
	for rows := min(MaxBandRows, (opts.Height-1)/16*16); rows >= 16; rows -= 16 {
		band.Height = rows
		if memoryNeed(band, layers, opts.LightGroups.Count(), backend, false, opts.Width*opts.Height) <= budget {
			return rows, budget, nil
		}
	}
	return 0, budget, nil
}

// GiB writes a size in the largest unit of which it is at least 1: GB
// (2^30 bytes) to a tenth, MB or KB (a tenth below 10 of them, whole
// above), or bytes; a budget of 1K reads 1 KB, not 0 MB.
func GiB(b uint64) string {
	for _, u := range []struct {
		size uint64
		name string
	}{{1 << 30, "GB"}, {1 << 20, "MB"}, {1 << 10, "KB"}} {
		// What would round to 1024 of the unit below is 1 of this one.
		if b < u.size-u.size>>11 {
			continue
		}
		v := float64(b) / float64(u.size)
		if u.name == "GB" {
			return fmt.Sprintf("%.1f GB", v)
		}
		if v < 9.95 {
			return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + " " + u.name
		}
		return fmt.Sprintf("%.0f %s", v, u.name)
	}
	if b == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", b)
}
