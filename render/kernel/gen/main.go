// Command gen writes the GLSL translation of package kernel (run in its
// folder, by go generate).
package main

import (
	"fmt"
	"os"

	"sertrace/internal/goglsl"
	kernelpkg "sertrace/render/kernel"
)

// kernel is the generated file's include guard.
const kernel = "KERNEL_GLSL"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen OUTPUT.glsl")
		os.Exit(2)
	}
	src, err := goglsl.Translate(".", kernel, kernelpkg.GLSLVars)
	if err == nil {
		err = os.WriteFile(os.Args[1], src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
