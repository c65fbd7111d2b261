package kernel

import (
	"bytes"
	"os"
	"testing"

	"sertrace/internal/goglsl"
)

// TestGLSLIsCurrent: shaders/generated/kernel.glsl is this package's
// translation (go generate ./render/kernel writes it).
func TestGLSLIsCurrent(t *testing.T) {
	want, err := goglsl.Translate(".", "KERNEL_GLSL", GLSLVars)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../shaders/generated/kernel.glsl")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("shaders/generated/kernel.glsl is stale: run go generate ./render/kernel, then bash shaders/build.sh")
	}
}
