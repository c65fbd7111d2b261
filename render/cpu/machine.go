package cpu

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// ModelName is the processor's name as Linux gives it (/proc/cpuinfo's
// first "model name") with its family and model numbers, or the
// architecture where it says none. Every CPU figure is reported with it:
// the same code runs at different speeds on AMD and Intel cores, and a
// cloud's "AMD EPYC" is a Zen 3 (family 25 model 1) or a Zen 4 (model 17)
// by its numbers alone.
func ModelName() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	return modelName(string(data))
}

// modelName is ModelName of the text of /proc/cpuinfo: the first
// processor's fields (arm64's, which have no name, by their implementer
// and part numbers).
func modelName(cpuinfo string) string {
	fields := map[string]string{}
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if k == "processor" && fields["processor"] != "" {
			break // the first processor's alone
		}
		if fields[k] == "" {
			fields[k] = strings.TrimSpace(v)
		}
	}
	name := fields["model name"]
	family, model := fields["cpu family"], fields["model"]
	if name == "" {
		name = runtime.GOARCH
		family, model = "", ""
		if impl, part := fields["CPU implementer"], fields["CPU part"]; impl != "" && part != "" {
			name += fmt.Sprintf(" (implementer %s part %s)", impl, part)
		}
	}
	if family != "" && model != "" {
		name += fmt.Sprintf(" (family %s model %s)", family, model)
	}
	return name
}

// Traversal says which code tests a BVH node's boxes and a leaf's
// triangles on this machine: the AVX2 kernels or the plain Go loops.
func Traversal() string {
	if useKernels {
		return "AVX2 kernels"
	}
	return "Go loops (no AVX2 kernels here)"
}
