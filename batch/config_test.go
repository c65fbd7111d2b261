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
	start := time.Now()
	if _, err := Load(path); err == nil || err.Error() != "config "+path+": 50 MB is over the 4 MB a config may hold" {
		t.Errorf("50 MB: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("50 MB refused in %v", d)
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
		t.Skip("2 s")
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
	err := loadWithin(t, writeConfig(t, t.TempDir(), b.String()), 5*time.Second)
	if err == nil || !strings.HasSuffix(err.Error(), ": line 5: a mapping of 200000 keys; a config's mappings hold at most 256") {
		t.Errorf("%v", err)
	}
}

// loadWithin is Load's error, failing the test at once where Load takes
// longer than d.
func loadWithin(t *testing.T, path string, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Load(path)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("Load takes over %v", d)
		return nil
	}
}
