package vulkan

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// DeviceFor is deviceFor for the package's external tests.
var DeviceFor = deviceFor

// deviceFor returns the first device that runs path, or skips the test
// (fails it in CI, which has lavapipe), saying why each device cannot.
func deviceFor(t testing.TB, path string) Device {
	t.Helper()
	devs, err := Devices()
	why := []string{}
	for _, d := range devs {
		if d.Paths[path].Available {
			return d
		}
		why = append(why, d.Name+": "+d.Paths[path].Reason)
	}
	if err == nil {
		err = errors.New("no devices")
		if len(why) > 0 {
			err = errors.New(strings.Join(why, "; "))
		}
	}
	if os.Getenv("CI") != "" && path != PathSER { // CI's lavapipe never offers ser
		t.Fatalf("CI needs a Vulkan device that runs path %s: %v", path, err)
	}
	t.Skipf("no Vulkan device runs path %s: %v", path, err)
	return Device{}
}

// TestNoLoader: without libvulkan.so.1 the loader says so, naming the
// library (auto then renders on the CPU with this reason).
func TestNoLoader(t *testing.T) {
	t.Setenv("SERTRACE_VULKAN_LIBRARY", "libvulkan-that-does-not-exist.so")
	_, err := openLoader()
	if err == nil || !strings.Contains(err.Error(), "no Vulkan loader") || !strings.Contains(err.Error(), "libvulkan-that-does-not-exist.so") {
		t.Fatalf("opening a missing loader: %v", err)
	}
}
