package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"sertrace/internal/longtest"
	"sertrace/internal/sharedscenes"
	"sertrace/scene"
)

const (
	cornell = "../../scenes/cornell.glb"
	// sharedCornell is inside ../shared/scenes.
	sharedCornell = "CornellBox/cornellBox-2.80-Eevee-gltf.gltf"
)

// The prepared file is what both renderers read: the camera by its name,
// Lambertian materials, no vertex normals when flat.
func TestPrepare(t *testing.T) {
	dir := t.TempDir()
	s := settings{Width: 40, Height: 30, Diffuse: true, Flat: true,
		Camera: &lookAt{From: [3]float64{0, 1, 3}, At: [3]float64{0, 1, 0}, YFov: 0.7}}
	path, err := prepare(cornell, dir, s)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scene.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var cam *scene.Camera
	for i := range sc.Cameras {
		if sc.Cameras[i].Name == cameraName {
			cam = &sc.Cameras[i]
		}
	}
	if cam == nil {
		t.Fatalf("no camera named %q among %d", cameraName, len(sc.Cameras))
	}
	if cam.YFov != 0.7 || cam.Transform[12] != 0 || cam.Transform[13] != 1 || cam.Transform[14] != 3 || cam.Transform[10] != 1 {
		t.Errorf("camera: yfov %v, transform %v; want 0.7, at (0, 1, 3) looking down −Z", cam.YFov, cam.Transform)
	}
	for i, m := range sc.Materials {
		if m.Metallic != 0 || m.Roughness != 1 || m.Specular != 0 || m.Transmission != 0 {
			t.Errorf("material %d: metallic %v, roughness %v, specular %v, transmission %v; want a Lambertian", i, m.Metallic, m.Roughness, m.Specular, m.Transmission)
		}
	}
	emissive := 0
	for _, m := range sc.Materials {
		if m.Emits() {
			emissive++
		}
	}
	if emissive == 0 {
		t.Error("the light's emission was lost")
	}
	for i, m := range sc.Meshes {
		if m.Normals != nil {
			t.Errorf("mesh %d keeps its vertex normals", i)
		}
	}
}

func TestPrepareRefusesEscapingURIs(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "evil.gltf")
	if err := os.WriteFile(src, []byte(`{"asset":{"version":"2.0"},"buffers":[{"uri":"../../etc/passwd","byteLength":4}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := prepare(src, t.TempDir(), settings{Width: 8, Height: 8}); err == nil {
		t.Error("a buffer outside the scene's folder was copied")
	}
}

// sertrace and Cycles agree on light transport: the mean and every region of
// a Lambertian Cornell box within the two renders' noise. Needs Debian's
// blender and python3-numpy (CI installs them).
func TestAgreesWithCycles(t *testing.T) {
	longtest.Skip(t)
	dir, bin := sertraceAndBlender(t)
	cases := []struct {
		name, path string
		shared     bool // path is inside ../shared/scenes
		camera     *lookAt
	}{
		{"generated Cornell box", cornell, false, nil},
		// Walls with corner-averaged vertex normals (shading normals far from
		// the geometric ones) and a light flush with the ceiling.
		{"shared CornellBox, smooth normals", sharedCornell, true, &lookAt{From: [3]float64{0, 1.5, 4.5}, At: [3]float64{0, 1.5, 0}, YFov: 50 * math.Pi / 180}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if c.shared {
				path = sharedscenes.Path(t, path)
			}
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%v (the shared scenes are beside the repository)", err)
			}
			s := settings{Width: 48, Height: 48, SPP: 256, CyclesSPP: 256, MaxDepth: 6, Threads: 2, Diffuse: true, Grid: 3, Camera: c.camera}
			r, err := compare(path, filepath.Join(dir, strconv.Itoa(i)), s, bin, "blender")
			if err != nil {
				t.Fatal(err)
			}
			agrees(t, r, 0)
		})
	}
}

// sertrace's hair and Cycles' Principled Hair agree: five sun-lit strands
// (scenes/strands.glb: joints, crossings, light and dark hair, light
// passing through) and the hair ball under its sun (its head and floor
// Lambertian, so that only the hair differs), the mean and every region
// that holds a fair share of the light within the two renders' noise. The
// strands are built in Blender as Catmull-Rom curves through each linear
// segment cut in eight, with the hair parameters mapped (hair.go), and
// Cycles renders the strands at twice the pixels (its pixels depend on
// where a thin strand crosses them; -cycles-scale). The
// hair ball's strands, black and opaque, are its geometry alone: what they
// hide and the shadows they cast on the head, where Cycles' curves, open at
// their ends, need the caps cycles.py gives them (4-8% more light reaches
// the head under the roots without).
func TestHairAgreesWithCycles(t *testing.T) {
	longtest.Skip(t)
	dir, bin := sertraceAndBlender(t)
	cases := []struct {
		name, path string
		s          settings
	}{
		{"sun-lit strands", "../../scenes/strands.glb", settings{Width: 96, Height: 96, SPP: 128, CyclesSPP: 128, MaxDepth: 16, Threads: 2, Grid: 2, CyclesScale: 2}},
		{"hair ball under its sun", "../../scenes/hair.glb", settings{Width: 64, Height: 64, SPP: 32, CyclesSPP: 32, MaxDepth: 16, Threads: 2, Grid: 3, Diffuse: true}},
		{"hair ball's strands, black, over the head", "../../scenes/hair.glb", settings{Width: 64, Height: 64, SPP: 256, CyclesSPP: 256, MaxDepth: 2, Threads: 2, Grid: 2, Diffuse: true, HairBlack: true,
			Camera: &lookAt{From: [3]float64{0.12, 0.5, 0.3}, At: [3]float64{0, 0.3, 0}, YFov: 25 * math.Pi / 180}}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := compare(c.path, filepath.Join(dir, strconv.Itoa(i)), c.s, bin, "blender")
			if err != nil {
				t.Fatal(err)
			}
			// A region with a sliver of a strand is all noise.
			agrees(t, r, 0.5/float64(c.s.Grid*c.s.Grid))
		})
	}
}

// sertraceAndBlender skips the test in -short mode or without Blender
// (fails under CI, which installs it) and builds sertrace into a scratch
// folder: the folder and the binary.
func sertraceAndBlender(t *testing.T) (dir, bin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("renders with Blender")
	}
	if _, err := blenderVersion("blender"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "sertrace")
	if out, err := exec.Command("go", "build", "-o", bin, "sertrace/app").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir, bin
}

// agrees holds a comparison's mean and each region with at least minShare
// of Cycles' light (a region black in both agrees) to 1 within four
// standard errors of the two renders together: both images are noisy, and
// Cycles' error is taken as sertrace's, so √2 of it.
func agrees(t *testing.T, r result, minShare float64) {
	t.Helper()
	t.Logf("sertrace %.2f s, Cycles %.2f s; mean %.4f / %.4f = %.4f (±%.4f); regions %.4f .. %.4f (±%.4f)",
		r.SertraceSeconds, r.CyclesSeconds, r.Mean[0], r.Mean[1], r.MeanRatio, r.MeanError, r.MinRegion, r.MaxRegion, r.RegionError)
	if tol := 4 * math.Sqrt2 * r.MeanError; !(math.Abs(r.MeanRatio-1) < tol) {
		t.Errorf("mean luminance sertrace / Cycles %.4f, want 1 ± %.4f", r.MeanRatio, tol)
	}
	for y, row := range r.Regions {
		for x, v := range row {
			if math.IsNaN(v) || r.RegionShares[y][x] < minShare {
				continue
			}
			if tol := max(4*math.Sqrt2*r.RegionErrors[y][x], 1e-4); !(v > 1-tol && v < 1+tol) {
				t.Errorf("region (%d, %d), %.0f%% of the light: sertrace / Cycles %.4f, want 1 ± %.4f", x, y, 100*r.RegionShares[y][x], v, tol)
			}
		}
	}
}

// Cycles' image at k times the resolution comes down to the comparison's
// by the mean of each k×k block.
func TestBoxDown(t *testing.T) {
	img := []float64{
		1, 3, 0, 0,
		5, 7, 0, 4,
	}
	got := boxDown(img, 4, 2)
	if len(got) != 2 || got[0] != 4 || got[1] != 1 {
		t.Errorf("boxDown = %v, want [4 1]", got)
	}
}
