package batch

import (
	"bytes"
	"crypto/sha256"
	"testing"

	"sertrace/render"
)

// FuzzReadCheckpoint: whatever a checkpoint file holds (damage, another
// program's file, a hostile one), reading it gives a whole film or an
// error, never a panic; and its checksum right, the gob decoder behind it
// is fuzzed too.
func FuzzReadCheckpoint(f *testing.F) {
	film := render.NewFilmOf(4, 3, render.GuideLayers)
	film.Samples = 2
	for i := range 12 {
		film.Sums[render.LayerBeauty].Set(3*i, float64(i))
	}
	var buf bytes.Buffer
	if err := encodeCheckpoint(&buf, checkpoint{Key: "k", Film: film}); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[len(checkpointMagic)+sha256.Size:])
	f.Add([]byte(checkpointMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		sum := sha256.Sum256(b)
		for _, in := range [][]byte{b, append(append([]byte(checkpointMagic), sum[:]...), b...)} {
			cp, err := decodeCheckpoint(in)
			if err != nil {
				continue
			}
			if cp.Film == nil || !cp.Film.Whole() {
				t.Fatalf("a checkpoint read without error has no whole film")
			}
			var again bytes.Buffer
			if err := encodeCheckpoint(&again, cp); err != nil {
				t.Fatalf("a checkpoint read does not write again: %v", err)
			}
			if _, err := decodeCheckpoint(again.Bytes()); err != nil {
				t.Fatalf("a checkpoint written does not read again: %v", err)
			}
		}
	})
}

// TestCheckpointChecksum: a checkpoint reads back as written; any one
// byte changed or the file cut short is found as damage.
func TestCheckpointChecksum(t *testing.T) {
	film := render.NewFilmOf(8, 6, render.BaseLayers)
	film.Samples = 3
	film.Sums[render.LayerBeauty].Set(7, 0.25)
	var buf bytes.Buffer
	if err := encodeCheckpoint(&buf, checkpoint{Key: "job", Film: film}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	cp, err := decodeCheckpoint(b)
	if err != nil || cp.Key != "job" || cp.Film.Samples != 3 || cp.Film.Sums[render.LayerBeauty].Value(7) != 0.25 {
		t.Fatalf("read back: %v %+v", err, cp)
	}
	for i := len(checkpointMagic); i < len(b); i += max(1, len(b)/97) {
		bad := bytes.Clone(b)
		bad[i] ^= 1
		if _, err := decodeCheckpoint(bad); err == nil {
			t.Fatalf("byte %d of %d flipped: read as a checkpoint", i, len(b))
		}
	}
	if _, err := decodeCheckpoint(b[:len(b)-1]); err == nil {
		t.Error("a checkpoint cut short was read")
	}
}
