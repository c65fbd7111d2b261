package layout

import (
	"os"
	"reflect"
	"testing"
	"unsafe"
)

// The committed header must be what the Go declarations generate.
func TestHeaderIsCurrent(t *testing.T) {
	got, err := os.ReadFile("../../../shaders/generated/layout.glsl")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != Header() {
		t.Fatal("shaders/generated/layout.glsl is stale: run go generate ./render/vulkan/layout")
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
