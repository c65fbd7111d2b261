package scene

import (
	"encoding/json"
	"fmt"
	"testing"
	"unsafe"
)

// The vectors keep the arrays' memory layout (uploads to the GPU and to
// Embree read them as float32s), their printing and their JSON.
func TestVectorsLookLikeArrays(t *testing.T) {
	if unsafe.Sizeof(Vec3{}) != 12 || unsafe.Sizeof(Vec4{}) != 16 || unsafe.Sizeof(Vec2{}) != 8 {
		t.Fatalf("sizes %d %d %d", unsafe.Sizeof(Vec2{}), unsafe.Sizeof(Vec3{}), unsafe.Sizeof(Vec4{}))
	}
	v := Vec3{1, -2.5, 3}
	if got := *(*[3]float32)(unsafe.Pointer(&v)); got != [3]float32{1, -2.5, 3} {
		t.Errorf("layout %v", got)
	}
	if s := fmt.Sprint(v, Vec2{1, 2}, Vec4{1, 2, 3, 4}); s != "[1 -2.5 3] [1 2] [1 2 3 4]" {
		t.Errorf("printed %q", s)
	}
	b, err := json.Marshal(struct {
		A Vec3
		B Vec4
		C Vec2
	}{v, Vec4{1, 2, 3, 4}, Vec2{5, 6}})
	if err != nil || string(b) != `{"A":[1,-2.5,3],"B":[1,2,3,4],"C":[5,6]}` {
		t.Fatalf("JSON %s %v", b, err)
	}
	var back struct {
		A Vec3
		B Vec4
		C Vec2
	}
	if err := json.Unmarshal(b, &back); err != nil || back.A != v || back.B != (Vec4{1, 2, 3, 4}) || back.C != (Vec2{5, 6}) {
		t.Errorf("round trip %+v %v", back, err)
	}
	for i, want := range []float32{1, -2.5, 3} {
		if v.At(i) != want {
			t.Errorf("At(%d) = %v", i, v.At(i))
		}
		var w Vec3
		w.Set(i, want)
		if w.At(i) != want || w.Array()[i] != want {
			t.Errorf("Set(%d): %v", i, w)
		}
	}
}

// TestMirrors: a negative determinant mirrors, however small the scale
// (float32 would round a tiny one's determinant to zero).
func TestMirrors(t *testing.T) {
	for _, c := range []struct {
		m    Mat4
		want bool
	}{
		{Identity, false},
		{TRS([3]float64{1, 2, 3}, [4]float64{0, 0.6, 0, 0.8}, [3]float64{2, 3, 4}), false},
		{TRS([3]float64{}, [4]float64{0, 0, 0, 1}, [3]float64{-1, 1, 1}), true},
		{TRS([3]float64{}, [4]float64{0, 0.6, 0, 0.8}, [3]float64{-1e-16, 1e-16, 1e-16}), true},
		{TRS([3]float64{}, [4]float64{0, 0, 0, 1}, [3]float64{-1, -1, 1}), false},
	} {
		if got := c.m.Mirrors(); got != c.want {
			t.Errorf("%v: mirrors %v", c.m, got)
		}
	}
}
