package render

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzReadEXR feeds ReadEXR (what sertrace denoise reads its image and
// guides with) arbitrary files: channels, or one line of error naming the
// file; never a panic. Seeds: a slice (every channel sertrace writes) and
// the slice headers of FuzzReadSlice's corpus (testdata/fuzz holds a
// header without a channel list, which once panicked).
//
//	go test ./render -run '^$' -fuzz FuzzReadEXR -fuzztime 10m
func FuzzReadEXR(f *testing.F) {
	dir := f.TempDir()
	film := noisyFilm(3, 2, AllLayers)
	path := filepath.Join(dir, "slice.exr")
	if err := WriteSlice(path, film, SliceInfo{SPP: 1, Settings: DefaultSettings()}, Display{}); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	f.Add(b)
	seeds, _ := filepath.Glob("testdata/fuzz/FuzzReadSlice/*")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		// The corpus file format: a header line, then the []byte literal.
		if _, lit, ok := strings.Cut(string(data), "[]byte("); ok {
			if text, err := strconv.Unquote(strings.TrimSuffix(strings.TrimSpace(lit), ")")); err == nil {
				f.Add([]byte(text))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.exr")
		os.WriteFile(path, data, 0o644)
		if _, _, _, err := ReadEXR(path, "R", "G", "B", "albedo.R", "depth.Z"); err != nil && (!strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n")) {
			t.Fatalf("not one line naming the file: %v", err)
		}
	})
}
