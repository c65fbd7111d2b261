package vulkan

import (
	"os"
	"strconv"
	"strings"
	"testing"

	vk "github.com/vulkan-go/vulkan"
)

// TestReopenManyTimes: a process that renders many times (batch, bench,
// the tests) creates and destroys a device per render on the one instance
// it keeps; the hundredth opens like the first, and none leaves a file
// descriptor or a thread behind. NVIDIA's driver (580, H200) refused every
// instance after 29 had been created and destroyed in one process
// (vkCreateInstance: incompatible driver, with no descriptor or thread
// left over), when sertrace made one per render.
func TestReopenManyTimes(t *testing.T) {
	dev := deviceFor(t, PathRT)
	fds0, threads0 := openFiles(t), threadCount(t)
	// A software device (lavapipe, CI's) runs the checks on a few opens:
	// a hundred of them in a few seconds, after the tests before them,
	// once ended the test binary in CI with a corrupted C heap
	// (malloc: unsorted double linked list corrupted; about one run in 40
	// here, its cause not yet found).
	n := 100
	if dev.Type == "cpu" {
		n = 8
	}
	var first vk.Instance
	for i := 0; i < n; i++ {
		d, err := openDevice(PathRT, dev.Index, false)
		if err != nil {
			t.Fatalf("open %d of %d (%d files open, %d threads; at first %d and %d): %v", i+1, n, openFiles(t), threadCount(t), fds0, threads0, err)
		}
		if i == 0 {
			first = d.in.handle
		} else if d.in.handle != first {
			t.Fatalf("open %d made a new Vulkan instance: the process should keep one", i+1)
		}
		d.destroy()
		if i == 0 { // the first open loads the driver for good
			fds0, threads0 = openFiles(t), threadCount(t)
		}
	}
	fds, threads := openFiles(t), threadCount(t)
	t.Logf("after %d opens: %d files open, %d threads (after the first: %d and %d)", n, fds, threads, fds0, threads0)
	if fds > fds0+2 {
		t.Errorf("%d opens left %d file descriptors open", n-1, fds-fds0)
	}
	if threads > threads0+8 { // Go's runtime may start a few threads of its own
		t.Errorf("%d opens left %d threads running", n-1, threads-threads0)
	}
}

func openFiles(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(es)
}

func threadCount(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}
