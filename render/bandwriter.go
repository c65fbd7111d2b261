package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/mrjoshuak/go-openexr/exr"
	"github.com/mrjoshuak/go-openexr/half"
)

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
// pixel into a film of the layers held, named by names; key names the
// render.
func NewBandWriter(w io.WriteSeeker, width, height int, held Layers, names FilmNames, halfFloat bool, spp int, key string) (*BandWriter, error) {
	h, channels, groups := exrLayout(width, height, held|BaseLayers, AOVBeauty, halfFloat, names)
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
