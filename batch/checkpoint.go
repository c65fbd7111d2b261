package batch

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"

	"sertrace/atomicfile"
	"sertrace/render"
)

// checkpoint is an interrupted job's (or slice's) accumulation.
type checkpoint struct {
	Key  string
	Film *render.Film
}

// checkpointMagic opens a checkpoint file; the SHA-256 of the rest (the
// checkpoint in gob) follows it, so that a damaged file (a flipped bit, a
// torn copy) is found and not continued from: a film whose sums decode but
// are wrong would make a wrong image that says it is done.
const checkpointMagic = "sertrace checkpoint 2\n"

// readCheckpoint reads a checkpoint file: an error wrapping
// fs.ErrNotExist where there is none, else one that says what is wrong
// with it ("is damaged: ...", "does not read: ...").
func readCheckpoint(path string) (checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return checkpoint{}, err
	}
	return decodeCheckpoint(b)
}

func decodeCheckpoint(b []byte) (checkpoint, error) {
	var cp checkpoint
	rest, ok := bytes.CutPrefix(b, []byte(checkpointMagic))
	if !ok {
		return cp, errors.New("does not read (written by an older sertrace in another form, or not a checkpoint)")
	}
	if len(rest) < sha256.Size {
		return cp, errors.New("is damaged: cut short")
	}
	sum, payload := rest[:sha256.Size], rest[sha256.Size:]
	if got := sha256.Sum256(payload); !bytes.Equal(got[:], sum) {
		return cp, errors.New("is damaged: its checksum does not match what it holds")
	}
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&cp); err != nil {
		return checkpoint{}, fmt.Errorf("does not read: %v", err)
	}
	if cp.Film == nil {
		return checkpoint{}, errors.New("does not read: it holds no film")
	}
	if !cp.Film.Whole() {
		return checkpoint{}, errors.New("does not read: its film is not whole")
	}
	return cp, nil
}

// encodeCheckpoint writes cp to w as a checkpoint file: one copy of the
// film's gob in memory, not two.
func encodeCheckpoint(w io.Writer, cp checkpoint) error {
	var payload bytes.Buffer
	if err := gob.NewEncoder(&payload).Encode(cp); err != nil {
		return err
	}
	sum := sha256.Sum256(payload.Bytes())
	for _, b := range [][]byte{[]byte(checkpointMagic), sum[:], payload.Bytes()} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func writeCheckpoint(path string, cp checkpoint) error {
	return atomicfile.Write(path, func(w io.WriteSeeker) error { return encodeCheckpoint(w, cp) })
}
