package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/mrjoshuak/go-openexr/exr"
	"github.com/qmuntal/gltf"

	"sertrace/internal/blendercrypto"
	"sertrace/internal/sharedscenes"
	"sertrace/job"
	"sertrace/render"
	"sertrace/render/cryptomatte"
	"sertrace/scene"
)

// readEXR reads every channel of a single-part EXR as float32 planes (a
// UINT channel's words as their values), rows from the top, and its string
// attributes.
func readEXR(t *testing.T, path string) (w, h int, planes map[string][]float32, attrs map[string]string) {
	t.Helper()
	f, err := exr.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hd := f.Header(0)
	dw := hd.DataWindow()
	w, h = int(dw.Max.X-dw.Min.X+1), int(dw.Max.Y-dw.Min.Y+1)
	planes, attrs = map[string][]float32{}, map[string]string{}
	fb := exr.NewFrameBuffer()
	for _, name := range hd.Channels().Names() {
		p := make([]float32, w*h)
		planes[name] = p
		fb.Insert(name, exr.NewSliceFromFloat32(p, w, h).WithOrigin(int(dw.Min.X), int(dw.Min.Y)))
	}
	r, err := exr.NewScanlineReader(f)
	if err != nil {
		t.Fatal(err)
	}
	r.SetFrameBuffer(fb)
	if err := r.ReadPixels(int(dw.Min.Y), int(dw.Max.Y)); err != nil {
		t.Fatal(err)
	}
	for _, a := range hd.Attributes() {
		if s, ok := a.Value.(string); ok {
			attrs[a.Name] = s
		}
	}
	return w, h, planes, attrs
}

// matteOf is the coverage of name in Cryptomatte layer layer of an EXR's
// planes, as a compositor computes it: the sum of the coverages of the
// ranks whose ID is the name's.
func matteOf(t *testing.T, planes map[string][]float32, layer, name string, n int) []float32 {
	t.Helper()
	id := cryptomatte.Float(cryptomatte.Hash(name))
	m := make([]float32, n)
	found := false
	for k := 0; ; k++ {
		base := layer + string(rune('0'+k/10)) + string(rune('0'+k%10))
		r := planes[base+".R"]
		if r == nil {
			break
		}
		for _, pair := range [][2]string{{".R", ".G"}, {".B", ".A"}} {
			ids, covs := planes[base+pair[0]], planes[base+pair[1]]
			for i := range m {
				if math.Float32bits(ids[i]) == math.Float32bits(id) {
					m[i] += covs[i]
					found = true
				}
			}
		}
	}
	if !found {
		t.Fatalf("no pixel of %s names %q", layer, name)
	}
	return m
}

// aloneInWhite renders the first hits of sc's camera with settings s:
// the instances for which white returns emitting white and reflecting
// nothing, every other unlit black, over black: each pixel the share of
// its samples whose first visible hit is one of them, computed without
// Cryptomatte. What decides the first visible hit stays: alpha (the
// base colour's alpha and texture, which the white ones' black factor
// keeps from tinting them).
func aloneInWhite(t *testing.T, scenePath string, s render.Settings, white func(sc *scene.Scene, inst int) bool) []float32 {
	t.Helper()
	j, err := job.Prepare(job.Spec{Scene: scenePath, Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	sc := j.Scene
	mats := make([]scene.Material, 0, len(sc.Instances))
	for i := range sc.Instances {
		old := sc.Materials[sc.Instances[i].Material]
		m := scene.DefaultMaterial()
		m.AlphaMode, m.AlphaCutoff = old.AlphaMode, old.AlphaCutoff
		m.BaseColor, m.BaseColorTexture = scene.Vec4{W: old.BaseColor.W}, old.BaseColorTexture
		if white(sc, i) {
			// Seen from either side, it emits 1 and reflects nothing.
			m.Emissive, m.Specular, m.Metallic, m.DoubleSided = scene.Vec3{X: 1, Y: 1, Z: 1}, 0, 0, true
		} else {
			m.Unlit = true
		}
		mats = append(mats, m)
		sc.Instances[i].Material = len(mats) - 1
	}
	sc.Materials = mats
	sc.Lights = nil
	j.Options.EnvColor, j.Options.EnvMap, j.Options.LightGroups = [3]float32{}, nil, nil
	film := j.Options.NewFilm(j.Options.Width, j.Options.Height, render.BaseLayers)
	if _, err := j.Render(context.Background(), film, nil); err != nil {
		t.Fatal(err)
	}
	pix, _ := film.Resolve(render.AOVBeauty)
	out := make([]float32, len(pix)/3)
	for i := range out {
		out[i] = pix[3*i]
	}
	return out
}

// checkMattes compares the mattes of an EXR rendered with settings s
// (planes) for the cases with renders of their objects alone in white,
// and, where Blender is installed, with what Blender's compositor
// extracts; partial says the least pixels a case's matte covers partly.
func checkMattes(t *testing.T, dir, scenePath, out string, s render.Settings, planes map[string][]float32, n int, cases []matteCase) {
	t.Helper()
	for _, c := range cases {
		want := aloneInWhite(t, scenePath, s, c.white)
		got := matteOf(t, planes, c.layer, c.name, n)
		var partial int
		for i := range got {
			if math.Abs(float64(got[i]-want[i])) > 1e-6 {
				t.Fatalf("%s %q, pixel %d: the matte reads %v, the render of it alone %v", c.layer, c.name, i, got[i], want[i])
			}
			if want[i] > 0 && want[i] < 1 {
				partial++
			}
		}
		if partial < c.partial {
			t.Errorf("%s: %d pixels partly covered, fewer than %d: the test shows too little anti-aliasing", c.name, partial, c.partial)
		}
		matte := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".exr")
		err := blendercrypto.ExtractMatte(out, c.layer, []string{c.name}, matte)
		if errors.Is(err, blendercrypto.ErrNoBlender) {
			if os.Getenv("CI") != "" {
				t.Fatal("CI has no blender: .ci/run installs it")
			}
			t.Log("blender is not installed: the compositor's reading is not checked")
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		bw, bh, bm, err := blendercrypto.ReadMatte(matte)
		if err != nil || bw*bh != n {
			t.Fatalf("Blender's matte: %dx%d, %v", bw, bh, err)
		}
		for i := range bm {
			if math.Abs(float64(bm[i]-want[i])) > 1e-6 {
				t.Fatalf("%s %q, pixel %d: Blender's compositor extracts %v, the render of it alone %v", c.layer, c.name, i, bm[i], want[i])
			}
		}
		t.Logf("%s %q: Blender's matte is the object's coverage (%d pixels partly covered)", c.layer, c.name, partial)
	}
}

// matteCase is a matte to check: its layer, the name picked, the
// instances it covers, and the least pixels it covers partly.
type matteCase struct {
	layer, name string
	white       func(sc *scene.Scene, inst int) bool
	partial     int
}

// TestCryptomatteMatteIsTheObjectsCoverage: sertrace's Cryptomatte of a
// dense scene (hairy-cornell: triangles, hair strands, particles, seen
// through a thin lens) read by two consumers, Go's reading of the
// specification and Blender's compositor (its Cryptomatte node, headless:
// Debian's Blender 3.4), gives for an object and a material the matte a
// render of that object alone in white over black makes with the same
// samples, within 1e-6 a pixel; oiiotool lists the channels and the
// metadata; the ranks of every pixel sum to 1 (the box is closed).
func TestCryptomatteMatteIsTheObjectsCoverage(t *testing.T) {
	dir := t.TempDir()
	scenePath := "../scenes/hairy-cornell.glb"
	out := filepath.Join(dir, "hc.exr")
	args := []string{"render", scenePath, "-o", out, "--backend", "cpu", "--res", "64x48", "--spp", "16",
		"--aperture-radius", "0.02", "--focus-distance", "3", "--aov", "cryptomatte_object,cryptomatte_material",
		"--cryptomatte-levels", "16"} // the particles' pixels see more than the default 6 materials
	if code, _, errs := runCLI(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	w, h, planes, attrs := readEXR(t, out)
	// The metadata the specification names, for each layer.
	for _, layer := range []string{"CryptoObject", "CryptoMaterial"} {
		key := "cryptomatte/" + cryptomatte.LayerKey(layer) + "/"
		if attrs[key+"name"] != layer || attrs[key+"hash"] != "MurmurHash3_32" || attrs[key+"conversion"] != "uint32_to_float32" ||
			!strings.Contains(attrs[key+"manifest"], `"tall box":`) && layer == "CryptoObject" {
			t.Errorf("%s's metadata: %v", layer, attrs)
		}
	}
	// Every pixel's ranks sum to 1: every sample sees the closed box.
	for i := range w * h {
		var sum float32
		for k := 0; k < 8; k++ {
			base := "CryptoObject0" + string(rune('0'+k))
			sum += planes[base+".G"][i] + planes[base+".A"][i]
		}
		if math.Abs(float64(sum)-1) > 1e-6 {
			t.Fatalf("pixel %d: the ranks' coverages sum to %v, not 1", i, sum)
		}
	}
	s := render.DefaultSettings()
	s.Backend, s.Res, s.SPP, s.ApertureRadius, s.FocusDistance, s.CryptomatteLevels = "cpu", "64x48", 16, 0.02, 3, 16
	cases := []matteCase{
		{"CryptoObject", "tall box", func(sc *scene.Scene, i int) bool { return sc.ObjectName(i) == "tall box" }, 20},
		{"CryptoObject", "blonde strands", func(sc *scene.Scene, i int) bool { return sc.ObjectName(i) == "blonde strands" }, 100},
		{"CryptoMaterial", "white", func(sc *scene.Scene, i int) bool { return sc.MaterialName(sc.Instances[i].Material) == "white" }, 100},
	}
	checkMattes(t, dir, scenePath, out, s, planes, w*h, cases)
	if _, err := exec.LookPath("oiiotool"); err == nil {
		info, err := exec.Command("oiiotool", "--info", "-v", out).CombinedOutput()
		if err != nil {
			t.Fatalf("oiiotool: %v: %s", err, info)
		}
		for _, want := range []string{"CryptoObject00.R", "CryptoMaterial07.A", "cryptomatte/" + cryptomatte.LayerKey("CryptoObject") + "/manifest"} {
			if !strings.Contains(string(info), want) {
				t.Errorf("oiiotool --info -v does not list %s:\n%s", want, info)
			}
		}
	} else if os.Getenv("CI") != "" {
		t.Fatal("CI has no oiiotool: .ci/run installs openimageio-tools")
	}
}

// groupedScene writes hairy-cornell with its ceiling light in light group
// "key" and its particles (one material of which emits) in "fill", set
// as a user sets them: extras.sertrace.light_group on their nodes; its
// front wall is taken away, so that the environment lights it too.
func groupedScene(t *testing.T, dir string) string {
	t.Helper()
	doc, err := gltf.Open("../scenes/hairy-cornell.glb")
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]string{"light": "key", "particles": "fill"}
	n := 0
	for _, nd := range doc.Nodes {
		if nd.Name == "front" {
			nd.Mesh = nil
		}
		if g, ok := set[nd.Name]; ok {
			nd.Extras = map[string]any{"sertrace": map[string]any{"light_group": g}}
			n++
		}
	}
	if n != len(set) {
		t.Fatalf("hairy-cornell has %d of the nodes %v", n, set)
	}
	path := filepath.Join(dir, "grouped.glb")
	if err := scene.WriteGLB(doc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// rgbOf is an EXR's channels prefix.R/G/B interleaved.
func rgbOf(t *testing.T, planes map[string][]float32, prefix string) []float32 {
	t.Helper()
	r, g, b := planes[prefix+"R"], planes[prefix+"G"], planes[prefix+"B"]
	if r == nil || g == nil || b == nil {
		t.Fatalf("no channels %sR, G, B", prefix)
	}
	out := make([]float32, 0, 3*len(r))
	for i := range r {
		out = append(out, r[i], g[i], b[i])
	}
	return out
}

// TestLightGroupsAddUpToTheBeauty: a render's light groups (two set by
// nodes' extras, the environment's by --env-light-group) add up to its
// beauty in every pixel and channel as closely as float32 values can,
// and that beauty is the render's without groups to the rounding of each
// sample; a group alone is the render lit by its lights alone (image
// means within noise); slices merge into the same file bit for bit, with
// their Cryptomatte.
func TestLightGroupsAddUpToTheBeauty(t *testing.T) {
	dir := t.TempDir()
	sc := groupedScene(t, dir)
	base := []string{"--backend", "cpu", "--res", "48x36", "--spp", "16", "--env-color", "0.3,0.4,0.5"}
	render1 := func(out string, more ...string) (w, h int, planes map[string][]float32) {
		t.Helper()
		args := append(append([]string{"render", sc, "-o", out}, base...), more...)
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		w, h, planes, _ = readEXR(t, out)
		return w, h, planes
	}
	grouped := filepath.Join(dir, "grouped.exr")
	w, h, planes := render1(grouped, "--light-groups", "--env-light-group", "sky", "--aov", "cryptomatte_object")
	beauty := rgbOf(t, planes, "")
	groups := map[string][]float32{}
	for _, g := range []string{"fill", "key", "sky"} {
		groups[g] = rgbOf(t, planes, "lightgroup."+g+".")
	}
	if _, ok := planes["lightgroup.unassigned.R"]; ok {
		t.Error("an unassigned group where every emitter is in one")
	}
	for i := range beauty {
		var sum float64
		for _, g := range groups {
			sum += float64(g[i])
		}
		if d := math.Abs(sum - float64(beauty[i])); d > 4e-7*math.Abs(sum)+1e-9 {
			t.Fatalf("pixel %d channel %d: the groups add up to %v, the beauty is %v", i/3, i%3, sum, beauty[i])
		}
	}
	_, _, plain := render1(filepath.Join(dir, "plain.exr"))
	without := rgbOf(t, plain, "")
	for i := range beauty {
		if d := math.Abs(float64(beauty[i] - without[i])); d > 1e-5*math.Abs(float64(without[i]))+1e-7 {
			t.Fatalf("pixel %d channel %d: the beauty with groups is %v, without %v: light was lost or counted twice", i/3, i%3, beauty[i], without[i])
		}
	}
	// The key light alone: the particles' emission off, the sky black.
	alone := filepath.Join(dir, "alone.exr")
	{
		doc, err := gltf.Open(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range doc.Materials {
			if strings.Contains(m.Name, "emitter") {
				m.EmissiveFactor = [3]float64{}
				m.Extensions = nil
			}
		}
		path := filepath.Join(dir, "keyonly.glb")
		if err := scene.WriteGLB(doc, path); err != nil {
			t.Fatal(err)
		}
		args := []string{"render", path, "-o", alone, "--backend", "cpu", "--res", "48x36", "--spp", "64"}
		if code, _, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	_, _, keyPlanes, _ := readEXR(t, alone)
	keyOnly := rgbOf(t, keyPlanes, "")
	mean := func(v []float32) (m float64) {
		for _, x := range v {
			m += float64(x)
		}
		return m / float64(len(v))
	}
	if k, a := mean(groups["key"]), mean(keyOnly); math.Abs(k-a) > 0.03*a || mean(groups["fill"]) <= 0 || mean(groups["sky"]) <= 0 {
		t.Errorf("the key group's mean %v, the render lit by the key light alone %v (fill %v, sky %v)", k, a, mean(groups["fill"]), mean(groups["sky"]))
	} else {
		t.Logf("key group mean %.5f, key light alone %.5f (fill %.5f, sky %.5f)", k, a, mean(groups["fill"]), mean(groups["sky"]))
	}
	// Slices merge bit for bit, groups and Cryptomatte too.
	var slices []string
	for _, s := range []string{"0:5", "5:11"} {
		out := filepath.Join(dir, "slice"+strings.ReplaceAll(s, ":", "_")+".exr")
		render1(out, "--light-groups", "--env-light-group", "sky", "--samples", s)
		slices = append(slices, out)
	}
	merged := filepath.Join(dir, "merged.exr")
	if code, _, errs := runCLI(t, append([]string{"merge", "-o", merged, "--aov", "cryptomatte_object"}, slices...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	mw, mh, mplanes, _ := readEXR(t, merged)
	if mw != w || mh != h || len(mplanes) != len(planes) {
		t.Fatalf("the merge has %d channels of %dx%d, the render %d of %dx%d", len(mplanes), mw, mh, len(planes), w, h)
	}
	for name, p := range planes {
		q := mplanes[name]
		for i := range p {
			if math.Float32bits(p[i]) != math.Float32bits(q[i]) {
				t.Fatalf("%s, pixel %d: merged %v, rendered in one go %v", name, i, q[i], p[i])
			}
		}
	}
}

// TestLightGroupsAreDenoised: with --denoise each light group is denoised
// with the beauty's guides: the groups of the denoised EXR are smoother
// than the noisy EXR's (their pixel-to-pixel differences smaller), and
// they add up to the denoised beauty, every pixel and channel, to float32
// rounding.
func TestLightGroupsAreDenoised(t *testing.T) {
	dir := t.TempDir()
	sc := groupedScene(t, dir)
	out := filepath.Join(dir, "d.exr")
	args := []string{"render", sc, "-o", out, "--backend", "cpu", "--res", "48x36", "--spp", "4", "--env-color", "0.3,0.4,0.5",
		"--light-groups", "--env-light-group", "sky", "--denoise"}
	if code, _, errs := runCLI(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, _, clean, _ := readEXR(t, out)
	_, _, noisy, _ := readEXR(t, job.NoisyPath(out))
	roughness := func(v []float32) (r float64) {
		for i := 3; i < len(v); i++ {
			r += math.Abs(float64(v[i] - v[i-3]))
		}
		return r
	}
	var sum []float64
	for _, g := range []string{"fill", "key", "sky"} {
		c, n := rgbOf(t, clean, "lightgroup."+g+"."), rgbOf(t, noisy, "lightgroup."+g+".")
		if rc, rn := roughness(c), roughness(n); !(rc < 0.8*rn) {
			t.Errorf("group %s: denoised roughness %v, noisy %v: not denoised", g, rc, rn)
		}
		if sum == nil {
			sum = make([]float64, len(c))
		}
		for i, v := range c {
			sum[i] += float64(v)
		}
	}
	beauty := rgbOf(t, clean, "")
	for i, v := range beauty {
		if d := math.Abs(sum[i] - float64(v)); d > 1e-6*math.Abs(float64(v))+1e-9 {
			t.Fatalf("pixel %d channel %d: the denoised groups add up to %v, the denoised beauty is %v", i/3, i%3, sum[i], v)
		}
	}
}

// TestLightGroupsAndCryptomatteInBands: a render over its memory budget
// renders in bands, and its light groups and Cryptomatte are the render's
// in one go, bit for bit.
func TestLightGroupsAndCryptomatteInBands(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // the budget becomes the collector's
	dir := t.TempDir()
	sc := groupedScene(t, dir)
	args := []string{"--backend", "cpu", "--res", "640x480", "--spp", "2", "--max-depth", "2", "--env-color", "0.3",
		"--light-groups", "--aov", "cryptomatte_object,cryptomatte_asset"}
	whole := filepath.Join(dir, "whole.exr")
	if code, _, errs := runCLI(t, append([]string{"render", sc, "-o", whole}, args...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	opts := render.Options{Width: 640, Height: 480, LightGroups: &render.LightGroups{Names: []string{"fill", "key", "unassigned"}}}
	layers := render.LayersFor([]render.AOV{render.AOVCryptoObject}, false) | render.GroupLayers
	band := opts
	band.Height = 16
	runtime.GC()
	budget := fmt.Sprint((render.MemoryNeed(opts, layers, "cpu", false) + render.MemoryNeed(band, layers, "cpu", false)) / 2)
	banded := filepath.Join(dir, "banded.exr")
	code, _, errs := runCLI(t, append([]string{"render", sc, "-o", banded, "--memory-budget", budget}, args...)...)
	if code != 0 || !strings.Contains(errs, "rendering it in bands of") {
		t.Fatalf("render --memory-budget %s: exit %d: %s", budget, code, errs)
	}
	_, _, a, _ := readEXR(t, whole)
	_, _, b, _ := readEXR(t, banded)
	for _, name := range []string{"lightgroup.key.R", "lightgroup.fill.G", "lightgroup.unassigned.B", "CryptoObject00.R", "CryptoObject01.A", "CryptoAsset00.G", "R"} {
		p, q := a[name], b[name]
		if p == nil || q == nil {
			t.Fatalf("channel %s: in one go %v, in bands %v", name, p != nil, q != nil)
		}
		for i := range p {
			if math.Float32bits(p[i]) != math.Float32bits(q[i]) {
				t.Fatalf("%s, pixel %d: in bands %v, in one go %v", name, i, q[i], p[i])
			}
		}
	}
}

// TestCryptomatteOfAnAlphaMask: the grill of StainedGlassLamp is an alpha
// mask (its texture's alpha against the cutoff): its matte counts only
// the samples that the mask lets hit it, as a render of it alone does,
// and Blender's compositor reads the same.
func TestCryptomatteOfAnAlphaMask(t *testing.T) {
	dir := t.TempDir()
	scenePath := sharedscenes.Path(t, "StainedGlassLamp/StainedGlassLamp.gltf")
	out := filepath.Join(dir, "lamp.exr")
	if code, _, errs := runCLI(t, "render", scenePath, "-o", out, "--backend", "cpu", "--res", "64x64", "--spp", "8",
		"--aov", "cryptomatte_object", "--max-depth", "2"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	w, h, planes, _ := readEXR(t, out)
	s := render.DefaultSettings()
	s.Backend, s.Res, s.SPP, s.MaxDepth = "cpu", "64x64", 8, 2
	grill := func(sc *scene.Scene, i int) bool { return sc.ObjectName(i) == "grill" }
	masked := false
	j, err := job.Prepare(job.Spec{Scene: scenePath, Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	for i := range j.Scene.Instances {
		masked = masked || grill(j.Scene, i) && j.Scene.Materials[j.Scene.Instances[i].Material].AlphaMode == scene.AlphaMask
	}
	if !masked {
		t.Fatal("the lamp's grill is no alpha mask: the test tests nothing")
	}
	checkMattes(t, dir, scenePath, out, s, planes, w*h, []matteCase{{"CryptoObject", "grill", grill, 20}})
}

// TestLayerOutputsRefuseAPNG: Cryptomatte and light groups are EXR
// layers; a render or merge to a PNG or PFM refuses them in one line
// naming the file, before rendering.
func TestLayerOutputsRefuseAPNG(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", filepath.Join(dir, "a.png"), "--aov", "cryptomatte_object"}, "Cryptomatte (cryptomatte_object) is written as layers of an EXR"},
		{[]string{"-o", filepath.Join(dir, "a.pfm"), "--light-groups"}, "light groups are written as layers of an EXR"},
		{[]string{"-o", filepath.Join(dir, "a.exr"), "--env-light-group", "sky"}, "light groups are off"},
		{[]string{"-o", filepath.Join(dir, "a.exr"), "--cryptomatte-levels", "17"}, "1 to 16 ranks"},
	} {
		code, _, errs := runCLI(t, append([]string{"render", "../scenes/cornell.glb", "--backend", "cpu", "--res", "8x8", "--spp", "1"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 1 {
			t.Errorf("%v: exit %d: %q, want %q", c.args, code, errs, c.want)
		}
		if _, err := os.Stat(c.args[1]); err == nil {
			t.Errorf("%v wrote %s", c.args, c.args[1])
		}
	}
}

// TestInspectNamesTheMattesAndGroups: inspect lists what a compositor
// picks and groups by: the objects, materials and assets, and the light
// groups the nodes name (the rest unassigned).
func TestInspectNamesTheMattesAndGroups(t *testing.T) {
	sc := groupedScene(t, t.TempDir())
	code, out, errs := runCLI(t, "inspect", sc, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Cryptomatte struct{ Objects, Materials, Assets []string }
		LightGroups []string `json:"light_groups"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got.Cryptomatte.Objects, "blonde strands") || !slices.Contains(got.Cryptomatte.Materials, "particle 4 emitter") ||
		!slices.Equal(got.LightGroups, []string{"fill", "key"}) {
		t.Errorf("inspect says objects %v, materials %v, groups %v", got.Cryptomatte.Objects, got.Cryptomatte.Materials, got.LightGroups)
	}
}

// TestCryptomatteIDsStayFloat: in a half-float EXR the Cryptomatte
// channels stay float32 (an ID is a float32's bits), the beauty is half.
func TestCryptomatteIDsStayFloat(t *testing.T) {
	out := filepath.Join(t.TempDir(), "half.exr")
	if code, _, errs := runCLI(t, "render", "../scenes/cornell.glb", "-o", out, "--backend", "cpu", "--res", "16x12", "--spp", "2",
		"--exr-half", "--aov", "cryptomatte_object", "--light-groups"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := exr.OpenFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	types := map[string]exr.PixelType{}
	ch := f.Header(0).Channels()
	for i := 0; i < ch.Len(); i++ {
		types[ch.At(i).Name] = ch.At(i).Type
	}
	if types["R"] != exr.PixelTypeHalf || types["lightgroup.unassigned.R"] != exr.PixelTypeHalf {
		t.Errorf("the beauty and the groups are not half: %v", types)
	}
	for _, c := range []string{"CryptoObject00.R", "CryptoObject00.G", "CryptoObject02.A"} {
		if types[c] != exr.PixelTypeFloat {
			t.Errorf("%s is %v, not float32", c, types[c])
		}
	}
}
