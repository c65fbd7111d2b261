// Package blendercrypto asks a real compositor, Blender's (3.4, headless),
// for the Cryptomatte matte of names in an OpenEXR file, so that tests can
// check the Cryptomatte layers our renderer writes against an independent
// decoder.
//
// ExtractMatte runs extract_matte.py (embedded) in `blender -b
// --factory-startup`: a compositor tree of one Cryptomatte node (source
// Image, the layer and the names picked as an artist would, by name) into
// a Composite node, rendered without rendering the 3D scene. ReadMatte
// reads the EXR it writes.
//
// What Blender 3.4 needs of the input (see extract_matte.py, which checks
// it before the compositor runs, as Blender itself fails silently, with an
// empty matte):
//   - float32 channels <name>NN.R/G/B/A (any case) for each rank pair
//     NN = 00, 01, …, where <name> is the layer's cryptomatte/<key>/name
//     attribute verbatim: "CryptoObject00.R" for name "CryptoObject" (a
//     single-part file with plain channels is fine, no view-layer prefix
//     needed), or "ViewLayer.CryptoObject00.R" for
//     "ViewLayer.CryptoObject" (what Blender writes). Not both styles in
//     one file: with plain "R", "G", "B" the node looks for the prefixed
//     passes in the unprefixed layer only, and finds none;
//   - the cryptomatte/<key>/name attribute (a string) in the first part's
//     header; the node's layer menu lists these names;
//   - IDs that are MurmurHash3_32 of the names (exponent kept within
//     [1, 254]): the node hashes the names it is given and never reads the
//     manifest. extract_matte.py reads the manifest only to fail clearly
//     on unknown names and on IDs that are not the names' hashes.
package blendercrypto

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mrjoshuak/go-openexr/exr"
)

//go:embed extract_matte.py
var extractScript []byte

// ErrNoBlender is returned (wrapped) by ExtractMatte when no blender is
// on PATH: tests skip on it.
var ErrNoBlender = errors.New("blender is not installed (no blender on PATH)")

// Timeout bounds one ExtractMatte's Blender run (about 3 s on an idle
// core, most of it Blender's start).
var Timeout = 2 * time.Minute

// ExtractMatte writes to outPath the matte that Blender's Cryptomatte node
// gives for names in the Cryptomatte layer of exrPath: an RGB float EXR of
// exrPath's size whose channels all hold the matte (the sum of the
// coverages of the ranks whose ID is one of the names' hashes), rows in
// the input's order. layer is the layer's name (the file's
// cryptomatte/<key>/name value, e.g. "CryptoObject"; "CryptoObject" also
// picks a view layer's "ViewLayer.CryptoObject" where only one layer ends
// so). Names may hold no commas, start with no '<' and neither start nor
// end with a space (what the node's matte_id allows).
//
// It fails when blender is missing (errors.Is(err, ErrNoBlender)), when
// the layer or a name is not in the file, or when Blender fails or runs
// past Timeout; its error carries Blender's reason.
func ExtractMatte(exrPath, layer string, names []string, outPath string) error {
	blender, err := exec.LookPath("blender")
	if err != nil {
		return fmt.Errorf("blendercrypto: %w", ErrNoBlender)
	}
	if len(names) == 0 {
		return errors.New("blendercrypto: no names to extract")
	}
	for _, n := range names {
		// The node's matte_id splits at commas, trims spaces and reads
		// "<float>" as an ID.
		if n == "" || strings.Contains(n, ",") || strings.HasPrefix(n, "<") || strings.Trim(n, " ") != n {
			return fmt.Errorf("blendercrypto: name %q cannot be passed to Blender's matte_id", n)
		}
	}
	in, err := filepath.Abs(exrPath)
	if err != nil {
		return fmt.Errorf("blendercrypto: %v", err)
	}
	out, err := filepath.Abs(outPath)
	if err != nil {
		return fmt.Errorf("blendercrypto: %v", err)
	}
	if _, err := os.Stat(in); err != nil {
		return fmt.Errorf("blendercrypto: %v", err)
	}

	dir, err := os.MkdirTemp("", "blendercrypto")
	if err != nil {
		return fmt.Errorf("blendercrypto: %v", err)
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "extract_matte.py")
	if err := os.WriteFile(script, extractScript, 0o644); err != nil {
		return fmt.Errorf("blendercrypto: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, blender, "-b", "--factory-startup", "-noaudio",
		"--python-exit-code", "1", "--python", script, "--",
		"--exr", in, "--layer", layer, "--names", strings.Join(names, ","), "--out", out)
	cmd.Dir = dir
	// Blender's user files stay out of it (with --factory-startup), and so
	// do its writes to $HOME.
	cmd.Env = append(os.Environ(), "BLENDER_USER_CONFIG="+dir, "BLENDER_USER_SCRIPTS="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("blendercrypto: blender ran past %v extracting %v from %s", Timeout, names, exrPath)
	}
	if err != nil {
		return fmt.Errorf("blendercrypto: %s", reason(err, stderr.String(), stdout.String()))
	}
	if _, err := os.Stat(out); err != nil {
		return fmt.Errorf("blendercrypto: blender exited 0 but wrote no matte: %v; its output ends: %s", err, tail(stdout.String()+stderr.String()))
	}
	return nil
}

// reason is why Blender failed: the script's own one-line message where
// it gave one, else the end of Blender's output.
func reason(err error, stderr, stdout string) string {
	lines := strings.Split(stderr, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "extract_matte.py: ") {
			return strings.TrimPrefix(lines[i], "extract_matte.py: ")
		}
	}
	return fmt.Sprintf("blender failed (%v): %s", err, tail(stdout+stderr))
}

// tail is the last few lines of s, on one line.
func tail(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > 6 {
		keep = keep[len(keep)-6:]
	}
	return strings.Join(keep, " | ")
}

// ReadMatte reads a matte EXR (ExtractMatte's output): its data window's
// size and one channel of it as float32, row-major with rows top to bottom
// as in the file (a film's order; Blender keeps the input's orientation).
// The channel is R, else Y, V or A, else the only one.
func ReadMatte(path string) (width, height int, matte []float32, err error) {
	f, err := exr.OpenFile(path)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("read matte %s: %v", path, err)
	}
	defer f.Close()
	if f.IsTiled() || f.IsDeep() || f.NumParts() != 1 {
		return 0, 0, nil, fmt.Errorf("read matte %s: not a single-part scanline EXR", path)
	}
	h := f.Header(0)
	if h.Channels() == nil || h.Channels().Len() == 0 {
		return 0, 0, nil, fmt.Errorf("read matte %s: no channels", path)
	}
	name := ""
	for _, want := range []string{"R", "Y", "V", "A"} {
		if h.Channels().Get(want) != nil {
			name = want
			break
		}
	}
	if name == "" {
		if h.Channels().Len() != 1 {
			return 0, 0, nil, fmt.Errorf("read matte %s: no R, Y, V or A channel among %v", path, h.Channels().Names())
		}
		name = h.Channels().At(0).Name
	}
	dw := h.DataWindow()
	width, height = int(dw.Max.X-dw.Min.X+1), int(dw.Max.Y-dw.Min.Y+1)
	if width < 1 || height < 1 || width*height > 1<<28 {
		return 0, 0, nil, fmt.Errorf("read matte %s: size %d×%d", path, width, height)
	}
	r, err := exr.NewScanlineReader(f)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("read matte %s: %v", path, err)
	}
	matte = make([]float32, width*height)
	fb := exr.NewFrameBuffer()
	fb.Insert(name, exr.NewSliceFromFloat32(matte, width, height).WithOrigin(int(dw.Min.X), int(dw.Min.Y)))
	r.SetFrameBuffer(fb)
	if err := r.ReadPixels(int(dw.Min.Y), int(dw.Max.Y)); err != nil {
		return 0, 0, nil, fmt.Errorf("read matte %s: %v", path, err)
	}
	return width, height, matte, nil
}
