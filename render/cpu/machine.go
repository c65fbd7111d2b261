package cpu

import (
	"os"
	"runtime"
	"strings"
)

// ModelName is the processor's name as Linux gives it (/proc/cpuinfo's
// first "model name"), or the architecture where it says none. Every CPU
// figure is reported with it: the same code runs at different speeds on
// AMD and Intel cores.
func ModelName() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

// Traversal says which code tests a BVH node's boxes and a leaf's
// triangles on this machine: the AVX2 kernels or the plain Go loops.
func Traversal() string {
	if useKernels {
		return "AVX2 kernels"
	}
	return "Go loops (no AVX2 kernels here)"
}
