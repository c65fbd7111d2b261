package batch

import (
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"sertrace/atomicfile"
	"sertrace/render"
)

// Summary is summary.json: every job of the batch, as its folder records
// it, whichever share or run did the work.
type Summary struct {
	Jobs []JobResult `json:"jobs"`
	// Units are what this run did, unit by unit (not in summary.json).
	Units []UnitResult `json:"-"`
}

// UnitResult is what a run did with one unit of work.
type UnitResult struct {
	Name, Status, Error string
	Seconds             float64
	Samples             int
	err                 error
}

// Failed counts the jobs that failed.
func (s *Summary) Failed() int { return s.count(Failed) }

// Pending counts the jobs not rendered yet.
func (s *Summary) Pending() int { return s.count(Pending) }

func (s *Summary) count(status string) int {
	n := 0
	for _, j := range s.Jobs {
		if j.Status == status {
			n++
		}
	}
	return n
}

// UnitsFailed counts the units of this run that failed.
func (s *Summary) UnitsFailed() int {
	n := 0
	for _, u := range s.Units {
		if u.Status == Failed {
			n++
		}
	}
	return n
}

// summarize writes summary.json and summary.html from every job's
// status.json, under a lock that orders the runs that finish together.
func (r *Runner) summarize(outDir string) (*Summary, error) {
	unlock, err := lock(filepath.Join(outDir, ".summary.lock"), true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	sum := &Summary{}
	for _, job := range r.Config.Jobs {
		res := JobResult{Name: job.Name, Status: Pending, Error: "not rendered yet", Outputs: []string{}, Job: job}
		if b, err := os.ReadFile(filepath.Join(outDir, job.Name, "status.json")); err == nil {
			var rec JobResult
			if json.Unmarshal(b, &rec) == nil && rec.Status != "" {
				res = rec
				res.Job = job
				if res.Outputs == nil {
					res.Outputs = []string{}
				}
			}
		}
		// A record of outputs made for other settings or another scene
		// (the config or the files changed since) is not this batch's.
		if res.Status == Done || res.Status == Skipped {
			if p, err := r.prepare(job); err == nil {
				if ok, _, _ := p.upToDate(filepath.Join(outDir, job.Name)); !ok {
					res.Status, res.Error = Pending, "not rendered yet with the config's settings and the scene's files as they are now"
				}
			}
		}
		_, err := os.Stat(filepath.Join(outDir, job.Name, "thumb.png"))
		res.Thumbnail = err == nil
		sum.Jobs = append(sum.Jobs, res)
	}
	return sum, writeSummary(outDir, sum)
}

// ReadSummary reads the batch's summary.json, as the last run wrote it.
func (r *Runner) ReadSummary() (*Summary, error) {
	b, err := os.ReadFile(filepath.Join(r.Config.resolve(r.Config.OutputDir), "summary.json"))
	if err != nil {
		return nil, unwrap(err)
	}
	var sum Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, err
	}
	return &sum, nil
}

// writeSummary writes summary.json and the contact sheet summary.html.
func writeSummary(dir string, sum *Summary) error {
	if err := atomicfile.WriteJSON(filepath.Join(dir, "summary.json"), sum); err != nil {
		return err
	}
	var html strings.Builder
	if err := contactSheet.Execute(&html, sum); err != nil {
		return fmt.Errorf("summary.html: %w", err)
	}
	return atomicfile.WriteBytes(filepath.Join(dir, "summary.html"), []byte(html.String()))
}

var contactSheet = template.Must(template.New("sheet").Funcs(template.FuncMap{
	"seconds": func(s float64) string { return fmt.Sprintf("%.1f s", s) },
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>sertrace batch</title>
<style>
body { font: 14px sans-serif; margin: 2em; }
table { border-collapse: collapse; }
td, th { border: 1px solid #ccc; padding: 6px 10px; vertical-align: top; text-align: left; }
.failed { background: #fdd; } .skipped { background: #eef; } .done { background: #efe; } .pending { background: #ffe; }
img { max-width: 240px; display: block; }
code { font-size: 12px; }
</style></head><body>
<h1>sertrace batch</h1>
<table>
<tr><th>image</th><th>job</th><th>status</th><th>settings</th><th>time</th><th>outputs</th></tr>
{{range .Jobs}}<tr class="{{.Status}}">
<td>{{if and .Thumbnail (or (eq .Status "done") (eq .Status "skipped"))}}<img src="{{.Name}}/thumb.png" alt="{{.Name}}">{{end}}</td>
<td>{{.Name}}</td>
<td>{{.Status}}{{if .Error}}<br><code>{{.Error}}</code>{{end}}{{if .Where}}<br><small>on {{.Where}}</small>{{end}}</td>
<td><code>scene {{.Job.Scene}}<br>res {{or .Job.Res "default"}}, {{.Job.SPP}} spp{{if gt .Job.Split 1}} in {{.Job.Split}} slices{{end}}, depth {{.Job.MaxDepth}}, seed {{.Job.Seed}}<br>camera {{.Job.Camera}}, backend {{.Job.Backend}}<br>{{if .Job.Env}}env {{.Job.Env}}{{else}}env colour {{.Job.EnvColor}}{{end}}, tone map {{.Job.ToneMap}}</code></td>
<td>{{seconds .Seconds}}{{if .Samples}}<br>{{.Samples}} spp done{{end}}</td>
<td>{{$name := .Name}}{{range .Outputs}}<a href="{{$name}}/{{.}}">{{.}}</a><br>{{end}}</td>
</tr>{{end}}
</table></body></html>
`))

// writeThumbnail writes a copy of the beauty at most 240 pixels wide.
func writeThumbnail(path string, film *render.Film, display render.Display) error {
	step := max(1, (film.Width+239)/240)
	w, h := film.Width/step, film.Height/step
	small := render.NewFilmOf(max(w, 1), max(h, 1), render.BaseLayers)
	small.Samples = 1
	pix, _ := film.Resolve(render.AOVBeauty)
	for y := 0; y < small.Height; y++ {
		for x := 0; x < small.Width; x++ {
			for c := 0; c < 3; c++ {
				var sum float64
				for dy := 0; dy < step; dy++ {
					for dx := 0; dx < step; dx++ {
						sum += float64(pix[3*((y*step+dy)*film.Width+x*step+dx)+c])
					}
				}
				small.Sums[render.LayerBeauty].Set(3*(y*small.Width+x)+c, sum/float64(step*step))
			}
		}
	}
	return render.Write(path, small, display)
}
