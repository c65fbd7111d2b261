package batch

import (
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"sertrace/atomicfile"
)

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
<td>{{if or (eq .Status "done") (eq .Status "skipped")}}<img src="{{.Name}}/thumb.png" alt="{{.Name}}">{{end}}</td>
<td>{{.Name}}</td>
<td>{{.Status}}{{if .Error}}<br><code>{{.Error}}</code>{{end}}{{if .Where}}<br><small>on {{.Where}}</small>{{end}}</td>
<td><code>scene {{.Job.Scene}}<br>res {{or .Job.Res "default"}}, {{.Job.SPP}} spp{{if gt .Job.Split 1}} in {{.Job.Split}} slices{{end}}, depth {{.Job.MaxDepth}}, seed {{.Job.Seed}}<br>camera {{.Job.Camera}}, backend {{.Job.Backend}}<br>{{if .Job.Env}}env {{.Job.Env}}{{else}}env colour {{.Job.EnvColor}}{{end}}, tone map {{.Job.ToneMap}}</code></td>
<td>{{seconds .Seconds}}{{if .Samples}}<br>{{.Samples}} spp done{{end}}</td>
<td>{{$name := .Name}}{{range .Outputs}}<a href="{{$name}}/{{.}}">{{.}}</a><br>{{end}}</td>
</tr>{{end}}
</table></body></html>
`))
