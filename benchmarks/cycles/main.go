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
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/scene"
)

// cameraName names the camera both renderers look through.
const cameraName = "comparison camera"

// settings are what both renderers are given.
type settings struct {
	Width, Height int
	SPP           int // sertrace's samples per pixel
	CyclesSPP     int // Cycles' (the reference may take more)
	MaxDepth      int // sertrace's --max-depth; Cycles gets one bounce fewer (its 0 is direct light only)
	Threads       int
	Accel         string // sertrace's CPU tracer: auto, embree or bvh
	Diffuse       bool
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

// result is one scene's comparison.
type result struct {
	Scene                      string
	SertraceSeconds            float64 // BVH build and render
	Tracer                     string  // sertrace's CPU tracer, as its statistics say
	CyclesSeconds              float64 // render operator: scene sync, BVH and render
	Mean                       [2]float64
	MeanRatio                  float64 // sertrace / Cycles
	MeanError                  float64 // the ratio's standard error from sertrace's variance
	MinRegion, MaxRegion       float64
	MinRegionAt, MaxRegionAt   [2]int
	Regions                    [][]float64 // sertrace / Cycles per region: NaN where both are black, +Inf where only Cycles is
	RegionErrors               [][]float64 // each region ratio's standard error from sertrace's variance
	RegionError                float64     // the largest of them
	RegionShares               [][]float64 // each region's share of Cycles' image's light
	Objects                    []objectResult
	SertraceImage, CyclesImage string
}

// objectResult is one object's comparison: the mean luminance over the
// middle of its projected bounding sphere.
type objectResult struct {
	Name         string
	Pixels       int
	Mean         [2]float64 // sertrace, Cycles
	Ratio, Error float64    // sertrace / Cycles, its standard error from sertrace's variance
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

func blenderVersion(blender string) (string, error) {
	out, err := exec.Command(blender, "-b", "--factory-startup", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v (Debian: apt-get install blender python3-numpy)", blender, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Blender ") {
			return strings.TrimSpace(line), nil
		}
	}
	return "", fmt.Errorf("%s --version printed no version", blender)
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

// run is what one renderer's process did.
type run struct {
	Seconds      float64 // sertrace: BVH build and render; Cycles: its render operator
	WriteSeconds float64 // writing the image after it
	Wall         float64 // the whole process, start to exit
	PeakRSS      uint64  // the process's largest resident set, bytes
	OwnPeak      float64 // Cycles' own report of its peak memory, MB (0: none)
	Tracer       string  // sertrace's CPU tracer
	Samples      float64 // pixel samples per second of Seconds
}

// runMeasured runs cmd and fills r's wall time and peak resident set.
func runMeasured(cmd *exec.Cmd, r *run) ([]byte, error) {
	start := time.Now()
	out, err := cmd.CombinedOutput()
	r.Wall = time.Since(start).Seconds()
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.PeakRSS = uint64(ru.Maxrss) << 10 // Linux gives kB
		}
	}
	return out, err
}

// runSertrace renders with sertrace's CPU backend, with the AOVs aovs
// names (comma-separated; an EXR holds them as layers, the heatmaps come
// beside it).
func runSertrace(bin, gltfPath, exr string, s settings, aovs string) (run, error) {
	var r run
	stats := strings.TrimSuffix(exr, ".exr") + ".json"
	// GOMAXPROCS bounds Embree's build threads too, not only the render's.
	cmd := exec.Command(bin, "render", gltfPath, "--backend", "cpu", "--res", fmt.Sprintf("%dx%d", s.Width, s.Height),
		"--spp", strconv.Itoa(s.SPP), "--max-depth", strconv.Itoa(s.MaxDepth), "--filter", "box",
		"--threads", strconv.Itoa(s.Threads), "--env-color", fmt.Sprintf("%g,%g,%g", s.Env[0], s.Env[1], s.Env[2]),
		"--accel", s.Accel, "--camera", cameraName, "--aov", aovs, "-o", exr, "--stats", stats)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", s.Threads))
	if out, err := runMeasured(cmd, &r); err != nil {
		return r, fmt.Errorf("sertrace render %s: %v\n%s", gltfPath, err, out)
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		return r, err
	}
	var st render.Stats
	if err := json.Unmarshal(data, &st); err != nil {
		return r, fmt.Errorf("%s: %v", stats, err)
	}
	r.Seconds, r.WriteSeconds, r.Tracer = st.BuildSeconds+st.RenderSeconds, st.WriteSeconds, st.Accel
	r.Samples = float64(s.Width*s.Height*s.SPP) / r.Seconds
	return r, nil
}

var (
	renderSeconds = regexp.MustCompile(`(?m)^render_seconds ([0-9.]+)$`)
	saveSeconds   = regexp.MustCompile(`(?m)^save_seconds ([0-9.]+)$`)
	cyclesPeak    = regexp.MustCompile(`Peak:? ?([0-9.]+)M`)
)

func runCycles(blender, gltfPath, exr string, s settings) (run, error) {
	var r run
	script, err := scriptPath()
	if err != nil {
		return r, err
	}
	args := []string{"-b", "--factory-startup", "--python-exit-code", "1", "-P", script, "--",
		gltfPath, exr, strconv.Itoa(s.Width * s.cyclesScale()), strconv.Itoa(s.Height * s.cyclesScale()), strconv.Itoa(s.CyclesSPP),
		strconv.Itoa(s.MaxDepth), strconv.Itoa(s.Threads), "--camera", cameraName, "--env", fmt.Sprintf("%g,%g,%g", s.Env[0], s.Env[1], s.Env[2])}
	if s.Diffuse {
		args = append(args, "--diffuse")
	}
	if s.Multiscatter {
		args = append(args, "--multiscatter")
	}
	if s.NoTerminatorOffset {
		args = append(args, "--no-terminator-offset")
	}
	if s.TwoSidedEmission {
		args = append(args, "--two-sided-emission")
	}
	if s.HairBlack {
		args = append(args, "--hair-black")
	}
	if s.HairTubes {
		args = append(args, "--hair-tubes")
	}
	out, err := runMeasured(exec.Command(blender, args...), &r)
	if err != nil {
		return r, fmt.Errorf("blender (Cycles) %s: %v\n%s", gltfPath, err, tail(out))
	}
	m := renderSeconds.FindSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("blender (Cycles) %s printed no render time\n%s", gltfPath, tail(out))
	}
	r.Seconds, _ = strconv.ParseFloat(string(m[1]), 64)
	if m := saveSeconds.FindSubmatch(out); m != nil {
		r.WriteSeconds, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	for _, m := range cyclesPeak.FindAllSubmatch(out, -1) {
		if v, err := strconv.ParseFloat(string(m[1]), 64); err == nil {
			r.OwnPeak = max(r.OwnPeak, v)
		}
	}
	r.Samples = float64(s.Width*s.Height*s.CyclesSPP) / r.Seconds
	return r, nil
}

func tail(b []byte) []byte {
	if len(b) > 4000 {
		return b[len(b)-4000:]
	}
	return b
}

// scriptPath finds cycles.py beside this file's package in the module.
func scriptPath() (string, error) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "sertrace/benchmarks/cycles").Output()
	if err != nil {
		return "", fmt.Errorf("go list sertrace/benchmarks/cycles: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "cycles.py"), nil
}

// luminance reads an EXR's RGB as Rec. 709 luminance.
func luminance(path string) (w, h int, lum []float64, err error) {
	w, h, ch, err := render.ReadEXR(path, "R", "G", "B")
	if err != nil {
		return 0, 0, nil, err
	}
	if ch["R"] == nil || ch["G"] == nil || ch["B"] == nil {
		return 0, 0, nil, fmt.Errorf("%s: no R, G and B channels", path)
	}
	lum = make([]float64, w*h)
	for i := range lum {
		lum[i] = 0.2126*float64(ch["R"][i]) + 0.7152*float64(ch["G"][i]) + 0.0722*float64(ch["B"][i])
		if math.IsNaN(lum[i]) || math.IsInf(lum[i], 0) {
			return 0, 0, nil, fmt.Errorf("%s: pixel (%d, %d) is %v", path, i%w, i/w, lum[i])
		}
	}
	return w, h, lum, nil
}

// measure compares the two images: the mean luminance ratio and the ratio
// in each of Grid×Grid regions, with the standard error of sertrace's
// region means from its per-pixel variance.
func (r *result) measure(s settings) error {
	sw, sh, sl, err := luminance(r.SertraceImage)
	if err != nil {
		return err
	}
	cw, ch, cl, err := luminance(r.CyclesImage)
	if err != nil {
		return err
	}
	if k := s.cyclesScale(); k > 1 && cw == k*s.Width && ch == k*s.Height {
		cw, ch, cl = s.Width, s.Height, boxDown(cl, cw*k, k)
	}
	if sw != cw || sh != ch || sw != s.Width || sh != s.Height {
		return fmt.Errorf("%s: sertrace wrote %dx%d, Cycles %dx%d, asked for %dx%d", r.Scene, sw, sh, cw, ch, s.Width, s.Height)
	}
	_, _, vc, err := render.ReadEXR(r.SertraceImage, "variance.Y")
	if err != nil {
		return err
	}
	variance := vc["variance.Y"]
	var sumVar float64
	for i := range sl {
		r.Mean[0] += sl[i]
		r.Mean[1] += cl[i]
		if variance != nil {
			sumVar += float64(variance[i])
		}
	}
	if r.Mean[1] <= 0 {
		return fmt.Errorf("%s: Cycles' image is black", r.Scene)
	}
	if r.Mean[0] <= 0 {
		return fmt.Errorf("%s: sertrace's image is black", r.Scene)
	}
	r.MeanRatio = r.Mean[0] / r.Mean[1]
	r.MeanError = math.Sqrt(sumVar) / r.Mean[1]
	r.Mean[0] /= float64(len(sl))
	r.Mean[1] /= float64(len(cl))
	g := s.Grid
	r.Regions, r.RegionErrors, r.RegionShares = make([][]float64, g), make([][]float64, g), make([][]float64, g)
	r.MinRegion, r.MaxRegion = math.Inf(1), math.Inf(-1)
	for gy := 0; gy < g; gy++ {
		r.Regions[gy], r.RegionErrors[gy], r.RegionShares[gy] = make([]float64, g), make([]float64, g), make([]float64, g)
		for gx := 0; gx < g; gx++ {
			var a, b, v float64
			for y := gy * sh / g; y < (gy+1)*sh/g; y++ {
				for x := gx * sw / g; x < (gx+1)*sw/g; x++ {
					a += sl[y*sw+x]
					b += cl[y*sw+x]
					if variance != nil {
						v += float64(variance[y*sw+x])
					}
				}
			}
			ratio, e := math.NaN(), 0.0
			switch {
			case b > 0:
				ratio, e = a/b, math.Sqrt(v)/b
				r.RegionError = max(r.RegionError, e)
			case a > 0:
				ratio = math.Inf(1)
			}
			r.Regions[gy][gx], r.RegionErrors[gy][gx] = ratio, e
			r.RegionShares[gy][gx] = b / (r.Mean[1] * float64(len(cl)))
			if ratio < r.MinRegion {
				r.MinRegion, r.MinRegionAt = ratio, [2]int{gx, gy}
			}
			if ratio > r.MaxRegion {
				r.MaxRegion, r.MaxRegionAt = ratio, [2]int{gx, gy}
			}
		}
	}
	if err := writeRatioPNG(strings.TrimSuffix(r.SertraceImage, "sertrace.exr")+"ratio.png", sw, sh, sl, cl); err != nil {
		return err
	}
	for _, p := range []string{r.SertraceImage, r.CyclesImage} {
		if err := writePNG(p, 0.18/r.Mean[1]); err != nil {
			return err
		}
	}
	return nil
}

// boxDown averages each k×k block of a w-wide image.
func boxDown(img []float64, w, k int) []float64 {
	ow, oh := w/k, len(img)/w/k
	out := make([]float64, ow*oh)
	for y := 0; y < oh*k; y++ {
		for x := 0; x < ow*k; x++ {
			out[y/k*ow+x/k] += img[y*w+x] / float64(k*k)
		}
	}
	return out
}

// writePNG writes an EXR's RGB beside it as an sRGB PNG, to look at,
// scaled by exposure (the same for both renderers' images).
func writePNG(exr string, exposure float64) error {
	w, h, ch, err := render.ReadEXR(exr, "R", "G", "B")
	if err != nil {
		return err
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	enc := func(v float32) uint8 {
		v = min(max(v*float32(exposure), 0), 1)
		if v <= 0.0031308 {
			v *= 12.92
		} else {
			v = 1.055*float32(math.Pow(float64(v), 1/2.4)) - 0.055
		}
		return uint8(v*255 + 0.5)
	}
	for i := 0; i < w*h; i++ {
		img.SetNRGBA(i%w, i/w, color.NRGBA{enc(ch["R"][i]), enc(ch["G"][i]), enc(ch["B"][i]), 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return os.WriteFile(strings.TrimSuffix(exr, ".exr")+".png", buf.Bytes(), 0o644)
}

// writeRatioPNG draws sertrace's luminance over Cycles', both blurred over
// 5×5 pixels against the noise: grey where they agree, red where sertrace is
// brighter and blue where it is darker, full colour at ±10%.
func writeRatioPNG(path string, w, h int, a, b []float64) error {
	blur := func(l []float64, x, y int) float64 {
		var sum float64
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				sum += l[min(max(y+dy, 0), h-1)*w+min(max(x+dx, 0), w-1)]
			}
		}
		return sum
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{40, 40, 40, 255}
			if d := blur(b, x, y); d > 0 {
				t := min(max((blur(a, x, y)/d-1)/0.1, -1), 1)
				c = color.NRGBA{uint8(128 + 127*max(t, 0)), uint8(128 * (1 - math.Abs(t))), uint8(128 + 127*max(-t, 0)), 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func reportMarkdown(s settings, blender string, results []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CPU: %s, %d threads for both. %s (Cycles, CPU). %dx%d, sertrace %d spp, Cycles %d spp, max depth %d (Cycles: %d bounces), box filter, no adaptive sampling, denoising or clamping",
		cpu.ModelName(), s.Threads, blender, s.Width, s.Height, s.SPP, s.CyclesSPP, s.MaxDepth, s.MaxDepth-1)
	if s.Diffuse {
		b.WriteString(", every material Lambertian but hair's")
	}
	if s.Multiscatter {
		b.WriteString(", Cycles' Principled BSDFs multiscatter GGX")
	}
	if s.Flat {
		b.WriteString(", flat shaded (vertex normals dropped)")
	}
	if s.NoTerminatorOffset {
		b.WriteString(", Cycles' shadow terminator offset 0")
	}
	if s.TwoSidedEmission {
		b.WriteString(", Cycles' emission two-sided")
	}
	if s.NoLights {
		b.WriteString(", punctual lights dropped")
	}
	if s.HairBlack {
		b.WriteString(", hair opaque and black in both")
	}
	if s.HairTubes {
		b.WriteString(", Cycles' strands as triangle tubes")
	}
	if k := s.cyclesScale(); k > 1 {
		fmt.Fprintf(&b, ", Cycles at %d× the resolution, box-filtered down", k)
	}
	fmt.Fprintf(&b, ". Times exclude the scene import: sertrace's BVH build and render, Cycles' render operator (scene sync, BVH, render).\n\n")
	b.WriteString("| scene | sertrace | Cycles | sertrace / Cycles time | mean luminance sertrace / Cycles (±1σ of sertrace's noise) | region ratios, lowest / highest (±1σ of sertrace's noise) |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %.2f s (%s) | %.2f s | %.2f | %.4f / %.4f = %.4f (±%.4f) | %.4f at %v / %.4f at %v (±%.4f) |\n",
			r.Scene, r.SertraceSeconds, r.Tracer, r.CyclesSeconds, r.SertraceSeconds/r.CyclesSeconds,
			r.Mean[0], r.Mean[1], r.MeanRatio, r.MeanError, r.MinRegion, r.MinRegionAt, r.MaxRegion, r.MaxRegionAt, r.RegionError)
	}
	for _, r := range results {
		if len(r.Objects) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s, mean luminance of each object over the middle %.0f%% of its projected bounding sphere's radius:\n\n", r.Scene, 100*objectDisc)
		b.WriteString("| object | pixels | sertrace | Cycles | sertrace / Cycles (±1σ of sertrace's noise) |\n| --- | --- | --- | --- | --- |\n")
		for _, o := range r.Objects {
			fmt.Fprintf(&b, "| %s | %d | %.4f | %.4f | %.4f (±%.4f) |\n", o.Name, o.Pixels, o.Mean[0], o.Mean[1], o.Ratio, o.Error)
		}
	}
	for _, r := range results {
		fmt.Fprintf(&b, "\n%s, luminance ratio per region (%d×%d, top row first; ±1σ of sertrace's noise; the region's share of Cycles' light):\n\n", r.Scene, s.Grid, s.Grid)
		b.WriteString("|" + strings.Repeat(" |", s.Grid) + "\n|" + strings.Repeat(" --- |", s.Grid) + "\n")
		for y, row := range r.Regions {
			b.WriteString("|")
			for x, v := range row {
				fmt.Fprintf(&b, " %.3f ±%.3f, %.0f%% |", v, r.RegionErrors[y][x], 100*r.RegionShares[y][x])
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// objectDisc is the share of an object's projected bounding-sphere radius
// whose disc -objects averages over: away from the silhouette, where a
// pixel mixes the object and what is behind it.
const objectDisc = 0.6

// measureObjects compares each triangle-mesh object's mean luminance over
// the middle of the disc its bounding sphere (the box's largest half
// extent about its centre: a sphere's own) projects to through the
// comparison camera; objects whose disc leaves the image, covers under 12
// pixels or lies partly behind a nearer object's are left out.
func measureObjects(gltfPath, sertraceEXR, cyclesEXR string, s settings) ([]objectResult, error) {
	sc, err := scene.Load(gltfPath)
	if err != nil {
		return nil, err
	}
	var cam *scene.Camera
	for i := range sc.Cameras {
		if sc.Cameras[i].Name == cameraName {
			cam = &sc.Cameras[i]
		}
	}
	if cam == nil {
		return nil, fmt.Errorf("%s: no camera %q", gltfPath, cameraName)
	}
	names, err := nodeNames(gltfPath)
	if err != nil {
		return nil, err
	}
	w, h, sl, err := luminance(sertraceEXR)
	if err != nil {
		return nil, err
	}
	_, _, cl, err := luminance(cyclesEXR)
	if err != nil {
		return nil, err
	}
	_, _, vc, err := render.ReadEXR(sertraceEXR, "variance.Y")
	if err != nil {
		return nil, err
	}
	variance := vc["variance.Y"]
	m := cam.Transform
	v3 := func(k int) scene.Vec3 { return scene.Vec3{X: float32(m[k]), Y: float32(m[k+1]), Z: float32(m[k+2])} }
	right := v3(0).Normalize()
	up := v3(4).Normalize()
	back := v3(8).Normalize()
	eye := v3(12)
	tanY := math.Tan(float64(cam.YFov) / 2)
	type disc struct {
		name       string
		x, y, r, z float64
	}
	var discs []disc
	for _, in := range sc.Instances {
		if in.Geometry.Kind != scene.Triangles {
			continue
		}
		b := sc.GeometryBounds(in.Geometry).Transform(in.Transform)
		c := b.Min.Add(b.Max).Scale(0.5)
		ext := b.Max.Sub(b.Min).Scale(0.5)
		radius := float64(max(ext.X, ext.Y, ext.Z))
		d := c.Sub(eye)
		z := -float64(d.Dot(back))
		if z <= radius {
			continue
		}
		scale := float64(h) / 2 / tanY / z
		name := fmt.Sprintf("node %d", in.Node)
		if in.Node >= 0 && in.Node < len(names) && names[in.Node] != "" {
			name = names[in.Node]
		}
		discs = append(discs, disc{name, float64(w)/2 + float64(d.Dot(right))*scale, float64(h)/2 - float64(d.Dot(up))*scale, radius * scale, z})
	}
	var out []objectResult
	for i, o := range discs {
		r := objectDisc * o.r
		if o.x-r < 0 || o.y-r < 0 || o.x+r > float64(w) || o.y+r > float64(h) {
			continue
		}
		overlaps := false // an object nearer the camera covers some of the disc
		for j, p := range discs {
			if j != i && p.z < o.z && math.Hypot(o.x-p.x, o.y-p.y) < r+p.r {
				overlaps = true
			}
		}
		if overlaps {
			continue
		}
		res := objectResult{Name: o.name}
		var v float64
		for y := int(o.y - r); y <= int(o.y+r); y++ {
			for x := int(o.x - r); x <= int(o.x+r); x++ {
				if x < 0 || y < 0 || x >= w || y >= h || math.Hypot(float64(x)+0.5-o.x, float64(y)+0.5-o.y) > r {
					continue
				}
				res.Mean[0] += sl[y*w+x]
				res.Mean[1] += cl[y*w+x]
				if variance != nil {
					v += float64(variance[y*w+x])
				}
				res.Pixels++
			}
		}
		if res.Pixels < 12 || res.Mean[1] <= 0 {
			continue
		}
		res.Ratio, res.Error = res.Mean[0]/res.Mean[1], math.Sqrt(v)/res.Mean[1]
		res.Mean[0] /= float64(res.Pixels)
		res.Mean[1] /= float64(res.Pixels)
		out = append(out, res)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no object lies whole and apart in the image", gltfPath)
	}
	return out, nil
}

// nodeNames are the names of a .gltf's nodes, by index.
func nodeNames(gltfPath string) ([]string, error) {
	data, err := os.ReadFile(gltfPath)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Nodes []struct {
			Name string `json:"name"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", gltfPath, err)
	}
	names := make([]string, len(doc.Nodes))
	for i, n := range doc.Nodes {
		names[i] = n.Name
	}
	return names, nil
}

// prepare writes the scene into dir as a .gltf with its buffers and images
// beside it, with a camera and, for a transport comparison, Lambertian
// materials; it returns the .gltf's path.
func prepare(path, dir string, s settings) (_ string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var doc map[string]any
	var bin []byte
	if bytes.HasPrefix(data, []byte("glTF")) {
		var js []byte
		if js, bin, err = splitGLB(data); err != nil {
			return "", fmt.Errorf("%s: %v", path, err)
		}
		data = js
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	if err := copyResources(doc, filepath.Dir(path), dir, bin); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	if s.Diffuse {
		lambertian(doc)
	}
	if s.Flat {
		meshes, _ := doc["meshes"].([]any)
		for _, m := range meshes {
			prims, _ := m.(map[string]any)["primitives"].([]any)
			for _, p := range prims {
				if attrs, ok := p.(map[string]any)["attributes"].(map[string]any); ok {
					delete(attrs, "NORMAL")
					delete(attrs, "TANGENT")
				}
			}
		}
	}
	if s.NoLights {
		dropLights(doc)
	}
	out := filepath.Join(dir, "scene.gltf")
	if err := writeJSON(out, doc); err != nil {
		return "", err
	}
	sc, err := scene.Load(out)
	if err != nil {
		return "", err
	}
	// Hair: strands for cycles.py to build as curves (sertrace reads them
	// from the glTF's lines, which Blender would import as bare edges).
	removeHairFiles(dir)
	hs, err := exportHair(sc, dir, s.HairCut)
	if err != nil {
		return "", err
	}
	defer func() {
		// Cycles' copy of the scene, camera included, without the lines.
		if hs.Strands > 0 && err == nil {
			var cdoc map[string]any
			data, _ := json.Marshal(doc)
			json.Unmarshal(data, &cdoc)
			dropLines(cdoc)
			err = writeJSON(filepath.Join(dir, cyclesFile), cdoc)
		}
	}()
	if s.HairBlack { // after exportHair, which found the strands by their hair materials
		blackHair(doc)
	}
	if hs.Strands > 0 {
		fmt.Fprintf(os.Stderr, "%s: %d hair strands, %d segments, each cut in %d for Cycles' splines: they stray from the straight segments by %.3f%% of the radius on average, %.2f%% at most\n",
			filepath.Base(path), hs.Strands, hs.Segments, hs.Cut, 100*hs.MeanStray, 100*hs.MaxStray)
	}
	// The camera asked for, else the one sertrace would use (the file's
	// first, or the framing one), added under a name both renderers pick.
	cam := s.Camera
	if cam == nil {
		c := sc.Cameras[0]
		if c.Orthographic {
			return "", fmt.Errorf("%s: the camera is orthographic; give -camera", path)
		}
		cam = &lookAt{YFov: float64(c.YFov)}
		for k := 0; k < 3; k++ {
			cam.From[k] = c.Transform[12+k]
			cam.At[k] = c.Transform[12+k] - c.Transform[8+k]
		}
	}
	cams, _ := doc["cameras"].([]any)
	doc["cameras"] = append([]any{map[string]any{"name": cameraName, "type": "perspective", "perspective": map[string]any{
		"yfov": cam.YFov, "aspectRatio": float64(s.Width) / float64(s.Height), "znear": 0.01}}}, cams...)
	nodes, _ := doc["nodes"].([]any)
	for _, n := range nodes {
		if m, ok := n.(map[string]any); ok {
			if ci, ok := m["camera"].(float64); ok {
				m["camera"] = ci + 1
			}
		}
	}
	doc["nodes"] = append(nodes, map[string]any{"name": cameraName, "camera": 0, "matrix": cam.matrix()})
	scenes, _ := doc["scenes"].([]any)
	si := 0
	if v, ok := doc["scene"].(float64); ok {
		si = int(v)
	}
	if si >= len(scenes) {
		return "", fmt.Errorf("%s: no scene %d", path, si)
	}
	sn := scenes[si].(map[string]any)
	roots, _ := sn["nodes"].([]any)
	sn["nodes"] = append(roots, len(nodes))
	return out, writeJSON(out, doc)
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// splitGLB returns a GLB's JSON and binary chunks.
func splitGLB(data []byte) (js, bin []byte, err error) {
	if len(data) < 20 || binary.LittleEndian.Uint32(data[4:]) != 2 {
		return nil, nil, errors.New("not a version 2 GLB file")
	}
	for off := 12; off+8 <= len(data); {
		n, kind := int(binary.LittleEndian.Uint32(data[off:])), binary.LittleEndian.Uint32(data[off+4:])
		if n < 0 || off+8+n > len(data) {
			return nil, nil, errors.New("GLB chunk runs past the end of the file")
		}
		switch kind {
		case 0x4E4F534A: // JSON
			js = data[off+8 : off+8+n]
		case 0x004E4942: // BIN
			bin = data[off+8 : off+8+n]
		}
		off += 8 + n
	}
	if js == nil {
		return nil, nil, errors.New("GLB file without a JSON chunk")
	}
	return js, bin, nil
}

// copyResources copies the buffers and images a glTF file names (or a GLB's
// binary chunk) into dir, so the rewritten file finds them.
func copyResources(doc map[string]any, from, dir string, bin []byte) error {
	for _, key := range []string{"buffers", "images"} {
		list, _ := doc[key].([]any)
		for i, item := range list {
			m, _ := item.(map[string]any)
			uri, _ := m["uri"].(string)
			if key == "buffers" && i == 0 && uri == "" && bin != nil {
				m["uri"] = "glb.bin"
				if err := os.WriteFile(filepath.Join(dir, "glb.bin"), bin, 0o644); err != nil {
					return err
				}
				continue
			}
			if uri == "" || strings.HasPrefix(uri, "data:") {
				continue
			}
			rel, err := url.PathUnescape(uri)
			if err != nil || filepath.IsAbs(rel) || strings.Contains(rel, "..") {
				return fmt.Errorf("%s %d: uri %q is not a relative path inside the scene's folder", key, i, uri)
			}
			data, err := os.ReadFile(filepath.Join(from, rel))
			if err != nil {
				return err
			}
			dst := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// lambertian makes every material a pure Lambertian reflector of its base
// colour (texture included), keeping its emission and normal map: metallic
// 0, roughness 1, no specular layer, no other extension.
func lambertian(doc map[string]any) {
	mats, _ := doc["materials"].([]any)
	for _, item := range mats {
		m, _ := item.(map[string]any)
		if m == nil {
			continue
		}
		pbr, _ := m["pbrMetallicRoughness"].(map[string]any)
		if pbr == nil {
			pbr = map[string]any{}
			m["pbrMetallicRoughness"] = pbr
		}
		pbr["metallicFactor"], pbr["roughnessFactor"] = 0, 1
		delete(pbr, "metallicRoughnessTexture")
		exts := map[string]any{"KHR_materials_specular": map[string]any{"specularFactor": 0}}
		if old, ok := m["extensions"].(map[string]any); ok {
			if es, ok := old["KHR_materials_emissive_strength"]; ok {
				exts["KHR_materials_emissive_strength"] = es
			}
		}
		m["extensions"] = exts
		m["alphaMode"] = "OPAQUE"
	}
	for _, key := range []string{"extensionsUsed", "extensionsRequired"} {
		list, _ := doc[key].([]any)
		var keep []any
		for _, e := range list {
			name, _ := e.(string)
			if !strings.HasPrefix(name, "KHR_materials_") || name == "KHR_materials_emissive_strength" {
				keep = append(keep, e)
			}
		}
		if len(keep) > 0 {
			doc[key] = keep
		} else {
			delete(doc, key)
		}
	}
	useExtension(doc, "KHR_materials_specular")
}

// useExtension lists an extension in the document's extensionsUsed, once.
func useExtension(doc map[string]any, name string) {
	used, _ := doc["extensionsUsed"].([]any)
	if !slices.Contains(used, any(name)) {
		doc["extensionsUsed"] = append(used, name)
	}
}

// blackHair makes every hair material (extras.sertrace.hair) a black
// Lambertian with no specular layer: opaque strands that reflect nothing.
func blackHair(doc map[string]any) {
	mats, _ := doc["materials"].([]any)
	for _, item := range mats {
		m, _ := item.(map[string]any)
		extras, _ := m["extras"].(map[string]any)
		st, _ := extras["sertrace"].(map[string]any)
		if _, ok := st["hair"]; !ok {
			continue
		}
		delete(st, "hair")
		m["pbrMetallicRoughness"] = map[string]any{"baseColorFactor": []any{0, 0, 0, 1}, "metallicFactor": 0, "roughnessFactor": 1}
		m["extensions"] = map[string]any{"KHR_materials_specular": map[string]any{"specularFactor": 0}}
		m["alphaMode"] = "OPAQUE"
	}
	useExtension(doc, "KHR_materials_specular")
}

// dropLights removes KHR_lights_punctual from a glTF document: its lights
// and the nodes' references to them.
func dropLights(doc map[string]any) {
	const ext = "KHR_lights_punctual"
	if e, ok := doc["extensions"].(map[string]any); ok {
		delete(e, ext)
	}
	nodes, _ := doc["nodes"].([]any)
	for _, n := range nodes {
		if nm, ok := n.(map[string]any); ok {
			if e, ok := nm["extensions"].(map[string]any); ok {
				delete(e, ext)
			}
		}
	}
	for _, key := range []string{"extensionsUsed", "extensionsRequired"} {
		list, _ := doc[key].([]any)
		kept := list[:0]
		for _, v := range list {
			if v != ext {
				kept = append(kept, v)
			}
		}
		if list != nil {
			doc[key] = kept
		}
	}
}
