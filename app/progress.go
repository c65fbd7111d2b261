package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"
)

// progressBar draws a bar on a terminal, or prints a plain line every ten
// seconds when stderr is a file or a pipe; or, with --progress json, it
// writes progress as JSON lines (jsonLine) to stdout and leaves stderr to
// the messages.
type progressBar struct {
	label    string // printed before the bar
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	start    time.Time
	last     time.Time
	done     float64

	json   *json.Encoder // --progress json: lines to stdout
	spp    int           // the samples per pixel the render takes, in the JSON lines
	passes int           // passes ended: the time left is told after the first

	// The pace the time left is reckoned from: the fraction done at the
	// first report after the render began (a checkpoint's resumed samples,
	// the units before this one), and when.
	from   float64
	fromAt time.Time
	paced  bool
}

// timeLeft is the seconds the rest takes at the pace since the first
// report (the work done in this run over the time it took), and whether
// there is a pace to tell: some work done since, over at least least.
func (p *progressBar) timeLeft(now time.Time, least time.Duration) (float64, bool) {
	if p.done >= 1 {
		return 0, true
	}
	worked, took := p.done-p.from, now.Sub(p.fromAt)
	if !p.paced || worked <= 0 || took <= 0 || took < least {
		return 0, false
	}
	return took.Seconds() * (1 - p.done) / worked, true
}

// leftText is the time left as the bar and the log lines say it.
func leftText(left float64) string {
	switch {
	case left < 60:
		return fmt.Sprintf("%.0f s left", math.Ceil(left))
	case left < 3600:
		return fmt.Sprintf("%d min %02d s left", int(left)/60, int(left)%60)
	}
	return fmt.Sprintf("%d h %02d min left", int(left)/3600, int(left)%3600/60)
}

// jsonLine is one line of --progress json. Every line has the event, the
// seconds since the render began and, where known, the fraction done, the
// samples per pixel done (done × spp: a pass in flight counts by its
// share) and, once a pass has ended, the seconds left at the pace so far.
//
//	progress  at most once a second while a pass runs, and at 100%
//	pass      a pass ended: samples is the whole samples every pixel has
//	preview   the image so far was written to path (--preview)
//	unit      (batch) a unit of work began: its name, unit and units
//	done      the images were written (files); partial when stopped early;
//	          (batch) the summary's files, jobs and failed
//	error     the render failed: message is the line on stderr
type jsonLine struct {
	Event   string   `json:"event"`
	Elapsed float64  `json:"elapsed"`
	Done    *float64 `json:"done,omitempty"`
	Samples *float64 `json:"samples,omitempty"`
	SPP     int      `json:"spp,omitempty"`
	Left    *float64 `json:"left,omitempty"`
	Path    string   `json:"path,omitempty"`
	Files   []string `json:"files,omitempty"`
	Partial bool     `json:"partial,omitempty"`
	Message string   `json:"message,omitempty"`
	Name    string   `json:"name,omitempty"`
	Unit    int      `json:"unit,omitempty"`  // from 1
	Units   int      `json:"units,omitempty"` // in this run
	Jobs    *int     `json:"jobs,omitempty"`
	Failed  *int     `json:"failed,omitempty"`
}

// progressModes are the values of --progress.
var progressModes = []string{"auto", "json"}

func newProgressBar(w io.Writer) *progressBar {
	return &progressBar{w: w, start: time.Now(), last: time.Now(), terminal: isTerminal(w)}
}

// newJSONProgress reports a render of spp samples per pixel as JSON lines
// to stdout, and its messages (println) to stderr.
func newJSONProgress(stdout, stderr io.Writer, spp int) *progressBar {
	return &progressBar{w: stderr, start: time.Now(), json: json.NewEncoder(stdout), spp: spp}
}

// isTerminal reports whether w is a terminal (where a bar is drawn).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progressBar) update(done float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	first := p.done == 0
	p.done = max(p.done, done)
	now := time.Now()
	if !p.paced {
		p.from, p.fromAt, p.paced = p.done, now, true
	}
	left := ""
	if l, ok := p.timeLeft(now, time.Second); ok && p.done < 1 { // a second's pace, not the first tile's
		left = ", " + leftText(l)
	}
	switch {
	case p.json != nil:
		if first || p.done >= 1 && done >= 1 || now.Sub(p.last) >= time.Second {
			p.emit(jsonLine{Event: "progress"})
			p.last = now
		}
	case p.terminal && now.Sub(p.last) >= 100*time.Millisecond:
		const width = 40
		n := int(p.done * width)
		fmt.Fprintf(p.w, "\r%s[%s%s] %5.1f%% %6.1f s%s\033[K", p.prefix(), strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*p.done, now.Sub(p.start).Seconds(), left)
		p.last = now
	case !p.terminal && now.Sub(p.last) >= 10*time.Second:
		fmt.Fprintf(p.w, "%sprogress: %.1f%% after %.0f s%s\n", p.prefix(), 100*p.done, now.Sub(p.start).Seconds(), left)
		p.last = now
	}
}

// event writes a JSON line (with --progress json; nothing otherwise),
// with the elapsed time, the fraction and samples done and the time left
// filled in.
func (p *progressBar) event(line jsonLine) {
	if p == nil || p.json == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.emit(line)
}

// failed tells err as the error line, if err is not nil (with --progress
// json; nothing otherwise): the line stderr has too.
func (p *progressBar) failed(err error) {
	if err != nil {
		p.event(jsonLine{Event: "error", Message: oneLine(err)})
	}
}

// oneLine is err's message on one line, as stderr's last line says it.
func oneLine(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", " ")
}

// pass says that a pass ended with samples samples in every pixel.
func (p *progressBar) pass(samples int) {
	if p == nil || p.json == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spp > 0 {
		p.done = max(p.done, float64(samples)/float64(p.spp))
	}
	p.passes++
	s := float64(samples)
	p.emit(jsonLine{Event: "pass", Samples: &s})
}

func (p *progressBar) emit(line jsonLine) {
	elapsed := time.Since(p.start).Seconds()
	line.Elapsed = math.Round(elapsed*1000) / 1000
	if line.Event == "progress" || line.Event == "pass" {
		done := math.Round(p.done*1e4) / 1e4
		line.Done, line.SPP = &done, p.spp
		if line.Samples == nil && p.spp > 0 {
			s := math.Round(p.done*float64(p.spp)*100) / 100
			line.Samples = &s
		}
		if p.passes > 0 || p.done >= 1 {
			if left, ok := p.timeLeft(time.Now(), 0); ok {
				left = math.Round(left*10) / 10
				line.Left = &left
			}
		}
	}
	p.json.Encode(line) // a reader gone away is not the render's failure
}

// println writes a line where the bar is, which the next update redraws
// below it.
func (p *progressBar) println(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
		p.last = time.Time{}
	}
	fmt.Fprintln(p.w, line)
}

// begin restarts the clock: the render itself begins (its time left is
// reckoned from the time its passes take, not the scene's loading).
func (p *progressBar) begin() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start, p.last, p.paced = time.Now(), time.Now(), false
}

func (p *progressBar) finish() {
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *progressBar) prefix() string {
	if p.label == "" {
		return ""
	}
	return p.label + " "
}
