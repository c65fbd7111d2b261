package blendercrypto

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mrjoshuak/go-openexr/exr"
)

// mismatchTolerance is how far Blender's matte may be from the one decoded
// here, per pixel. Both sum the same float32 coverages in the same order
// (rank 0, 1, …) and Blender writes float32, so they agree exactly in
// practice (max difference 0 seen); the slack is for a sum taken in
// another order.
const mismatchTolerance = 1e-6

// needBlender skips the test where Blender is not installed, except
// under CI, which installs it (as for ../../blender's tests).
func needBlender(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("blender"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("blender is not installed (apt-get install blender); CI installs it")
		}
		t.Skip("blender is not installed (not on PATH): skipping the check against Blender's compositor")
	}
}

// renderCycles renders testdata/cycles_scene.py with Cycles into a
// multilayer EXR in dir: a floor, a ball and a box covering part of the
// ball, with a CryptoObject pass of 6 ranks (CryptoObject00..02).
func renderCycles(t *testing.T, dir string) string {
	t.Helper()
	script, err := filepath.Abs("testdata/cycles_scene.py")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cycles.exr")
	start := time.Now()
	cmd := exec.Command("blender", "-b", "--factory-startup", "-noaudio", "--python-exit-code", "1",
		"--python", script, "--", "--out", out)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BLENDER_USER_CONFIG="+dir, "BLENDER_USER_SCRIPTS="+dir)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cycles render: %v\n%s", err, b)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("cycles render wrote no %s:\n%s", out, b)
	}
	t.Logf("Cycles render: %v", time.Since(start).Round(time.Millisecond))
	return out
}

// cryptoFile is an EXR's Cryptomatte layer, read here without Blender.
type cryptoFile struct {
	width, height int
	key, name     string            // cryptomatte/<key>/name = name
	manifest      map[string]string // name -> hex of the 32-bit hash
	attrs         map[string]string // the layer's cryptomatte/<key>/* attributes
	// ranks[i] is channel plane pass i/2 (R, G for even i; B, A for odd):
	// id and coverage per pixel, rows top to bottom.
	ids, covs [][]float32
	// channels the file holds besides the Cryptomatte ones (name -> plane).
	other map[string][]float32
}

// readCrypto reads the Cryptomatte layer named name (the header's
// cryptomatte/<key>/name value) of a single-part EXR: its channels
// <name>NN.{R,G,B,A} in any case.
func readCrypto(t *testing.T, path, name string) *cryptoFile {
	t.Helper()
	f, err := exr.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := f.Header(0)
	c := &cryptoFile{name: name, attrs: map[string]string{}, other: map[string][]float32{}}
	for _, a := range h.Attributes() {
		parts := strings.Split(a.Name, "/")
		if len(parts) == 3 && parts[0] == "cryptomatte" && parts[2] == "name" && a.Value == name {
			c.key = parts[1]
		}
	}
	if c.key == "" {
		t.Fatalf("%s: no Cryptomatte layer %q", path, name)
	}
	for _, a := range h.Attributes() {
		if p := "cryptomatte/" + c.key + "/"; strings.HasPrefix(a.Name, p) {
			c.attrs[strings.TrimPrefix(a.Name, p)] = a.Value.(string)
		}
	}
	if err := json.Unmarshal([]byte(c.attrs["manifest"]), &c.manifest); err != nil {
		t.Fatalf("%s: manifest: %v", path, err)
	}
	dw := h.DataWindow()
	c.width, c.height = int(dw.Max.X-dw.Min.X+1), int(dw.Max.Y-dw.Min.Y+1)
	fb := exr.NewFrameBuffer()
	byRank := map[int]map[string][]float32{}
	for _, ch := range h.Channels().Names() {
		plane := make([]float32, c.width*c.height)
		fb.Insert(ch, exr.NewSliceFromFloat32(plane, c.width, c.height).WithOrigin(int(dw.Min.X), int(dw.Min.Y)))
		rest, ok := strings.CutPrefix(ch, name)
		digits, letter, dot := strings.Cut(rest, ".")
		n, err := strconv.Atoi(digits)
		if !ok || !dot || err != nil {
			c.other[ch] = plane
			continue
		}
		if byRank[n] == nil {
			byRank[n] = map[string][]float32{}
		}
		byRank[n][strings.ToUpper(letter)] = plane
	}
	r, err := exr.NewScanlineReader(f)
	if err != nil {
		t.Fatal(err)
	}
	r.SetFrameBuffer(fb)
	if err := r.ReadPixels(int(dw.Min.Y), int(dw.Max.Y)); err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(byRank); n++ {
		p := byRank[n]
		if p == nil || p["R"] == nil || p["G"] == nil || p["B"] == nil || p["A"] == nil {
			t.Fatalf("%s: pass %s%02d lacks channels R, G, B, A", path, name, n)
		}
		c.ids = append(c.ids, p["R"], p["B"])
		c.covs = append(c.covs, p["G"], p["A"])
	}
	if len(c.ids) == 0 {
		t.Fatalf("%s: no channels %s00.R ...", path, name)
	}
	return c
}

// idFloat is the ID float of a manifest's hex hash: its bits with the
// exponent kept within [1, 254] (the Cryptomatte specification).
func idFloat(t *testing.T, hexHash string) float32 {
	t.Helper()
	h, err := strconv.ParseUint(hexHash, 16, 32)
	if err != nil {
		t.Fatalf("manifest hash %q: %v", hexHash, err)
	}
	exp := min(max(h>>23&0xff, 1), 254)
	return math.Float32frombits(uint32(h&0x807fffff | exp<<23))
}

// matte is the coverage of names per pixel: the sum over ranks of the
// coverages of ranks whose ID is one of the names' IDs.
func (c *cryptoFile) matte(t *testing.T, names ...string) []float32 {
	t.Helper()
	var ids []uint32
	for _, n := range names {
		hx, ok := c.manifest[n]
		if !ok {
			t.Fatalf("no %q in the manifest %v", n, c.manifest)
		}
		ids = append(ids, math.Float32bits(idFloat(t, hx)))
	}
	m := make([]float32, c.width*c.height)
	for r := range c.ids {
		for i, id := range c.ids[r] {
			for _, want := range ids {
				if math.Float32bits(id) == want {
					m[i] += c.covs[r][i]
				}
			}
		}
	}
	return m
}

// writeSinglePart writes c as our renderer lays a Cryptomatte out: one
// part, scanlines, ZIP, float32 channels R, G, B, A (where beauty has
// them) and CryptoObject00.R, .G, .B, .A, CryptoObject01.R … with no
// view-layer prefix, and string attributes cryptomatte/<key>/name =
// "CryptoObject", /hash, /conversion and /manifest (c's). name, when not
// "", is another layer name (its channels name00.R …), manifest another
// manifest.
func writeSinglePart(t *testing.T, c *cryptoFile, beauty map[string][]float32, path, name, manifest string) {
	t.Helper()
	if name == "" {
		name = "CryptoObject"
	}
	if manifest == "" {
		manifest = c.attrs["manifest"]
	}
	h := exr.NewScanlineHeader(c.width, c.height)
	h.SetCompression(exr.CompressionZIP)
	channels := exr.NewChannelList()
	fb := exr.NewFrameBuffer()
	add := func(name string, plane []float32) {
		channels.Add(exr.Channel{Name: name, Type: exr.PixelTypeFloat, XSampling: 1, YSampling: 1})
		fb.Insert(name, exr.NewSliceFromFloat32(plane, c.width, c.height))
	}
	for name, plane := range beauty {
		add(name, plane)
	}
	for r := 0; r < len(c.ids); r += 2 {
		p := fmt.Sprintf("%s%02d.", name, r/2)
		add(p+"R", c.ids[r])
		add(p+"G", c.covs[r])
		add(p+"B", c.ids[r+1])
		add(p+"A", c.covs[r+1])
	}
	h.SetChannels(channels)
	attr := func(k, v string) {
		h.Set(&exr.Attribute{Name: "cryptomatte/" + c.key + "/" + k, Type: exr.AttrTypeString, Value: v})
	}
	attr("name", name)
	attr("hash", "MurmurHash3_32")
	attr("conversion", "uint32_to_float32")
	attr("manifest", manifest)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := exr.NewScanlineWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	w.SetFrameBuffer(fb)
	if err := w.WritePixels(0, c.height-1); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// extract runs ExtractMatte and ReadMatte, logging the time taken.
func extract(t *testing.T, in, layer string, names []string, out string) (w, h int, m []float32) {
	t.Helper()
	start := time.Now()
	if err := ExtractMatte(in, layer, names, out); err != nil {
		if errors.Is(err, ErrNoBlender) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Logf("ExtractMatte(%s, %s, %v): %v", filepath.Base(in), layer, names, time.Since(start).Round(time.Millisecond))
	w, h, m, err := ReadMatte(out)
	if err != nil {
		t.Fatal(err)
	}
	return w, h, m
}

// checkMatte checks Blender's matte m against want (decoded here), and
// that it is a plausible matte: within [0, 1], with pixels fully in and
// fully out, and anti-aliased edges.
func checkMatte(t *testing.T, w, h int, m []float32, c *cryptoFile, want []float32) {
	t.Helper()
	if w != c.width || h != c.height {
		t.Fatalf("Blender's matte is %d×%d, the input %d×%d", w, h, c.width, c.height)
	}
	var in, out, edge int
	maxDiff, at := 0.0, 0
	for i, v := range m {
		if v < -1e-6 || v > 1+1e-5 || v != v {
			t.Fatalf("matte pixel (%d, %d) = %v, outside [0, 1]", i%w, i/w, v)
		}
		switch {
		case v > 0.999:
			in++
		case v < 0.001:
			out++
		default:
			edge++
		}
		if d := math.Abs(float64(v - want[i])); d > maxDiff {
			maxDiff, at = d, i
		}
	}
	t.Logf("matte: %d pixels in, %d out, %d partly; max |Blender − decoded| = %g", in, out, edge, maxDiff)
	if in < 20 || out < 20 || edge < 5 {
		t.Errorf("implausible matte: %d pixels in, %d out, %d partly", in, out, edge)
	}
	if maxDiff > mismatchTolerance {
		t.Errorf("Blender's matte differs from the decoded one by %g at (%d, %d): %v vs %v",
			maxDiff, at%w, at/w, m[at], want[at])
	}
	// The comparison sees a flip: the matte is not symmetric top to bottom.
	flipped := 0.0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			flipped += math.Abs(float64(m[y*w+x] - want[(h-1-y)*w+x]))
		}
	}
	if flipped < 5 {
		t.Errorf("the matte is nearly symmetric top to bottom (%g): the test cannot see a flipped image", flipped)
	}
}

func TestExtractMatte(t *testing.T) {
	needBlender(t)
	dir := t.TempDir()
	cycles := renderCycles(t, dir)
	c := readCrypto(t, cycles, "ViewLayer.CryptoObject")
	if len(c.ids) != 6 {
		t.Fatalf("%d ranks, want 6", len(c.ids))
	}
	names := make([]string, 0, len(c.manifest))
	for n := range c.manifest {
		names = append(names, n)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "Ball,Box,Floor" {
		t.Fatalf("manifest names %v, want Ball, Box, Floor", names)
	}
	if c.attrs["hash"] != "MurmurHash3_32" || c.attrs["conversion"] != "uint32_to_float32" {
		t.Fatalf("cryptomatte attributes %v", c.attrs)
	}
	// The manifest holds the names' hashes, not their ID floats' bits: Box's
	// hash, 803b1009, has exponent 0, its ID float 80bb1009. The mattes of
	// Box below check that decoding (and Blender's) keep them apart.
	if box, _ := strconv.ParseUint(c.manifest["Box"], 16, 32); box>>23&0xff != 0 ||
		math.Float32bits(idFloat(t, c.manifest["Box"])) != uint32(box)|1<<23 {
		t.Fatalf("Box's hash %s no longer has exponent 0", c.manifest["Box"])
	}

	// Blender's own multilayer file: channels ViewLayer.CryptoObject00.r …,
	// layer name "ViewLayer.CryptoObject" (also picked by "CryptoObject").
	t.Run("multilayer", func(t *testing.T) {
		w, h, m := extract(t, cycles, "CryptoObject", []string{"Ball"}, filepath.Join(dir, "ball.exr"))
		checkMatte(t, w, h, m, c, c.matte(t, "Ball"))
	})
	t.Run("multilayer-two-names", func(t *testing.T) {
		w, h, m := extract(t, cycles, "ViewLayer.CryptoObject", []string{"Ball", "Box"}, filepath.Join(dir, "ballbox.exr"))
		checkMatte(t, w, h, m, c, c.matte(t, "Ball", "Box"))
	})

	// Our renderer's layout: one part, plain channels CryptoObject00.R …
	// and R, G, B, A, name "CryptoObject".
	single := filepath.Join(dir, "single.exr")
	beauty := map[string][]float32{}
	for _, ch := range []string{"R", "G", "B", "A"} {
		beauty[ch] = c.other["ViewLayer.Combined."+ch]
	}
	writeSinglePart(t, c, beauty, single, "", "")
	t.Run("single-part", func(t *testing.T) {
		s := readCrypto(t, single, "CryptoObject")
		w, h, m := extract(t, single, "CryptoObject", []string{"Box"}, filepath.Join(dir, "single-box.exr"))
		checkMatte(t, w, h, m, s, s.matte(t, "Box"))
		want := c.matte(t, "Box") // the multilayer file's, the same data
		for i := range m {
			if math.Abs(float64(m[i]-want[i])) > mismatchTolerance {
				t.Fatalf("single-part matte differs from the multilayer file's at %d: %v vs %v", i, m[i], want[i])
			}
		}
	})
	// Only Cryptomatte channels, no beauty.
	t.Run("single-part-crypto-only", func(t *testing.T) {
		only := filepath.Join(dir, "crypto-only.exr")
		writeSinglePart(t, c, nil, only, "", "")
		s := readCrypto(t, only, "CryptoObject")
		w, h, m := extract(t, only, "CryptoObject", []string{"Ball"}, filepath.Join(dir, "only-ball.exr"))
		checkMatte(t, w, h, m, s, s.matte(t, "Ball"))
	})

	t.Run("unknown-name", func(t *testing.T) {
		err := ExtractMatte(single, "CryptoObject", []string{"Ball", "Nobody"}, filepath.Join(dir, "x.exr"))
		if err == nil || !strings.Contains(err.Error(), "'Nobody'") {
			t.Fatalf("err = %v, want one naming 'Nobody'", err)
		}
		t.Log(err)
	})
	t.Run("unknown-layer", func(t *testing.T) {
		err := ExtractMatte(single, "CryptoMaterial", []string{"Ball"}, filepath.Join(dir, "x.exr"))
		if err == nil || !strings.Contains(err.Error(), "CryptoMaterial") {
			t.Fatalf("err = %v, want one naming CryptoMaterial", err)
		}
		t.Log(err)
	})
	// A manifest whose ID for Ball is not Ball's hash: Blender's node
	// hashes the name and would miss Ball's pixels.
	t.Run("wrong-hash", func(t *testing.T) {
		bad := filepath.Join(dir, "bad-hash.exr")
		m, _ := json.Marshal(map[string]string{"Ball": c.manifest["Box"], "Box": c.manifest["Box"], "Floor": c.manifest["Floor"]})
		writeSinglePart(t, c, nil, bad, "", string(m))
		err := ExtractMatte(bad, "CryptoObject", []string{"Ball"}, filepath.Join(dir, "x.exr"))
		if err == nil || !strings.Contains(err.Error(), "hashes the name") {
			t.Fatalf("err = %v, want one about Ball's hash", err)
		}
		t.Log(err)
	})
	// Plain R, G, B, A with view-layer-prefixed Cryptomatte channels:
	// Blender 3.4's node reads only the first of its layers whose name
	// starts the Cryptomatte layer's, here "" (of R, G, B, A), finds no
	// passes there and gives an empty matte; the tool refuses the file.
	t.Run("plain-beauty-prefixed-crypto", func(t *testing.T) {
		mixed := filepath.Join(dir, "mixed.exr")
		writeSinglePart(t, c, beauty, mixed, "ViewLayer.CryptoObject", "")
		err := ExtractMatte(mixed, "CryptoObject", []string{"Ball"}, filepath.Join(dir, "x.exr"))
		if err == nil || !strings.Contains(err.Error(), "matte would be empty") {
			t.Fatalf("err = %v, want one saying Blender's matte would be empty", err)
		}
		t.Log(err)
	})
}

// Without blender on PATH, ExtractMatte says so (tests skip on it).
func TestExtractMatteNoBlender(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := ExtractMatte("in.exr", "CryptoObject", []string{"Ball"}, filepath.Join(t.TempDir(), "out.exr"))
	if !errors.Is(err, ErrNoBlender) {
		t.Fatalf("err = %v, want ErrNoBlender", err)
	}
}

// ReadMatte reads the R of an RGB EXR (Blender's matte files: B, G, R in
// the file), rows top to bottom as the file stores them.
func TestReadMatte(t *testing.T) {
	const w, h = 3, 2
	path := filepath.Join(t.TempDir(), "m.exr")
	hd := exr.NewScanlineHeader(w, h)
	hd.SetCompression(exr.CompressionZIP)
	channels := exr.NewChannelList()
	fb := exr.NewFrameBuffer()
	planes := map[string][]float32{
		"R": {0, 0.25, 0.5, 0.75, 1, 0.125}, // row 0 (top), then row 1
		"G": {9, 9, 9, 9, 9, 9},
		"B": {8, 8, 8, 8, 8, 8},
	}
	for _, n := range []string{"B", "G", "R"} {
		channels.Add(exr.Channel{Name: n, Type: exr.PixelTypeFloat, XSampling: 1, YSampling: 1})
		fb.Insert(n, exr.NewSliceFromFloat32(planes[n], w, h))
	}
	hd.SetChannels(channels)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	sw, err := exr.NewScanlineWriter(f, hd)
	if err != nil {
		t.Fatal(err)
	}
	sw.SetFrameBuffer(fb)
	if err := sw.WritePixels(0, h-1); err != nil {
		t.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	gw, gh, m, err := ReadMatte(path)
	if err != nil {
		t.Fatal(err)
	}
	if gw != w || gh != h || fmt.Sprint(m) != fmt.Sprint(planes["R"]) {
		t.Fatalf("ReadMatte = %d×%d %v, want %d×%d %v", gw, gh, m, w, h, planes["R"])
	}
}
