package render

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/mrjoshuak/go-openexr/compression"
	"github.com/mrjoshuak/go-openexr/exr"
	"github.com/mrjoshuak/go-openexr/half"

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

// writePFM writes an AOV as a PFM (three channels, rows from the bottom),
// resolved a block of rows at a time: no image-sized copy of the film.
// Its buffers are reused block to block: it makes no garbage to collect.
func writePFM(w io.Writer, film *Film, a AOV) error {
	width, height := film.Width, film.Height
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "PF\n%d %d\n-1.0\n", width, height)
	row := make([]byte, 12*width)
	rows := exrRows(width)
	var pix, buf, rgb []float32
	for y1 := height; y1 > 0; y1 -= rows {
		y0 := max(0, y1-rows)
		pix, buf, rgb = rgbRows(film, a, y0, y1, buf, rgb)
		for y := y1 - 1; y >= y0; y-- {
			for i, v := range pix[3*(y-y0)*width : 3*(y-y0+1)*width] {
				binary.LittleEndian.PutUint32(row[4*i:], math.Float32bits(v))
			}
			bw.Write(row)
		}
	}
	return bw.Flush()
}

// exrZIPLevel is the zlib level of the EXRs' ZIP chunks: the fastest,
// 0.95 of the default's time on a noisy 4K film (BenchmarkWrite) for files
// 1% larger (a 1-spp 4K Cornell box with its AOVs: 131.2 MB, 129.7 MB).
var exrZIPLevel = compression.CompressionLevelBestSpeed

// writeEXR writes a film's output as an EXR; a slice's (slice not nil) has
// the film's sums too (WriteSlice).
func writeEXR(w io.WriteSeeker, film *Film, only AOV, halfFloat bool, slice *SliceInfo) error {
	h, channels, groups := exrLayout(film.Width, film.Height, film.Held(), only, halfFloat)
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

// partialAttribute marks an EXR whose render stopped before all its
// samples were taken: an int, 1 (a render in bands writes 0 first and sets
// it when it is cut short).
const partialAttribute = "sertrace:partial"

// exrLayout is the header, channels and channel groups of an image of
// width×height holding the layers held: the beauty with its variance and
// every AOV layer held (only AOVBeauty), or one AOV alone.
func exrLayout(width, height int, held Layers, only AOV, halfFloat bool) (*exr.Header, *exr.ChannelList, []*exrGroup) {
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
			// 6e-5).
			half := halfFloat && name != "depth.Z" && !strings.HasSuffix(name, "variance.Y") && name != "Z" && name != "Y"
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
		if held.Has(LayerDiffuse) {
			aov(AOVDiffuse, "diffuse.R", "diffuse.G", "diffuse.B")
			aov(AOVSpecular, "specular.R", "specular.G", "specular.B")
			aov(AOVDiffuseAlbedo, "diffuse_albedo.R", "diffuse_albedo.G", "diffuse_albedo.B")
			aov(AOVSpecularAlbedo, "specular_albedo.R", "specular_albedo.G", "specular_albedo.B")
			variance(LayerDiffuse, LayerDiffuseLumSq, "diffuse_variance.Y")
			variance(LayerSpecular, LayerSpecularLumSq, "specular_variance.Y")
		}
	case AOVDepth:
		aov(AOVDepth, "Z")
	case AOVVariance, AOVCost, AOVPathLength, AOVSIMT:
		aov(only, "Y")
	default:
		aov(only, "R", "G", "B")
	}
	return h, channels, groups
}

// BandWriter writes an EXR of the beauty and the AOV layers a render in
// bands holds (RenderBands), each band's rows as it comes: the file is the
// one Write makes of the whole film, with a partial attribute of 0, or 1
// when the render was cut short. Its header names the render (a key the
// caller makes of what the image depends on) and counts the rows written
// whole, updated after each band that has all its samples, on disk before
// the count: the unfinished file of a render killed outright holds what
// the next run needs to continue it (BandsDone, Copy).
type BandWriter struct {
	w         *headRecorder
	sw        *exr.ScanlineWriter
	groups    []*exrGroup
	channels  *exr.ChannelList
	width     int
	height    int
	spp       int
	next      int   // the next row to write
	block     int   // the rows written at a time: the first band's, at most exrRows'
	partialAt int64 // where the partial attribute's value lies
	rowsAt    int64 // where the rows-done attribute's value lies
	sumAt     int64 // where the rows-sum attribute's value lies
}

// Header attributes of an EXR written in bands: the render it is of, the
// rows written whole, and the SHA-256 of the file's bytes from the first
// chunk to the end of those rows' ("START-END-SUM", START and END 16 hex
// digits): a killed run's file is continued only where its rows are what
// was written (raw chunks, which ZIP stores where it does not shrink them,
// would decode a flipped bit as a wrong pixel).
const (
	bandsKeyAttribute  = "sertrace:render"
	bandsRowsAttribute = "sertrace:rows_done"
	bandsSumAttribute  = "sertrace:rows_sum"
)

// bandsSum is the rows_sum attribute's value.
func bandsSum(start, end int64, sum []byte) string {
	return fmt.Sprintf("%016x-%016x-%064x", start, end, sum)
}

// NewBandWriter starts an EXR of a width×height render of spp samples a
// pixel into a film of the layers held; key names the render.
func NewBandWriter(w io.WriteSeeker, width, height int, held Layers, halfFloat bool, spp int, key string) (*BandWriter, error) {
	h, channels, groups := exrLayout(width, height, held|BaseLayers, AOVBeauty, halfFloat)
	h.SetChannels(channels)
	h.Set(&exr.Attribute{Name: "sertrace:samples", Type: exr.AttrTypeString, Value: fmt.Sprint(spp)})
	h.Set(&exr.Attribute{Name: partialAttribute, Type: exr.AttrTypeInt, Value: int32(0)})
	h.Set(&exr.Attribute{Name: bandsKeyAttribute, Type: exr.AttrTypeString, Value: key})
	h.Set(&exr.Attribute{Name: bandsRowsAttribute, Type: exr.AttrTypeInt, Value: int32(0)})
	h.Set(&exr.Attribute{Name: bandsSumAttribute, Type: exr.AttrTypeString, Value: bandsSum(0, 0, make([]byte, sha256.Size))})
	rec := &headRecorder{WriteSeeker: w, recording: true}
	sw, err := exr.NewScanlineWriter(rec, h)
	if err != nil {
		return nil, err
	}
	rec.recording = false
	rec.sum, rec.start, rec.hashed = sha256.New(), rec.pos, rec.pos // the chunks from here on
	b := &BandWriter{w: rec, sw: sw, groups: groups, channels: channels, width: width, height: height, spp: spp, block: 16}
	// Each attribute as written: its name, its type, its size (4 bytes,
	// little-endian) and its value.
	sumSize := len(bandsSum(0, 0, make([]byte, sha256.Size)))
	for _, a := range []struct {
		name, typ string
		size      int
		at        *int64
	}{{partialAttribute, "int", 4, &b.partialAt}, {bandsRowsAttribute, "int", 4, &b.rowsAt}, {bandsSumAttribute, "string", sumSize, &b.sumAt}} {
		mark := binary.LittleEndian.AppendUint32([]byte(a.name+"\x00"+a.typ+"\x00"), uint32(a.size))
		at := bytes.Index(rec.head, mark)
		if at < 0 {
			return nil, fmt.Errorf("writing an EXR in bands: its header has no %s attribute where it was set", a.name)
		}
		*a.at = int64(at + len(mark))
	}
	return b, nil
}

// Write writes a band's rows, which must be the next ones.
func (b *BandWriter) Write(band *Film) error {
	if band.Width != b.width || band.Y0 != b.next || band.Y0+band.Height > b.height {
		return fmt.Errorf("writing an EXR in bands: a band of %dx%d from row %d, where row %d of a %dx%d image comes next",
			band.Width, band.Height, band.Y0, b.next, b.width, b.height)
	}
	if b.next == 0 {
		b.block = max(16, min(exrRows(b.width), band.Height))
	}
	if err := writeBlocks(b.sw, b.groups, band, exrRows(b.width), nil); err != nil {
		return err
	}
	b.next += band.Height
	if band.Samples < b.spp || band.Partial {
		return nil // a band cut short: the next run renders it again
	}
	return b.rowsDone()
}

// rowsDone records in the header that the rows before b.next are written
// whole, once they are on disk: first the sum of the bytes written (which
// then covers those rows, and more if a kill comes between the two), then
// their count.
func (b *BandWriter) rowsDone() error {
	if s, ok := b.w.WriteSeeker.(interface{ Sync() error }); ok {
		if err := s.Sync(); err != nil {
			return err
		}
	}
	sum := bandsSum(b.w.start, b.w.hashed, b.w.sum.Sum(nil))
	if err := b.poke(b.sumAt, []byte(sum)); err != nil {
		return err
	}
	return b.poke(b.rowsAt, binary.LittleEndian.AppendUint32(nil, uint32(b.next)))
}

// poke writes an attribute's value in the header and comes back.
func (b *BandWriter) poke(at int64, value []byte) error {
	end := b.w.pos
	if _, err := b.w.WriteSeeker.Seek(at, io.SeekStart); err != nil {
		return err
	}
	if _, err := b.w.WriteSeeker.Write(value); err != nil {
		return err
	}
	_, err := b.w.WriteSeeker.Seek(end, io.SeekStart)
	return err
}

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

// ErrOtherRender is BandsDone's answer for a file that is not of the
// render asked about, or whose header does not say.
var ErrOtherRender = errors.New("not of this render")

// BandsDone is how many rows the unfinished EXR in r (of size bytes) that
// a NewBandWriter of the render key began holds whole: an error where it
// is not one, or of another render.
func BandsDone(r io.ReaderAt, size int64, key string) (int, error) {
	f, err := exr.OpenReader(r, size)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrOtherRender, err) // whose, its header does not say
	}
	h := f.Header(0)
	if h == nil {
		return 0, ErrOtherRender
	}
	if a := h.Get(bandsKeyAttribute); a == nil || a.Value != key {
		return 0, ErrOtherRender
	}
	a := h.Get(bandsRowsAttribute)
	rows, ok := int32(0), a != nil
	if ok {
		rows, ok = a.Value.(int32)
	}
	if !ok || rows < 0 || rows > h.DataWindow().Height() {
		return 0, fmt.Errorf("no count of the rows done")
	}
	if rows == 0 {
		return 0, nil
	}
	var start, end int64
	var want string
	if a := h.Get(bandsSumAttribute); a != nil {
		text, _ := a.Value.(string)
		if n, _ := fmt.Sscanf(text, "%016x-%016x-%064s", &start, &end, &want); n != 3 {
			start, end = 0, -1
		}
	}
	if start <= 0 || end < start || end > size {
		return 0, fmt.Errorf("no sum of the rows done")
	}
	sum := sha256.New()
	if _, err := io.Copy(sum, io.NewSectionReader(r, start, end-start)); err != nil {
		return 0, err
	}
	if fmt.Sprintf("%x", sum.Sum(nil)) != want {
		return 0, fmt.Errorf("damaged: its rows are not what was written")
	}
	return int(rows), nil
}

// Copy writes rows [0, rows) of the unfinished EXR in r (of size bytes,
// BandsDone's) as the first rows of b, as they are: a killed render's
// bands, continued by the bands from row rows on.
func (b *BandWriter) Copy(r io.ReaderAt, size int64, rows int) error {
	if b.next != 0 || rows > b.height {
		return fmt.Errorf("writing an EXR in bands: %d rows copied into a file from row %d of %d", rows, b.next, b.height)
	}
	f, err := exr.OpenReader(r, size)
	if err != nil {
		return err
	}
	h := f.Header(0)
	if h == nil || h.IsTiled() || h.DataWindow() != (exr.Box2i{Max: exr.V2i{X: int32(b.width - 1), Y: int32(b.height - 1)}}) {
		return fmt.Errorf("not a scanline image of %dx%d", b.width, b.height)
	}
	have := h.Channels()
	for _, c := range b.channels.Channels() {
		if have == nil {
			return fmt.Errorf("it has no channels")
		}
		if got := have.Get(c.Name); got == nil || got.Type != c.Type || got.XSampling != 1 || got.YSampling != 1 {
			return fmt.Errorf("its channel %s is not the render's", c.Name)
		}
	}
	sr, err := exr.NewScanlineReader(f)
	if err != nil {
		return err
	}
	step := exrRows(b.width)
	floats := map[string][]float32{}
	halves := map[string][]half.Half{}
	for y0 := 0; y0 < rows; y0 += step {
		y1 := min(y0+step, rows)
		n := b.width * (y1 - y0)
		fb := exr.NewFrameBuffer()
		for _, c := range b.channels.Channels() {
			if c.Type == exr.PixelTypeHalf {
				halves[c.Name] = Grow(halves[c.Name], n)
				fb.Insert(c.Name, exr.NewSliceFromHalf(halves[c.Name], b.width, y1-y0).WithOrigin(0, y0))
			} else {
				floats[c.Name] = Grow(floats[c.Name], n)
				fb.Insert(c.Name, exr.NewSliceFromFloat32(floats[c.Name], b.width, y1-y0).WithOrigin(0, y0))
			}
		}
		sr.SetFrameBuffer(fb)
		if err := sr.ReadPixels(y0, y1-1); err != nil {
			return fmt.Errorf("rows %d..%d: %w", y0, y1-1, err)
		}
		b.sw.SetFrameBuffer(fb)
		if err := b.sw.WritePixels(y0, y1-1); err != nil {
			return err
		}
	}
	b.next, b.block = rows, max(16, min(step, rows))
	return b.rowsDone()
}

// Close writes the rows no band gave as zero (a render cut short), marks
// the file partial where partial says so, and completes it.
func (b *BandWriter) Close(partial bool) error {
	for b.next < b.height { // in blocks no taller than the bands were
		empty := &Film{Width: b.width, Height: min(b.block, b.height-b.next), Y0: b.next}
		if err := b.Write(empty); err != nil {
			return err
		}
	}
	if err := b.sw.Close(); err != nil {
		return err
	}
	if !partial {
		return nil
	}
	return b.poke(b.partialAt, []byte{1, 0, 0, 0})
}

// headRecorder keeps what is written through it while recording (the
// EXR's header, which NewScanlineWriter writes first), where it is in the
// file, and, once sum is set, the SHA-256 of what is appended from start
// on (the chunks, not the offset table written over the header's end).
type headRecorder struct {
	io.WriteSeeker
	recording bool
	head      []byte
	pos       int64
	sum       hash.Hash
	start     int64 // where sum begins
	hashed    int64 // where it ends: the end of what was appended
}

func (r *headRecorder) Write(p []byte) (int, error) {
	if r.recording {
		r.head = append(r.head, p...)
	}
	n, err := r.WriteSeeker.Write(p)
	if r.sum != nil && r.pos == r.hashed {
		r.sum.Write(p[:n])
		r.hashed += int64(n)
	}
	r.pos += int64(n)
	return n, err
}

func (r *headRecorder) Seek(offset int64, whence int) (int64, error) {
	pos, err := r.WriteSeeker.Seek(offset, whence)
	if err == nil {
		r.pos = pos
	}
	return pos, err
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

// Grow is s resized to n, reallocated only when it is too small (its
// contents then lost): the scratch buffers of the writers and the CPU's
// wavefronts.
func Grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// writePNG shows an output for display: the beauty exposed and
// tone-mapped; albedo encoded as sRGB colour; normals as 0.5 + 0.5·n; depth
// as grey up to its largest value. A partial render says so in a tEXt chunk.
func writePNG(w io.Writer, film *Film, a AOV, display Display) error {
	width, height := film.Width, film.Height
	if width*height >= largeFrame {
		defer tightGC()()
	}
	img := image.NewNRGBA(image.Rect(0, 0, width, height))
	scale := float32(math.Exp2(float64(display.Exposure)))
	rows := exrRows(width)
	var pix, buf, rgb []float32
	if a == AOVDepth {
		var far float32
		for y0 := 0; y0 < height; y0 += rows {
			buf, _ = film.resolveRowsInto(buf, a, y0, min(y0+rows, height))
			for _, v := range buf {
				far = max(far, v)
			}
		}
		scale = 1 / max(far, 1e-30)
	}
	// A block of rows at a time, resolved then encoded on every core.
	for y0 := 0; y0 < height; y0 += rows {
		y1 := min(y0+rows, height)
		pix, buf, rgb = rgbRows(film, a, y0, y1, buf, rgb)
		block := img.Pix[4*y0*width : 4*y1*width]
		parallelRanges(y1-y0, func(from, to int) {
			encodePNGPixels(block, pix, from*width, to*width, a, display, scale)
		})
	}
	var encoded bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&encoded, img); err != nil {
		return err
	}
	data := encoded.Bytes()
	if film.Partial {
		data = insertPNGText(data, "sertrace", fmt.Sprintf("partial render: %d samples per pixel", film.Samples))
	}
	_, err := w.Write(data)
	return err
}

// parallelRanges calls do on ranges [from, to) that cover [0, n) (rows
// of an image, elements of a layer), one range per core at once.
func parallelRanges(n int, do func(from, to int)) {
	parts := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(k*n/parts, (k+1)*n/parts)
		}()
	}
	wg.Wait()
}

// encodePNGPixels encodes pixels [from, to) of an output's RGB values into
// 8-bit NRGBA, as writePNG shows them.
func encodePNGPixels(out []uint8, pix []float32, from, to int, a AOV, display Display, scale float32) {
	for i := from; i < to; i++ {
		r, g, b := pix[3*i], pix[3*i+1], pix[3*i+2]
		p := out[4*i : 4*i+4]
		switch a {
		case AOVBeauty, AOVDiffuse, AOVSpecular:
			p[0], p[1], p[2] = display.encode(r*scale, g*scale, b*scale)
		case AOVAlbedo, AOVDiffuseAlbedo, AOVSpecularAlbedo:
			p[0], p[1], p[2] = EncodeSRGB(r), EncodeSRGB(g), EncodeSRGB(b)
		default: // normal, depth: data, shown linearly
			if a == AOVNormal {
				r, g, b = 0.5+0.5*r, 0.5+0.5*g, 0.5+0.5*b
			} else {
				r, g, b = r*scale, g*scale, b*scale
			}
			p[0], p[1], p[2] = uint8(min(max(r, 0), 1)*255+0.5), uint8(min(max(g, 0), 1)*255+0.5), uint8(min(max(b, 0), 1)*255+0.5)
		}
		p[3] = 255
	}
}

// insertPNGText adds a tEXt chunk after IHDR (8-byte signature + 25-byte IHDR).
func insertPNGText(p []byte, key, text string) []byte {
	body := append(append([]byte("tEXt"), key...), append([]byte{0}, text...)...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(body)-4))
	chunk = append(chunk, body...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(body))
	const after = 8 + 25
	return append(append(append([]byte{}, p[:after]...), chunk...), p[after:]...)
}

// EncodeSRGB maps a linear value to an 8-bit sRGB code (clamped; NaN → 0):
// the code whose interval holds it, found among the 255 thresholds where
// encodeSRGBPow steps up, so the two give the same codes (TestEncodeSRGB)
// at a fraction of the cost of a power per channel.
func EncodeSRGB(v float32) uint8 {
	if !(v > 0) {
		return 0
	}
	k := 0
	for step := 128; step > 0; step >>= 1 {
		if v >= srgbThresholds[k+step] {
			k += step
		}
	}
	return uint8(k)
}

// srgbThresholds[k] is the least float32 that encodeSRGBPow maps to k or
// more (k ≥ 1).
var srgbThresholds = func() (t [256]float32) {
	for k := 1; k < 256; k++ {
		lo, hi := uint32(0), math.Float32bits(1)
		for lo < hi { // positive floats order as their bits
			mid := lo + (hi-lo)/2
			if int(encodeSRGBPow(math.Float32frombits(mid))) >= k {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		t[k] = math.Float32frombits(lo)
	}
	return t
}()

// encodeSRGBPow is the sRGB encoding by its definition.
func encodeSRGBPow(v float32) uint8 {
	if !(v > 0) {
		return 0
	}
	if v >= 1 {
		return 255
	}
	var s float64
	if v <= 0.0031308 {
		s = 12.92 * float64(v)
	} else {
		s = 1.055*math.Pow(float64(v), 1/2.4) - 0.055
	}
	return uint8(s*255 + 0.5)
}

// DecodeSRGB maps an 8-bit sRGB code to linear.
func DecodeSRGB(c uint8) float32 { return srgbTable[c] }

var srgbTable = func() (t [256]float32) {
	for i := range t {
		s := float64(i) / 255
		if s <= 0.04045 {
			t[i] = float32(s / 12.92)
		} else {
			t[i] = float32(math.Pow((s+0.055)/1.055, 2.4))
		}
	}
	return t
}()
