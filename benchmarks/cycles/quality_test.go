package main

import (
	"math"
	"path/filepath"
	"testing"

	"sertrace/render"
	"sertrace/scene"
)

// TestRelMSE: an image against itself has none; against a reference it
// is the mean of (x − r)² / (r² + 0.01) over pixels and channels.
func TestRelMSE(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, v []float64) string {
		f := render.NewFilmOf(2, 1, render.BaseLayers)
		f.Samples = 1
		for i, x := range v {
			f.Sums[render.LayerBeauty].Set(i, x)
		}
		path := filepath.Join(dir, name+".exr")
		if err := render.Write(path, f, render.Display{}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ref := write("ref", []float64{1, 0.5, 0, 2, 2, 2})
	img := write("img", []float64{1.5, 0.5, 0.1, 2, 2, 1})
	if v, err := relMSE(ref, ref); err != nil || v != 0 {
		t.Errorf("against itself: %v, %v", v, err)
	}
	want := (0.25/1.01 + 0.01/0.01 + 1/4.01) / 6
	if v, err := relMSE(img, ref); err != nil || math.Abs(v-want) > 1e-6 {
		t.Errorf("relMSE %v (%v), want %v", v, err, want)
	}
}

// TestRefNoise: a fixed render of 64 samples measured against a
// reference of 4096 holds 64/4096 of the reference's noise besides its
// own: c/64 + c/4096 measured, c/4096 the reference's.
func TestRefNoise(t *testing.T) {
	c := 0.064
	measured := c/64 + c/4096
	if got, want := refNoise(measured, 64, 4096), c/4096; math.Abs(got-want) > 1e-15 {
		t.Errorf("refNoise %v, want %v", got, want)
	}
	r := qualityRow{RelMSE: measured, RefNoise: c / 4096}
	if math.Abs(r.Noise()-c/64) > 1e-15 {
		t.Errorf("the render's own noise %v, want %v", r.Noise(), c/64)
	}
}

// TestPointsAsMeshes: the many-lights scene's lamps, POINTS with radii,
// become closed triangle spheres of the same centres, radii and
// materials: sertrace loads the prepared file with no particles left and
// each lamp's triangles emissive.
func TestPointsAsMeshes(t *testing.T) {
	dir := t.TempDir()
	path, err := prepare(filepath.Join("..", "..", "scenes", "many-lights.glb"), dir, settings{Width: 32, Height: 24, PointsSides: 12})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := scene.Load(filepath.Join("..", "..", "scenes", "many-lights.glb"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scene.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.SphereSets) != 0 {
		t.Fatalf("%d sphere sets left", len(sc.SphereSets))
	}
	spheres := 0
	for _, set := range orig.SphereSets {
		spheres += len(set.Radii)
	}
	tris := 0
	for _, in := range sc.Instances {
		if sc.Materials[in.Material].Emits() && in.Geometry.Kind == scene.Triangles {
			tris += sc.Meshes[in.Geometry.Index].TriangleCount()
		}
	}
	verts, perSphere := uvSphere(12)
	if want := spheres*len(perSphere) + 16*2; spheres != 240 || tris != want || len(verts) != 62 {
		t.Errorf("%d spheres, %d emissive triangles, want %d", spheres, tris, want)
	}
}
