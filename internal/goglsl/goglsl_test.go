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
	out, err := Translate("testdata/ok", "OK_GLSL", map[string][]float64{"layout.XYZToRec709": {3.2404542, -1.5371385, -0.4985314, -0.969266, 1.8760108, 0.041556, 0.0556434, -0.2040259, 1.0572252}})
	if err != nil {
		t.Fatal(err)
	}
	src := string(out)
	for _, want := range []string{
		"const float scale = 2.5;",
		"float cos_(float cos_) {\n    return cosGo(cos_) * 2.5;",
		"return powGo(x, y);",
		"struct Pair {\n    float a;\n    float b;\n    vec3[2] w;\n};",
		"float pairSum(Pair p) {",
		"void pairGrow(inout Pair p, float by) {",
		"float weigh(vec3[2] w) {\n    float total = 0.0;\n    vec3[2] tmp1 = w;\n    for (int i = 0; i < 2; i++) {\n        vec3 v = tmp1[i];",
		"void split(float x, out float result0, out float result1) {\n    float lo = 0.0;\n    float hi = 0.0;",
		"result0 = lo;\n    result1 = hi;\n    return;",
		"float tmp1 = lo + 1.0;",
		"float lo;\n    float tmp1;\n    split(p.a, lo, tmp1);",
		"if (n == 0 || n == 1) {",
		"} else if (n == 2) {",
		"} else {\n        a = 1.4142135;",
		"while (a > b) {",
		"float d = a - b;\n        if (d > 0.0) {",
		"pairGrow(p, 1.0);",
		"vec3 v = (p.w[0] - (p.w[1] - p.w[0])) * (a + b);",
		"return weigh(p.w) + pairSum(p) + lengthGo(v);",
		"const float[9] xyzToRec709 = float[9](3.2404542, -1.5371385, -0.4985314,",
		"float tmp1 = x;\n    float s = sinGo(tmp1);\n    float c = cosGo(tmp1);",
		"return xyzToRec709[3 * r] * x + s * y + c * z + table(r);",
		"float table(int i);",
		// the review's cases: shadowing, results in place, ranges evaluated once
		"split(lo, tmp1, tmp2);\n        float lo = tmp1;\n        float hi = tmp2;\n        result0 = lo;",
		"float a = hi * 2.0;\n        result0 = a;\n        result1 = lo;",
		"float tmp3 = hi;\n        float tmp4 = lo;\n        float lo = tmp3;\n        float hi = tmp4;",
		"uint tmp1 = n;\n    for (uint i = 0u; i < tmp1; i++) {",
		"float[2] tmp2 = w;\n    for (int tmp3 = 0; tmp3 < 2; tmp3++) {\n        float v = tmp2[tmp3];",
		"if (n == (3u)) {",
		"(weigh(p.w));",
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
		// a provider: its parameter dropped, its methods the shader's
		"float texel(int i);\nvoid span(int i, out float result0, out float result1);\nvoid fill(inout Pair p, int i);",
		"void filled(inout Pair p) {\n    fill(p, 1);",
		"float sample_(int i) {\n    float lo;\n    float hi;\n    span(i, lo, hi);\n    return texel(i) + lo * hi + resample(i + 1);",
		"float resample(int i) {\n    return texel(i);",
		// an interface that embeds another: the same functions
		"int size();",
		"float average() {\n    return (texel(0) + resample(1)) / float(size());",
		// a bundle of providers: dropped as they are
		"float bundled(inout Pair p) {\n    fill(p, 2);\n    return float(size()) + unbundled() + resample(3) + average();",
		"float unbundled() {\n    return texel(4);",
		"return uintBitsToFloat(0x7F800000u) - uintBitsToFloat(0xFF800000u);",
		"if (!finiteGo(v)) {",
		"return hypotGo(v.x, v.y) + cbrtGo(v.z);",
		"return bitfieldReverse(x) + floatBitsToUint(f);",
		"float premultiplied(vec4 c) {\n    return c.x * c.w;",
		"precise float v = a * (1.0 - t) + b * t;\n    return v;",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the translation lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(src, "Providers") {
		t.Error("a bundle of providers is in the GLSL")
	}
	if strings.Contains(src, "float table(int i) {") {
		t.Error("an ignored file's function is translated")
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
	var helpers []byte
	for _, name := range []string{"govec.glsl", "gomath.glsl"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "shaders", name))
		if err != nil {
			t.Fatal(err)
		}
		helpers = append(helpers, b...)
	}
	if err := os.WriteFile(shader, []byte("#version 460\nlayout(local_size_x = 1) in;\n"+string(helpers)+src+"float table(int i) { return float(i); }\nfloat texel(int i) { return float(i); }\nvoid span(int i, out float lo, out float hi) { lo = 0.0; hi = 1.0; }\nvoid fill(inout Pair p, int i) {}\nint size() { return 1; }\nvoid main() {}\n"), 0o644); err != nil {
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
		{"func F(s []float32) float32 { return s[0] }", "bad.go:3:", "type []float32"},
		{"type T float32\n\nfunc (t T) F() float32 { return float32(t) }", "bad.go:3:", "only struct and interface types"},
		{"type B interface{ error }", "bad.go:3:", "embedded interface from outside the package"},
		{"type A interface{ G() float32 }\n\ntype B struct{ A A }\n\nfunc F(b B) B { return b }", "bad.go:7:", "only a parameter"},
		{"type A interface{ G() float32 }\n\ntype B struct{ A A }\n\nfunc F(b B) float32 {\n\ta := b.A\n\treturn a.G()\n}", "bad.go:8:", "only called or passed on"},
		{"type B struct{ A interface{ F() float32 } }", "bad.go:3:", "named fields"},
		{"func F(x float32) float32 {\n\tg := func() float32 { return x }\n\treturn g()\n}", "bad.go:4:", "function literal"},
		{"import \"math\"\n\nfunc F(x float32) float32 {\n\treturn float32(math.Tanh(float64(x)))\n}", "bad.go:6:", "math.Tanh"},
		{"func F(x float32) float32 {\n\tswitch {\n\tcase x > 1:\n\t\tbreak\n\t}\n\treturn x\n}", "bad.go:6:", "break in a switch"},
		{"func F(x float32) float32 {\n\tif x > 1 {\n\t\treturn F(x / 2)\n\t}\n\treturn x\n}", "bad.go:3:", "recursion"},
		{"func G(x float32) (float32, float32) { return x, x }\n\nfunc F(x float32) float32 { return G(x) + 1 }", "bad.go:5:", "single-value context"},
		{"var g float32\n\nfunc F() float32 { return g }", "bad.go:3:", "package-level var"},
		{"func F(x float32) float32 { return x }\n\nfunc f(x float32) float32 { return x }", "bad.go:5:", "both f in GLSL"},
		{"func F(x float32) float32 { return float32(int(x) % 3) }", "bad.go:3:", "% on signed integers"},
		{"func F(x uint32) uint32 { return x % 3 }", "bad.go:3:", ""},
		{"func F(x uint32) uint32 {\n\tx &^= 3\n\treturn x\n}", "bad.go:4:", "&^= is outside"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "bad.go"), []byte("package bad\n\n"+c.src+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Translate(dir, "BAD", nil)
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
