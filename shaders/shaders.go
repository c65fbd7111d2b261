// Package shaders embeds the compiled SPIR-V of the GLSL shaders beside it
// (DESIGN.md, "Shaders"): build.sh compiles them with glslangValidator and
// checks them with spirv-val; the modules are committed so that building
// sertrace needs only Go and a C compiler.
package shaders

import (
	"embed"
	"fmt"
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
