package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mrjoshuak/go-openexr/compression"
	"github.com/mrjoshuak/go-openexr/exr"
	"github.com/mrjoshuak/go-openexr/half"

	"sertrace/render/cryptomatte"
)

// exrZIPLevel is the zlib level of the EXRs' ZIP chunks: the fastest,
// 0.95 of the default's time on a noisy 4K film (BenchmarkWrite) for files
// 1% larger (a 1-spp 4K Cornell box with its AOVs: 131.2 MB, 129.7 MB).
var exrZIPLevel = compression.CompressionLevelBestSpeed

// writeEXR writes a film's output as an EXR; a slice's (slice not nil) has
// the film's sums too (WriteSlice).
func writeEXR(w io.WriteSeeker, film *Film, only AOV, halfFloat bool, slice *SliceInfo) error {
	h, channels, groups := exrLayout(film.Width, film.Height, film.Held(), only, halfFloat, film.names())
	var sums []*sumPlane
	if slice != nil {
		var err error
		if sums, err = addSums(film, slice, h, channels); err != nil {
			return err
		}
	}
	h.SetChannels(channels)
	h.Set(&exr.Attribute{Name: "sertrace:samples", Type: exr.AttrTypeString, Value: fmt.Sprint(film.Samples)})
	if film.Partial {
		h.Set(&exr.Attribute{Name: partialAttribute, Type: exr.AttrTypeInt, Value: int32(1)})
	}
	sw, err := exr.NewScanlineWriter(w, h)
	if err != nil {
		return err
	}
	if sums == nil {
		err = writeBlocks(sw, groups, film, exrRows(film.Width), nil)
	} else {
		err = writeBlocks(sw, groups, film, sumRows, func(fb *exr.FrameBuffer, y0, y1 int) { fillBlock(sums, fb, film.Width, y0, y1) })
	}
	if err != nil {
		return err
	}
	return sw.Close()
}

// writeBlocks writes film's rows (the image's rows from film.Y0 on) a
// block of rows at a time, each block's chunks compressed in parallel: the
// planes cost a block, not another film. more, when not nil, adds a
// block's further channels (a slice's sums) to its frame buffer.
func writeBlocks(sw *exr.ScanlineWriter, groups []*exrGroup, film *Film, rows int, more func(fb *exr.FrameBuffer, y0, y1 int)) error {
	if film.Width*film.Height >= largeFrame {
		defer tightGC()()
	}
	for y0 := 0; y0 < film.Height; y0 += rows {
		y1 := min(y0+rows, film.Height)
		fb := exr.NewFrameBuffer()
		for _, g := range groups {
			g.fill(fb, film, y0, y1)
		}
		if more != nil {
			more(fb, y0, y1)
		}
		sw.SetFrameBuffer(fb)
		if err := sw.WritePixels(film.Y0+y0, film.Y0+y1-1); err != nil {
			return err
		}
	}
	return nil
}

// partialAttribute marks an EXR whose render stopped before all its
// samples were taken: an int, 1 (a render in bands writes 0 first and sets
// it when it is cut short).
const partialAttribute = "sertrace:partial"

// IsPartial reports whether the EXR in r (of size bytes) is marked
// partial: a render cut short.
func IsPartial(r io.ReaderAt, size int64) bool {
	f, err := exr.OpenReader(r, size)
	if err != nil || f.Header(0) == nil {
		return false
	}
	a := f.Header(0).Get(partialAttribute)
	return a != nil && a.Value == int32(1)
}

// exrLayout is the header, channels and channel groups of an image of
// width×height holding the layers held: the beauty with its variance and
// every AOV layer held (only AOVBeauty), or one AOV alone.
func exrLayout(width, height int, held Layers, only AOV, halfFloat bool, names FilmNames) (*exr.Header, *exr.ChannelList, []*exrGroup) {
	h := exr.NewScanlineHeader(width, height)
	h.SetCompression(exr.CompressionZIP)
	h.SetZIPLevel(exrZIPLevel)
	channels := exr.NewChannelList()
	var groups []*exrGroup
	add := func(read func(dst []float32, f *Film, y0, y1 int) ([]float32, int), names ...string) {
		g := &exrGroup{read: read}
		for _, name := range names {
			// Depth and variance keep float32 even in half-float files:
			// half has no room for small variances (its denormals start at
			// 6e-5). A Cryptomatte's IDs are float32's bits.
			half := halfFloat && name != "depth.Z" && !strings.HasSuffix(name, "variance.Y") && name != "Z" && name != "Y" &&
				!strings.HasPrefix(name, "Crypto")
			typ := exr.PixelTypeFloat
			if half {
				typ = exr.PixelTypeHalf
			}
			channels.Add(exr.Channel{Name: name, Type: typ, XSampling: 1, YSampling: 1})
			g.names, g.half = append(g.names, name), append(g.half, half)
		}
		groups = append(groups, g)
	}
	aov := func(a AOV, names ...string) {
		add(func(dst []float32, f *Film, y0, y1 int) ([]float32, int) { return f.resolveRowsInto(dst, a, y0, y1) }, names...)
	}
	variance := func(rgb, lumSq Layer, name string) {
		add(func(dst []float32, f *Film, y0, y1 int) ([]float32, int) {
			return f.meanVariance(dst, rgb, lumSq, y0*f.Width, y1*f.Width), 1
		}, name)
	}
	matte := func(a AOV) {
		if names.Crypto == nil {
			return
		}
		layer := CryptoLayer(a)
		add(matteReader(names.Crypto, a), cryptomatte.Channels(layer, names.Crypto.Levels)...)
		for _, m := range cryptomatte.Metadata(layer, names.Crypto.matteNames(a)) {
			h.Set(&exr.Attribute{Name: m.Name, Type: exr.AttrTypeString, Value: m.Value})
		}
	}
	switch only {
	case AOVBeauty:
		// The beauty and its variance, and the AOVs the film holds (what
		// the render was asked for).
		aov(AOVBeauty, "R", "G", "B")
		if held.Has(LayerAlbedo) {
			aov(AOVAlbedo, "albedo.R", "albedo.G", "albedo.B")
		}
		if held.Has(LayerNormal) {
			aov(AOVNormal, "normal.X", "normal.Y", "normal.Z")
		}
		if held.Has(LayerDepth) {
			aov(AOVDepth, "depth.Z")
		}
		variance(LayerBeauty, LayerLumSq, "variance.Y") // of the mean, what a denoiser reads
		if held&SamplesLayers != 0 {
			aov(AOVSamples, "samples.Y")
		}
		if held.Has(LayerDiffuse) {
			aov(AOVDiffuse, "diffuse.R", "diffuse.G", "diffuse.B")
			aov(AOVSpecular, "specular.R", "specular.G", "specular.B")
			aov(AOVDiffuseAlbedo, "diffuse_albedo.R", "diffuse_albedo.G", "diffuse_albedo.B")
			aov(AOVSpecularAlbedo, "specular_albedo.R", "specular_albedo.G", "specular_albedo.B")
			variance(LayerDiffuse, LayerDiffuseLumSq, "diffuse_variance.Y")
			variance(LayerSpecular, LayerSpecularLumSq, "specular_variance.Y")
		}
		if held&GroupLayers != 0 {
			for g, name := range names.Groups {
				add(groupReader(g), GroupChannel(name, "R"), GroupChannel(name, "G"), GroupChannel(name, "B"))
			}
		}
		if held&CoverageLayers != 0 && names.Crypto != nil {
			for _, a := range names.Crypto.Mattes {
				matte(a)
			}
		}
	case AOVCryptoObject, AOVCryptoMaterial, AOVCryptoAsset:
		matte(only)
	case AOVDepth:
		aov(AOVDepth, "Z")
	case AOVVariance, AOVCost, AOVPathLength, AOVSIMT, AOVSamples:
		aov(only, "Y")
	default:
		aov(only, "R", "G", "B")
	}
	return h, channels, groups
}

// exrRows is how many rows of an image width pixels wide writeEXR
// converts at a time (and the PNG and PFM writers resolve): a multiple of ZIP's 16-row chunks, 16 of them (to
// keep every core compressing) where a block is at most exrBlockPixels,
// fewer in wider images, whose blocks' planes and encoder scratch would
// otherwise hold a few hundred MB at once (8K: 0.27 GB in blocks of 256).
func exrRows(width int) int {
	return max(16, min(256, exrBlockPixels/max(width, 1)/16*16))
}

// exrBlockPixels is the most pixels a block of exrRows holds: 4K's 256
// rows.
const exrBlockPixels = 1 << 20

// exrGroup is the EXR channels that one read of the film gives: an AOV's
// channels or a variance, as float32 or half planes of a block of rows.
type exrGroup struct {
	// read resolves rows of f into its first argument (grown where too
	// small): the group's pixels, channels interleaved, reused block to
	// block (pix).
	read   func(dst []float32, f *Film, y0, y1 int) ([]float32, int)
	pix    []float32
	names  []string
	half   []bool
	floats [][]float32
	halves [][]half.Half
}

// fill reads rows [y0, y1) of f and points fb at the group's planes of
// them, placed at f's rows in the image.
func (g *exrGroup) fill(fb *exr.FrameBuffer, f *Film, y0, y1 int) {
	width := f.Width
	pix, n := g.read(g.pix, f, y0, y1)
	g.pix = pix
	count := width * (y1 - y0)
	if g.floats == nil {
		g.floats, g.halves = make([][]float32, len(g.names)), make([][]half.Half, len(g.names))
	}
	for c, name := range g.names {
		if g.half[c] {
			g.halves[c] = Grow(g.halves[c], count)
			hp := g.halves[c]
			for i := range hp {
				hp[i] = half.FromFloat32(min(max(pix[i*n+c], -65504), 65504)) // half's largest finite value
			}
			fb.Insert(name, exr.NewSliceFromHalf(hp, width, y1-y0).WithOrigin(0, f.Y0+y0))
			continue
		}
		g.floats[c] = Grow(g.floats[c], count)
		plane := g.floats[c]
		for i := range plane {
			plane[i] = pix[i*n+c]
		}
		fb.Insert(name, exr.NewSliceFromFloat32(plane, width, y1-y0).WithOrigin(0, f.Y0+y0))
	}
}
