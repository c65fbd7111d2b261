package goglsl

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTranslatesTheSubset: each construct of the subset comes out as GLSL
// that means what the Go means (callees first, math in float32, Go's min
// and max of several nested, constants folded in float32, names GLSL keeps
// for itself renamed, bit operators parenthesised), and the result compiles
// with glslangValidator where it is installed.
func TestTranslatesTheSubset(t *testing.T) {
	out, err := Translate("testdata/ok", "OK_GLSL")
	if err != nil {
		t.Fatal(err)
	}
	src := string(out)
	for _, want := range []string{
		"const float scale = 2.5;",
		"float cos_(float cos_) {\n    return cos(cos_) * 2.5;",
		"return pow(x, y);",
		"float m = max(max(v.x, v.y), v.z);",
		"} else if (m < 0.0) {",
		"m *= 0.5;",
		"return min(a, b) + m * 2.0 * 3.1415927;",
		"for (uint k = 0u; k < 32u; k++) {",
		"n += (i >> k) & 1u;",
		"float y = float(i);",
		"return vec3(x, y, cos_(x) + pow_(x, y));",
		"return a < b && !(b > 10.0) || a == 0.0;",
		"return -(-x);",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the translation lacks %q:\n%s", want, src)
		}
	}
	if strings.Index(src, "float cos_(") > strings.Index(src, "vec3 make(") {
		t.Error("a callee comes after its caller")
	}
	glslang, err := exec.LookPath("glslangValidator")
	if err != nil {
		t.Skip("glslangValidator is not installed: the translation is not compiled")
	}
	dir := t.TempDir()
	shader := filepath.Join(dir, "ok.comp")
	if err := os.WriteFile(shader, []byte("#version 460\nlayout(local_size_x = 1) in;\n"+src+"void main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(glslang, "--quiet", "-V", "-o", filepath.Join(dir, "ok.spv"), shader).CombinedOutput(); err != nil {
		t.Errorf("glslangValidator: %v\n%s\n%s", err, msg, src)
	}
}

// TestRefusesOutsideTheSubset: Go outside the subset is an error naming
// the file and line, never GLSL that means something else.
func TestRefusesOutsideTheSubset(t *testing.T) {
	for _, c := range []struct{ src, line, says string }{
		{"import \"fmt\"\n\nfunc F() string { return fmt.Sprint(1) }", "bad.go:3:", "import fmt"},
		{"func F(x float64) float64 { return x }", "bad.go:3:", "type float64"},
		{"func F(s []float32) float32 { return s[0] }", "bad.go:3:", "type []float32"},
		{"type T struct{ x float32 }\n\nfunc (t T) F() float32 { return t.x }", "bad.go:3:", "type declaration"},
		{"func F(x float32) (float32, float32) { return x, x }", "bad.go:3:", "returns 2 values"},
		{"func F(x float32) float32 {\n\tfor x < 1 {\n\t\tx *= 2\n\t}\n\treturn x\n}", "bad.go:4:", "three clauses"},
		{"import \"math\"\n\nfunc F(x float32) float32 {\n\treturn float32(math.Tanh(float64(x)))\n}", "bad.go:6:", "math.Tanh"},
		{"func F(x float32) float32 {\n\tif y := x * 2; y > 1 {\n\t\treturn y\n\t}\n\treturn x\n}", "bad.go:4:", "init statement"},
		{"func F(x, y float32) float32 {\n\tx, y = y, x\n\treturn x\n}", "bad.go:4:", "parallel assignment"},
		{"func F(x float32) float32 {\n\tswitch {\n\tcase x > 1:\n\t\treturn 1\n\t}\n\treturn x\n}", "bad.go:4:", "SwitchStmt"},
		{"func F(x float32) float32 { return float32(int32(x) % 3) }", "bad.go:3:", ""},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bad.go"), []byte("package bad\n\n"+c.src+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Translate(dir, "BAD")
		if c.says == "" {
			if err != nil {
				t.Errorf("%q: %v", c.src, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.line) || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line naming %s and %q", c.src, err, c.line, c.says)
		}
	}
}
