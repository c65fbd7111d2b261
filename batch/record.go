package batch

import (
	"encoding/json"
	"os"
	"path/filepath"

	"sertrace/atomicfile"
)

// Job statuses in summary.json.
const (
	Done    = "done"
	Skipped = "skipped" // its outputs were up to date
	Failed  = "failed"
	Pending = "pending" // not rendered yet: another share's, or a split job with slices to go
	Busy    = "busy"    // another process holds it (a unit's status in this run only)
)

// JobResult is one job's line in summary.json.
type JobResult struct {
	Name    string    `json:"name"`
	Status  string    `json:"status"`
	Error   string    `json:"error,omitempty"`
	Seconds float64   `json:"seconds"`
	Outputs []string  `json:"outputs"`
	Samples int       `json:"samples_per_pixel,omitempty"`
	Where   string    `json:"where,omitempty"` // the host (and Slurm job and task) that last worked on it
	Job     JobConfig `json:"settings"`
	// Thumbnail says the job's folder has its thumb.png (a job rendered
	// in bands has none), for the contact sheet.
	Thumbnail bool `json:"-"`
}

// record writes a unit's result where the summary reads it: a whole job's
// in its status.json (a split job's is settle's, from its slices').
func (r *Runner) record(outDir string, u Unit, res UnitResult) {
	job := r.Config.Jobs[u.Job]
	dir := filepath.Join(outDir, job.Name)
	if u.Slice >= 0 {
		if os.MkdirAll(filepath.Join(dir, "slices"), 0o755) == nil {
			atomicfile.WriteJSON(sliceFile(dir, u.Slice, "json"), sliceStatus{res.Status, res.Error, res.Seconds, where()})
		}
		return
	}
	if res.Status == Done || res.Status == Skipped {
		return // runJob wrote it, with the outputs
	}
	writeStatus(dir, JobResult{Name: job.Name, Status: res.Status, Error: res.Error, Seconds: res.Seconds, Samples: res.Samples, Outputs: []string{}, Where: where(), Job: job})
}

// sliceStatus is a slice's record: slices/K.json.
type sliceStatus struct {
	Status  string  `json:"status"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
	Where   string  `json:"where"`
}

func writeStatus(dir string, res JobResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteJSON(filepath.Join(dir, "status.json"), res)
}

// readStatus reads a job's status.json.
func readStatus(dir string) (JobResult, error) {
	var rec JobResult
	b, err := os.ReadFile(filepath.Join(dir, "status.json"))
	if err == nil {
		err = json.Unmarshal(b, &rec)
	}
	return rec, err
}
