package batch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// manyJobs is a config of n jobs as a sequence's shots are written: a few
// keys each over shared defaults.
func manyJobs(n int) string {
	var b strings.Builder
	b.WriteString("output_dir: out\ndefaults:\n  res: 1920x1080\n  spp: 256\n  outputs: [beauty.exr, beauty.png]\n  tonemap: agx\njobs:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: shot%05d\n    scene: ../scenes/seq/shot%05d.glb\n    camera: cam_main\n    spp: %d\n"+
			"    env_color: [0.2, 0.3, 0.4]\n    outputs: [beauty.exr, albedo.png, normal.png]\n    denoise: true\n", i, i, 64+i%100)
	}
	return b.String()
}

// padded is text with a comment before it that makes it size bytes long.
func padded(text string, size int) string {
	return "#" + strings.Repeat("x", size-len(text)-2) + "\n" + text
}

// TestConfigSizeLimit: a config over MaxConfigBytes is refused in one
// line, from its size before it is read; one of MaxConfigBytes loads; a
// pipe is read no further than the limit.
func TestConfigSizeLimit(t *testing.T) {
	dir := t.TempDir()
	const small = "jobs:\n  - {name: a, scene: x.glb}\n"
	path := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(path, []byte(padded(small, MaxConfigBytes)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Errorf("a config of MaxConfigBytes: %v", err)
	}
	os.WriteFile(path, []byte(padded(small, MaxConfigBytes+1)), 0o644)
	if _, err := Load(path); err == nil || err.Error() != "config "+path+": 4.1 MB is over the 4 MB a config may hold" {
		t.Errorf("a byte over: %v", err)
	}
	// 50 MB of nothing (a sparse file): refused from its size at once.
	if err := os.Truncate(path, 50<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || err.Error() != "config "+path+": 50 MB is over the 4 MB a config may hold" {
		t.Errorf("50 MB: %v", err)
	}

	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no fifo:", err)
	}
	written := make(chan int)
	go func() {
		n := 0
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			line := []byte(strings.Repeat("    - x\n", 8192))
			for n < 64<<20 {
				m, err := w.Write(line)
				n += m
				if err != nil {
					break
				}
			}
			w.Close()
		}
		written <- n
	}()
	_, err := Load(fifo)
	if err == nil || err.Error() != "config "+fifo+": it goes on past the 4 MB a config may hold" {
		t.Errorf("a pipe: %v", err)
	}
	if n := <-written; n >= 64<<20 {
		t.Errorf("the pipe was read to its end, %d bytes", n)
	}
}

// TestTenThousandJobsLoad: a config of 10,000 jobs is well within the
// limit (BenchmarkLoad10000Jobs times it).
func TestTenThousandJobsLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("1 s")
	}
	text := manyJobs(10000)
	if len(text) > MaxConfigBytes/2 {
		t.Errorf("10,000 jobs take %d bytes, over half the limit", len(text))
	}
	cfg, err := Load(writeConfig(t, t.TempDir(), text))
	if err != nil || len(cfg.Jobs) != 10000 || cfg.Jobs[9999].Name != "shot09999" || cfg.Jobs[9999].ToneMap != "agx" {
		t.Fatalf("%v", err)
	}
}

// BenchmarkLoad10000Jobs: a config of 10,000 jobs, 1.9 MB.
func BenchmarkLoad10000Jobs(b *testing.B) {
	path := filepath.Join(b.TempDir(), "shots.yaml")
	if err := os.WriteFile(path, []byte(manyJobs(10000)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(path); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLargeMappingRefused: a mapping of more keys than any config has use
// for is refused at once, not after the minutes that the YAML decoder's
// comparing its keys pair by pair would take.
func TestLargeMappingRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("jobs:\n  - name: a\n    scene: x.glb\n    env_color:\n")
	for i := range 200000 {
		fmt.Fprintf(&b, "      k%07d: 1\n", i)
	}
	err := loadWithin(t, writeConfig(t, t.TempDir(), b.String()))
	if err == nil || !strings.HasSuffix(err.Error(), ": line 5: a mapping of 200000 keys; a config's mappings hold at most 256") {
		t.Errorf("%v", err)
	}
}

// loadWithin is Load's error, failing the test where Load hangs (what it
// refuses takes a fraction of a second; speed is BenchmarkLoad10000Jobs',
// not a test's).
func loadWithin(t *testing.T, path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Load(path)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		t.Fatalf("Load hangs on %s", path)
		return nil
	}
}

// TestMergeKeysAndAliases: YAML's merge key (<<) and aliases give a job
// the values the decoder resolves: its own first, then its merges' in
// order, over the defaults.
func TestMergeKeysAndAliases(t *testing.T) {
	cfg, err := Load(writeConfig(t, t.TempDir(), `
output_dir: out
defaults: &d
  spp: 16
  tonemap: agx
jobs:
  - &base {name: a, scene: a.glb, spp: 4, res: 64x48}
  - {<<: *base, name: b, spp: 8}
  - <<: [{exposure: 1.5, spp: 2}, *base]
    name: c
  - <<: *d
    name: d
    scene: d.glb
  - name: e
    scene: e.glb
    <<: &lens {aperture_radius: 0.5, focus_distance: 3, <<: {seed: 7, focus_distance: 9}}
  - {<<: [*lens, *base], name: f, aperture_radius: 0.25}
`))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		scene, res, tonemap string
		spp                 int
		exposure, aperture  float32
		focus               float32
		seed                uint32
	}
	wants := map[string]want{
		"a": {"a.glb", "64x48", "agx", 4, 0, -1, -1, 0},
		"b": {"a.glb", "64x48", "agx", 8, 0, -1, -1, 0},
		"c": {"a.glb", "64x48", "agx", 2, 1.5, -1, -1, 0},
		"d": {"d.glb", "", "agx", 16, 0, -1, -1, 0},
		"e": {"e.glb", "", "agx", 16, 0, 0.5, 3, 7},
		"f": {"a.glb", "64x48", "agx", 4, 0, 0.25, 3, 7},
	}
	if len(cfg.Jobs) != len(wants) {
		t.Fatalf("%d jobs, want %d", len(cfg.Jobs), len(wants))
	}
	for _, j := range cfg.Jobs {
		got := want{j.Scene, j.Res, j.ToneMap, j.SPP, j.Exposure, j.ApertureRadius, j.FocusDistance, j.Seed}
		if got != wants[j.Name] {
			t.Errorf("job %s: %+v, want %+v", j.Name, got, wants[j.Name])
		}
	}
}

// TestMergeErrors: keys are checked in the mappings that merge keys and
// aliases name, with their lines, as a job's (a mapping anchored under
// slurm is not a job's); what the decoder cannot merge is named.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"jobs:\n  - name: a\n    scene: x.glb\n    <<:\n      spx: 4\n", `: line 5 (jobs[0]): unknown key "spx"; did you mean "spp"?`},
		// The mapping anchored in a value of jobs[0] is checked where it is merged.
		{"jobs:\n  - name: a\n    scene: x.glb\n    env_color: &m\n      tonemap: agx\n      spx: 1\n  - name: b\n    scene: y.glb\n    <<: *m\n",
			`: line 6 (jobs[1]): unknown key "spx"; did you mean "spp"?`},
		{"slurm: &s {partition: gpu}\njobs:\n  - {<<: *s, name: a, scene: x.glb}\n", `: line 1 (jobs[0]): unknown key "partition"; did you mean`},
		{"jobs:\n  - {name: a, scene: x.glb, <<: 4}\n", `: line 2 (jobs[0]): << merges a mapping or a list of them (<<: *base, <<: [*a, *b]), not a value`},
		{"jobs:\n  - {name: a, scene: x.glb, outputs: &l [beauty.png]}\n  - {name: b, scene: x.glb, <<: *l}\n", `: line 3 (jobs[1]): << merges a mapping or a list of them (<<: *base, <<: [*a, *b]), not *l, a list`},
		{"jobs:\n  - {name: a, scene: x.glb, <<: [{spp: 2}, [x]]}\n", `: line 2 (jobs[0]): << merges a mapping or a list of them (<<: *base, <<: [*a, *b]), not a list`},
		{"<<: {output_dir: out}\njobs:\n  - {name: a, scene: x.glb}\n", `: line 1: << merges into the defaults, a job or slurm, not the config's top level`},
		{"defaults: {<<: {spx: 1}}\njobs:\n  - {name: a, scene: x.glb}\n", `: line 1 (defaults): unknown key "spx"`},
		// An alias as a key is its anchor's value.
		{"jobs:\n  - {name: &k foo, scene: x.glb, *k : 1}\n", `: line 2 (jobs[0]): unknown key "foo"`},
		{"jobs:\n  - &a {name: a, scene: x.glb, <<: *a}\n", "anchor 'a' value contains itself"},
		{"jobs:\n  - {name: a, scene: x.glb, <<: {spp: 4}, <<: {spp: 5}}\n", `mapping key "<<" already defined`},
		// A value's line is where the merged mapping or the alias has it.
		{"jobs:\n  - name: b\n    scene: x.glb\n    <<:\n      spp: many\n", `: line 5 (jobs[0]): spp: "many" is not a whole number`},
		{"jobs:\n  - name: a\n    scene: x.glb\n    <<: &d\n      max_depth: deep\ndefaults: *d\n", `: line 5 (defaults): max_depth: "deep" is not a whole number`},
	} {
		_, err := Load(writeConfig(t, dir, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

// TestYAMLBombs: anchors that expand without bound, in values or through
// merge keys, are refused at once.
func TestYAMLBombs(t *testing.T) {
	dir := t.TempDir()
	// A billion laughs: nine lists, each of ten of the one before.
	var b strings.Builder
	b.WriteString("jobs:\n  - name: a\n    scene: x.glb\n    camera: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i, key := range []string{"variant", "res", "backend", "path", "reorder", "env", "tonemap", "filter"} {
		fmt.Fprintf(&b, "    %s: &l%d [%s]\n", key, i+1, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i), 10), ", "))
	}
	// Merges: each job's mapping merges the one before ten times.
	var m strings.Builder
	m.WriteString("jobs:\n  - {name: j0, scene: x.glb, <<: &m0 {spp: 1}}\n")
	for i := 1; i < 12; i++ {
		fmt.Fprintf(&m, "  - {name: j%d, scene: x.glb, <<: &m%d {<<: [%s]}}\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*m%d, ", i-1), 10), ", "))
	}
	for _, text := range []string{b.String(), m.String()} {
		err := loadWithin(t, writeConfig(t, dir, text))
		if err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
			t.Errorf("%s: %v", text, err)
		}
	}
}

// TestEveryJobCheckedAtLoad: a value that no scene makes right, in a
// later job, is refused by Load, before the first job renders, with the
// job's name and the line of the key in the job, in a mapping it merges
// or in the defaults it takes the value from.
func TestEveryJobCheckedAtLoad(t *testing.T) {
	dir := t.TempDir()
	const text = "output_dir: out\ndefaults:\n  res: 64x48\n  spp: 16\njobs:\n  - {name: first, scene: x.glb}\n  - name: later\n    scene: x.glb\n    "
	for _, c := range []struct{ bad, want string }{
		{"res: 1920x108O", `"1920x108O" is not WxH`},
		{"res: 70000x10", "70000x10 is outside 1..65536 pixels a side and 1073741824 pixels in all"},
		{"res: 99999999999x99999999999", "99999999999x99999999999 is outside 1..65536 pixels a side"},
		{"res: 8192x8192", "8192x8192 is over the 33554432 pixels that a batch job's checkpoint holds; render it whole with sertrace render"},
		{"tonemap: agxx", `unknown tone map "agxx" (linear, filmic, aces, agx)`},
		{"spp: -4", "-4 is outside 1..16777216"},
		{"spp: 0\n    split: 2", "0 is outside 1..16777216"},
		{"max_depth: 0", "0 is outside 1..1024"},
		{"memory_budget: 8 gigs", `"8 gigs" is not a size (such as 8G, 512M or a number of bytes)`},
		{"memory_budget: 0", `"0" is not a size`},
		{"outputs: [beauty.exr, beauty.exrr]", `output "beauty.exrr": the format must be .exr, .pfm or .png`},
		{"outputs: [beuaty.png]", `output "beuaty.png": unknown output "beuaty"`},
		{"outputs: []", "no outputs"},
		{"filter: lanczos", `unknown pixel filter "lanczos"`},
		{"reorder: bogus", `unknown reorder scheme "bogus"`},
		{"backend: optix", `unknown backend "optix"`},
		{"accel: optix", `unknown tracer "optix"`},
		{"path: dxr", `unknown path "dxr"`},
		{"env_color: \"1,2\"", `"1,2" is not R,G,B or one value`},
		{"exr_precision: double", `"double": float or half`},
		{"time_budget: -1", "-1 must be finite seconds, not negative"},
		{"exposure: .nan", "NaN must be a finite number of stops"},
		{"aperture_radius: -2", "-2 must be 0 (a pinhole) or more"},
		{"focus_distance: .inf", "+Inf must be a finite distance"},
		{"env_intensity: -1", "environment intensity -1 must be finite and not negative"},
		{"env_rotation: .inf", "environment rotation +Inf is not a finite angle"},
		{"samples: x", `"x": want FIRST:COUNT`},
		{"noise_threshold: -0.01", "noise threshold -0.01 must be 0 (off) or a positive error"},
		{"min_spp: 16", "min spp 16 is the samples before a pixel may stop: it needs a noise threshold"},
		{"noise_threshold: 0.01", "noise threshold 0.01: pixels are first checked after 64 samples (the min spp), and the spp is 16: none could stop"},
		{"noise_threshold: 2e6", "noise threshold 2e+06 is over 1e+06"},
	} {
		key, _, _ := strings.Cut(c.bad, ":")
		want := `: line 9 (job "later"): ` + key + ": " + c.want
		_, err := Load(writeConfig(t, dir, text+c.bad+"\n"))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want %q", c.bad, err, want)
		}
	}
	for _, c := range []struct{ text, want string }{
		// In a mapping the job merges.
		{text + "<<:\n      spp: -1\n", `: line 10 (merged into job "later"): spp: -1 is outside 1..16777216`},
		// In the defaults, which are checked on their own first...
		{"defaults:\n  spp: 4\n  tonemap: agxx\njobs:\n  - {name: a, scene: x.glb}\n", `: line 3 (defaults): tonemap: unknown tone map "agxx"`},
		{"defaults:\n  memory_budget: lots\njobs:\n  - {name: a, scene: x.glb}\n", `: line 2 (defaults): memory_budget: "lots" is not a size`},
		// ... and where a job makes the defaults' value wrong.
		{"defaults:\n  path: ser\njobs:\n  - {name: a, scene: x.glb}\n  - {name: b, scene: x.glb, backend: cpu}\n",
			`: line 2 (defaults, for job "b"): path: "ser" is a path of the vulkan backend, not of cpu`},
		// The spp is checked before the split that is measured by it.
		{"jobs:\n  - {name: a, scene: x.glb, spp: -4, split: 2}\n", `: line 2 (job "a"): spp: -4 is outside`},
	} {
		_, err := Load(writeConfig(t, dir, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	// A memory budget that is a size loads.
	if _, err := Load(writeConfig(t, dir, text+"memory_budget: 8G\n")); err != nil {
		t.Error(err)
	}
}

// TestLongValuesCut: a message that quotes a value, a key, a name or an
// anchor of a megabyte shows its first 60 characters and its length.
func TestLongValuesCut(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 1<<20)
	list := "[" + strings.TrimSuffix(strings.Repeat("1, ", 200000), ", ") + "]"
	for _, c := range []struct{ text, want string }{
		// A key over 1024 characters is written as an explicit key (?).
		{"jobs:\n  - name: a\n    scene: x.glb\n    ? " + long + "\n    : 1\n", `: line 4 (jobs[0]): unknown key "xxxx`},
		{"? outptu_dir_" + long + "\n: out\njobs: []\n", `: line 1: unknown key "outptu_dir_xxx`},
		{"jobs:\n  - {name: a, scene: x.glb, spp: " + long + "}\n", `: line 2 (jobs[0]): spp: "xxxx`},
		{"jobs:\n  - {name: a, scene: x.glb, reorder_hint: " + list + "}\n", `: line 2 (jobs[0]): reorder_hint: [1 1 1 `},
		{"slurm: {partition: " + list + "}\njobs:\n  - {name: a, scene: x.glb}\n", `: slurm: [1 1 1 `},
		{"jobs:\n  - {name: a, scene: x.glb, env_color: [1, " + long + ", 1]}\n", `: line 2 (jobs[0]): env_color: "xxxx`},
		{"jobs:\n  - name: a\n    scene: x.glb\n    env_color:\n      ? " + long + "\n      : 1\n", `: line 4 (jobs[0]): env_color: map[xxxx`},
		{"jobs:\n  - name: a\n    scene: x.glb\n    env_color:\n      ? " + long + "\n      : 1\n      ? " + long + "\n      : 2\n", `mapping key "xxxx`},
		{"jobs:\n  - {name: " + long + ", scene: x.glb}\n", `: job name "xxxx`},
		{"jobs:\n  - {name: \"a\\n" + long + "\", scene: x.glb}\n", `: job name "a\nxxx`},
		{"jobs:\n  - {name: " + long[:200] + "}\n", `: job "xxxx`},
		{"jobs:\n  - {name: " + long[:200] + ", scene: x.glb, spp: 2, split: 5}\n", `: job "xxxx`},
		{"jobs:\n  - {name: " + long[:200] + ", scene: x.glb, tonemap: agxx}\n", `: line 2 (job "xxxx`},
		{"jobs:\n  - {name: a, scene: x.glb, tonemap: " + long + "}\n", `: line 2 (job "a"): tonemap: unknown tone map "xxxx`},
		{"jobs:\n  - {name: a, scene: x.glb, res: " + long + "}\n", `: line 2 (job "a"): res: "xxxx`},
		{"jobs:\n  - {name: a, scene: x.glb, memory_budget: " + long + "}\n", `: line 2 (job "a"): memory_budget: "xxxx`},
		{"jobs:\n  - {name: a, scene: x.glb, outputs: [" + long + ".png]}\n", `: line 2 (job "a"): outputs: output "xxxx`},
		{"jobs:\n  - {name: a, scene: x.glb, outputs: &" + long + " [a.png]}\n  - {name: b, scene: x.glb, <<: *" + long + "}\n", `not *xxxx`},
		{"jobs:\n  - {name: a, scene: x.glb, <<: *" + long + "}\n", `unknown anchor 'xxxx`},
	} {
		_, err := Load(writeConfig(t, dir, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "…") ||
			len(err.Error()) > 500 || strings.Contains(err.Error(), "\n") {
			msg := fmt.Sprint(err)
			t.Errorf("%.80q: error of %d bytes %.600s, want %q and the value cut", c.text, len(msg), msg, c.want)
		}
	}
}

// TestCutMessage: only long quoted values are cut in another package's
// message; prose, short values and stray quotes stay as they are.
func TestCutMessage(t *testing.T) {
	long := strings.Repeat("y", 100)
	for _, c := range []struct{ in, want string }{
		{`-2 must be 0, or -1 for the camera's own; the scene's lens`, `-2 must be 0, or -1 for the camera's own; the scene's lens`},
		{`did not find expected ',' or '}'`, `did not find expected ',' or '}'`},
		{`unknown tone map "agxx" (linear)`, `unknown tone map "agxx" (linear)`},
		{`a "quote\" that" and "one unended`, `a "quote\" that" and "one unended`},
		{`map "` + long + `" (x)`, `map "` + long[:60] + `"… (100 bytes) (x)`},
		{`anchor '` + long + `' value`, `anchor '` + long[:60] + `… (100 bytes)' value`},
		{"two\n  lines", "two lines"},
		{strings.Repeat("z", 500), strings.Repeat("z", 400) + "… (500 bytes)"},
	} {
		if got := cutMessage(c.in); got != c.want {
			t.Errorf("cutMessage(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLongJobName: a job name longer than a folder's name may be is
// refused by Load, not by mkdir at the job's turn.
func TestLongJobName(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("é", 128) // 256 bytes
	_, err := Load(writeConfig(t, dir, "jobs:\n  - {name: a, scene: x.glb}\n  - {name: "+name+", scene: x.glb}\n"))
	if err == nil || !strings.HasSuffix(err.Error(), `: job name "`+strings.Repeat("é", 60)+`"… (256 bytes) is longer than the 255 bytes a folder name may be`) {
		t.Errorf("%v", err)
	}
	if _, err := Load(writeConfig(t, dir, "jobs:\n  - {name: "+name[:254]+"a, scene: x.glb}\n")); err != nil {
		t.Errorf("255 bytes: %v", err)
	}
}
