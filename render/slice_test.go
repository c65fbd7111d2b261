package render

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mrjoshuak/go-openexr/exr"
)

// writeHostileSlice writes a 2×2 EXR whose slice attribute says info.
func writeHostileSlice(t testing.TB, path string, info SliceInfo) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := exr.NewScanlineHeader(2, 2)
	channels := exr.NewChannelList()
	channels.Add(exr.Channel{Name: "R", Type: exr.PixelTypeFloat, XSampling: 1, YSampling: 1})
	h.SetChannels(channels)
	text, _ := json.Marshal(info)
	h.Set(&exr.Attribute{Name: sliceAttribute, Type: exr.AttrTypeString, Value: string(text)})
	w, err := exr.NewScanlineWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	fb := exr.NewFrameBuffer()
	fb.Insert("R", exr.NewSliceFromFloat32(make([]float32, 4), 2, 2))
	w.SetFrameBuffer(fb)
	if err := w.WritePixels(0, 1); err != nil {
		t.Fatal(err)
	}
	w.Close()
}

// TestSliceKeepsHighWords: a slice whose sums pass the low word's range
// (a pixel that sees a light of radiance 10^12) writes their high words
// and reads back the same sums, bit for bit.
func TestSliceKeepsHighWords(t *testing.T) {
	film := noisyFilm(5, 3, AllLayers)
	film.Sums[LayerBeauty].AddSample(4, 1e12)
	film.Sums[LayerLumSq].AddSample(1, -3e18)
	film.Sums[LayerLumSq].AddSample(1, -3e18)
	if len(film.Sums[LayerBeauty].High) != 1 || len(film.Sums[LayerLumSq].High) != 1 {
		t.Fatalf("high words %v, %v: the test needs one in each layer", film.Sums[LayerBeauty].High, film.Sums[LayerLumSq].High)
	}
	path := filepath.Join(t.TempDir(), "s.exr")
	if err := WriteSlice(path, film, SliceInfo{SPP: 1, Settings: DefaultSettings()}, Display{}); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadSlice(path)
	if err != nil {
		t.Fatal(err)
	}
	for l := range NumLayers {
		a, b := &film.Sums[l], &got.Sums[l]
		if !a.Equal(b) {
			t.Fatalf("%s: read back %v, wrote %v", FilmLayers[l].Name, b, a)
		}
	}
}

// TestHostileSlices: slice headers that lie (sizes that overflow, sample
// ranges that make no sense, pixels that are not there) are refused with an
// error naming the file, never a panic or an allocation of what they claim.
func TestHostileSlices(t *testing.T) {
	dir := t.TempDir()
	good := SliceInfo{Width: 2, Height: 2, SPP: 4, First: 0, Count: 4, Settings: DefaultSettings(), Sums: sliceSums}
	for _, tc := range []struct {
		name string
		edit func(*SliceInfo)
		want string
	}{
		{"overflow", func(i *SliceInfo) { i.Width, i.Height = 1<<62, 2 }, "which no slice is"},
		{"huge", func(i *SliceInfo) { i.Width, i.Height = 1<<16, 1<<16 }, "which no slice is"},
		{"count", func(i *SliceInfo) { i.Count = 0 }, "which no slice is"},
		{"past", func(i *SliceInfo) { i.First = 3 }, "which no slice is"},
		{"pixels", func(i *SliceInfo) { i.Width, i.Height = 4, 4 }, "are not the 4x4"},
		{"sums", func(*SliceInfo) {}, "lacks the sums channel"},
		{"settings", func(i *SliceInfo) { i.Settings.ToneMap = "sepia" }, "settings it records"},
		{"older", func(i *SliceInfo) { i.Sums = "" }, "not in the form this sertrace reads"},
		// Cryptomatte's counts: more a pixel than names or samples, or
		// their channels missing, refused before anything that size.
		{"slots", func(i *SliceInfo) { i.Coverage = &SliceCoverage{Names: make([]CoverageNames, 3), Slots: 1 << 16} }, "says 65536 Cryptomatte counts a pixel"},
		{"slot channels", func(i *SliceInfo) { i.Coverage = &SliceCoverage{Names: make([]CoverageNames, 3), Slots: 2} }, "lacks the Cryptomatte channel coverage.0.id"},
		{"groups", func(i *SliceInfo) { i.Groups = make([]string, MaxLightGroups+1) }, "names 33 light groups"},
	} {
		info := good
		tc.edit(&info)
		path := filepath.Join(dir, tc.name+".exr")
		writeHostileSlice(t, path, info)
		_, _, err := MergeSlices([]string{path})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error naming %s that says %q", tc.name, err, path, tc.want)
		}
	}
}

// TestSliceKeepsGroupsAndCoverage: a slice with light groups and
// Cryptomatte's counts (one pixel seeing more named things than its
// dense slots) reads back the same groups and counts, and its merge with
// another adds them.
func TestSliceKeepsGroupsAndCoverage(t *testing.T) {
	film := noisyFilm(3, 2, AllLayers)
	with := NewFilmWith(3, 2, AllLayers|GroupLayers|CoverageLayers, []string{"key", "fill"})
	with.Sums, with.Samples = film.Sums, 16
	with.Coverage.Cryptomatte = Cryptomatte{Names: make([]CoverageNames, 7), Of: []uint32{1, 2, 3, 4, 5, 6, 7}, Levels: 6}
	for g := range with.Groups {
		for i := range with.Groups[g].Fixed {
			with.Groups[g].AddSample(i, float32(g+i)/7)
		}
	}
	with.Groups[1].AddSample(5, 3e12) // a high word
	with.SumGroups()
	with.Coverage.AddSamples(4, []uint32{1, 2, 3, 4, 5, 6, 7, 7, 0}, nil)
	with.Coverage.AddSamples(0, []uint32{2, 2}, nil)
	path := filepath.Join(t.TempDir(), "s.exr")
	if err := WriteSlice(path, with, SliceInfo{SPP: with.Samples, Settings: DefaultSettings()}, Display{}); err != nil {
		t.Fatal(err)
	}
	got, info, err := ReadSlice(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Coverage == nil || info.Coverage.Slots != 7 || !slices.Equal(got.GroupNames, with.GroupNames) || !got.Coverage.Equal(with.Coverage) {
		t.Fatalf("read back groups %v, coverage %+v", got.GroupNames, info.Coverage)
	}
	for g := range with.Groups {
		if !got.Groups[g].Equal(&with.Groups[g]) {
			t.Fatalf("group %d: read back %v, wrote %v", g, got.Groups[g], with.Groups[g])
		}
	}
	if err := got.Add(with); err != nil {
		t.Fatal(err)
	}
	var counts []uint64
	if counts = got.Coverage.Pixel(4, counts); len(counts) != 7 || got.Coverage.Pixel(0, nil)[0] != 2<<32|4 {
		t.Errorf("added counts %x, %x", counts, got.Coverage.Pixel(0, nil))
	}
	if err := got.Add(film); err == nil {
		t.Error("a film without groups or counts added to one with them")
	}
}

// FuzzReadSlice feeds ReadSlice arbitrary files: a slice, or one line of
// error naming the file; never a panic or an allocation of what a header
// claims. Seeds: slices whose headers are good and hostile.
//
//	go test ./render -run '^$' -fuzz FuzzReadSlice -fuzztime 5m
func FuzzReadSlice(f *testing.F) {
	dir := f.TempDir()
	good := SliceInfo{Width: 2, Height: 2, SPP: 4, First: 0, Count: 4, Settings: DefaultSettings(), Sums: sliceSums}
	for i, edit := range []func(*SliceInfo){func(*SliceInfo) {}, func(i *SliceInfo) { i.Width = 1 << 20 }, func(i *SliceInfo) { i.Checksum = "00" }} {
		info := good
		edit(&info)
		path := filepath.Join(dir, fmt.Sprintf("seed%d.exr", i))
		writeHostileSlice(f, path, info)
		b, _ := os.ReadFile(path)
		f.Add(b)
	}
	// A real slice, with high words.
	film := noisyFilm(3, 2, AllLayers)
	film.Sums[LayerBeauty].AddSample(2, 1e12)
	path := filepath.Join(dir, "real.exr")
	if err := WriteSlice(path, film, SliceInfo{SPP: 1, Settings: DefaultSettings()}, Display{}); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	f.Add(b)
	// And one with light groups and Cryptomatte's counts.
	with := NewFilmWith(3, 2, AllLayers|GroupLayers|CoverageLayers, []string{"key", "fill"})
	with.Sums, with.Samples = film.Sums, 4
	with.Coverage.Cryptomatte = Cryptomatte{Names: make([]CoverageNames, 3), Of: []uint32{1, 2, 3}, Levels: 6}
	with.Coverage.AddSamples(1, []uint32{1, 2, 3, 3}, nil)
	with.SumGroups()
	path = filepath.Join(dir, "groups.exr")
	if err := WriteSlice(path, with, SliceInfo{SPP: 4, Settings: DefaultSettings()}, Display{}); err != nil {
		f.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.exr")
		os.WriteFile(path, data, 0o644)
		if _, _, err := ReadSlice(path); err != nil && (!strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n")) {
			t.Fatalf("not one line naming the file: %v", err)
		}
	})
}
