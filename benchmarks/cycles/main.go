// Command cycles renders glTF scenes with sertrace's CPU backend and with
// Blender's Cycles (CPU) side by side, in one run, and prints both render
// times, their ratio and how the images agree (mean luminance and per-region
// luminance ratios). It needs Debian's blender and python3-numpy:
//
//	go run ./benchmarks/cycles -res 128x128 -spp 256 -max-depth 16 -diffuse ../shared/scenes/CornellBox/cornellBox-2.80-Eevee-gltf.gltf
//
// Each scene is first written to a scratch folder as a .gltf with its
// buffers and images beside it, with a camera where the file has none (the
// one sertrace would frame it with), and with -diffuse every material pure
// Lambertian (metallic 0, roughness 1, KHR_materials_specular 0; in Blender,
// a Diffuse BSDF of the same colour), so both renderers read the same file.
//
// Hair (the glTF's lines with _RADIUS and a hair material) goes to Cycles
// as Curves objects through the same points, each linear segment cut in
// -hair-cut pieces for Cycles' Catmull-Rom splines (the report says how far
// they stray), with a Principled Hair BSDF of the same absorption, β_m,
// β_n, index and cuticle tilt (hair.go). Punctual lights come in with
// glTF's units as they are (a sun of 3 lux irradiates 3) and no size;
// -no-lights drops them for both.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// cameraName names the camera both renderers look through.
const cameraName = "comparison camera"

// settings are what both renderers are given.
type settings struct {
	Width, Height int
	SPP           int // sertrace's samples per pixel
	CyclesSPP     int // Cycles' (the reference may take more)
	// CyclesAdaptive, when more than 0, is Cycles' adaptive sampling's
	// noise threshold (CyclesSPP then the most a pixel takes).
	CyclesAdaptive float64
	// Threshold, when more than 0, is sertrace's --noise-threshold (SPP
	// then the most a pixel takes).
	Threshold float64
	// Seed is both renderers' seed (a reference's differs from the
	// renders': their samples are nested, the first of a reference's
	// being a render's own).
	Seed     int
	MaxDepth int // sertrace's --max-depth; Cycles gets one bounce fewer (its 0 is direct light only)
	Threads  int
	Accel    string // sertrace's CPU tracer: auto, embree or bvh
	Diffuse  bool
	// Multiscatter sets Cycles' Principled BSDFs to multiscatter GGX, which
	// gives back what single scattering between microfacets loses, as
	// sertrace does (Blender 3.4's glTF importer leaves them GGX).
	Multiscatter bool
	// Objects also compares each object's mean over the disc its bounding
	// sphere projects to (shrunk to ObjectDisc of its radius, away from the
	// silhouette): spheres, one by one.
	Objects bool
	Flat    bool // drop the vertex normals: the geometric normal shades
	// NoTerminatorOffset sets Cycles' shadow terminator geometry offset
	// (0.1 by default) to 0: the offset moves shadow rays' origins off
	// smooth-shaded triangles towards grazing lights, past thin occluders.
	NoTerminatorOffset bool
	// TwoSidedEmission leaves Cycles' emission two-sided for single-sided
	// glTF materials too, as Blender imports them.
	TwoSidedEmission bool
	// NoLights drops the scene's punctual lights (KHR_lights_punctual) for
	// both renderers: the environment alone lights it.
	NoLights bool
	// HairCut is how many pieces Cycles gets of each linear hair segment
	// (its curves are splines through their points).
	HairCut int
	// HairBlack makes hair opaque and black in both renderers (in
	// sertrace a black Lambertian, in Cycles a black Diffuse BSDF): a
	// comparison of the strands' geometry alone, what they hide and shade.
	HairBlack bool
	// HairTubes gives Cycles the strands as triangles (a cone frustum per
	// segment and a sphere at each point, 12-sided) in place of its curves:
	// an independent rendering of the same swept spheres. With HairBlack.
	HairTubes bool
	// PointsSides, when more than 0, gives both renderers each particle
	// (glTF POINTS with radii, which Blender's importer leaves as bare
	// vertices) as a UV sphere of as many sides (pointsAsMeshes).
	PointsSides int
	// CyclesScale has Cycles render at this many times the resolution
	// (its samples per pixel as given), box-filtered down to it before the
	// comparison: Cycles' pixel values depend on where a strand thinner
	// than a few pixels crosses the pixel grid (a straight, evenly lit
	// strand's column sums swing by ±20%, with a period of one pixel row
	// crossed), sertrace's do not, and a finer grid averages that out.
	CyclesScale int
	Env         [3]float64
	Grid        int // regions per side for the per-region ratios
	Camera      *lookAt
}

// cyclesScale is CyclesScale, 1 where unset.
func (s settings) cyclesScale() int { return max(s.CyclesScale, 1) }

// lookAt is a camera given on the command line: where it is, what it looks
// at (with +Y up) and its vertical field of view.
type lookAt struct {
	From, At [3]float64
	YFov     float64 // radians
}

func parseLookAt(s string) (*lookAt, error) {
	parts := strings.Split(s, ":")
	bad := fmt.Errorf("-camera %q: want FROMX,FROMY,FROMZ:ATX,ATY,ATZ[:YFOV_DEGREES]", s)
	if len(parts) < 2 || len(parts) > 3 {
		return nil, bad
	}
	c := &lookAt{YFov: 40 * math.Pi / 180}
	for i, dst := range []*[3]float64{&c.From, &c.At} {
		xyz := strings.Split(parts[i], ",")
		if len(xyz) != 3 {
			return nil, bad
		}
		for k := range xyz {
			f, err := strconv.ParseFloat(strings.TrimSpace(xyz[k]), 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, bad
			}
			dst[k] = f
		}
	}
	if len(parts) == 3 {
		f, err := strconv.ParseFloat(parts[2], 64)
		if err != nil || !(f > 0 && f < 180) {
			return nil, bad
		}
		c.YFov = f * math.Pi / 180
	}
	if c.From == c.At {
		return nil, bad
	}
	return c, nil
}

// matrix is the camera's node matrix (column-major): it looks down −Z.
func (c *lookAt) matrix() []float64 {
	sub := func(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	norm := func(a [3]float64) [3]float64 {
		l := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
		return [3]float64{a[0] / l, a[1] / l, a[2] / l}
	}
	z := norm(sub(c.From, c.At))
	up := [3]float64{0, 1, 0}
	if math.Abs(z[1]) > 0.999 {
		up = [3]float64{0, 0, -1}
	}
	x := norm(cross(up, z))
	y := cross(z, x)
	return []float64{x[0], x[1], x[2], 0, y[0], y[1], y[2], 0, z[0], z[1], z[2], 0, c.From[0], c.From[1], c.From[2], 1}
}

func main() {
	var s settings
	res := flag.String("res", "128x128", "resolution WxH")
	flag.IntVar(&s.SPP, "spp", 256, "sertrace's samples per pixel")
	flag.IntVar(&s.CyclesSPP, "cycles-spp", 0, "Cycles' samples per pixel (0: the same as -spp)")
	flag.IntVar(&s.MaxDepth, "max-depth", 16, "path length in bounces as sertrace counts it (1: direct light only)")
	flag.IntVar(&s.Threads, "threads", runtime.NumCPU(), "threads for both renderers")
	flag.StringVar(&s.Accel, "accel", "auto", "sertrace's CPU tracer: auto, embree or bvh")
	flag.BoolVar(&s.Diffuse, "diffuse", false, "make every material pure Lambertian but hair's (a transport comparison)")
	flag.BoolVar(&s.Multiscatter, "multiscatter", false, "set Cycles' Principled BSDFs to multiscatter GGX")
	flag.BoolVar(&s.Objects, "objects", false, "also compare each object's mean over the middle of its projected bounding sphere")
	flag.BoolVar(&s.Flat, "flat", false, "drop the vertex normals, so that both shade with the geometric normal")
	flag.IntVar(&s.HairCut, "hair-cut", defaultHairCut, "cut each linear hair segment in this many pieces for Cycles' spline curves")
	flag.BoolVar(&s.NoLights, "no-lights", false, "drop the scene's punctual lights (KHR_lights_punctual) for both renderers")
	flag.BoolVar(&s.NoTerminatorOffset, "cycles-no-terminator-offset", false, "set Cycles' shadow terminator geometry offset (0.1 per object) to 0")
	flag.BoolVar(&s.TwoSidedEmission, "cycles-two-sided-emission", false, "let single-sided glTF materials emit from both faces in Cycles, as Blender imports them (glTF: front only)")
	flag.BoolVar(&s.HairBlack, "hair-black", false, "make hair opaque and black in both renderers: a comparison of the strands' geometry alone")
	flag.IntVar(&s.PointsSides, "points-as-meshes", 0, "give both renderers each particle (POINTS with radii, which Blender would drop) as a triangle UV sphere of this many sides (0: as they are)")
	flag.BoolVar(&s.HairTubes, "cycles-hair-tubes", false, "give Cycles the strands as triangle tubes in place of its curves (with -hair-black)")
	flag.IntVar(&s.CyclesScale, "cycles-scale", 1, "Cycles renders at this many times the resolution, box-filtered down to it for the comparison (thin strands: its pixels depend on where they cross the pixel grid)")
	env := flag.String("env", "0", "constant environment radiance R,G,B (or one value)")
	flag.IntVar(&s.Grid, "grid", 4, "regions per side for the per-region luminance ratios")
	camera := flag.String("camera", "", "place the camera: FROMX,FROMY,FROMZ:ATX,ATY,ATZ[:YFOV_DEGREES] (default: the file's first, or sertrace's framing camera)")
	keep := flag.String("keep", "", "folder for the prepared scenes and both images (default: a temporary one, removed)")
	sertrace := flag.String("sertrace", "", "the sertrace binary (default: built from this module)")
	blender := flag.String("blender", "blender", "the Blender binary")
	out := flag.String("o", "", "also write the report (Markdown) to this file")
	sizes := flag.String("sizes", "", "render the one scene at each of these sizes (WxH,WxH...) for peak memory, render and write times and samples per second, in place of the image comparison")
	aovs := flag.String("aovs", "albedo,normal,depth", "with -sizes: the AOVs sertrace writes into its EXR besides the beauty")
	quality := flag.Int("quality", 0, "equal-quality mode: each renderer's noise against its own converged image, rendered at this many samples a pixel (relMSE, seconds, their product), each renderer fixed and with its adaptive sampling (-cycles-threshold, -cycles-max-spp); give the references far more samples than the adaptive render takes")
	threshold := flag.Float64("cycles-threshold", 0.01, "with -quality: the adaptive renders' noise threshold, sertrace's and Cycles' (Cycles' default 0.01)")
	maxSPP := flag.Int("cycles-max-spp", 4096, "with -quality: the most samples a pixel takes in the adaptive renders (Cycles' default 4096)")
	flag.Parse()
	if flag.NArg() == 0 {
		fail(errors.New("usage: go run ./benchmarks/cycles [flags] SCENE.gltf|SCENE.glb..."))
	}
	if _, err := fmt.Sscanf(*res, "%dx%d", &s.Width, &s.Height); err != nil || s.Width < 1 || s.Height < 1 {
		fail(fmt.Errorf("-res %q: want WxH", *res))
	}
	if s.CyclesSPP == 0 {
		s.CyclesSPP = s.SPP
	}
	if s.HairTubes && !s.HairBlack {
		fail(errors.New("-cycles-hair-tubes needs -hair-black: Cycles' Principled Hair BSDF shades curves only"))
	}
	if s.MaxDepth < 1 || s.SPP < 1 || s.CyclesSPP < 1 || s.Threads < 1 || s.Grid < 1 || s.CyclesScale < 1 {
		fail(errors.New("-max-depth, -spp, -cycles-spp, -threads, -grid and -cycles-scale must be at least 1"))
	}
	var err error
	if s.Env, err = parseEnv(*env); err != nil {
		fail(err)
	}
	if *camera != "" {
		if s.Camera, err = parseLookAt(*camera); err != nil {
			fail(err)
		}
	}
	dir := *keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "sertrace-cycles-"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	if *sertrace == "" {
		*sertrace = filepath.Join(dir, "sertrace")
		build := exec.Command("go", "build", "-o", *sertrace, "sertrace/app")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fail(fmt.Errorf("go build sertrace/app: %v", err))
		}
	}
	version, err := blenderVersion(*blender)
	if err != nil {
		fail(err)
	}
	if *sizes != "" {
		if flag.NArg() != 1 {
			fail(errors.New("-sizes takes one scene"))
		}
		results, err := compareSizes(flag.Arg(0), dir, s, strings.Split(*sizes, ","), *aovs, *sertrace, *blender)
		if err != nil {
			fail(err)
		}
		report := reportSizes(filepath.Base(flag.Arg(0)), s, version, *aovs, results)
		fmt.Print(report)
		if *out != "" {
			if err := os.WriteFile(*out, []byte(report), 0o644); err != nil {
				fail(err)
			}
		}
		return
	}
	if *quality > 0 {
		var rows []qualityRow
		for i, path := range flag.Args() {
			r, err := compareQuality(path, filepath.Join(dir, fmt.Sprintf("quality%d", i)), s, *sertrace, *blender, *quality, *threshold, *maxSPP)
			if err != nil {
				fail(err)
			}
			rows = append(rows, r...)
		}
		report := reportQuality(s, version, *quality, rows)
		fmt.Print(report)
		if *out != "" {
			if err := os.WriteFile(*out, []byte(report), 0o644); err != nil {
				fail(err)
			}
		}
		return
	}
	var results []result
	for i, path := range flag.Args() {
		r, err := compare(path, filepath.Join(dir, fmt.Sprintf("scene%d", i)), s, *sertrace, *blender)
		if err != nil {
			fail(err)
		}
		results = append(results, r)
	}
	report := reportMarkdown(s, version, results)
	fmt.Print(report)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(report), 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cycles:", err)
	os.Exit(1)
}

func parseEnv(s string) ([3]float64, error) {
	parts := strings.Split(s, ",")
	var v [3]float64
	if len(parts) != 1 && len(parts) != 3 {
		return v, fmt.Errorf("-env %q: want R,G,B or one value", s)
	}
	for i := range v {
		f, err := strconv.ParseFloat(strings.TrimSpace(parts[min(i, len(parts)-1)]), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) {
			return v, fmt.Errorf("-env %q: want non-negative numbers", s)
		}
		v[i] = f
	}
	return v, nil
}

// compare prepares one scene in dir, renders it with both and compares.
func compare(path, dir string, s settings, sertrace, blender string) (result, error) {
	r := result{Scene: filepath.Base(path)}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	gltfPath, err := prepare(path, dir, s)
	if err != nil {
		return r, err
	}
	r.SertraceImage, r.CyclesImage = filepath.Join(dir, "sertrace.exr"), filepath.Join(dir, "cycles.exr")
	st, err := runSertrace(sertrace, gltfPath, r.SertraceImage, s, "variance")
	if err != nil {
		return r, err
	}
	cy, err := runCycles(blender, cyclesScene(gltfPath), r.CyclesImage, s)
	if err != nil {
		return r, err
	}
	r.SertraceSeconds, r.Tracer, r.CyclesSeconds = st.Seconds, st.Tracer, cy.Seconds
	if err := r.measure(s); err != nil {
		return r, err
	}
	if s.Objects {
		if r.Objects, err = measureObjects(gltfPath, r.SertraceImage, r.CyclesImage, s); err != nil {
			return r, err
		}
	}
	return r, nil
}
