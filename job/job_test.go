package job

import (
	"math"
	"runtime/debug"
	"testing"

	"sertrace/render"
	"sertrace/render/cpu"
)

// TestBudgetNeverRaisesGOMEMLIMIT: a job's memory budget becomes the Go
// collector's limit, unless the process was given a lower one (GOMEMLIMIT),
// and one job's budget does not carry over to the next.
func TestBudgetNeverRaisesGOMEMLIMIT(t *testing.T) {
	defer func(was int64) { processMemoryLimit = was; debug.SetMemoryLimit(was) }(processMemoryLimit)
	j := &Job{Options: render.Options{Width: 64, Height: 64, SPP: 1, MaxDepth: 1}, Backend: cpu.Backend{}}
	for _, c := range []struct {
		process int64
		budget  string
		want    int64
	}{
		{math.MaxInt64, "8G", 8 << 30},
		{math.MaxInt64, "16G", 16 << 30}, // not the last job's 8G
		{1 << 30, "8G", 1 << 30},         // GOMEMLIMIT=1GiB stays
		{32 << 30, "8G", 8 << 30},
	} {
		processMemoryLimit = c.process
		if _, err := j.Layers(nil, false, c.budget); err != nil {
			t.Fatal(err)
		}
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("process limit %d, budget %s: the collector's limit is %d, want %d", c.process, c.budget, got, c.want)
		}
	}
}
