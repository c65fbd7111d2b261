// Package shaders embeds the compiled SPIR-V of the GLSL shaders beside it
// (docs/design/10-vulkan.md, "Shaders"): build.sh compiles them with glslangValidator and
// checks them with spirv-val; the modules are committed so that building
// sertrace needs only Go and a C compiler.
package shaders

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"sync"
)

//go:embed spv/*.spv
var spirv embed.FS

// SPIRV returns the module compiled from a stage, such as "raygen.rgen".
func SPIRV(name string) ([]byte, error) {
	b, err := spirv.ReadFile("spv/" + name + ".spv")
	if err != nil {
		return nil, fmt.Errorf("no shader module %q in this build", name)
	}
	return b, nil
}

// BuildID is a digest of every embedded module: caches of what a driver
// compiled from them (render/vulkan's pipeline cache) are keyed by it.
func BuildID() string {
	buildOnce.Do(func() {
		h := sha256.New()
		entries, _ := spirv.ReadDir("spv") // sorted by name
		for _, e := range entries {
			b, _ := spirv.ReadFile("spv/" + e.Name())
			fmt.Fprintf(h, "%s %d\n", e.Name(), len(b))
			h.Write(b)
		}
		buildID = hex.EncodeToString(h.Sum(nil))[:16]
	})
	return buildID
}

var (
	buildOnce sync.Once
	buildID   string
)
