// Command gen writes the shaders' layout header (see package layout).
package main

import (
	"fmt"
	"os"

	"sertrace/render/layout"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen OUTPUT.glsl")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], []byte(layout.Header()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
