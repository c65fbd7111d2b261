package render

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"sertrace/atomicfile"
)

// Write saves the film's beauty in the format its extension names: .exr
// (linear float32: the beauty as R, G, B, variance.Y, the variance of each
// pixel's mean, and the AOVs the film holds as layers albedo.*, normal.*,
// depth.Z and the denoiser's split: diffuse.*, specular.*,
// diffuse_albedo.*, specular_albedo.*, diffuse_variance.Y,
// specular_variance.Y), .pfm (linear) or .png (exposed, tone-mapped and
// encoded for display). The file is written under a temporary name and
// renamed, so a failure never leaves a truncated image where a good one was.
func Write(path string, film *Film, display Display) error {
	return WriteAOV(path, film, AOVBeauty, display)
}

// WriteAOV saves one output of the film: the beauty (with every AOV as a
// layer when it is an EXR) or one AOV alone. A PNG shows albedo as colour,
// normals as 0.5 + 0.5·n and depth as grey scaled to its largest value.
func WriteAOV(path string, film *Film, a AOV, display Display) error {
	if slices.Contains(SplitAOVs, a) && !film.HasSplit() {
		return fmt.Errorf("write %s: the film has no diffuse and specular split (it was rendered without asking for one, or resumed from a checkpoint written before sertrace kept one)", path)
	}
	if l, ok := LayerOf(a); ok && !film.Has(l) {
		return fmt.Errorf("write %s: the film has no %s layer: ask for it when rendering (--aov %s)", path, FilmLayers[l].Name, a)
	}
	var write func(io.WriteSeeker) error
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".exr":
		write = func(w io.WriteSeeker) error { return writeEXR(w, film, a, display.HalfFloat, nil) }
	case ".pfm":
		write = func(w io.WriteSeeker) error { return writePFM(w, film, a) }
	case ".png":
		write = func(w io.WriteSeeker) error { return writePNG(w, film, a, display) }
		if slices.Contains(Heatmaps, a) {
			write = func(w io.WriteSeeker) error { return writeHeatmap(w, film, a) }
		}
	default:
		return fmt.Errorf("write %s: unknown image format %q (use .exr, .pfm or .png)", path, ext)
	}
	return atomicfile.Write(path, write)
}

// rgbRows is an AOV's rows [y0, y1) as three channels a pixel (depth
// repeated), resolved into buf (grown where too small, and returned for
// the next block) and, for one channel, rgb: a writer's block of rows.
func rgbRows(film *Film, a AOV, y0, y1 int, buf, rgb []float32) (pix, bufOut, rgbOut []float32) {
	one, n := film.resolveRowsInto(buf, a, y0, y1)
	if n == 3 {
		return one, one, rgb
	}
	rgb = Grow(rgb, 3*len(one))
	for i, v := range one {
		rgb[3*i], rgb[3*i+1], rgb[3*i+2] = v, v, v
	}
	return rgb, one, rgb
}

// writingGCPercent is the Go collector's GOGC while a large image is
// written: the EXR encoder's scratch, a few times each block's pixels, is
// garbage as soon as the block is out, and at the default (100) up to the
// film's size of it (0.5 GB at 4K) would pile up before a collection. A
// film is pointer-free, so a collection costs little: at 4 an 8K image
// was written as fast as at 10 (8.5 s) with 0.13 GB less at its peak.
const writingGCPercent = 4

var (
	gcMu      sync.Mutex
	gcTight   int // writers under tightGC
	gcPercent int // GOGC before the first of them
)

// tightGC lowers GOGC to writingGCPercent until the function it returns is
// called; writers at once share it, and the last restores GOGC. GOGC is
// the process's: renders running meanwhile collect as often, and a GOGC
// the user set lower (or off) is writingGCPercent for the while.
func tightGC() (restore func()) {
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcTight == 0 {
		gcPercent = debug.SetGCPercent(writingGCPercent)
	}
	gcTight++
	return func() {
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcTight--; gcTight == 0 {
			debug.SetGCPercent(gcPercent)
		}
	}
}
