package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// jsonLines parses --progress json's output, failing on a line that is
// not one JSON object.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// A render with --progress json tells its passes, its previews and its
// end as JSON lines on stdout, and the preview is the image of the
// samples it says: byte for byte a render of that many samples.
func TestProgressJSONAndPreview(t *testing.T) {
	dir := t.TempDir()
	out, preview := filepath.Join(dir, "c.pfm"), filepath.Join(dir, "so-far.pfm")
	common := []string{"../scenes/cornell.glb", "--res", "32x24", "--backend", "cpu"}
	code, stdout, errs := runCLI(t, append([]string{"render", "-o", out, "--spp", "8", "--progress", "json", "--preview", preview, "--preview-every", "0"}, common...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(errs, "progress") || strings.Contains(errs, "{") {
		t.Errorf("progress on stderr with --progress json: %s", errs)
	}
	lines := jsonLines(t, stdout)
	var passes, previews []float64
	done := 0.0
	for _, l := range lines {
		if d, ok := l["done"].(float64); ok {
			if d < done {
				t.Errorf("done went back from %v to %v", done, d)
			}
			done = d
		}
		switch l["event"] {
		case "pass":
			passes = append(passes, l["samples"].(float64))
			if _, ok := l["left"]; !ok || l["spp"] != 8.0 {
				t.Errorf("a pass line without the time left or the spp: %v", l)
			}
		case "preview":
			previews = append(previews, l["samples"].(float64))
			if l["path"] != preview {
				t.Errorf("preview line names %v, not %s", l["path"], preview)
			}
		}
	}
	// Passes of 1, 2 and 4 samples, then the last of 1 (which the done line tells).
	if got := len(passes); got != 3 || passes[0] != 1 || passes[2] != 7 {
		t.Errorf("pass lines tell samples %v, want 1, 3, 7", passes)
	}
	if len(previews) != 3 || previews[2] != 7 {
		t.Errorf("preview lines tell samples %v, want one after each pass but the last", previews)
	}
	last := lines[len(lines)-1]
	if last["event"] != "done" || done != 1 || !strings.Contains(strings.Join(anyStrings(last["files"]), " "), out) {
		t.Errorf("the last line is %v (done %v), not the done line naming %s", last, done, out)
	}
	seven := filepath.Join(dir, "seven.pfm")
	if code, _, errs := runCLI(t, append([]string{"render", "-o", seven, "--spp", "7"}, common...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	a, errA := os.ReadFile(preview)
	b, errB := os.ReadFile(seven)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("the preview after 7 samples is not the 7-sample image (%v, %v)", errA, errB)
	}

	// A failure is a line too, and stays on stderr.
	code, stdout, errs = runCLI(t, "render", filepath.Join(dir, "missing.glb"), "-o", out, "--progress", "json")
	lines = jsonLines(t, stdout)
	if code != 1 || lines[len(lines)-1]["event"] != "error" || !strings.Contains(lines[len(lines)-1]["message"].(string), "missing.glb") || !strings.Contains(errs, "missing.glb") {
		t.Errorf("a missing scene: exit %d, stdout %s, stderr %s", code, stdout, errs)
	}
	for _, bad := range [][]string{{"--progress", "xml"}, {"--preview", filepath.Join(dir, "p.jpg")}, {"--preview", out}} {
		if code, _, errs := runCLI(t, append(append([]string{"render", "-o", out}, common...), bad...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", bad, code, errs)
		}
	}
}

func anyStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, s := range list {
		if str, ok := s.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

// A batch with --progress json tells each unit as it begins, its
// progress, and the summary's files and counts; a failed job is counted
// there, and the run's failure is the last line.
func TestBatchProgressJSON(t *testing.T) {
	dir := t.TempDir()
	scenes, _ := filepath.Abs("../scenes")
	cfg := filepath.Join(dir, "b.yaml")
	os.WriteFile(cfg, []byte("output_dir: out\ndefaults: {res: 16x12, spp: 2}\njobs:\n  - {name: one, scene: "+scenes+"/cornell.glb}\n  - {name: bad, scene: nosuch.glb}\n  - {name: two, scene: "+scenes+"/cornell.glb, seed: 3}\n"), 0o644)
	code, stdout, errs := runCLI(t, "batch", cfg, "--progress", "json")
	if code != 1 || !strings.Contains(errs, "1 of 3 jobs failed") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var units []string
	var done map[string]any
	lines := jsonLines(t, stdout)
	for _, l := range lines {
		switch l["event"] {
		case "unit":
			units = append(units, l["name"].(string))
			if l["units"] != 3.0 {
				t.Errorf("unit line %v: units not 3", l)
			}
		case "done":
			done = l
		}
	}
	if strings.Join(units, " ") != "one bad two" {
		t.Errorf("unit lines name %v, want one bad two", units)
	}
	if done == nil || done["jobs"] != 3.0 || done["failed"] != 1.0 || !strings.Contains(strings.Join(anyStrings(done["files"]), " "), "summary.json") {
		t.Errorf("done line %v", done)
	}
	if last := lines[len(lines)-1]; last["event"] != "error" || !strings.Contains(last["message"].(string), "1 of 3 jobs failed") {
		t.Errorf("the last line is %v, not the failure", last)
	}
}

// TestTimeLeftIsThisRunsPace: the time left is reckoned from the work this
// run did and the time it took, not from a resumed checkpoint's samples
// (or the units before), and is said in the log lines once there is a
// second's pace.
func TestTimeLeftIsThisRunsPace(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		from, done float64
		took       time.Duration
		want       float64
		ok         bool
	}{
		{0, 0.25, 10 * time.Second, 30, true},
		{0.5, 0.75, 10 * time.Second, 10, true}, // resumed at half: 10 s did a quarter
		{0.5, 0.5, 10 * time.Second, 0, false},  // no work yet
		{0.2, 0.3, 500 * time.Millisecond, 0, false},
		{0.2, 1, 5 * time.Second, 0, true},
	} {
		p := &progressBar{from: c.from, fromAt: now.Add(-c.took), paced: true, done: c.done}
		got, ok := p.timeLeft(now, time.Second)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("from %v to %v in %v: %v left (%v), want %v (%v)", c.from, c.done, c.took, got, ok, c.want, c.ok)
		}
	}
	for left, want := range map[float64]string{12.2: "13 s left", 75: "1 min 15 s left", 7384: "2 h 03 min left"} {
		if got := leftText(left); got != want {
			t.Errorf("leftText(%v) = %q, want %q", left, got, want)
		}
	}
	var log strings.Builder
	p := newProgressBar(&log)
	p.update(0.1)
	p.fromAt, p.last = p.fromAt.Add(-20*time.Second), p.last.Add(-20*time.Second)
	p.update(0.5)
	// 0.4 done in 20 s: 0.5 more takes 25 s.
	if !strings.Contains(log.String(), "progress: 50.0% after") || !strings.Contains(log.String(), ", 25 s left") && !strings.Contains(log.String(), ", 26 s left") {
		t.Errorf("the log line does not say the time left: %q", log.String())
	}
}
