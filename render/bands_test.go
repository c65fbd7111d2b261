package render

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mrjoshuak/go-openexr/exr"

	"sertrace/atomicfile"
	"sertrace/scene"
)

// bandOf copies rows [y0, y0+rows) of f into a band film.
func bandOf(f *Film, y0, rows int) *Film {
	b := &Film{Width: f.Width, Height: rows, Y0: y0, Samples: f.Samples}
	for l := range NumLayers {
		src := &f.Sums[l]
		if src.Len() == 0 {
			continue
		}
		n := FilmLayers[l].Channels * f.Width
		switch {
		case src.Fixed != nil:
			b.Sums[l].Fixed = slices.Clone(src.Fixed[y0*n : (y0+rows)*n])
		case src.Narrow != nil:
			b.Sums[l].Narrow = slices.Clone(src.Narrow[y0*n : (y0+rows)*n])
		default:
			b.Sums[l].Plain = slices.Clone(src.Plain[y0*n : (y0+rows)*n])
		}
	}
	return b
}

// readAll reads every channel of an EXR.
func readAll(t *testing.T, path string) (int, int, map[string][]float32, error) {
	t.Helper()
	f, err := exr.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	names := f.Header(0).Channels().Names()
	f.Close()
	return ReadEXR(path, names...)
}

func partialOf(t *testing.T, path string) int32 {
	t.Helper()
	f, err := exr.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := f.Header(0).Get(partialAttribute)
	if a == nil {
		return -1
	}
	return a.Value.(int32)
}

// TestBandWriterMatchesWrite: an EXR written band by band holds the
// channels, value for value, that the whole film's EXR holds, marked not
// partial; cut short after its first band, the rest is zero and the file
// is marked partial.
func TestBandWriterMatchesWrite(t *testing.T) {
	dir := t.TempDir()
	f := noisyFilm(40, 70, GuideLayers|SplitLayers)
	whole := filepath.Join(dir, "whole.exr")
	if err := Write(whole, f, Display{}); err != nil {
		t.Fatal(err)
	}
	write := func(name string, bands []int, partial bool) string {
		path := filepath.Join(dir, name)
		err := atomicWrite(path, func(bw *BandWriter) error {
			y := 0
			for _, rows := range bands {
				if err := bw.Write(bandOf(f, y, rows)); err != nil {
					return err
				}
				y += rows
			}
			return bw.Close(partial)
		}, f)
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	w, h, want, err := readAll(t, whole)
	if err != nil {
		t.Fatal(err)
	}
	banded := write("bands.exr", []int{16, 32, 16, 6}, false)
	_, _, got, err := readAll(t, banded)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) < 20 {
		t.Fatalf("%d channels, want the whole film's %d", len(got), len(want))
	}
	for name, plane := range want {
		if !slices.Equal(got[name], plane) {
			t.Errorf("channel %s differs from the whole film's", name)
		}
	}
	if p := partialOf(t, banded); p != 0 {
		t.Errorf("a complete render in bands is marked partial %d", p)
	}
	cut := write("cut.exr", []int{16}, true)
	_, _, got, err = readAll(t, cut)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got["R"] {
		if y := i / w; y < 16 && v != want["R"][i] || y >= 16 && v != 0 {
			t.Fatalf("row %d of %d of the cut render: %v", y, h, v)
		}
	}
	if p := partialOf(t, cut); p != 1 {
		t.Errorf("a render in bands cut short is marked partial %d, want 1", p)
	}
	// A band out of order is refused.
	if err := atomicWrite(filepath.Join(dir, "bad.exr"), func(bw *BandWriter) error { return bw.Write(bandOf(f, 16, 16)) }, f); err == nil {
		t.Error("a band that is not the next rows was written")
	}
}

// atomicWrite runs write on a BandWriter for f's size and layers, into path.
func atomicWrite(path string, write func(*BandWriter) error, f *Film) error {
	return atomicfile.Write(path, func(w io.WriteSeeker) error {
		bw, err := NewBandWriter(w, f.Width, f.Height, f.Held(), f.names(), false, f.Samples, "test")
		if err != nil {
			return err
		}
		return write(bw)
	})
}

// TestLargeRendersAreWholeRendersOnly: a render may be larger than the
// images sertrace reads back, but not as a slice or a checkpointed batch
// job, whose files it could not read.
func TestLargeRendersAreWholeRendersOnly(t *testing.T) {
	sc := &scene.Scene{Cameras: []scene.Camera{{Name: "c", YFov: 1, Transform: scene.Identity}}}
	big := Options{Width: 16384, Height: 16384, SPP: 4, MaxDepth: 4}
	if err := big.Validate(sc); err != nil {
		t.Errorf("a 16384x16384 render: %v", err)
	}
	slice := big
	slice.Count = 2
	checkpointed := big
	checkpointed.AfterPass = func(*Film) {}
	for _, o := range []Options{slice, checkpointed} {
		if err := o.Validate(sc); err == nil || !strings.Contains(err.Error(), "could not be read back") {
			t.Errorf("a 16384x16384 slice or checkpointed render: %v", err)
		}
	}
}

// TestKilledBandsAreContinued: the unfinished file of a render in bands
// killed outright (never closed) counts the rows of its whole bands, not
// a band cut short, and only for its own render; copied into a new file
// and continued with the bands after them, it makes the whole film's EXR,
// value for value, in float and in half.
func TestKilledBandsAreContinued(t *testing.T) {
	dir := t.TempDir()
	f := noisyFilm(40, 70, GuideLayers|SplitLayers)
	for _, halfFloat := range []bool{false, true} {
		whole := filepath.Join(dir, "whole.exr")
		if err := Write(whole, f, Display{HalfFloat: halfFloat}); err != nil {
			t.Fatal(err)
		}
		_, _, want, err := readAll(t, whole)
		if err != nil {
			t.Fatal(err)
		}
		killed, err := os.Create(filepath.Join(dir, "killed.exr"))
		if err != nil {
			t.Fatal(err)
		}
		bw, err := NewBandWriter(killed, f.Width, f.Height, f.Held(), f.names(), halfFloat, f.Samples, "render A")
		if err != nil {
			t.Fatal(err)
		}
		cut := bandOf(f, 48, 16)
		cut.Samples--
		for _, band := range []*Film{bandOf(f, 0, 16), bandOf(f, 16, 32), cut} {
			if err := bw.Write(band); err != nil {
				t.Fatal(err)
			}
		}
		fi, _ := killed.Stat()
		if _, err := BandsDone(killed, fi.Size(), "render B"); err == nil {
			t.Error("another render's file was taken")
		}
		rows, err := BandsDone(killed, fi.Size(), "render A")
		if err != nil || rows != 48 {
			t.Fatalf("the killed file holds %d rows (%v), want the 48 of its whole bands", rows, err)
		}
		// One bit flipped in those rows' chunks is found.
		b, _ := os.ReadFile(killed.Name())
		var start, end int64
		fmt.Sscanf(headerString(t, b, bandsSumAttribute), "%x-%x-", &start, &end)
		b[(start+end)/2] ^= 1
		if _, err := BandsDone(bytes.NewReader(b), int64(len(b)), "render A"); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("a flipped bit in the rows done: %v", err)
		}
		out := filepath.Join(dir, "continued.exr")
		err = atomicfile.Write(out, func(w io.WriteSeeker) error {
			bw, err := NewBandWriter(w, f.Width, f.Height, f.Held(), f.names(), halfFloat, f.Samples, "render A")
			if err != nil {
				return err
			}
			if err := bw.Copy(killed, fi.Size(), rows); err != nil {
				return err
			}
			if err := bw.Write(bandOf(f, 48, 22)); err != nil {
				return err
			}
			return bw.Close(false)
		})
		killed.Close()
		if err != nil {
			t.Fatal(err)
		}
		_, _, got, err := readAll(t, out)
		if err != nil {
			t.Fatal(err)
		}
		for name, plane := range want {
			if !slices.Equal(got[name], plane) {
				t.Errorf("half %v: channel %s of the continued file differs from the whole film's", halfFloat, name)
			}
		}
		if p := partialOf(t, out); p != 0 {
			t.Errorf("the continued file is marked partial %d", p)
		}
	}
}

// FuzzContinueBands: whatever the unfinished file a run would continue
// holds (damage, a hostile file named like one), counting its rows and
// copying them gives rows or an error, never a panic or a read past the
// image.
func FuzzContinueBands(f *testing.F) {
	film := noisyFilm(20, 40, GuideLayers)
	killed := filepath.Join(f.TempDir(), "killed.exr")
	out, err := os.Create(killed)
	if err != nil {
		f.Fatal(err)
	}
	bw, err := NewBandWriter(out, film.Width, film.Height, film.Held(), film.names(), true, film.Samples, "k")
	if err != nil {
		f.Fatal(err)
	}
	bw.Write(bandOf(film, 0, 16))
	out.Close()
	seed, _ := os.ReadFile(killed)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		rows, err := BandsDone(r, int64(len(data)), "k")
		if err != nil {
			return
		}
		if rows < 0 || rows > film.Height {
			t.Fatalf("%d rows done of %d", rows, film.Height)
		}
		w, err := os.Create(filepath.Join(t.TempDir(), "continued.exr"))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		bw, err := NewBandWriter(w, film.Width, film.Height, film.Held(), film.names(), true, film.Samples, "k")
		if err != nil {
			t.Fatal(err)
		}
		bw.Copy(r, int64(len(data)), rows)
	})
}

// headerString is a string attribute of the EXR in b.
func headerString(t *testing.T, b []byte, name string) string {
	t.Helper()
	f, err := exr.OpenReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	a := f.Header(0).Get(name)
	if a == nil {
		t.Fatalf("no %s", name)
	}
	return a.Value.(string)
}
