package bench

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"sertrace/atomicfile"
	"sertrace/render"
)

// Write saves the results in dir: results.json, results.csv, report.md, a
// speedup chart (speedup.png) and a per-pixel cost heatmap of each scene.
func Write(dir string, res *Results) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output folder %s: %w", dir, err)
	}
	if err := atomicfile.WriteJSON(filepath.Join(dir, "results.json"), res); err != nil {
		return err
	}
	var csvBuf strings.Builder
	cw := csv.NewWriter(&csvBuf)
	cw.Write([]string{"scene", "backend", "path", "reorder", "runs", "median_ms", "min_ms", "max_ms", "samples_per_s", "rays_per_s",
		"speedup", "speedup_min", "speedup_max", "predicted_speedup", "simt_efficiency_before", "simt_efficiency_after", "timer", "wall_median_ms"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, c := range res.Cells {
		cw.Write([]string{c.Scene, c.Backend, c.Path, c.Reorder, strconv.Itoa(c.Runs), f(c.MedianMS), f(c.MinMS), f(c.MaxMS),
			f(c.SamplesPerS), f(c.RaysPerS), f(c.Speedup), f(c.SpeedupMin), f(c.SpeedupMax), f(c.Predicted), f(c.SIMTBefore), f(c.SIMTAfter),
			c.Timer, f(c.WallMS)})
	}
	cw.Flush()
	if err := atomicfile.WriteBytes(filepath.Join(dir, "results.csv"), []byte(csvBuf.String())); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "report.md"), []byte(report(res))); err != nil {
		return err
	}
	if err := chart(filepath.Join(dir, "speedup.png"), res); err != nil {
		return err
	}
	for name, film := range res.Films {
		scene, path, _ := strings.Cut(name, " ")
		base := "cost-" + strings.TrimSuffix(scene, filepath.Ext(scene))
		if path != "" {
			base += "-" + path // a GPU's: shader-clock ticks, where the device has the clock
		}
		p := filepath.Join(dir, base+".png")
		if err := render.WriteAOV(p, film, render.AOVCost, render.Display{}); err != nil {
			return err
		}
	}
	return nil
}

func report(res *Results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Reorder benchmark\n\n")
	fmt.Fprintf(&b, "- device: %s (%s, tracing with %s), reorder mode: %s, %d threads, %s; clocks: %s\n", res.Device.Name, res.Device.Driver, res.Device.Accel, res.Device.ReorderMode, res.Device.Threads, res.Device.GoVersion, res.Device.Clocks)
	fmt.Fprintf(&b, "- sertrace %s, %s\n", res.Version, res.Date)
	fmt.Fprintf(&b, "- %s, %d spp, max depth %d; %d warm-up and %d timed runs per cell, schemes interleaved\n", res.Config.Res, res.Config.SPP, res.Config.MaxDepth, res.Config.Warmup, res.Config.Repeats)
	fmt.Fprintf(&b, "- %s\n", res.Device.Note)
	if g := res.GPU; g != nil {
		fmt.Fprintf(&b, "- GPU: %s (%s), SER reorder mode: %s; clocks: %s\n- %s\n", g.Name, g.Driver, g.ReorderMode, g.Clocks, g.Note)
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(&b, "- not run here: %s\n", s)
	}
	b.WriteString("\n| scene | backend | path | reorder | timer | median ms | min–max ms | Msamples/s | Mrays/s | speedup (min–max) | predicted (SIMT) | SIMT launch order → after |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, c := range res.Cells {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.1f | %.1f–%.1f | %.3f | %.3f | %.3f (%.3f–%.3f) | %.2f | %.2f → %.2f |\n", c.Scene, c.Backend, c.Path, c.Reorder, c.Timer,
			c.MedianMS, c.MinMS, c.MaxMS, c.SamplesPerS/1e6, c.RaysPerS/1e6, c.Speedup, c.SpeedupMin, c.SpeedupMax, c.Predicted, c.SIMTBefore, c.SIMTAfter)
	}
	b.WriteString("\nspeedup: the median, over rounds, of the no-reordering run's time over this scheme's in the same round, on the same backend and path (runs interleaved, the starting cell rotating). predicted: the CPU emulator's SIMT count for the same scheme.\n")
	sideBySide(&b, res)
	return b.String()
}

// sideBySide tabulates, per scene and scheme, hardware reordering (ser)
// beside software reordering (rt-sorted's sort) beside the plain pipeline
// (rt), each as a speedup over rt in the same round, with the emulator's
// prediction; it says whether ser reorders at all on this device.
func sideBySide(b *strings.Builder, res *Results) {
	if res.GPU == nil || !slices.ContainsFunc(res.Cells, func(c Cell) bool { return c.OverRT > 0 && c.Path != "rt" }) {
		return
	}
	b.WriteString("\n## Hardware and software reordering, side by side\n\n")
	if res.GPU.ReorderMode == "reorder" {
		b.WriteString("The driver reorders in hardware (SER reorder mode reorder): ser's schemes run reorderThreadNV for real.\n\n")
	} else {
		fmt.Fprintf(b, "The driver does not reorder in hardware (SER reorder mode: %s): ser's schemes are no-ops here, so its column measures the hit-object path, and rt-sorted's sort is the reordering measured.\n\n", res.GPU.ReorderMode)
	}
	b.WriteString("Each figure is the median over rounds of rt's time over the cell's, in the same round (above 1: faster than rt); in brackets, the speedup over the same path without reordering.\n\n")
	b.WriteString("| scene | scheme | ser | rt-sorted | rayquery | predicted (SIMT) |\n| --- | --- | --- | --- | --- | --- |\n")
	type key struct{ scene, path, scheme string }
	cells := map[key]Cell{}
	var order []key
	for _, c := range res.Cells {
		if c.Backend == "vulkan" {
			cells[key{c.Scene, c.Path, c.Reorder}] = c
		}
		k := key{c.Scene, "", c.Reorder}
		if c.Backend == "vulkan" && c.Path != "rt" && !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	for _, k := range order {
		cell := func(path string) string {
			c, ok := cells[key{k.scene, path, k.scheme}]
			if !ok {
				return "—"
			}
			return fmt.Sprintf("%.3f (%.3f)", c.OverRT, c.Speedup)
		}
		predicted := 0.0
		for _, c := range res.Cells {
			if c.Scene == k.scene && c.Reorder == k.scheme && c.Predicted > 0 {
				predicted = c.Predicted
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %.2f |\n", k.scene, k.scheme, cell("ser"), cell("rt-sorted"), cell("rayquery"), predicted)
	}
}

// chart draws the speedup of each scheme per scene as a point with its
// min–max range (from the fastest and slowest runs), schemes side by side.
func chart(path string, res *Results) error {
	p := plot.New()
	p.Title.Text = "Speedup over no reordering (" + chartDevices(res) + ")"
	p.Y.Label.Text = "speedup"
	var scenes, schemes []string
	for _, c := range res.Cells {
		if !contains(scenes, c.Scene) {
			scenes = append(scenes, c.Scene)
		}
		if !contains(schemes, label(c)) {
			schemes = append(schemes, label(c))
		}
	}
	legend := plot.NewLegend() // drawn beside the plot, where it hides no cell
	legend.Top = true
	palette := []color.RGBA{{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255}}
	for si, scheme := range schemes {
		var pts plotter.XYs
		var errs plotter.YErrors
		for xi, sc := range scenes {
			for _, c := range res.Cells {
				if c.Scene != sc || label(c) != scheme {
					continue
				}
				x := float64(xi) + (float64(si)-float64(len(schemes)-1)/2)*0.6/float64(len(schemes))
				pts = append(pts, plotter.XY{X: x, Y: c.Speedup})
				errs = append(errs, struct{ Low, High float64 }{c.Speedup - c.SpeedupMin, c.SpeedupMax - c.Speedup})
			}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius = palette[si%len(palette)], vg.Points(4)
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{pts, errs})
		if err != nil {
			return err
		}
		eb.LineStyle.Color = palette[si%len(palette)]
		p.Add(sc, eb)
		legend.Add(scheme, sc)
	}
	p.Add(plotter.NewGrid())
	p.NominalX(scenes...)
	p.X.Min, p.X.Max = -0.5, float64(len(scenes))-0.5
	legendWidth := vg.Points(150)
	width, height := vg.Points(160+110*float64(len(scenes)))+legendWidth, vg.Length(4*vg.Inch)
	img := vgimg.New(width, height)
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	legend.Draw(draw.Crop(dc, width-legendWidth, 0, 0, -vg.Points(30))) // below the title's height
	return atomicfile.Write(path, func(w io.WriteSeeker) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	})
}

// label names a cell's backend, path and scheme in the chart's legend.
func label(c Cell) string {
	if c.Backend == "cpu" {
		return c.Reorder
	}
	return c.Path + " " + c.Reorder
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// chartDevices names what the chart's cells ran on: the CPU for the
// emulator's cells, the GPU for the Vulkan ones, both where both ran.
func chartDevices(res *Results) string {
	var cpu, gpu bool
	for _, c := range res.Cells {
		cpu = cpu || c.Backend == "cpu"
		gpu = gpu || c.Backend == "vulkan"
	}
	switch {
	case gpu && res.GPU != nil && cpu:
		return "cpu: " + res.Device.Name + "; vulkan: " + res.GPU.Name
	case gpu && res.GPU != nil:
		return res.GPU.Name
	}
	return res.Device.Name
}
