package vulkan

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"sertrace/render"
	"sertrace/render/layout"
)

// Launches. A pass is one launch where the device's memory holds the
// film's rows at once, else several, each of as many rows as it holds
// (Params.Y0 the first's image row). The render's own buffers are what
// grows with the launch: the read-back buffer of its sums, the slots of
// its paths (on the wavefronts with their hits, queues and sort), and
// under adaptive sampling the list of the pixels still sampling. They are
// sized, after the scene's buffers and acceleration structures are
// made, to the memory the device has left: VK_EXT_memory_budget's budget
// less what the process uses where the device has it, else three
// quarters of the heap less what sertrace holds. A launch's pixels take
// the same samples whatever the rows (MaxPass counts the whole image), so
// an image rendered in several launches is, bit for bit, the one
// rendered in one.

const memoryBudgetExtension = "VK_EXT_memory_budget"

// deviceMemoryForTests, when positive, stands for the device memory left
// for a render's own buffers in every heap (tests set it).
var deviceMemoryForTests uint64

// slotBuffer is a buffer with a slot for every path of a launch: its
// address in Params, and its bytes a path.
type slotBuffer struct {
	addr  *uint64
	bytes uint64
}

// slotBuffers are the buffers of p's render that hold a slot a path, for
// a render of groups light groups: on every path its state (layout.Path,
// which wave_resolve sums into the film) and, with groups, its light by
// group; on a wavefront (wave) its hit too, and its places in the two
// queues and in the sorted order.
func slotBuffers(p *layout.Params, wave bool, groups int) []slotBuffer {
	bufs := []slotBuffer{{&p.Paths, uint64(unsafe.Sizeof(layout.Path{}))}}
	if groups > 0 {
		bufs = append(bufs, slotBuffer{&p.GroupLight, groupBytes * uint64(groups)})
	}
	if wave {
		bufs = append(bufs, slotBuffer{&p.Hits, uint64(unsafe.Sizeof(layout.Hit{}))},
			slotBuffer{&p.QueueA, 4}, slotBuffer{&p.QueueB, 4}, slotBuffer{&p.Sorted, 4})
	}
	return bufs
}

// slotBytes are a path's bytes on the device (slotBuffers).
func slotBytes(wave bool, groups int) (all uint64) {
	for _, b := range slotBuffers(&layout.Params{}, wave, groups) {
		all += b.bytes
	}
	return all
}

// largestSlot is a path's bytes in the largest of slotBuffers.
func largestSlot(wave bool, groups int) (largest uint64) {
	for _, b := range slotBuffers(&layout.Params{}, wave, groups) {
		largest = max(largest, b.bytes)
	}
	return largest
}

// renderExtras are what a render of opts keeps beyond the film's layers
// (opts.Layers): the light groups its film holds (render.GroupLayers; 0:
// none), whose layers follow the others in the read-back buffer and whose
// light every path keeps in its slot (groupBytes a group), and whether it
// counts Cryptomatte's coverage (render.CoverageLayers), whose IDs
// buffer holds each path's first instance (idBytes), host-readable.
func renderExtras(opts render.Options) (groups int, ids bool) {
	if opts.Layers&render.GroupLayers != 0 {
		groups = opts.LightGroups.Count()
	}
	return groups, opts.Layers&render.CoverageLayers != 0
}

// groupBytes are a path's bytes of light by light group, a group;
// idBytes a sample's bytes in the IDs buffer; activeBytes a pixel's in
// the list of a launch's pixels still sampling (Params.ActivePixels),
// which a render that samples adaptively uploads.
const (
	groupBytes  = 3 * 4
	idBytes     = 4
	activeBytes = 4
)

// filmLayout is render.GPUFilmLayout with the light groups' layers after
// the others: groups RGB layers, group g's from float groupsAt + 3·g·n
// (n the launch's pixels), in a buffer of n pixels at most.
func filmLayout(held render.Layers, clock bool, n, groups int) (at [layout.FilmLayers]uint32, groupsAt uint32, floats int) {
	at, floats = render.GPUFilmLayout(held, clock, n)
	return at, uint32(floats * n), floats + 3*groups
}

// launchPlan is what a render's buffers hold: launches of rows rows at
// most, and paths paths at most (rows' pixels times the samples of a
// pass), each in its slot.
type launchPlan struct {
	rows, paths int
}

// planLaunches sizes the launches of a render of opts into a read-back
// buffer of filmFloats floats a pixel (filmLayout's, the light groups'
// among them): the rows of its bands (or image), as many of them as the
// device's memory left holds, as its largest buffer holds (Device's
// maxBuffer), and as the shaders index in 32 bits. Every
// path of a pass takes a slot (slotBytes; wave says whether the path is a
// wavefront), a pass up to maxPass samples of a pixel (as do the IDs of a
// render that counts Cryptomatte's coverage); a render that samples
// adaptively uploads a list of a launch's pixels still sampling
// (activeBytes a pixel). It refuses, in one line, a device that holds no
// launch of one row.
func (d *device) planLaunches(opts render.Options, filmFloats int, wave bool, maxPass int) (launchPlan, error) {
	w := opts.Width
	groups, ids := renderExtras(opts)
	rows := min(bandRows(opts), render.MaxFilePixels/w)
	// The film's floats and the paths' group light, which the shaders
	// index in 32 bits: below 2^31, since SPIR-V reads an access chain's
	// index as signed (a negative constant one is invalid), and a driver
	// may too.
	rows = min(rows, int((1<<31-1)/(uint64(w)*uint64(filmFloats))))
	if groups > 0 {
		rows = min(rows, int((1<<31-1)/(uint64(w)*uint64(maxPass)*uint64(3*groups))))
	}
	if rows < 1 {
		return launchPlan{}, fmt.Errorf("the vulkan backend renders launches of at most %d pixels, less than a row of %d: use --backend cpu", render.MaxFilePixels, w)
	}
	// The largest buffer's bytes a pixel of a launch, within the largest
	// buffer the device makes.
	largest := max(4*uint64(filmFloats), largestSlot(wave, groups)*uint64(maxPass))
	if ids {
		largest = max(largest, idBytes*uint64(maxPass))
	}
	if limit := d.info.maxBuffer; limit > 0 {
		if fit := limit / (uint64(w) * largest); fit < uint64(rows) {
			if fit == 0 {
				return launchPlan{}, fmt.Errorf("the device makes buffers of at most %s, less than a launch of one row of %d pixels takes: render it on the CPU (--backend cpu)", render.GiB(limit), w)
			}
			rows = int(fit)
		}
	}
	// Each heap's bytes a pixel of a launch.
	perPixel := map[uint32]uint64{d.heapOf(memReadback): 4 * uint64(filmFloats)}
	if ids {
		perPixel[d.heapOf(memReadback)] += idBytes * uint64(maxPass)
	}
	if opts.Adaptive.On() {
		perPixel[d.heapOf(memUpload)] += activeBytes
	}
	perPixel[d.heapOf(memDevice)] += slotBytes(wave, groups) * uint64(maxPass)
	for h, bytes := range perPixel {
		// A tenth of what is left stays for the driver and the blocks'
		// alignment.
		room := d.heapRoom(h) / 10 * 9
		if fit := room / (uint64(w) * bytes); fit < uint64(rows) {
			if fit == 0 {
				return launchPlan{}, &noRoomError{fmt.Sprintf("the device's memory holds no launch of one row: a row of %d pixels takes %s, and %s of its %s are left after the scene: render it on the CPU (--backend cpu), or free the GPU's memory",
					w, render.GiB(uint64(w)*bytes), render.GiB(room), render.GiB(d.heapSize(h)))}
			}
			rows = int(fit)
		}
	}
	return launchPlan{rows: rows, paths: rows * w * maxPass}, nil
}

// rtBatchVariable names the environment variable that sets the sample
// batch of the rt and ser paths (sampleBatch), for benchmarks.
const rtBatchVariable = "SERTRACE_RT_BATCH"

// maxTraceWidth is the widest launch of the rt and ser paths, within the
// least maxComputeWorkGroupCount[0] × maxComputeWorkGroupSize[0] a device
// may have (65,535 × 128), which bounds a ray-tracing launch's width.
const maxTraceWidth = 1 << 22

// The sample batches SERTRACE_RT_BATCH asks for besides a number
// (rtBatchAsked).
const (
	batchAuto  = -1
	batchPixel = 0
)

// rtBatchAsked reads SERTRACE_RT_BATCH: the most samples of a pixel an
// invocation of the rt and ser paths' raygen traces one after another
// (a number), "pixel" (batchPixel: all of a launch's, one invocation a
// pixel, as the paths launched before their batches, which benchmarks
// measure the batches against) or, unset or "auto", batchAuto
// (sampleBatch).
func rtBatchAsked() (int, error) {
	v := os.Getenv(rtBatchVariable)
	switch v {
	case "", "auto":
		return batchAuto, nil
	case "pixel":
		return batchPixel, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a number of samples (1 or more), \"pixel\" or \"auto\"", rtBatchVariable, v)
	}
	return n, nil
}

// launchThreads is how many invocations the automatic sample batch gives
// a launch of the rt and ser paths at least, where its paths allow: a few
// times what a large GPU holds resident (an H100's 132 multiprocessors
// hold 2,048 threads each, 270,336 in all), so that a small image still
// fills it (320×240 is 76,800 pixels) and its slowest pixels do not leave
// it idle at a launch's end.
const launchThreads = 1 << 20

// sampleBatch is the sample batch of a launch of pixels pixels at spp
// samples (Params.SampleBatch), a divisor of spp: the largest not above
// asked (rtBatchAsked), or spp for batchPixel. batchAuto takes the
// largest that still makes launchThreads invocations (pixels · spp /
// batch), 1 where even that makes fewer (which costs lavapipe nothing
// measurable:
// benchmarks/results/lavapipe-mesa25-amd-epyc-2vcpu/sample-batch.md).
// The clock variants time a pixel's samples in one invocation: spp.
func sampleBatch(spp, pixels, asked int, clock bool) int {
	switch {
	case clock || asked == batchPixel:
		asked = spp
	case asked == batchAuto:
		asked = pixels * spp / launchThreads
	}
	b := max(1, min(asked, spp))
	for spp%b != 0 {
		b--
	}
	return b
}

// noRoomError is a render refused for the device's memory left
// (planLaunches): the device itself is sound.
type noRoomError struct{ line string }

func (e *noRoomError) Error() string { return e.line }

// heapOf is the heap that the memory of kind comes from first.
func (d *device) heapOf(kind memKind) uint32 {
	types := d.memoryTypes(^uint32(0), kind)
	if len(types) == 0 {
		return 0 // (newBuffer refuses)
	}
	t := d.memProps.MemoryTypes[types[0]]
	t.Deref()
	return t.HeapIndex
}

// heapSize is heap h's size.
func (d *device) heapSize(h uint32) uint64 {
	heap := d.memProps.MemoryHeaps[h]
	heap.Deref()
	return uint64(heap.Size)
}

// heapRoom is how much more the process may allocate in heap h:
// VK_EXT_memory_budget's budget for it less the process's use where the
// device has the extension, else three quarters of the heap (the rest
// for other processes: the desktop's, a second render's) less the
// blocks sertrace holds in it.
func (d *device) heapRoom(h uint32) uint64 {
	if deviceMemoryForTests > 0 {
		return deviceMemoryForTests
	}
	if budget, use, ok := d.heapBudget(h); ok {
		return budget - min(budget, use)
	}
	held := uint64(0)
	for _, b := range d.blocks {
		t := d.memProps.MemoryTypes[b.typ]
		t.Deref()
		if t.HeapIndex == h {
			held += b.size
		}
	}
	limit := d.heapSize(h) / 4 * 3
	return limit - min(limit, held)
}

// heapBudget is VK_EXT_memory_budget's budget for heap h and the
// process's use of it, where the device enabled the extension.
func (d *device) heapBudget(h uint32) (budget, use uint64, ok bool) {
	if !slices.Contains(d.extensions, memoryBudgetExtension) {
		return 0, 0, false
	}
	var a arena
	defer a.free()
	p2 := newIn[physicalDeviceMemoryProperties2](&a)
	p2.sType = stPhysicalDeviceMemoryProperties2
	tail := (*chained)(unsafe.Pointer(p2))
	b := chainIn[physicalDeviceMemoryBudgetProperties](&a, &tail, stPhysicalDeviceMemoryBudgetProperties)
	d.in.fn.getPhysicalDeviceMemoryProperties2(d.info.handle, p2)
	if h >= vk.MaxMemoryHeaps || b.heapBudget[h] == 0 {
		return 0, 0, false // a driver that fills no budget
	}
	return b.heapBudget[h], b.heapUsage[h], true
}
