package render

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/mrjoshuak/go-openexr/exr"

	"sertrace/atomicfile"
)

// A slice is a render of some of a frame's samples (--samples FIRST:COUNT),
// written as an EXR that shows its own samples like any render and holds
// its film's exact sums besides: every layer's 64-bit sums (an exact
// layer's low words, a statistic's float64) as pairs of 32-bit words, in
// UINT channels named sums.LAYER.C.hi and sums.LAYER.C.lo, an exact
// layer's high words where any is not zero in sums.LAYER.C.high.hi and
// .high.lo, and in the header (sertrace:slice) what it is a slice of. MergeSlices adds slices into the film of the whole render,
// which, the sums being exact, is bit for bit the one rendering it in one
// go makes on the same backend.

// Tracer names what rendered a film, from its stats: the backend and its
// tracer, or the device and path. Slices rendered on different ones are
// not merged: their sums differ in the last bits.
func Tracer(stats *Stats) string {
	switch {
	case stats.Device != "":
		return fmt.Sprintf("%s (%s, path %s)", stats.Backend, stats.Device, stats.Path)
	case stats.Accel != "":
		return fmt.Sprintf("%s (%s)", stats.Backend, stats.Accel)
	}
	return stats.Backend
}

// SliceInfo says what a slice is a slice of: slices merge when all of it
// but First and Count is the same.
type SliceInfo struct {
	Scene    string   `json:"scene"`   // the scene's path as given (for messages)
	Content  string   `json:"content"` // scene.ContentHash of the scene and its environment
	Build    string   `json:"build"`   // BuildID of the sertrace that rendered it
	Tracer   string   `json:"tracer"`  // the backend and tracer or device that rendered it
	Settings Settings `json:"settings"`
	Width    int      `json:"width"`
	Height   int      `json:"height"`
	SPP      int      `json:"spp"`   // the whole render's samples per pixel
	First    int      `json:"first"` // the slice's samples: [First, First+Count)
	Count    int      `json:"count"`
	CostUnit string   `json:"cost_unit,omitempty"`
	// Groups are the light groups the slice holds, in the order of its
	// sums.lightgroup.G channels.
	Groups []string `json:"light_groups,omitempty"`
	// Coverage, where the slice holds Cryptomatte's counts, is what its
	// instances are named by and the counts a pixel its coverage.K
	// channels hold.
	Coverage *SliceCoverage `json:"cryptomatte,omitempty"`
	// Sums is how the sums are held (sliceSums); a slice of another form
	// (an older sertrace's float64 pairs) is refused by name.
	Sums string `json:"sums"`
	// Checksum is the SHA-256 of the rest of the info and of the sums
	// (sliceChecksum): a slice edited, damaged or cut short between farm
	// nodes is refused by name instead of merged into a wrong image.
	Checksum string `json:"checksum"`
}

// SliceCoverage is a slice's Cryptomatte: its instances' names, and how
// many counts a pixel its channels hold (the most any pixel has).
type SliceCoverage struct {
	Names []CoverageNames `json:"names"`
	Slots int             `json:"slots"`
}

// sliceSums names the form of a slice's sums: 64-bit integers of units of
// 2^-32 with sparse high words, the narrow layers' 32-bit words of 2^-14
// sign-extended (sums.go).
const sliceSums = "fixed-2^-32-narrow-2^-14"

// sliceChecksum is the hex SHA-256 of a slice's info (its Checksum left
// empty) and of the film's sums, layer by layer: the 64-bit words, then
// the high words that are not zero with their places, in order.
func sliceChecksum(film *Film, info SliceInfo) string {
	info.Checksum = ""
	h := sha256.New()
	text, _ := json.Marshal(info)
	h.Write(text)
	var word [8]byte
	put := func(w uint64) {
		binary.LittleEndian.PutUint64(word[:], w)
		h.Write(word[:])
	}
	layer := func(s *LayerSums) {
		for i := range s.Len() {
			put(s.word(i))
		}
		for _, i := range slices.Sorted(maps.Keys(s.High)) {
			put(uint64(i))
			put(uint64(s.High[i]))
		}
	}
	for l := range NumLayers {
		layer(&film.Sums[l])
	}
	for g := range film.Groups {
		layer(&film.Groups[g])
	}
	if c := film.Coverage; c != nil {
		var counts []uint64
		for px := range film.Width * film.Height {
			counts = c.Pixel(px, counts[:0])
			slices.Sort(counts)
			put(uint64(len(counts)))
			for _, w := range counts {
				put(w)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// word is element i's 64-bit word: an exact sum's low word, a statistic's
// float64 bits.
func (s *LayerSums) word(i int) uint64 {
	switch {
	case s.Plain != nil:
		return math.Float64bits(s.Plain[i])
	case s.Narrow != nil:
		return uint64(int64(s.Narrow[i])) // sign-extended
	}
	return uint64(s.Fixed[i])
}

// setWord makes element i's 64-bit word w.
func (s *LayerSums) setWord(i int, w uint64) {
	switch {
	case s.Plain != nil:
		s.Plain[i] = math.Float64frombits(w)
	case s.Narrow != nil:
		s.Narrow[i] = int32(w)
	default:
		s.Fixed[i] = int64(w)
	}
}

// sliceAttribute is the EXR header attribute that holds a slice's info.
const sliceAttribute = "sertrace:slice"

// ForSlice is the settings of a render as a slice of it records them: less
// what only cuts or schedules the work, the samples it took, the thread
// count and the memory budget.
func (s Settings) ForSlice() Settings {
	s.Samples, s.Threads, s.MemoryBudget = "", 0, ""
	return s
}

// WriteSlice writes film, samples [film.First, film.First+film.Samples) of
// the render info describes, as a slice EXR.
func WriteSlice(path string, film *Film, info SliceInfo, display Display) error {
	switch {
	case !strings.EqualFold(filepath.Ext(path), ".exr"):
		return fmt.Errorf("write %s: a slice is written as an EXR", path)
	case film.Cut():
		return fmt.Errorf("write %s: internal error: a slice of a pass cut short (render it with Options.WholePasses)", path)
	}
	info.Settings = info.Settings.ForSlice()
	info.Width, info.Height, info.First, info.Count, info.CostUnit, info.Sums = film.Width, film.Height, film.First, film.Samples, film.CostUnit, sliceSums
	info.Groups, info.Coverage = film.GroupNames, nil
	if c := film.Coverage; c != nil {
		info.Coverage = &SliceCoverage{Names: c.Names, Slots: c.maxSlots()}
	}
	if film.Whole() && film.HasSplit() {
		info.Checksum = sliceChecksum(film, info)
	}
	return atomicfile.Write(path, func(w io.WriteSeeker) error {
		return writeEXR(w, film, AOVBeauty, display.HalfFloat, &info)
	})
}

// sumChannel names the EXR channel of word (hi, lo, high.hi or high.lo)
// of channel c of layer l's sums.
func sumChannel(layer string, c int, word string) string {
	return fmt.Sprintf("sums.%s.%d.%s", layer, c, word)
}

// sumRows is how many rows of a slice's sums are converted at a time (a
// multiple of ZIP's 16-row chunks), so that the words cost a few MB, not
// another film.
const sumRows = 64

// sumPlane is one UINT channel of a slice's sums: half (hi or lo) of the
// 64-bit words of channel c of a layer's sums, or of its high words
// (high; dense in the file, in the film's map where not zero).
type sumPlane struct {
	name  string
	sums  *LayerSums
	high  []uint64 // the high words, dense, while a slice is read
	chans int      // per pixel
	c     int
	hi    bool // the upper 32 bits
	words []uint32
}

// get is the 64-bit word of the plane's at element j.
func (p *sumPlane) get(j int) uint64 {
	if p.high != nil {
		return p.high[j]
	}
	return p.sums.word(j)
}

// set puts the plane's half of element j's word.
func (p *sumPlane) set(j int, half uint32) {
	w := p.get(j)
	if p.hi {
		w = uint64(half)<<32 | w&0xffffffff
	} else {
		w = w&^0xffffffff | uint64(half)
	}
	if p.high != nil {
		p.high[j] = w
		return
	}
	p.sums.setWord(j, w)
}

// sumPlanes lists a film's sums channels, in the EXR's names: every
// layer's words and, where high says so, its high words; the light
// groups' as the layers'; Cryptomatte's counts, slots a pixel (their
// words in coverage, dense), their instances in hi and counts in lo.
func sumPlanes(film *Film, rows int, high func(name string) bool, coverage []uint64, slots int) []*sumPlane {
	var out []*sumPlane
	layer := func(name string, s *LayerSums, channels int, exact bool) {
		var dense []uint64
		if exact && high(name) {
			dense = make([]uint64, s.Len())
			for i, h := range s.High {
				dense[i] = uint64(h)
			}
		}
		for c := range channels {
			for _, hi := range []bool{true, false} {
				half := "lo"
				if hi {
					half = "hi"
				}
				out = append(out, &sumPlane{name: sumChannel(name, c, half), sums: s, chans: channels, c: c, hi: hi, words: make([]uint32, film.Width*rows)})
				if dense != nil {
					out = append(out, &sumPlane{name: sumChannel(name, c, "high."+half), sums: s, high: dense, chans: channels, c: c, hi: hi, words: make([]uint32, film.Width*rows)})
				}
			}
		}
	}
	for l, info := range FilmLayers {
		layer(info.Name, &film.Sums[l], info.Channels, info.Exact)
	}
	for g := range film.Groups {
		layer(groupSumsName(g), &film.Groups[g], 3, true)
	}
	for k := range slots {
		for _, hi := range []bool{true, false} {
			name := fmt.Sprintf("coverage.%d.count", k)
			if hi {
				name = fmt.Sprintf("coverage.%d.id", k)
			}
			out = append(out, &sumPlane{name: name, high: coverage, chans: slots, c: k, hi: hi, words: make([]uint32, film.Width*rows)})
		}
	}
	return out
}

// groupSumsName is light group g's layer's name in a slice's channels.
func groupSumsName(g int) string { return fmt.Sprintf("lightgroup.%d", g) }

// addSums declares a slice's sums channels and its info in an EXR being
// written; writeBlock then fills the sums' frame buffer a block of rows at
// a time.
func addSums(film *Film, info *SliceInfo, h *exr.Header, channels *exr.ChannelList) ([]*sumPlane, error) {
	if !film.Whole() || !film.HasSplit() {
		return nil, fmt.Errorf("the film is not whole: it cannot be written as a slice")
	}
	highs := map[string]bool{}
	for l, info := range FilmLayers {
		highs[info.Name] = len(film.Sums[l].High) > 0
	}
	for g := range film.Groups {
		highs[groupSumsName(g)] = len(film.Groups[g].High) > 0
	}
	var coverage []uint64
	slots := 0
	if info.Coverage != nil {
		slots = info.Coverage.Slots
		coverage = film.Coverage.dense(slots)
	}
	planes := sumPlanes(film, min(sumRows, film.Height), func(name string) bool { return highs[name] }, coverage, slots)
	for _, p := range planes {
		channels.Add(exr.Channel{Name: p.name, Type: exr.PixelTypeUint, XSampling: 1, YSampling: 1})
	}
	text, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	h.Set(&exr.Attribute{Name: sliceAttribute, Type: exr.AttrTypeString, Value: string(text)})
	return planes, nil
}

// fillBlock converts rows [y0, y1) of the sums into the planes' words and
// points fb at them.
func fillBlock(planes []*sumPlane, fb *exr.FrameBuffer, width, y0, y1 int) {
	for _, p := range planes {
		for i := range (y1 - y0) * width {
			w := p.get((y0*width+i)*p.chans + p.c)
			if p.hi {
				p.words[i] = uint32(w >> 32)
			} else {
				p.words[i] = uint32(w)
			}
		}
		fb.Set(p.name, exr.NewSliceFromUint32(p.words, width, y1-y0).WithOrigin(0, y0))
	}
}

// ReadSliceInfo reads what the slice at path is a slice of.
func ReadSliceInfo(path string) (SliceInfo, error) {
	f, err := exr.OpenFile(path)
	if err != nil {
		return SliceInfo{}, fmt.Errorf("read %s: %v", path, err)
	}
	defer f.Close()
	return sliceInfoOf(path, f.Header(0))
}

func sliceInfoOf(path string, h *exr.Header) (SliceInfo, error) {
	var info SliceInfo
	a := h.Get(sliceAttribute)
	text, ok := "", a != nil
	if ok {
		text, ok = a.Value.(string)
	}
	if !ok {
		return info, fmt.Errorf("%s is not a slice (no %s attribute): render one with sertrace render --samples FIRST:COUNT", path, sliceAttribute)
	}
	if err := json.Unmarshal([]byte(text), &info); err != nil {
		return info, fmt.Errorf("%s: its %s attribute does not read: %v", path, sliceAttribute, err)
	}
	if info.Width < 1 || info.Height < 1 || info.Width > MaxFilePixels || info.Height > MaxFilePixels/info.Width || info.SPP < 1 || info.First < 0 || info.Count < 1 || info.First+info.Count > info.SPP {
		return info, fmt.Errorf("%s: its %s attribute says %dx%d pixels, samples %d:%d of %d, which no slice is", path, sliceAttribute, info.Width, info.Height, info.First, info.Count, info.SPP)
	}
	return info, nil
}

// ReadSlice reads a slice's film and info.
func ReadSlice(path string) (*Film, SliceInfo, error) {
	f, err := exr.OpenFile(path)
	if err != nil {
		return nil, SliceInfo{}, fmt.Errorf("read %s: %v", path, err)
	}
	defer f.Close()
	h := f.Header(0)
	info, err := sliceInfoOf(path, h)
	if err != nil {
		return nil, info, err
	}
	dw := h.DataWindow()
	if w, ht := int(dw.Max.X-dw.Min.X+1), int(dw.Max.Y-dw.Min.Y+1); w != info.Width || ht != info.Height || f.IsTiled() || f.IsDeep() {
		return nil, info, fmt.Errorf("read %s: its pixels (%dx%d) are not the %dx%d of its slice attribute", path, w, ht, info.Width, info.Height)
	}
	present := map[string]exr.PixelType{}
	if h.Channels() == nil {
		return nil, info, fmt.Errorf("read %s: its header lists no channels: the file is damaged", path)
	}
	for i := 0; i < h.Channels().Len(); i++ {
		present[h.Channels().At(i).Name] = h.Channels().At(i).Type
	}
	r, err := exr.NewScanlineReader(f)
	if err != nil {
		return nil, info, fmt.Errorf("read %s: %v", path, err)
	}
	if info.Sums != sliceSums {
		return nil, info, fmt.Errorf("read %s: its sums are not in the form this sertrace reads (%q, not %q: written by another version): render it again", path, info.Sums, sliceSums)
	}
	layers := AllLayers
	var coverage []uint64
	slots := 0
	if info.Coverage != nil {
		// A pixel counts at most as many named things as there are, and
		// as its samples: a header that says more is refused before
		// anything that size is made, as one whose channels are missing.
		if slots = info.Coverage.Slots; slots < 1 || slots > max(len(info.Coverage.Names), 1) || slots > info.Count {
			return nil, info, fmt.Errorf("read %s: its %s attribute says %d Cryptomatte counts a pixel, of %d names and %d samples: the file is damaged", path, sliceAttribute, slots, len(info.Coverage.Names), info.Count)
		}
		for k := range slots {
			for _, half := range []string{"id", "count"} {
				if typ, ok := present[fmt.Sprintf("coverage.%d.%s", k, half)]; !ok || typ != exr.PixelTypeUint {
					return nil, info, fmt.Errorf("read %s: the slice lacks the Cryptomatte channel coverage.%d.%s", path, k, half)
				}
			}
		}
		layers |= CoverageLayers
		coverage = make([]uint64, slots*info.Width*info.Height)
	}
	if len(info.Groups) > MaxLightGroups {
		return nil, info, fmt.Errorf("read %s: its %s attribute names %d light groups, more than %d", path, sliceAttribute, len(info.Groups), MaxLightGroups)
	}
	if len(info.Groups) > 0 {
		layers |= GroupLayers
	}
	film := NewFilmWith(info.Width, info.Height, layers, info.Groups)
	film.First, film.Samples, film.CostUnit = info.First, info.Count, info.CostUnit
	planes := sumPlanes(film, min(sumRows, info.Height), func(name string) bool {
		_, ok := present[sumChannel(name, 0, "high.hi")]
		return ok
	}, coverage, slots)
	for _, p := range planes {
		if typ, ok := present[p.name]; !ok || typ != exr.PixelTypeUint {
			return nil, info, fmt.Errorf("read %s: the slice lacks the sums channel %s", path, p.name)
		}
	}
	for y0 := 0; y0 < info.Height; y0 += sumRows {
		y1 := min(y0+sumRows, info.Height)
		fb := exr.NewFrameBuffer()
		for _, p := range planes {
			fb.Insert(p.name, exr.NewSliceFromUint32(p.words, info.Width, y1-y0).WithOrigin(int(dw.Min.X), int(dw.Min.Y)+y0))
		}
		r.SetFrameBuffer(fb)
		if err := r.ReadPixels(int(dw.Min.Y)+y0, int(dw.Min.Y)+y1-1); err != nil {
			return nil, info, fmt.Errorf("read %s: %v", path, err)
		}
		for _, p := range planes {
			for i := range (y1 - y0) * info.Width {
				p.set((y0*info.Width+i)*p.chans+p.c, p.words[i])
			}
		}
	}
	for _, p := range planes {
		if p.high != nil && p.sums != nil && p.hi && p.c == 0 { // once a layer
			for i, h := range p.high {
				p.sums.setHigh(i, int64(h))
			}
		}
	}
	if info.Coverage != nil {
		film.Coverage.Cryptomatte = Cryptomatte{Names: info.Coverage.Names, Levels: cryptomatteLevels(info.Settings.CryptomatteLevels)}
		if err := film.Coverage.fromDense(coverage, slots, len(info.Coverage.Names)); err != nil {
			return nil, info, fmt.Errorf("read %s: %v: the file is damaged", path, err)
		}
	}
	for l := range NumLayers {
		if plain := film.Sums[l].Plain; slices.ContainsFunc(plain, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }) {
			return nil, info, fmt.Errorf("read %s: its %s sums are not all finite: the file is damaged", path, FilmLayers[l].Name)
		}
	}
	if info.Checksum == "" {
		return nil, info, fmt.Errorf("read %s: the slice has no checksum (written by an older sertrace): render it again", path)
	}
	if sum := sliceChecksum(film, info); sum != info.Checksum {
		return nil, info, fmt.Errorf("read %s: its sums or its %s attribute do not match its checksum: the file was edited or damaged", path, sliceAttribute)
	}
	return film, info, nil
}

// MergeSlices adds the slices at paths into the film of the whole render
// they are slices of, with its info (First 0, Count the SPP). The slices
// must be of one render (scene, settings, size, sertrace build and
// tracer) and cover its samples once each: a mismatch, an overlap or a gap
// is an error naming the files or the samples. Slices are read one at a
// time.
func MergeSlices(paths []string) (*Film, SliceInfo, error) {
	if len(paths) == 0 {
		return nil, SliceInfo{}, fmt.Errorf("no slices to merge")
	}
	infos := make([]SliceInfo, len(paths))
	for i, p := range paths {
		info, err := ReadSliceInfo(p)
		if err != nil {
			return nil, info, err
		}
		infos[i] = info
		if i > 0 {
			if why := sliceMismatch(infos[0], info); why != "" {
				return nil, info, fmt.Errorf("%s and %s are not slices of one render: %s", paths[0], p, why)
			}
		}
	}
	if err := infos[0].Settings.Check(); err != nil {
		return nil, infos[0], fmt.Errorf("%s: the settings it records do not read: %v", paths[0], err)
	}
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return infos[a].First - infos[b].First })
	next, prev := 0, -1
	for _, i := range order {
		info := infos[i]
		switch {
		case info.First > next && prev >= 0:
			return nil, info, fmt.Errorf("samples %d:%d (FIRST:COUNT) of the %d, between %s and %s, are in none of the slices", next, info.First-next, info.SPP, paths[prev], paths[i])
		case info.First > next:
			return nil, info, fmt.Errorf("samples %d:%d (FIRST:COUNT) of the %d, before %s, are in none of the slices", next, info.First-next, info.SPP, paths[i])
		case info.First < next:
			return nil, info, fmt.Errorf("%s (samples %d:%d) overlaps %s (samples %d:%d)", paths[i], info.First, info.Count, paths[prev], infos[prev].First, infos[prev].Count)
		}
		next, prev = info.First+info.Count, i
	}
	whole := infos[0]
	if next < whole.SPP {
		return nil, whole, fmt.Errorf("samples %d:%d (FIRST:COUNT) of the %d, after %s, are in none of the slices", next, whole.SPP-next, whole.SPP, paths[prev])
	}
	var film *Film // the first slice's, which the others join
	for _, i := range order {
		part, _, err := ReadSlice(paths[i])
		if err != nil {
			return nil, whole, err
		}
		if film == nil {
			film = part
			continue
		}
		if err := film.Add(part); err != nil {
			return nil, whole, fmt.Errorf("%s: %v", paths[i], err)
		}
		film.Samples += part.Samples
	}
	film.First = 0
	whole.First, whole.Count, whole.Checksum = 0, whole.SPP, "" // the render's info now, no slice's
	return film, whole, nil
}

// sliceMismatch says how two slices' renders differ, or "".
func sliceMismatch(a, b SliceInfo) string {
	switch {
	case a.Content != b.Content:
		return fmt.Sprintf("their scenes differ (%s, %s: the files' content)", a.Scene, b.Scene)
	case a.Width != b.Width || a.Height != b.Height:
		return fmt.Sprintf("%dx%d pixels against %dx%d", a.Width, a.Height, b.Width, b.Height)
	case a.SPP != b.SPP:
		return fmt.Sprintf("%d samples per pixel against %d", a.SPP, b.SPP)
	case a.Build != b.Build:
		return "different builds of sertrace rendered them"
	case a.Tracer != b.Tracer:
		return fmt.Sprintf("rendered on %s against %s", a.Tracer, b.Tracer)
	}
	var diffs []string
	vb := reflect.ValueOf(&b.Settings).Elem()
	i := 0
	EachSetting(&a.Settings, func(key string, field reflect.Value) {
		if x, y := field.Interface(), vb.Field(i).Interface(); x != y {
			diffs = append(diffs, fmt.Sprintf("%s %v against %v", key, x, y))
		}
		i++
	})
	if len(diffs) > 0 {
		return "settings " + strings.Join(diffs, ", ")
	}
	return ""
}
