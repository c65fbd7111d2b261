package cpu

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAssemblyIsAllVEX holds every hand-written amd64 kernel in the module
// to VEX-encoded vector instructions: a legacy-SSE instruction (MOVL AX,
// X10 assembles to one) executed while the upper halves of the YMM
// registers are dirty costs Intel cores a state transition each time,
// which once made the BVH's traversal 4× slower on a Xeon than its own
// kernels' VEX version.
func TestAssemblyIsAllVEX(t *testing.T) {
	vector := regexp.MustCompile(`\b[XYZ]\d+\b`)
	var files int
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_amd64.s") {
			return nil
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			code, _, _ := strings.Cut(line, "//")
			fields := strings.Fields(strings.TrimSuffix(strings.TrimSpace(code), "\\"))
			if len(fields) < 2 || strings.HasPrefix(fields[0], "#") || strings.HasSuffix(fields[0], ":") {
				continue
			}
			op := fields[0]
			if vector.MatchString(strings.Join(fields[1:], " ")) && !strings.HasPrefix(op, "V") && !strings.Contains(op, "(") {
				t.Errorf("%s:%d: %s is not VEX-encoded: %s", path, i+1, op, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 2 {
		t.Fatalf("found %d amd64 assembly files, expected the traversal's and the denoiser's", files)
	}
}
