package layout

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// The committed header must be what the Go declarations generate.
func TestHeaderIsCurrent(t *testing.T) {
	got, err := os.ReadFile("../../shaders/generated/layout.glsl")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != Header() {
		t.Fatal("shaders/generated/layout.glsl is stale: run go generate ./render/layout")
	}
}

// TestNoHandKeptCopies: no shader source declares a constant the header
// generates from Go (a hand-kept copy could drift from the Go's value).
func TestNoHandKeptCopies(t *testing.T) {
	generated := map[string]bool{}
	magic := map[uint64]string{} // the generated values too large to be written by chance
	for _, c := range constants {
		generated[c.name] = true
		if v, err := strconv.ParseUint(strings.TrimSuffix(c.value, "u"), 10, 32); err == nil && v >= 1<<16 {
			magic[v] = c.name
		}
	}
	literal := regexp.MustCompile(`\b(0[xX][0-9a-fA-F]+|[0-9]+)[uU]?\b`)
	sources, _ := filepath.Glob("../../shaders/*.*")
	declared := regexp.MustCompile(`(?m)^\s*(?:const\s+\w+\s+(\w+)\s*=|#define\s+(\w+))`)
	checked := 0
	for _, path := range sources {
		switch filepath.Ext(path) {
		case ".glsl", ".rgen", ".rchit", ".rahit", ".rmiss", ".rint", ".comp":
		default:
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, m := range declared.FindAllStringSubmatch(string(src), -1) {
			if name := m[1] + m[2]; generated[name] {
				t.Errorf("%s declares %s, which the header generates from render/layout", filepath.Base(path), name)
			}
		}
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			if v, err := strconv.ParseUint(m[1], 0, 64); err == nil && magic[v] != "" {
				t.Errorf("%s writes %s, the value of %s: use the generated constant", filepath.Base(path), m[0], magic[v])
			}
		}
	}
	if checked < 10 {
		t.Fatalf("read %d shader sources", checked)
	}
}

// Scalar block layout is Go's layout only while every member is 4-byte
// scalars (or 8-byte addresses at 8-byte offsets): check each structure's
// size is the sum of its members' so no padding hides in it.
func TestNoPadding(t *testing.T) {
	for _, s := range Structs {
		ty := reflect.TypeOf(s)
		var sum uintptr
		for i := 0; i < ty.NumField(); i++ {
			f := ty.Field(i)
			if f.Offset != sum {
				t.Errorf("%s.%s at offset %d, want %d", ty.Name(), f.Name, f.Offset, sum)
			}
			sum += f.Type.Size()
		}
		if ty.Size() != sum {
			t.Errorf("%s: size %d, members %d", ty.Name(), ty.Size(), sum)
		}
	}
	if unsafe.Sizeof(Params{})%8 != 0 {
		t.Error("Params must be a whole number of 8-byte words")
	}
}
