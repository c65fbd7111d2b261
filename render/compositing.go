package render

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"sertrace/render/cryptomatte"
)

// FilmNames are what a film's layers beyond the table are named by, which
// an EXR's header says before its pixels: the light groups and the
// Cryptomatte's names and mattes.
type FilmNames struct {
	Groups []string
	Crypto *Cryptomatte // nil: none
}

// names are the film's.
func (f *Film) names() FilmNames {
	n := FilmNames{Groups: f.GroupNames}
	if f.Coverage != nil {
		n.Crypto = &f.Coverage.Cryptomatte
	}
	return n
}

// NamesFor are the names of a render's film of the layers held, before
// it is made (an EXR in bands).
func (o *Options) NamesFor(held Layers) FilmNames {
	var n FilmNames
	if held&GroupLayers != 0 {
		n.Groups = o.LightGroups.names()
	}
	if held&CoverageLayers != 0 {
		n.Crypto = &o.Cryptomatte
	}
	return n
}

// GroupChannel is the EXR channel of light group name's channel c
// (R, G or B): "lightgroup.NAME.R", a layer "lightgroup.NAME" to Nuke and
// pass NAME of layer "lightgroup" to Blender; a dot in the name becomes
// an underscore, which would split it.
func GroupChannel(name, c string) string {
	return "lightgroup." + strings.ReplaceAll(name, ".", "_") + "." + c
}

// groupReader resolves light group g's rows.
func groupReader(g int) func(dst []float32, f *Film, y0, y1 int) ([]float32, int) {
	return func(dst []float32, f *Film, y0, y1 int) ([]float32, int) {
		return f.resolveSums(dst, &f.Groups[g], 3, y0*f.Width, y1*f.Width), 3
	}
}

// matteReader ranks Cryptomatte matte a's rows: per pixel, its names'
// IDs and coverages (the samples whose first visible hit each named
// instance was, over the pixel's samples), levels ranks, in the layers
// cryptomatte.Channels names.
func matteReader(c *Cryptomatte, a AOV) func(dst []float32, f *Film, y0, y1 int) ([]float32, int) {
	ids := make([]uint32, len(c.Names)) // each instance's ID in the matte
	for i := range ids {
		ids[i] = cryptomatte.Hash(c.name(a, uint32(i+1)))
	}
	n := len(cryptomatte.Channels(CryptoLayer(a), c.Levels))
	var counts []uint64
	var entries []cryptomatte.Entry
	return func(dst []float32, f *Film, y0, y1 int) ([]float32, int) {
		out := Grow(dst, n*(y1-y0)*f.Width)
		clear(out)
		if f.Coverage == nil {
			return out, n
		}
		for p := y0 * f.Width; p < y1*f.Width; p++ {
			counts = f.Coverage.Pixel(p, counts[:0])
			entries = entries[:0]
			for _, w := range counts {
				if id := int(w >> 32); id >= 1 && id <= len(ids) {
					entries = append(entries, cryptomatte.Entry{ID: ids[id-1], Weight: float64(uint32(w))})
				}
			}
			total := float64(f.SamplesAt(p))
			if total == 0 {
				continue
			}
			o := out[n*(p-y0*f.Width) : n*(p-y0*f.Width+1)]
			cryptomatte.Rank(entries, total, c.Levels, o)
		}
		return out, n
	}
}

// CheckLayerOutputs refuses outputs that cannot hold what is asked of
// them: Cryptomatte and light groups are layers of an EXR, which a PNG
// or a PFM has no room for.
func CheckLayerOutputs(path string, aovs []AOV, lightGroups bool) error {
	if strings.EqualFold(filepath.Ext(path), ".exr") {
		return nil
	}
	for _, a := range aovs {
		if slices.Contains(CryptoAOVs, a) {
			return fmt.Errorf("%s: Cryptomatte (%s) is written as layers of an EXR, which %s cannot hold: write -o NAME.exr", path, a, filepath.Ext(path))
		}
	}
	if lightGroups {
		return fmt.Errorf("%s: light groups are written as layers of an EXR, which %s cannot hold: write -o NAME.exr", path, filepath.Ext(path))
	}
	return nil
}

// ResolveGroup is light group g's mean, 3 channels a pixel.
func (f *Film) ResolveGroup(g int) []float32 {
	return f.resolveSums(nil, &f.Groups[g], 3, 0, f.Width*f.Height)
}
