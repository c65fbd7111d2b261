package batch

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mrjoshuak/go-openexr/exr"

	"sertrace/denoise"
	"sertrace/render"
)

func writeConfig(t *testing.T, dir, text string) string {
	t.Helper()
	scenes, _ := filepath.Abs(filepath.Join("..", "scenes"))
	text = strings.ReplaceAll(text, "SCENES", scenes)
	p := filepath.Join(dir, "batch.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const threeJobs = `
output_dir: out
defaults:
  res: 24x18
  spp: 2
  max_depth: 3
jobs:
  - name: box
    scene: SCENES/cornell.glb
    outputs: [beauty.exr, beauty.png, albedo.pfm, normal.png, depth.exr]
  - name: broken
    scene: SCENES/nosuch.glb
  - name: hair
    scene: SCENES/hair.glb
    camera: camera
    env_color: 0.2
    denoise: true
`

// TestBatchRunsResumesAndReports: the good jobs render and the broken one is
// reported without stopping them; summary.json and the contact sheet say
// so; a second run skips the finished jobs; changing a job's settings makes
// it render again.
func TestBatchRunsResumesAndReports(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, threeJobs))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := (&Runner{Config: cfg}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := statusOf(sum); got != "box=done broken=failed hair=done" {
		t.Fatalf("statuses %s", got)
	}
	if !strings.Contains(sum.Jobs[1].Error, "nosuch.glb") {
		t.Errorf("the failure does not name the scene: %q", sum.Jobs[1].Error)
	}
	for _, f := range []string{"box/beauty.exr", "box/beauty.png", "box/albedo.pfm", "box/normal.png", "box/depth.exr",
		"box/manifest.json", "box/thumb.png", "hair/beauty.png", "hair/beauty.noisy.png", "summary.json", "summary.html"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Errorf("%s is missing: %v", f, err)
		}
	}
	var onDisk Summary
	b, _ := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
	if err := json.Unmarshal(b, &onDisk); err != nil || statusOf(&onDisk) != statusOf(sum) {
		t.Errorf("summary.json: %v %s", err, b)
	}
	html, _ := os.ReadFile(filepath.Join(dir, "out", "summary.html"))
	if !strings.Contains(string(html), `src="box/thumb.png"`) || !strings.Contains(string(html), "nosuch.glb") {
		t.Error("the contact sheet lacks a thumbnail or the failure")
	}
	before, _ := os.Stat(filepath.Join(dir, "out", "box", "beauty.exr"))

	sum, _ = (&Runner{Config: cfg}).Run(context.Background())
	if got := statusOf(sum); got != "box=skipped broken=failed hair=skipped" {
		t.Fatalf("second run: %s", got)
	}
	after, _ := os.Stat(filepath.Join(dir, "out", "box", "beauty.exr"))
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("a skipped job rewrote its output")
	}

	cfg, _ = Load(writeConfig(t, dir, strings.Replace(threeJobs, "spp: 2", "spp: 3", 1)))
	sum, _ = (&Runner{Config: cfg}).Run(context.Background())
	if got := statusOf(sum); got != "box=done broken=failed hair=done" {
		t.Fatalf("after a settings change: %s", got)
	}
	// A damaged output is noticed too.
	os.WriteFile(filepath.Join(dir, "out", "hair", "beauty.png"), []byte("truncated"), 0o644)
	sum, _ = (&Runner{Config: cfg}).Run(context.Background())
	if got := statusOf(sum); got != "box=skipped broken=failed hair=done" {
		t.Fatalf("after damaging an output: %s", got)
	}
}

// boxJob is a batch of one Cornell box long enough to interrupt.
const boxJob = `
output_dir: out
jobs:
  - name: box
    scene: SCENES/cornell.glb
    res: 40x30
    spp: 16
    max_depth: 4
    outputs: [beauty.pfm]
`

// TestCheckpointWithoutGuidesStartsOver: a film holds only the layers its
// job asks for, so the checkpoint of a job that did not denoise lacks the
// denoiser's guides; the same job denoised starts over, saying why, where
// it would otherwise denoise with guides of zero.
func TestCheckpointWithoutGuidesStartsOver(t *testing.T) {
	dir := t.TempDir()
	text := boxJob
	cfg, err := Load(writeConfig(t, dir, text))
	if err != nil {
		t.Fatal(err)
	}
	runUntil(cfg, 0.2)
	cp, cpErr := readCheckpoint(filepath.Join(dir, "out", "box", "checkpoint.gob"))
	if cpErr != nil || cp.Film.Samples < 1 || cp.Film.Has(render.LayerAlbedo) || cp.Film.HasSplit() || cp.Film.Has(render.LayerCost) {
		t.Fatalf("the plain job's checkpoint: %v, %d samples, layers %s", cpErr, cp.Film.Samples, cp.Film.Held().Names())
	}
	denoised, err := Load(writeConfig(t, dir, strings.Replace(text, "outputs: [beauty.pfm]", "outputs: [beauty.pfm]\n    denoise: true\n    denoiser: regression", 1)))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	var mu sync.Mutex
	least := 1.0
	sum, err := (&Runner{Config: denoised, Log: &log, Tick: func(done float64) {
		mu.Lock()
		least = min(least, done)
		mu.Unlock()
	}}).Run(context.Background())
	if err != nil || sum.Jobs[0].Status != Done || sum.Jobs[0].Samples != 16 {
		t.Fatalf("denoised run: %v %+v", err, sum.Jobs[0])
	}
	if least >= float64(cp.Film.Samples)/16 {
		t.Errorf("the denoised run's progress started at %.3f: it resumed the checkpoint's %d samples, which lack the guides", least, cp.Film.Samples)
	}
	if !strings.Contains(log.String(), "lacks the albedo, normal, depth layers the job now asks for: starting over") {
		t.Errorf("the log does not say why the checkpoint was not used:\n%s", log.String())
	}
}

// TestBatchInterruptedJobContinues: a cancelled job writes a checkpoint and
// leaves no image; the next run continues from the checkpoint and ends with
// the image an uninterrupted run makes.
func TestBatchInterruptedJobContinues(t *testing.T) {
	dir := t.TempDir()
	text := `
output_dir: out
jobs:
  - name: box
    scene: SCENES/cornell.glb
    res: 40x30
    spp: 64
    max_depth: 4
    outputs: [beauty.pfm]
  - name: later
    scene: SCENES/cornell.glb
    res: 8x8
    spp: 1
`
	denoisedText := strings.Replace(text, "outputs: [beauty.pfm]", "outputs: [beauty.pfm]\n    denoise: true\n    denoiser: regression", 1)
	// The interrupted job is denoised: its film holds the denoiser's guides
	// and split, and serves the job without denoising too.
	cfg, err := Load(writeConfig(t, dir, denoisedText))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := runUntil(cfg, 0.2)
	// The job after the interrupted one is not started: this run says so,
	// and the batch's summary still has it to render.
	if err == nil || sum.Jobs[0].Status != Failed || sum.Units[1].Status != Failed || !strings.Contains(sum.Units[1].Error, "not started") || sum.Jobs[1].Status != Pending {
		t.Fatalf("interrupted run: %v %+v %+v", err, sum.Units, sum.Jobs)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "box", "checkpoint.gob")); err != nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "box", "beauty.pfm")); err == nil {
		t.Fatal("an interrupted job wrote its image")
	}
	done := sum.Jobs[0].Samples
	if done < 1 || done >= 64 {
		t.Fatalf("checkpoint holds %d samples", done)
	}
	// A checkpoint written before the film held the denoiser's diffuse and
	// specular split resumes too, without them.
	cpPath := filepath.Join(dir, "out", "box", "checkpoint.gob")
	cp, cpErr := readCheckpoint(cpPath)
	if cpErr != nil || cp.Film.Sums[render.LayerDiffuse].Len() != 3*40*30 {
		t.Fatalf("the checkpoint does not read back whole, with the split (%v)", cpErr)
	}
	f := cp.Film
	f.Keep(render.AllLayers &^ render.SplitLayers)
	if err := writeCheckpoint(cpPath, cp); err != nil {
		t.Fatal(err)
	}
	// Progress counts the samples resumed: it never starts below them. The
	// checkpoint holds the noisy film, whatever denoises it: the job no
	// longer denoised resumes it too.
	plain, err := Load(writeConfig(t, dir, text))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	least := 1.0
	sum, err = (&Runner{Config: plain, Tick: func(done float64) {
		mu.Lock()
		least = min(least, done)
		mu.Unlock()
	}}).Run(context.Background())
	if err != nil || sum.Jobs[0].Status != Done || sum.Jobs[0].Samples != 64 {
		t.Fatalf("resumed run: %v %+v", err, sum.Jobs[0])
	}
	if least < float64(done)/64 {
		t.Errorf("the resumed run's progress started at %.3f: it rendered again the %d samples of the checkpoint", least, done)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "box", "checkpoint.gob")); err == nil {
		t.Error("the checkpoint outlived the finished job")
	}
	resumed, _ := os.ReadFile(filepath.Join(dir, "out", "box", "beauty.pfm"))

	// The same job, never interrupted.
	fresh := t.TempDir()
	cfg2, _ := Load(writeConfig(t, fresh, text))
	(&Runner{Config: cfg2}).Run(context.Background())
	whole, _ := os.ReadFile(filepath.Join(fresh, "out", "box", "beauty.pfm"))
	if len(whole) != len(resumed) || len(whole) == 0 {
		t.Fatal("images differ in size")
	}
	// Pass sums group differently after a resume: allow float rounding only.
	header := len("PF\n40 30\n-1.0\n")
	for i := header; i+4 <= len(whole); i += 4 {
		a := math.Float32frombits(binary.LittleEndian.Uint32(whole[i:]))
		b := math.Float32frombits(binary.LittleEndian.Uint32(resumed[i:]))
		if math.Abs(float64(a-b)) > 1e-5*math.Max(1, math.Abs(float64(a))) {
			t.Fatalf("value %d: %v resumed, %v uninterrupted", (i-header)/4, b, a)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ text, want string }{
		{"output_dir: out\njobs:\n  - name: a\n    scene: x.glb\n    spp_count: 4\n", `line 5 (jobs[0]): unknown key "spp_count"; did you mean "spp"?`},
		{"outptu_dir: out\njobs: []\n", `line 1: unknown key "outptu_dir"; did you mean "output_dir"?`},
		{"defaults:\n  maxdepth: 3\njobs:\n  - name: a\n    scene: x.glb\n", `line 2 (defaults): unknown key "maxdepth"; did you mean "max_depth"?`},
		{"jobs:\n  - scene: x.glb\n", "jobs[0] has no name"},
		{"jobs:\n  - name: a/b\n    scene: x.glb\n", "must be a plain folder name"},
		{"jobs:\n  - name: \"a\\nb\"\n    scene: x.glb\n", "has a control character"},
		{"jobs:\n  - name: \"a\\tb\"\n    scene: x.glb\n", "has a control character"},
		{"jobs:\n  - name: \"a\\0b\"\n    scene: x.glb\n", "has a control character"},
		{"jobs:\n  - name: a\n    scene: x.glb\n  - name: a\n    scene: y.glb\n", `two jobs are named "a"`},
		{"jobs: [ {name: a, scene: x.glb", "did not find expected"},
		{"output_dir: out\n", "no jobs"},
		{"jobs:\n  - {name: summary.json, scene: x.glb}\n", "taken by the batch's own files"},
		{"jobs:\n  - {name: Box, scene: x.glb}\n  - {name: box, scene: y.glb}\n", "differ in more than case"},
		// A value of the wrong kind: where it is, the key and what is wrong, the defaults' in the defaults.
		{"jobs:\n  - {name: a, scene: x.glb, env_color: [1, 1]}\n", `line 2 (jobs[0]): env_color: a list of 2 values; want three numbers [R, G, B]`},
		{"jobs:\n  - {name: a, scene: x.glb, env_color: [1, x, 1]}\n", `line 2 (jobs[0]): env_color: "x" in the list is not a finite number`},
		{"jobs:\n  - {name: a, scene: x.glb, env_color: [1, .nan, 1]}\n", `env_color: NaN in the list is not a finite number`},
		{"jobs:\n  - name: a\n    scene: x.glb\n    spp: many\n", `line 4 (jobs[0]): spp: "many" is not a whole number`},
		{"defaults:\n  spp: 2\n  env_color: [1, 2]\njobs:\n  - {name: a, scene: x.glb}\n", `line 3 (defaults): env_color: a list of 2 values`},
		{"defaults:\n  env_color: {r: 1}\njobs:\n  - {name: a, scene: x.glb}\n", `line 2 (defaults): env_color: map[r:1] is not a colour`},
		{"defaults:\n  max_depth: deep\njobs:\n  - {name: a, scene: x.glb}\n", `line 2 (defaults): max_depth: "deep" is not a whole number`},
		// The decoder would truncate these to whole numbers.
		{"jobs:\n  - {name: a, scene: x.glb, spp: 4.7}\n", `line 2 (jobs[0]): spp: 4.7 is not a whole number`},
		{"defaults:\n  max_depth: 2.9\njobs:\n  - {name: a, scene: x.glb}\n", `line 2 (defaults): max_depth: 2.9 is not a whole number`},
		{"jobs:\n  - {name: a, scene: x.glb, seed: 1.5}\n", `seed: 1.5 is not a whole number`},
		{"jobs:\n  - {name: a, scene: x.glb, spp: 4, split: 1.5}\n", `split: 1.5 is not a whole number`},
		{"defaults:\n  reorder_hint: [1]\njobs:\n  - {name: a, scene: x.glb}\n", `line 2 (defaults): reorder_hint: [1] is not true or false`},
		// Slices, and Slurm's options.
		{"jobs:\n  - {name: a, scene: x.glb, spp: 2, split: 5}\n", `job "a": split 5 must be in 0..2`},
		{"jobs:\n  - {name: a, scene: x.glb, samples: \"0:1\"}\n", `job "a": samples: a batch job is cut into slices with split: K`},
		{"jobs:\n  - {name: a, scene: x.glb, split: 2, time_budget: 3}\n", `job "a": a split job takes all its samples`},
		{"jobs:\n  - {name: a, scene: x.glb, split: 2, spp: 256, noise_threshold: 0.01}\n", `job "a": noise_threshold: a split job cannot be sampled adaptively`},
		{"slurm: {partiton: gpu}\njobs:\n  - {name: a, scene: x.glb}\n", `line 1 (slurm): unknown key "partiton"; did you mean "partition"?`},
		{"slurm: {cpus_per_task: many}\njobs:\n  - {name: a, scene: x.glb}\n", `slurm: "many" is not a whole number`},
		{"slurm: gpu\njobs:\n  - {name: a, scene: x.glb}\n", `line 1: slurm must be a mapping of partition, time, cpus_per_task, extra`},
		{"jobs:\n  - {name: .slurm, scene: x.glb}\n", "taken by the batch's own files"},
	}
	for _, c := range cases {
		_, err := Load(writeConfig(t, dir, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

// TestEnvColorForms: env_color is "R,G,B" (or one value) in text, a list
// of three numbers, or one number, in a job or in the defaults; a job's
// own value wins over the defaults'.
func TestEnvColorForms(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		defaults, job string
		want          string
		rgb           [3]float32
	}{
		{"", `env_color: "0.3,0.3,0.3"`, "0.3,0.3,0.3", [3]float32{0.3, 0.3, 0.3}},
		{"", "env_color: [1, 1, 1]", "1,1,1", [3]float32{1, 1, 1}},
		{"", "env_color: [0.25, 0, 2.5]", "0.25,0,2.5", [3]float32{0.25, 0, 2.5}},
		{"", "env_color: 0.5", "0.5", [3]float32{0.5, 0.5, 0.5}},
		{"", "env_color: 2", "2", [3]float32{2, 2, 2}},
		{"env_color: [1, 0, 0.5]", "", "1,0,0.5", [3]float32{1, 0, 0.5}},
		{"env_color: 0.5", "env_color: [0, 1, 0]", "0,1,0", [3]float32{0, 1, 0}},
		{"env_color: [0, 1, 0]", `env_color: "0.5"`, "0.5", [3]float32{0.5, 0.5, 0.5}},
	} {
		text := "defaults: {" + c.defaults + "}\njobs:\n  - {name: a, scene: x.glb"
		if c.job != "" {
			text += ", " + c.job
		}
		text += "}\n"
		cfg, err := Load(writeConfig(t, dir, text))
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		got := cfg.Jobs[0].EnvColor
		rgb, err := render.ParseColor(got)
		if got != c.want || err != nil || rgb != c.rgb {
			t.Errorf("%q: env_color %q (%v, %v), want %q (%v)", text, got, rgb, err, c.want, c.rgb)
		}
	}
}

// TestJobDefaults: a job that says nothing gets the render command's
// defaults (render.DefaultSettings, the denoiser's), and its settings,
// which key its manifest, are what they were: a changed default renders
// every finished job again, so it is done knowingly.
func TestJobDefaults(t *testing.T) {
	cfg, err := Load(writeConfig(t, t.TempDir(), "jobs:\n  - {name: a, scene: x.glb}\n"))
	if err != nil {
		t.Fatal(err)
	}
	job := cfg.Jobs[0]
	if job.Settings != render.DefaultSettings() {
		t.Errorf("settings %+v, want render.DefaultSettings() %+v", job.Settings, render.DefaultSettings())
	}
	if job.Denoiser != denoise.DefaultDenoiser || job.DenoisePasses != denoise.DefaultPasses || job.Denoise {
		t.Errorf("denoise %v, denoiser %q, passes %d", job.Denoise, job.Denoiser, job.DenoisePasses)
	}
	b, _ := json.Marshal(job)
	const want = `{"name":"a","scene":"x.glb","outputs":["beauty.exr","beauty.png"],"denoiser":"auto","denoise_passes":1,` +
		`"camera":"0","spp":64,"max_depth":8,"backend":"auto","env_color":"0,0,0","env_intensity":1,"tonemap":"linear",` +
		`"filter":"box","aperture_radius":-1,"focus_distance":-1,"accel":"auto","exr_precision":"float"}`
	if string(b) != want {
		t.Errorf("a job of defaults is\n%s\nwant\n%s", b, want)
	}
}

// TestBatchNoticesTexturesAndLocks: editing an image that a .gltf refers to
// from a subfolder re-renders the job; a job whose lock another run holds
// is passed over; no leftover lock file blocks a run.
func TestBatchNoticesTexturesAndLocks(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "scene", "tex"), 0o755)
	writePNG := func(v uint8) {
		img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
		for i := range img.Pix {
			img.Pix[i] = v
		}
		f, _ := os.Create(filepath.Join(dir, "scene", "tex", "a.png"))
		png.Encode(f, img)
		f.Close()
	}
	writePNG(200)
	// A quad with a base colour texture from tex/a.png (buffer as a data URI).
	gltf := `{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0,"TEXCOORD_0":1},"material":0}]}],
"materials":[{"pbrMetallicRoughness":{"baseColorTexture":{"index":0},"metallicFactor":0}}],
"textures":[{"source":0}],"images":[{"uri":"tex/a.png"}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"},{"bufferView":1,"componentType":5126,"count":3,"type":"VEC2"}],
"bufferViews":[{"buffer":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":24}],
"buffers":[{"byteLength":60,"uri":"data:application/octet-stream;base64,AACAvwAAgL8AAAAAAACAPwAAgL8AAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAAAIA/"}]}`
	os.WriteFile(filepath.Join(dir, "scene", "quad.gltf"), []byte(gltf), 0o644)
	cfg, err := Load(writeConfig(t, dir, "output_dir: out\njobs:\n  - {name: quad, scene: scene/quad.gltf, res: 8x8, spp: 1, env_color: 1, outputs: [beauty.pfm]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	run := func() string {
		sum, err := (&Runner{Config: cfg}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return sum.Jobs[0].Status
	}
	if s := run(); s != Done {
		t.Fatalf("first run: %s", s)
	}
	if s := run(); s != Skipped {
		t.Fatalf("second run: %s", s)
	}
	writePNG(50)
	if s := run(); s != Done {
		t.Fatalf("after editing tex/a.png: %s", s)
	}
	// A lock another process left (an older sertrace's whole-folder lock)
	// blocks nothing; a unit another holds is passed over, its record kept.
	os.WriteFile(filepath.Join(dir, "out", "batch.lock"), []byte("1\n"), 0o644)
	if s := run(); s != Skipped {
		t.Fatalf("with a stale batch.lock: %s", s)
	}
	unlock, err := lock(filepath.Join(dir, "out", "quad", ".lock"), false)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := (&Runner{Config: cfg}).Run(context.Background())
	unlock()
	if err != nil || sum.Units[0].Status != Busy || sum.Jobs[0].Status != Skipped {
		t.Errorf("a unit another holds: %v, unit %+v, job %s", err, sum.Units[0], sum.Jobs[0].Status)
	}
}

// TestBatchTimeBudgetAndHalfEXR: a time budget ends a job long before its
// sample count, and exr_precision half stores half floats.
func TestBatchTimeBudgetAndHalfEXR(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, "output_dir: out\njobs:\n  - {name: quick, scene: SCENES/cornell.glb, res: 16x12, spp: 1000000, time_budget: 0.5, exr_precision: half, outputs: [beauty.exr]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	// A million samples would take hours: the budget must end the job. (The
	// deadline only keeps a broken budget from hanging the test; it would
	// interrupt the job, which then is not done.)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum, err := (&Runner{Config: cfg}).Run(ctx)
	if err != nil || sum.Jobs[0].Status != Done {
		t.Fatalf("%v %+v", err, sum)
	}
	if n := sum.Jobs[0].Samples; n >= 1000000 || n < 1 {
		t.Errorf("%d samples: the budget did not end the job", n)
	}
	f, err := exr.OpenFile(filepath.Join(dir, "out", "quick", "beauty.exr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ch := f.Header(0).Channels().At(0); ch.Type != exr.PixelTypeHalf {
		t.Errorf("channel %s stored as %v, want half", ch.Name, ch.Type)
	}
}

// TestBatchOnVulkan: jobs may name the Vulkan backend and its paths; a job
// asking for a path no device runs fails on its own, naming why; denoising
// after a Vulkan render runs on the GPU and writes both beauties. Skips
// without a Vulkan device with ray queries (fails in CI, which has one).
func TestBatchOnVulkan(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	cfg, err := Load(writeConfig(t, dir, `
output_dir: out
defaults:
  res: 16x12
  spp: 2
  max_depth: 3
  backend: vulkan
jobs:
  - name: rq
    scene: SCENES/cornell.glb
    path: rayquery
    reorder: "off"
    denoise: true
    denoiser: regression
    outputs: [beauty.exr]
  - name: rt
    scene: SCENES/cornell.glb
    path: rt
    reorder_hint: true
`))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := (&Runner{Config: cfg, Log: &log}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range sum.Jobs {
		if j.Status == "failed" && strings.Contains(j.Error, "Vulkan") && os.Getenv("CI") == "" {
			t.Skipf("no Vulkan device here: %s", j.Error)
		}
		if j.Status != "done" {
			t.Fatalf("%s: %s %s (log: %s)", j.Name, j.Status, j.Error, log.String())
		}
	}
	for _, f := range []string{"rq/beauty.exr", "rq/beauty.noisy.exr", "rt/beauty.png"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if strings.Contains(log.String(), "GPU filter failed") {
		t.Errorf("the GPU denoiser fell back to the CPU: %s", log.String())
	}
}

// TestBatchDenoisers: a job names its denoiser and the network's passes; a
// name that is none fails that job alone, saying which names there are;
// changing the passes renders the job again when the network denoises it,
// not when auto fell back to the regression filter (which says so).
func TestBatchDenoisers(t *testing.T) {
	dir := t.TempDir()
	config := `
output_dir: out
defaults: {res: 16x12, spp: 2, max_depth: 2, denoise: true}
jobs:
  - {name: regression, scene: SCENES/cornell.glb, denoiser: regression, outputs: [beauty.exr]}
  - {name: auto, scene: SCENES/cornell.glb, denoise_passes: 2, outputs: [beauty.exr]}
`
	// A denoiser that is not one is found as the config loads, with its
	// job and line.
	wrong := strings.Replace(config, "  - {name: auto", "  - {name: wrong, scene: SCENES/cornell.glb, denoiser: oidn, outputs: [beauty.exr]}\n  - {name: auto", 1)
	if _, err := Load(writeConfig(t, dir, wrong)); err == nil || !strings.Contains(err.Error(), `line 6 (job "wrong"): denoiser: denoiser "oidn": auto, network, regression`) {
		t.Errorf("the wrong denoiser: %v", err)
	}
	cfg, err := Load(writeConfig(t, dir, config))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sum, _ := (&Runner{Config: cfg, Log: &log}).Run(context.Background())
	if sum.Jobs[0].Status != "done" || sum.Jobs[1].Status != "done" {
		t.Fatalf("%+v (log %s)", sum.Jobs, log.String())
	}
	network := denoise.Resolve("auto") == "network"
	if fell := strings.Contains(log.String(), "auto: denoise: no network weights"); fell == network {
		t.Errorf("the network installed: %v; the log: %s", network, log.String())
	}
	cfg, _ = Load(writeConfig(t, dir, strings.Replace(config, "denoise_passes: 2", "denoise_passes: 4", 1)))
	sum, _ = (&Runner{Config: cfg, Log: &log}).Run(context.Background())
	want := map[bool]string{true: "done", false: "skipped"}[network]
	if sum.Jobs[0].Status != "skipped" || sum.Jobs[1].Status != want {
		t.Errorf("after changing the passes (the network installed: %v): %+v", network, sum.Jobs)
	}
}

// TestBatchInterruptedDenoiser: a job interrupted while the network
// denoises keeps its whole film in the checkpoint, and the next run
// denoises it without rendering again.
func TestBatchInterruptedDenoiser(t *testing.T) {
	if denoise.Resolve("auto") != "network" {
		if os.Getenv("CI") != "" {
			t.Fatal("no network weights under CI: .ci/run installs them")
		}
		t.Skip("no network weights (sertrace weights fetch)")
	}
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, `
output_dir: out
jobs:
  - {name: box, scene: SCENES/cornell.glb, res: 64x48, spp: 4, max_depth: 2, denoise: true, denoiser: network, denoise_passes: 8, outputs: [beauty.pfm]}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sum, err := (&Runner{Config: cfg, Log: cancelOn{"denoising", cancel}}).Run(ctx)
	if err == nil || sum.Jobs[0].Status != Failed || sum.Jobs[0].Samples != 4 {
		t.Fatalf("interrupted run: %v %+v", err, sum.Jobs[0])
	}
	cp, cpErr := readCheckpoint(filepath.Join(dir, "out", "box", "checkpoint.gob"))
	if cpErr != nil || cp.Film.Samples != 4 {
		t.Fatalf("the checkpoint: %v, %d samples", cpErr, cp.Film.Samples)
	}
	least := 1.0
	var mu sync.Mutex
	sum, err = (&Runner{Config: cfg, Tick: func(done float64) {
		mu.Lock()
		least = min(least, done)
		mu.Unlock()
	}}).Run(context.Background())
	if err != nil || sum.Jobs[0].Status != Done || least < 1 {
		t.Fatalf("resumed run: %v %+v (progress from %.2f)", err, sum.Jobs[0], least)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "box", "beauty.noisy.pfm")); err != nil {
		t.Error(err)
	}
}

// cancelOn is a log that cancels when a line holds its text.
type cancelOn struct {
	text   string
	cancel func()
}

func (c cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.text) {
		c.cancel()
	}
	return len(p), nil
}

const splitJobs = `
output_dir: out
defaults:
  res: 32x24
  max_depth: 4
  outputs: [beauty.exr, beauty.pfm, beauty.png]
jobs:
  - name: box
    scene: SCENES/cornell.glb
    spp: 10
    split: 3
  - name: broken
    scene: SCENES/nosuch.glb
  - name: hair
    scene: SCENES/hairy-cornell.glb
    spp: 4
    split: 4
    denoise: true
    denoiser: regression
  - name: plain
    scene: SCENES/hair.glb
    spp: 2
`

func statusOf(s *Summary) string {
	var out []string
	for _, j := range s.Jobs {
		out = append(out, j.Name+"="+j.Status)
	}
	return strings.Join(out, " ")
}

// TestSharesOfASplitBatch: three shares of a batch run at once on one
// output folder; the split jobs' slices merge into the images one machine
// renders, byte for byte (the denoised one too); the broken job is
// reported; a second round of shares redoes nothing.
func TestSharesOfASplitBatch(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, splitJobs))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cfg.Units()); n != 9 {
		t.Fatalf("%d units, want 3+1+4+1", n)
	}
	shares := func() []*Summary {
		sums := make([]*Summary, 3)
		var wg sync.WaitGroup
		for i := range sums {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sums[i], _ = (&Runner{Config: cfg, Shard: i, Shards: 3}).Run(context.Background())
			}()
		}
		wg.Wait()
		return sums
	}
	sums := shares()
	units := 0
	for _, s := range sums {
		units += len(s.Units)
	}
	if units != 9 {
		t.Errorf("the shares ran %d units, want 9", units)
	}
	final, err := (&Runner{Config: cfg}).Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := statusOf(final); got != "box=done broken=failed hair=done plain=done" {
		t.Fatalf("after the shares: %s (%+v)", got, final.Jobs)
	}
	for _, job := range []string{"box", "hair"} {
		if _, err := os.Stat(filepath.Join(dir, "out", job, "slices")); err == nil {
			t.Errorf("%s's slices outlived the merge", job)
		}
	}

	// The same jobs, not split, on one machine.
	one := t.TempDir()
	whole, err := Load(writeConfig(t, one, strings.NewReplacer("split: 3", "threads: 2", "split: 4", "threads: 1").Replace(splitJobs)))
	if err != nil {
		t.Fatal(err)
	}
	if sum, _ := (&Runner{Config: whole}).Run(context.Background()); statusOf(sum) != "box=done broken=failed hair=done plain=done" {
		t.Fatalf("one machine: %s", statusOf(sum))
	}
	for _, f := range []string{"box/beauty.exr", "box/beauty.pfm", "box/beauty.png", "hair/beauty.pfm", "hair/beauty.noisy.pfm", "hair/beauty.exr"} {
		a, _ := os.ReadFile(filepath.Join(dir, "out", f))
		b, _ := os.ReadFile(filepath.Join(one, "out", f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: the merged slices (%d bytes) differ from the one-machine render (%d bytes)", f, len(a), len(b))
		}
	}
	// The manifest does not count the split: the one-machine config sees
	// the shares' outputs as its own.
	for _, s := range shares() {
		for _, u := range s.Units {
			if u.Status != Skipped && !strings.HasPrefix(u.Name, "broken") {
				t.Errorf("second round: %s %s", u.Name, u.Status)
			}
		}
	}
}

// TestSliceFromAnotherTracerIsRenderedAgain: a split job whose slices came
// from two tracers (backend auto on a mixed cluster) is not merged; the
// odd slice is rendered again and the job then merges.
func TestSliceFromAnotherTracerIsRenderedAgain(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, "output_dir: out\njobs:\n  - {name: box, scene: SCENES/cornell.glb, res: 16x12, spp: 6, split: 3, outputs: [beauty.pfm]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for shard := range 2 {
		if _, err := (&Runner{Config: cfg, Shard: shard, Shards: 3}).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	odd := filepath.Join(dir, "out", "box", "slices", "1.exr")
	film, info, err := render.ReadSlice(odd)
	if err != nil {
		t.Fatal(err)
	}
	info.Tracer = "cpu (another embree)"
	if err := render.WriteSlice(odd, film, info, render.Display{}); err != nil {
		t.Fatal(err)
	}
	sum, err := (&Runner{Config: cfg, Shard: 2, Shards: 3}).Run(context.Background())
	if err != nil || sum.Jobs[0].Status != Pending || !strings.Contains(sum.Jobs[0].Error, "1 (cpu (another embree))") {
		t.Fatalf("the mixed slices: %v %+v", err, sum.Jobs[0])
	}
	if _, err := os.Stat(odd); err == nil {
		t.Error("the odd slice is still there")
	}
	sum, err = (&Runner{Config: cfg}).Run(context.Background())
	if err != nil || sum.Jobs[0].Status != Done {
		t.Fatalf("after rendering the odd slice again: %v %+v", err, sum.Jobs[0])
	}
}

// TestInterruptionKeepsTheOthersRecords: a run interrupted in one job does
// not mark the jobs after it, already done, as failed in the summary.
func TestInterruptionKeepsTheOthersRecords(t *testing.T) {
	dir := t.TempDir()
	text := "output_dir: out\njobs:\n  - {name: a, scene: SCENES/cornell.glb, res: 40x30, spp: 64, outputs: [beauty.pfm]}\n  - {name: b, scene: SCENES/cornell.glb, res: 8x8, spp: 1, outputs: [beauty.pfm]}\n"
	cfg, _ := Load(writeConfig(t, dir, text))
	if _, err := (&Runner{Config: cfg}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	changed, _ := Load(writeConfig(t, dir, strings.Replace(text, "spp: 64", "spp: 65", 1)))
	sum, err := runUntil(changed, 0.1)
	if err == nil || sum.Units[1].Status != Failed || sum.Jobs[0].Status != Failed || sum.Jobs[1].Status != Done {
		t.Fatalf("%v: units %+v, jobs %s", err, sum.Units, statusOf(sum))
	}
}

// TestBatchReportsSceneWarnings: a job's scene warnings (here an extension
// the loader does not read) reach the batch's log, as sertrace render
// prints them: both run the same job (package job).
func TestBatchReportsSceneWarnings(t *testing.T) {
	dir := t.TempDir()
	var pos bytes.Buffer
	binary.Write(&pos, binary.LittleEndian, []float32{-1, -1, -3, 1, -1, -3, 0, 1, -3})
	gltf := `{"asset":{"version":"2.0"},"extensionsUsed":["EXT_made_up"],"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[-1,-1,-3],"max":[1,1,-3]}],
"bufferViews":[{"buffer":0,"byteLength":36}],
"buffers":[{"byteLength":36,"uri":"data:application/octet-stream;base64,` + base64.StdEncoding.EncodeToString(pos.Bytes()) + `"}]}`
	if err := os.WriteFile(filepath.Join(dir, "tri.gltf"), []byte(gltf), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(writeConfig(t, dir, "output_dir: out\ndefaults: {res: 8x6, spp: 1}\njobs:\n  - name: tri\n    scene: tri.gltf\n"))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	sum, err := (&Runner{Config: cfg, Log: &log}).Run(context.Background())
	if err != nil || sum.Jobs[0].Status != Done {
		t.Fatalf("%v %+v", err, sum)
	}
	if !strings.Contains(log.String(), "tri: warning: ") || !strings.Contains(log.String(), "extension EXT_made_up is not supported") {
		t.Errorf("the scene's warning is not in the log:\n%s", log.String())
	}
}

// FuzzLoadConfig feeds Load arbitrary YAML: a config, or one line of error
// naming the file; never a panic or a hang (anchors that expand without
// bound included). Seeds: the example config and every erroneous one of
// TestConfigErrors' kinds.
//
//	go test ./batch -run '^$' -fuzz FuzzLoadConfig -fuzztime 5m
func FuzzLoadConfig(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "configs", "batch-example.yaml")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		"output_dir: out\njobs:\n  - {name: a, scene: x.glb, spp: 4, split: 2}\n",
		"defaults:\n  spp: 2\n  env_color: [1, 2]\njobs:\n  - {name: a, scene: x.glb}\n",
		"jobs:\n  - name: \"a\\nb\"\n    scene: x.glb\n",
		"a: &a [*a]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.yaml")
		os.WriteFile(path, data, 0o644)
		if _, err := Load(path); err != nil && (!strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n")) {
			t.Fatalf("not one line naming the file: %q", err)
		}
	})
}

// TestJobErrorNamesItOnce: a job whose settings do not fit its scene
// fails naming the job once, then the problem.
func TestJobErrorNamesItOnce(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, `
output_dir: out
jobs:
  - name: poster
    scene: SCENES/cornell.glb
    res: 16x16
    spp: 1
    camera: "7"
`))
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := (&Runner{Config: cfg}).Run(context.Background())
	if e := sum.Jobs[0].Error; !strings.HasPrefix(e, "poster: ") || strings.Contains(e, "poster: poster") || !strings.Contains(e, "camera 7 does not exist") {
		t.Errorf("the failed job says %q", e)
	}
}

// TestJobOverItsMemoryFails: a job whose render would pass its memory
// budget fails before it starts, saying what it needs; the others render.
func TestJobOverItsMemoryFails(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, `
output_dir: out
jobs:
  - name: poster
    scene: SCENES/cornell.glb
    res: 2000x1000
    spp: 1
    memory_budget: 64M
  - name: small
    scene: SCENES/cornell.glb
    res: 16x16
    spp: 1
    memory_budget: 64M
`))
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := (&Runner{Config: cfg}).Run(context.Background())
	if got := statusOf(sum); got != "poster=failed small=done" {
		t.Fatalf("statuses: %s", got)
	}
	if e := sum.Jobs[0].Error; !strings.Contains(e, "poster: a 2000x1000 render of the beauty needs about") || !strings.Contains(e, "memory budget of 64 MB (--memory-budget)") {
		t.Errorf("the failed job says %q", e)
	}
}

// TestCheckpointNotUsedIsSaid: a checkpoint the job cannot continue (of
// other settings, or one that does not read: damaged, or an older
// sertrace's form) is named in the log as the job starts over, never
// passed over in silence.
func TestCheckpointNotUsedIsSaid(t *testing.T) {
	dir := t.TempDir()
	text := boxJob
	cfg, err := Load(writeConfig(t, dir, text))
	if err != nil {
		t.Fatal(err)
	}
	cpPath := filepath.Join(dir, "out", "box", "checkpoint.gob")
	interrupt := func(cfg *Config) {
		runUntil(cfg, 0.2)
		if _, err := os.Stat(cpPath); err != nil {
			t.Fatalf("no checkpoint: %v", err)
		}
	}
	for _, c := range []struct {
		name, text, want string
		damage           bool
	}{
		{"other settings", strings.Replace(text, "spp: 16", "spp: 12", 1), "is of other settings, scene files or sertrace build: starting over", false},
		{"not a checkpoint", text, "checkpoint.gob does not read (written by an older sertrace in another form, or not a checkpoint): starting over", true},
		{"one bit flipped", text, "checkpoint.gob is damaged: its checksum does not match what it holds: starting over", true},
	} {
		interrupt(cfg)
		if c.damage {
			b, _ := os.ReadFile(cpPath)
			if c.name == "not a checkpoint" {
				b = []byte("not a checkpoint")
			} else {
				b[len(b)-100] ^= 4 // in the film's sums: before checksums, it decoded as a value
			}
			os.WriteFile(cpPath, b, 0o644)
		}
		again, err := Load(writeConfig(t, dir, c.text))
		if err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		sum, err := (&Runner{Config: again, Log: &log}).Run(context.Background())
		if err != nil || sum.Jobs[0].Status != Done {
			t.Fatalf("%s: %v %+v", c.name, err, sum.Jobs[0])
		}
		if !strings.Contains(log.String(), c.want) {
			t.Errorf("%s: the log does not say %q:\n%s", c.name, c.want, log.String())
		}
		os.RemoveAll(filepath.Join(dir, "out"))
	}
}

// runUntil runs cfg's batch and interrupts it (as Ctrl-C does) once its
// progress passes done.
func runUntil(cfg *Config, done float64) (*Summary, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return (&Runner{Config: cfg, Tick: func(d float64) {
		if d > done {
			cancel()
		}
	}}).Run(ctx)
}

// TestBackendChoiceSaidOnce: which backend auto picks, and why, is said for
// the first job of a run, not again for each.
func TestBackendChoiceSaidOnce(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Load(writeConfig(t, dir, `
output_dir: out
defaults:
  res: 16x12
  spp: 1
  max_depth: 2
jobs:
  - name: a
    scene: SCENES/cornell.glb
  - name: b
    scene: SCENES/cornell.glb
    seed: 2
`))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	sum, err := (&Runner{Config: cfg, Log: &log}).Run(context.Background())
	if err != nil || statusOf(sum) != "a=done b=done" {
		t.Fatalf("%v, %s:\n%s", err, statusOf(sum), log.String())
	}
	if n := strings.Count(log.String(), "backend auto:"); n != 1 {
		t.Errorf("the backend's choice said %d times:\n%s", n, log.String())
	}
}
