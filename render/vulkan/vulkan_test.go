package vulkan_test

// Tests of the Vulkan backend against the CPU backend, on whatever device
// the loader offers (lavapipe in CI), with the Khronos validation layer on
// and every validation message a failure. Without a device they skip, but
// with CI set they fail: CI installs lavapipe and must run them.

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sertrace/internal/longtest"
	"sertrace/internal/sharedscenes"
	"sertrace/render"
	"sertrace/render/cpu"
	"sertrace/render/vulkan"
	"sertrace/scene"
)

func renderOn(t *testing.T, b render.Backend, sc *scene.Scene, opts render.Options) *render.Film {
	t.Helper()
	film := render.NewFilm(opts.Width, opts.Height)
	if _, err := render.Render(context.Background(), b, sc, opts, film, nil); err != nil {
		t.Fatalf("%s: %v", b.Name(), err)
	}
	if err := vulkan.ValidationErrors(); err != nil {
		t.Fatal(err)
	}
	return film
}

// onPath renders on d's path with the validation layer, unless
// SERTRACE_VULKAN_VALIDATION=0 says otherwise (on a device whose driver is
// newer than the installed layer, to compare images apart from its
// messages).
func onPath(d vulkan.Device, path string) vulkan.Backend {
	return vulkan.Backend{Path: path, Device: d.Index, Validation: os.Getenv("SERTRACE_VULKAN_VALIDATION") != "0"}
}

// gpuPaths are the paths of d that lavapipe (or the GPU) runs: rt,
// rayquery and rt-sorted, which CI's lavapipe must run, and ser where the
// device offers VK_NV_ray_tracing_invocation_reorder (NVIDIA's drivers;
// never lavapipe). rt comes first: the tests compare the later paths with it.
// The quick tests run rt alone; the long ones (-tags long) every path.
func gpuPaths(t *testing.T, d vulkan.Device) []string {
	var out []string
	for _, p := range []string{vulkan.PathRT, vulkan.PathRayQuery, vulkan.PathRTSorted} {
		if d.Paths[p].Available {
			out = append(out, p)
		} else if os.Getenv("CI") != "" {
			t.Errorf("CI's lavapipe should run path %s: %s", p, d.Paths[p].Reason)
		}
	}
	if d.Paths[vulkan.PathSER].Available {
		out = append(out, vulkan.PathSER)
	}
	if !longtest.Enabled && len(out) > 1 {
		out = out[:1]
	}
	return out
}

func loadScene(t *testing.T, name string) *scene.Scene {
	t.Helper()
	sc, err := scene.Load("../../scenes/" + name + ".glb")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestDevicesExplainEveryPath: every path has an answer, and a device
// without VK_NV_ray_tracing_invocation_reorder is not offered ser, saying so.
func TestDevicesExplainEveryPath(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	for _, p := range vulkan.PathNames {
		st, ok := d.Paths[p]
		if !ok || (!st.Available && st.Reason == "") {
			t.Errorf("path %s: %+v", p, st)
		}
	}
	if d.ReorderMode == nil {
		st := d.Paths[vulkan.PathSER]
		if st.Available || !strings.Contains(st.Reason, "VK_NV_ray_tracing_invocation_reorder") {
			t.Errorf("ser without the SER extension: %+v", st)
		}
	}
	if d.Driver == "" || d.APIVersion == "" || d.Name == "" {
		t.Errorf("device description incomplete: %+v", d)
	}
}

// furnaceScene is one unit sphere (AABB geometry and its intersection
// shader) in front of a camera, under a uniform environment of radiance 1.
func furnaceScene(base float32) *scene.Scene {
	m := scene.DefaultMaterial()
	m.BaseColor = scene.Vec4{X: base, Y: base, Z: base, W: 1}
	m.Metallic, m.Specular = 0, 0
	sc := &scene.Scene{
		SphereSets: []scene.SphereSet{{Centers: []scene.Vec3{{X: 0, Y: 0, Z: 0}}, Radii: []float32{1},
			Bounds: scene.Bounds{Min: scene.Vec3{X: -1, Y: -1, Z: -1}, Max: scene.Vec3{X: 1, Y: 1, Z: 1}}}},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Spheres}, Transform: scene.Identity}},
		Materials: []scene.Material{m},
		Bounds:    scene.Bounds{Min: scene.Vec3{X: -1, Y: -1, Z: -1}, Max: scene.Vec3{X: 1, Y: 1, Z: 1}},
	}
	sc.Cameras = []scene.Camera{{Name: "front", YFov: 0.35, Transform: scene.LookAt(scene.Vec3{X: 0, Y: 0, Z: 5}, scene.Vec3{}, scene.Vec3{X: 0, Y: 1, Z: 0})}}
	return sc
}

// TestWhiteFurnace: through the rt and ray-query paths, a white Lambertian sphere under a
// uniform environment of 1 is invisible (1 everywhere, to Monte Carlo
// error) and a grey one of albedo 0.5 renders 0.5 on average.
func TestWhiteFurnace(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	opts := render.Options{Width: 24, Height: 24, SPP: 64, MaxDepth: 32, EnvColor: [3]float32{1, 1, 1}}
	for _, c := range []struct {
		base float32
		want float64
	}{{1, 1}, {0.5, 0.5}} {
		for _, path := range gpuPaths(t, d) {
			film := renderOn(t, onPath(d, path), furnaceScene(c.base), opts)
			checkFurnace(t, path, film, opts, c.base, c.want)
		}
	}
}

func checkFurnace(t *testing.T, path string, film *render.Film, opts render.Options, base float32, want float64) {
	t.Helper()
	pix, _ := film.Resolve(render.AOVBeauty)
	// The central 8×8 pixels see only the sphere.
	var sum float64
	for y := 8; y < 16; y++ {
		for x := 8; x < 16; x++ {
			v := float64(pix[3*(y*opts.Width+x)])
			sum += v
			if !(math.Abs(v-want) <= 0.3) { // Russian roulette and the depth limit make single pixels noisy
				t.Errorf("path %s, albedo %v: pixel (%d, %d) = %v, want %v", path, base, x, y, v, want)
			}
		}
	}
	if mean := sum / 64; !(math.Abs(mean-want) <= 0.02) {
		t.Errorf("path %s, albedo %v: sphere mean %.4f, want %.4f", path, base, mean, want)
	}
	if bg := pix[0]; !(math.Abs(float64(bg)-1) <= 1e-6) {
		t.Errorf("background %v, want the environment's 1", bg)
	}
}

// TestFirstHitAOVsMatchCPU: the camera rays agree to float32 rounding on
// every backend and path, so the first hit's albedo, normal and depth agree
// to float rounding on triangles, spheres and swept spheres (the GPU's
// float32 tests against the CPU's float64 ones); only pixels whose ray
// grazes an edge may land on a different primitive.
func TestFirstHitAOVsMatchCPU(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	for _, name := range []string{"cornell", "hair", "particles"} {
		t.Run(name, func(t *testing.T) {
			sc := loadScene(t, name)
			opts := render.Options{Width: 40, Height: 30, SPP: 1, MaxDepth: 1, EnvColor: [3]float32{0.3, 0.35, 0.4}}
			// A swept sphere's normal is a difference divided by its
			// radius, a few thousandths of the hit's distance on a hair
			// strand: float32 rounding moves it by up to 1e-3. NVIDIA's
			// compiler, which fuses multiply-adds, did so in 83 of the
			// hair scene's 3600 normal values (all between 1e-4 and 1e-3,
			// on rt and ser alike); lavapipe stays within 1e-4.
			normalTol := 1e-4
			if name == "hair" {
				normalTol = 1e-3
			}
			want := renderOn(t, cpu.Backend{}, sc, opts)
			var first *render.Film
			for _, path := range gpuPaths(t, d) {
				got := renderOn(t, onPath(d, path), sc, opts)
				compareAOVs(t, path, want, got, normalTol)
				if first == nil {
					first = got
				} else {
					compareAOVs(t, path+" against rt", first, got, normalTol) // rayquery and ser against the rt pipeline
				}
			}
		})
	}
}

// compareAOVs checks the first-hit AOVs of two films agree but at edges:
// each value within 1e-4 of the other (normals within normalTol),
// relative, in all but 2% of the pixels.
func compareAOVs(t *testing.T, path string, want, got *render.Film, normalTol float64) {
	t.Helper()
	for _, aov := range []render.AOV{render.AOVAlbedo, render.AOVNormal, render.AOVDepth} {
		a, ch := want.Resolve(aov)
		b, _ := got.Resolve(aov)
		tol := 1e-4
		if aov == render.AOVNormal {
			tol = normalTol
		}
		differ, nonzero := 0, 0
		var decades [4]int // differences of at least 1e-1, 1e-2, 1e-3 and 1e-4 (relative)
		for i := range a {
			if a[i] != 0 {
				nonzero++
			}
			d := math.Abs(float64(a[i]-b[i])) / max(1, math.Abs(float64(a[i])))
			if !(d <= tol) {
				differ++
				decades[min(3, max(0, int(math.Floor(-math.Log10(d)))))]++
			}
		}
		if nonzero == 0 {
			t.Fatalf("%s: the CPU's AOV is all zero: the test checks nothing", aov)
		}
		if limit := len(a) / ch / 50; differ/ch > limit { // 2% of the pixels: edges
			t.Errorf("path %s, %s: %d of %d values differ (by at least 1e-1, 1e-2, 1e-3, 1e-4: %v)", path, aov, differ, len(a), decades)
		}
	}
}

// TestBeautyMatchesCPU: the two backends' images agree tile by tile within
// a few standard errors when their random streams are independent, on the
// generated scenes: triangles, hair (swept spheres and the hair BSDF),
// particles (spheres) through the AABB fallback and a room of 256 lamps
// (the light tree). With the same streams the
// paths are the same but where float rounding parts them, so the image
// means must then agree far more tightly: within half a standard error,
// which catches a bias of a fraction of a percent.
func TestBeautyMatchesCPU(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	for _, name := range []string{"cornell", "hair", "particles", "hairy-cornell", "strands", "many-lights"} {
		t.Run(name, func(t *testing.T) {
			sc := loadScene(t, name)
			opts := render.Options{Width: 32, Height: 24, SPP: 32, MaxDepth: 6, EnvColor: [3]float32{0.3, 0.35, 0.4}}
			if name == "strands" {
				// Sun-lit chained strands (the hair comparison with Cycles)
				// against black, as that comparison renders them: the
				// strand rule at every joint and the hair BSDF under a
				// directional light.
				opts.Width, opts.Height, opts.SPP, opts.EnvColor = 64, 48, 64, [3]float32{}
			}
			if name == "particles" {
				opts.SPP = 16 // lavapipe's AABB traversal is slow
			}
			if name == "cornell" {
				opts.SPP = 256 // cheap on any device: the tightest check
			}
			same, _ := matchesCPU(t, d, sc, opts)
			if m, _ := imageMean(same); !(m > 0) {
				t.Fatalf("the CPU's image is black (mean %v): the test checks nothing", m)
			}
		})
	}
}

// TestSharedMaterialScenesMatchCPU: real assets of every material
// extension (clearcoat, sheen, anisotropy, iridescence, transmission with
// volume and ior, specular, KTX2 textures, alpha blending) render on every
// GPU path as on the CPU.
func TestSharedMaterialScenesMatchCPU(t *testing.T) {
	dir := sharedscenes.Dir(t)
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	for _, name := range []string{"ClearCoatTest/ClearCoatTest.glb", "SheenCloth/SheenCloth.gltf", "AnisotropyStrengthTest/AnisotropyStrengthTest.glb",
		"IridescenceSuzanne/IridescenceSuzanne.glb", "StainedGlassLamp/StainedGlassLamp.gltf", "TransmissionRoughnessTest/TransmissionRoughnessTest.glb",
		"SpecularTest/SpecularTest.glb"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scene.Load(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			// Real assets have silhouettes and sharp texture edges, where a
			// few first-hit samples part between the backends' float
			// arithmetic: the albedos' means agree to 0.5% (ClearCoatTest's
			// to 0.2%: 7 of its 768 pixels, each by one sample's coat
			// reflectance, 0.04/16, in one patch of its coat texture).
			matchesCPUWithin(t, d, sc, render.Options{Width: 32, Height: 24, SPP: 16, MaxDepth: 6, EnvColor: [3]float32{0.5, 0.5, 0.5}}, 5e-3)
		})
	}
}

// matchesCPU renders a scene on every GPU path and checks each film against
// the CPU's with independent streams (tile by tile, statistically) and with
// the same streams (the image means within half a standard error). It
// returns the CPU's film of the same streams and the GPU's films by path.
func matchesCPU(t *testing.T, d vulkan.Device, sc *scene.Scene, opts render.Options) (*render.Film, map[string]*render.Film) {
	t.Helper()
	return matchesCPUWithin(t, d, sc, opts, 1e-4)
}

// matchesCPUWithin is matchesCPU with the albedos' means, which the same
// streams make exact but for first-hit samples that the backends' float
// arithmetic parts, held within albedoTol of the CPU's.
func matchesCPUWithin(t *testing.T, d vulkan.Device, sc *scene.Scene, opts render.Options, albedoTol float64) (*render.Film, map[string]*render.Film) {
	t.Helper()
	same := renderOn(t, cpu.Backend{}, sc, opts)
	independent := opts
	independent.Seed += 1000
	other := renderOn(t, cpu.Backend{}, sc, independent)
	ms, _ := imageMean(same)
	films := map[string]*render.Film{}
	for _, path := range gpuPaths(t, d) {
		got := renderOn(t, onPath(d, path), sc, opts)
		films[path] = got
		compareTiles(t, other, got, 8)
		if mg, se := imageMean(got); !(math.Abs(ms-mg) <= 0.5*se) {
			t.Errorf("path %s, same random streams: image mean cpu %.5f, vulkan %.5f (standard error %.5f)", path, ms, mg, se)
		}
		// The denoiser's split of the light, and the albedos it is divided by.
		for _, b := range []struct {
			name         string
			cpu, gpu     []float64
			cpuSq, gpuSq []float64
		}{{"diffuse", same.Floats(render.LayerDiffuse), got.Floats(render.LayerDiffuse), same.Floats(render.LayerDiffuseLumSq), got.Floats(render.LayerDiffuseLumSq)},
			{"specular", same.Floats(render.LayerSpecular), got.Floats(render.LayerSpecular), same.Floats(render.LayerSpecularLumSq), got.Floats(render.LayerSpecularLumSq)},
			{"diffuse albedo", same.Floats(render.LayerDiffuseAlbedo), got.Floats(render.LayerDiffuseAlbedo), nil, nil},
			{"specular albedo", same.Floats(render.LayerSpecularAlbedo), got.Floats(render.LayerSpecularAlbedo), nil, nil}} {
			mc, se := bufferMean(b.cpu, b.cpuSq, same.Samples)
			mg, _ := bufferMean(b.gpu, b.gpuSq, got.Samples)
			if !(math.Abs(mc-mg) <= 0.5*se+albedoTol*math.Abs(mc)) {
				t.Errorf("path %s, same random streams: %s mean cpu %.5f, vulkan %.5f (standard error %.5f)", path, b.name, mc, mg, se)
			}
		}
	}
	return same, films
}

// bufferMean is the mean luminance of an RGB buffer of sums over samples
// and, given its sums of squared luminance, the mean's standard error.
func bufferMean(sum, lumSq []float64, samples int) (mean, se float64) {
	n, spp := len(sum)/3, float64(samples)
	for i := 0; i < n; i++ {
		m := (0.2126*sum[3*i] + 0.7152*sum[3*i+1] + 0.0722*sum[3*i+2]) / spp
		mean += m
		if lumSq != nil {
			se += max(lumSq[i]/spp-m*m, 0) / (spp - 1)
		}
	}
	return mean / float64(n), math.Sqrt(se) / float64(n)
}

// imageMean is a film's mean luminance and its standard error.
func imageMean(f *render.Film) (mean, se float64) {
	return bufferMean(f.Floats(render.LayerBeauty), f.Floats(render.LayerLumSq), f.Samples)
}

// compareTiles checks each tile's mean luminance against the other film's
// (written !(d <= tol), so that a NaN fails),
// within 4.5 combined standard errors (from the films' own per-pixel
// variances) plus 1% for the rounding of a mean near zero, and the whole
// image's mean within 4.
func compareTiles(t *testing.T, a, b *render.Film, tile int) {
	t.Helper()
	pa, _ := a.Resolve(render.AOVBeauty)
	pb, _ := b.Resolve(render.AOVBeauty)
	va, vb := a.MeanVariance(), b.MeanVariance()
	lum := func(p []float32, i int) float64 {
		return 0.2126*float64(p[3*i]) + 0.7152*float64(p[3*i+1]) + 0.0722*float64(p[3*i+2])
	}
	var total, totalB, totalV float64
	for ty := 0; ty < a.Height; ty += tile {
		for tx := 0; tx < a.Width; tx += tile {
			var ma, mb, v float64
			n := 0
			for y := ty; y < min(ty+tile, a.Height); y++ {
				for x := tx; x < min(tx+tile, a.Width); x++ {
					i := y*a.Width + x
					ma += lum(pa, i)
					mb += lum(pb, i)
					v += float64(va[i]) + float64(vb[i])
					n++
				}
			}
			ma, mb = ma/float64(n), mb/float64(n)
			se := math.Sqrt(v) / float64(n)
			total += ma * float64(n)
			totalB += mb * float64(n)
			totalV += v
			if !(math.Abs(ma-mb) <= 4.5*se+0.01*ma) {
				t.Errorf("tile (%d, %d): cpu %.4f, vulkan %.4f, standard error %.4f", tx, ty, ma, mb, se)
			}
		}
	}
	if total == 0 {
		t.Fatal("the image is black: the test checks nothing")
	}
	// The whole image: a bias of a few percent anywhere shows here.
	n := float64(a.Width * a.Height)
	if ma, mb, se := total/n, totalB/n, math.Sqrt(totalV)/n; !(math.Abs(ma-mb) <= 4*se) {
		t.Errorf("image mean: cpu %.5f, vulkan %.5f, standard error %.5f", ma, mb, se)
	}
}

// featureScene exercises what the generated scenes do not: a dispersive
// glass sphere with a coloured volume, a rough metal sphere under a clearcoat and a
// thin film, a textured ground (bilinear sRGB texels with a texture transform), half brushed
// metal, under a thin film whose thickness a texture sets, a sheen and a clearcoat with its own normal map, an unlit sphere, an alpha-masked
// card that transmits half its diffuse light, specular-glossiness spheres,
// a spot light, and a camera with depth of field.
func featureScene() *scene.Scene {
	glass := scene.DefaultMaterial()
	glass.Metallic, glass.Roughness, glass.Transmission = 0, 0.05, 1
	glass.Volume, glass.AttenuationColor, glass.AttenuationDistance = true, scene.Vec3{X: 0.9, Y: 0.6, Z: 0.3}, 0.8
	glass.Dispersion = 1.5
	metal := scene.DefaultMaterial()
	metal.Roughness, metal.BaseColor = 0.3, scene.Vec4{X: 0.9, Y: 0.7, Z: 0.5, W: 1}
	metal.Clearcoat, metal.ClearcoatRoughness = 1, 0.1
	metal.Iridescence, metal.IridescenceIOR, metal.IridescenceThicknessMax = 1, 2.0, 350
	ground := scene.DefaultMaterial()
	ground.Metallic = 0
	ground.BaseColorTexture = scene.TextureRef{Texture: 0, Transform: [6]float32{4, 0, 0.1, 0, 4, 0}}
	ground.Clearcoat, ground.ClearcoatRoughness, ground.ClearcoatNormalScale = 0.8, 0.2, 0.7
	ground.ClearcoatNormalTexture = scene.TextureRef{Texture: 1, Transform: [6]float32{6, 0, 0, 0, 6, 0}}
	ground.SheenColor, ground.SheenRoughness = scene.Vec3{X: 0.8, Y: 0.6, Z: 0.9}, 0.4
	ground.Metallic, ground.Roughness, ground.AnisotropyStrength, ground.AnisotropyRotation = 0.5, 0.3, 0.8, 0.6
	ground.Iridescence, ground.IridescenceIOR, ground.IridescenceThicknessMin, ground.IridescenceThicknessMax = 0.7, 1.4, 200, 700
	ground.IridescenceThicknessTexture = scene.TextureRef{Texture: 0, Transform: [6]float32{2, 0, 0, 0, 2, 0}}
	unlit := scene.DefaultMaterial()
	unlit.BaseColor, unlit.Unlit = scene.Vec4{X: 0.1, Y: 0.8, Z: 0.3, W: 1}, true
	card := scene.DefaultMaterial()
	card.Metallic, card.AlphaMode, card.DoubleSided = 0, scene.AlphaMask, true
	card.DiffuseTransmission, card.DiffuseTransmissionColor = 0.5, scene.Vec3{X: 1, Y: 0.5, Z: 0.2}
	card.BaseColorTexture = scene.TextureRef{Texture: 0, Transform: [6]float32{3, 0, 0, 0, 3, 0}}
	lamp := scene.DefaultMaterial()
	lamp.Metallic, lamp.Emissive = 0, scene.Vec3{X: 4, Y: 4, Z: 3}
	// KHR_materials_pbrSpecularGlossiness: the sRGB checker's RGB the
	// specular colour, its alpha (0 and 1, mixed where a sphere's UV
	// lands) the glossiness.
	specGloss := scene.DefaultMaterial()
	specGloss.SpecularGlossiness, specGloss.Glossiness = true, 0.9
	specGloss.BaseColor, specGloss.SpecularColor = scene.Vec4{X: 0.2, Y: 0.4, Z: 0.7, W: 1}, scene.Vec3{X: 0.9, Y: 0.7, Z: 0.3}
	specGloss.SpecularColorTexture = scene.TextureRef{Texture: 0, Transform: [6]float32{1, 0, 0.3, 0, 1, 0.2}}

	checker := scene.Texture{Width: 4, Height: 4, Pixels: make([]uint8, 64), ColorSpace: scene.SRGB}
	for i := 0; i < 16; i++ {
		v := uint8(40)
		if (i%4+i/4)%2 == 0 {
			v = 230
		}
		a := uint8(255)
		if i%3 == 0 {
			a = 0 // holes in the card
		}
		copy(checker.Pixels[4*i:], []uint8{v, v / 2, 255 - v, a})
	}
	// A normal map of tilted bumps, in linear texels.
	bumps := scene.Texture{Width: 4, Height: 4, Pixels: make([]uint8, 64), ColorSpace: scene.Linear}
	for i := 0; i < 16; i++ {
		x, y := uint8(128+90*((i%4)%2*2-1)/2), uint8(128+90*((i/4)%2*2-1)/2)
		copy(bumps.Pixels[4*i:], []uint8{x, y, 230, 255})
	}
	quad := func(p [4]scene.Vec3) scene.Mesh {
		m := scene.Mesh{Positions: p[:], Indices: []uint32{0, 1, 2, 0, 2, 3},
			UV0: []scene.Vec2{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}, {X: 0, Y: 1}}, Normals: nil}
		m.Bounds = scene.Bounds{Min: p[0], Max: p[0]}
		for _, v := range p {
			for k := 0; k < 3; k++ {
				m.Bounds.Min.Set(k, min(m.Bounds.Min.At(k), v.At(k)))
				m.Bounds.Max.Set(k, max(m.Bounds.Max.At(k), v.At(k)))
			}
		}
		m.Tangents = scene.GenerateTangents(&m)
		return m
	}
	sc := &scene.Scene{
		Meshes: []scene.Mesh{
			quad([4]scene.Vec3{{X: -4, Y: 0, Z: -4}, {X: -4, Y: 0, Z: 4}, {X: 4, Y: 0, Z: 4}, {X: 4, Y: 0, Z: -4}}),
			quad([4]scene.Vec3{{X: -1.5, Y: 0, Z: -1.5}, {X: 1.5, Y: 0, Z: -1.5}, {X: 1.5, Y: 2, Z: -1.5}, {X: -1.5, Y: 2, Z: -1.5}}),
			quad([4]scene.Vec3{{X: -0.5, Y: 3, Z: -0.5}, {X: -0.5, Y: 3, Z: 0.5}, {X: 0.5, Y: 3, Z: 0.5}, {X: 0.5, Y: 3, Z: -0.5}}),
		},
		SphereSets: []scene.SphereSet{{Centers: []scene.Vec3{{X: -0.6, Y: 0.5, Z: 0}, {X: 0.7, Y: 0.4, Z: 0.4}}, Radii: []float32{0.5, 0.4},
			Bounds: scene.Bounds{Min: scene.Vec3{X: -1.1, Y: 0, Z: -0.5}, Max: scene.Vec3{X: 1.1, Y: 1, Z: 0.8}}}},
		Materials: []scene.Material{glass, metal, ground, card, lamp, unlit, specGloss},
		Textures:  []scene.Texture{checker, bumps},
		Lights: []scene.Light{{Kind: scene.SpotLight, Color: scene.Vec3{X: 1, Y: 0.9, Z: 0.8}, Intensity: 20, Position: scene.Vec3{X: 2, Y: 3, Z: 2},
			Direction: scene.Vec3{X: -0.5, Y: -0.7, Z: -0.5}, InnerCone: 0.3, OuterCone: 0.6}},
		Bounds: scene.Bounds{Min: scene.Vec3{X: -4, Y: 0, Z: -4}, Max: scene.Vec3{X: 4, Y: 3, Z: 4}},
	}
	d := sc.Lights[0].Direction
	l := float32(math.Sqrt(float64(d.X*d.X + d.Y*d.Y + d.Z*d.Z)))
	sc.Lights[0].Direction = scene.Vec3{X: d.X / l, Y: d.Y / l, Z: d.Z / l}
	sc.Instances = []scene.Instance{
		{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 0}, Transform: scene.Identity, Material: 2},
		{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 1}, Transform: scene.Identity, Material: 3},
		{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 2}, Transform: scene.Identity, Material: 4},
		{Geometry: scene.GeometryRef{Kind: scene.Spheres, Index: 0}, Transform: scene.Identity, Material: 0},
	}
	// The second sphere is metal: a second sphere set would need its own
	// BLAS; an instance of the same set, moved, shows instancing too.
	moved := scene.Identity
	moved[12], moved[14] = 1.2, -0.8
	sc.Instances = append(sc.Instances, scene.Instance{Geometry: scene.GeometryRef{Kind: scene.Spheres, Index: 0}, Transform: moved, Material: 1})
	moved[12], moved[13], moved[14] = -1.6, 0.1, 0.9
	sc.Instances = append(sc.Instances, scene.Instance{Geometry: scene.GeometryRef{Kind: scene.Spheres, Index: 0}, Transform: moved, Material: 5})
	moved[12], moved[13], moved[14] = 1.5, -0.1, 1.2
	sc.Instances = append(sc.Instances, scene.Instance{Geometry: scene.GeometryRef{Kind: scene.Spheres, Index: 0}, Transform: moved, Material: 6})
	cam := scene.Camera{Name: "dof", YFov: 0.7, ApertureRadius: 0.05, FocusDistance: 4.5,
		Transform: scene.LookAt(scene.Vec3{X: 0.5, Y: 1.6, Z: 4.5}, scene.Vec3{X: 0, Y: 0.5, Z: 0}, scene.Vec3{X: 0, Y: 1, Z: 0})}
	sc.Cameras = []scene.Camera{cam}
	return sc
}

// TestFeaturesMatchCPU: glass with absorption, metal, textures, alpha
// masks, a spot light, depth of field and a Gaussian pixel filter render
// the same on both backends (same streams: image means within half a
// standard error; independent streams: tiles within a few).
func TestFeaturesMatchCPU(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	sc := featureScene()
	filter, err := render.NewPixelFilter("gaussian")
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 32, Height: 24, SPP: 128, MaxDepth: 8, EnvColor: [3]float32{0.2, 0.25, 0.3}, Filter: filter}
	if os.Getenv("SERTRACE_WRITE_TEST_IMAGES") != "" {
		opts.Width, opts.Height = 160, 120 // to look at
	}
	same, films := matchesCPU(t, d, sc, opts)
	if dir := os.Getenv("SERTRACE_WRITE_TEST_IMAGES"); dir != "" {
		render.Write(dir+"/features_cpu.png", same, render.Display{})
		for path, f := range films {
			render.Write(dir+"/features_"+path+".png", f, render.Display{})
		}
	}
}

// TestSphereLightsMatchCPU: a room lit only by emissive spheres, one set
// placed by a rotating, uniformly scaling instance, renders the same on
// both backends: light sampling in the cone a sphere subtends and the MIS
// weights of BSDF rays that hit one (the CPU's are checked against a
// closed form in render/cpu).
func TestSphereLightsMatchCPU(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	ground := scene.DefaultMaterial()
	ground.Metallic, ground.BaseColor = 0, scene.Vec4{X: 0.8, Y: 0.7, Z: 0.6, W: 1}
	glossy := scene.DefaultMaterial()
	glossy.Metallic, glossy.Roughness = 0, 0.2
	lamp := scene.DefaultMaterial()
	lamp.Metallic, lamp.Emissive = 0, scene.Vec3{X: 6, Y: 4, Z: 2}
	floor := scene.Mesh{Positions: []scene.Vec3{{X: -4, Y: 0, Z: -4}, {X: -4, Y: 0, Z: 4}, {X: 4, Y: 0, Z: 4}, {X: 4, Y: 0, Z: -4}}, Indices: []uint32{0, 1, 2, 0, 2, 3},
		Bounds: scene.Bounds{Min: scene.Vec3{X: -4, Y: 0, Z: -4}, Max: scene.Vec3{X: 4, Y: 0, Z: 4}}}
	sc := &scene.Scene{
		Meshes: []scene.Mesh{floor},
		SphereSets: []scene.SphereSet{
			{Centers: []scene.Vec3{{X: 0, Y: 0.6, Z: 0}}, Radii: []float32{0.6}, Bounds: scene.Bounds{Min: scene.Vec3{X: -0.6, Y: 0, Z: -0.6}, Max: scene.Vec3{X: 0.6, Y: 1.2, Z: 0.6}}},
			{Centers: []scene.Vec3{{X: -0.5, Y: 0.8, Z: 0.2}, {X: 0.6, Y: 0.5, Z: -0.3}, {X: 0, Y: 1, Z: 0.8}}, Radii: []float32{0.1, 0.05, 0.15},
				Bounds: scene.Bounds{Min: scene.Vec3{X: -0.6, Y: 0.45, Z: -0.35}, Max: scene.Vec3{X: 0.65, Y: 1.15, Z: 0.95}}},
		},
		Materials: []scene.Material{ground, glossy, lamp},
		Bounds:    scene.Bounds{Min: scene.Vec3{X: -4, Y: 0, Z: -4}, Max: scene.Vec3{X: 4, Y: 3, Z: 4}},
	}
	c, s := math.Cos(0.7), math.Sin(0.7)
	sc.Instances = []scene.Instance{
		{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity, Material: 0},
		{Geometry: scene.GeometryRef{Kind: scene.Spheres, Index: 0}, Transform: scene.Identity, Material: 1},
		{Geometry: scene.GeometryRef{Kind: scene.Spheres, Index: 1}, Transform: scene.Identity, Material: 2},
		{Geometry: scene.GeometryRef{Kind: scene.Spheres, Index: 1},
			Transform: scene.Mat4{1.5 * c, 0, -1.5 * s, 0, 0, 1.5, 0, 0, 1.5 * s, 0, 1.5 * c, 0, 0.2, 0.3, -0.1, 1}, Material: 2},
	}
	sc.Cameras = []scene.Camera{{YFov: 0.8, Transform: scene.LookAt(scene.Vec3{X: 0.3, Y: 2.2, Z: 3.5}, scene.Vec3{X: 0, Y: 0.5, Z: 0}, scene.Vec3{X: 0, Y: 1, Z: 0})}}
	if n := len(render.NewLightTable(sc, 0, render.LightSamplerTree).Entries); n != 6 {
		t.Fatalf("%d light entries, want the 6 spheres", n)
	}
	opts := render.Options{Width: 32, Height: 24, SPP: 128, MaxDepth: 4}
	matchesCPU(t, d, sc, opts)
}

// TestSortNeverChangesTheImage: the wavefronts (rayquery, rt-sorted) shade
// in the order of each scheme's sort keys or in queue order, and the ser
// path reorders its threads by each scheme (on a device whose reorder mode
// is none, as no-ops); the image is the same to the bit: reordering
// changes the order of work, never the result.
func TestSortNeverChangesTheImage(t *testing.T) {
	sc := loadScene(t, "hairy-cornell")
	for _, path := range []string{vulkan.PathRayQuery, vulkan.PathRTSorted, vulkan.PathSER} {
		t.Run(path, func(t *testing.T) {
			d := vulkan.DeviceFor(t, path)
			opts := render.Options{Width: 24, Height: 18, SPP: 4, MaxDepth: 5, EnvColor: [3]float32{0.3, 0.35, 0.4},
				Reorder: render.Reorder{Mode: render.ReorderNone}}
			unsorted := renderOn(t, onPath(d, path), sc, opts)
			if m, _ := imageMean(unsorted); !(m > 0) {
				t.Fatalf("image mean %v: the test checks nothing", m)
			}
			for _, scheme := range []string{"shader", "material", "material:4", "coherence:16"} {
				r, err := render.ParseReorder(scheme)
				if err != nil {
					t.Fatal(err)
				}
				opts.Reorder = r
				sorted := renderOn(t, onPath(d, path), sc, opts)
				sb, ub := sorted.Floats(render.LayerBeauty), unsorted.Floats(render.LayerBeauty)
				for i := range sb {
					if sb[i] != ub[i] {
						t.Fatalf("%s, beauty[%d]: reordered %v, in launch order %v", scheme, i, sb[i], ub[i])
					}
				}
			}
		})
	}
}

// TestWavefrontVariantsNeverChangeTheImage: the wavefronts as the device
// runs them (rt-sorted launched over a bounce's live paths only, by
// vkCmdTraceRaysIndirectKHR; the sort's counts and scatter a subgroup's
// key at a time) and as SERTRACE_WAVEFRONT=plain runs them (launches over
// every path slot, an atomic a path) make the same image to the bit.
func TestWavefrontVariantsNeverChangeTheImage(t *testing.T) {
	sc := loadScene(t, "hairy-cornell")
	for _, path := range []string{vulkan.PathRayQuery, vulkan.PathRTSorted} {
		t.Run(path, func(t *testing.T) {
			d := vulkan.DeviceFor(t, path)
			indirect, subgroup := path == vulkan.PathRTSorted && d.TraceRaysIndirect, slices.Contains(d.SubgroupSort, path)
			if !indirect && !subgroup {
				t.Skipf("%s runs %s one way only (no indirect trace launches, no subgroup sort)", d.Name, path)
			}
			t.Logf("%s: indirect launches %v, subgroup sort %v", path, indirect, subgroup)
			r, err := render.ParseReorder("material")
			if err != nil {
				t.Fatal(err)
			}
			opts := render.Options{Width: 24, Height: 18, SPP: 4, MaxDepth: 5, EnvColor: [3]float32{0.3, 0.35, 0.4}, Reorder: r}
			made := renderOn(t, onPath(d, path), sc, opts)
			if m, _ := imageMean(made); !(m > 0) {
				t.Fatalf("image mean %v: the test checks nothing", m)
			}
			t.Setenv("SERTRACE_WAVEFRONT", "plain")
			plain := renderOn(t, onPath(d, path), sc, opts)
			mb, pb := made.Floats(render.LayerBeauty), plain.Floats(render.LayerBeauty)
			for i := range mb {
				if mb[i] != pb[i] {
					t.Fatalf("beauty[%d]: %v, plain %v", i, mb[i], pb[i])
				}
			}
		})
	}
}

// TestEdgeScenes: scenes with nothing to hit, empty sets and collapsed
// instances render (the environment) on every path, without a validation
// message.
func TestEdgeScenes(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	cam := scene.Camera{Name: "c", YFov: 0.8, Transform: scene.LookAt(scene.Vec3{X: 0, Y: 0, Z: 5}, scene.Vec3{}, scene.Vec3{X: 0, Y: 1, Z: 0})}
	mat := scene.DefaultMaterial()
	collapsed := scene.Identity
	collapsed[0], collapsed[5], collapsed[10] = 0, 0, 0
	cases := map[string]*scene.Scene{
		"no instances": {},
		"empty sphere set": {SphereSets: []scene.SphereSet{{}},
			Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Spheres}, Transform: scene.Identity}}},
		"empty curve set": {CurveSets: []scene.CurveSet{{}},
			Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.SweptSpheres}, Transform: scene.Identity}}},
		"collapsed instance": {SphereSets: []scene.SphereSet{{Centers: []scene.Vec3{{X: 0, Y: 0, Z: 0}}, Radii: []float32{1}}},
			Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Spheres}, Transform: collapsed}}},
	}
	opts := render.Options{Width: 8, Height: 8, SPP: 2, MaxDepth: 3, EnvColor: [3]float32{0.5, 0.5, 0.5}}
	for name, sc := range cases {
		sc.Cameras = []scene.Camera{cam}
		sc.Materials = []scene.Material{mat}
		for _, path := range gpuPaths(t, d) {
			film := renderOn(t, onPath(d, path), sc, opts)
			pix, _ := film.Resolve(render.AOVBeauty)
			for i, v := range pix {
				if v != 0.5 {
					t.Errorf("%s, path %s: pixel %d channel %d is %v, want the environment's 0.5", name, path, i/3, i%3, v)
					break
				}
			}
		}
	}
}

// testEnvMap is a small HDR sky: a gradient with a bright sun, decoded from
// flat RGBE like any .hdr file, turned by 30° and scaled by 1.5.
func testEnvMap(t *testing.T) *render.EnvMap {
	const w, h = 32, 16
	var b bytes.Buffer
	fmt.Fprintf(&b, "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n", h, w)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, bl := 0.2+0.6*float64(h-y)/h, 0.3+0.5*float64(h-y)/h, 0.6
			if x >= 20 && x < 22 && y >= 4 && y < 6 {
				r, g, bl = 40, 36, 30 // the sun
			}
			m := max(r, g, bl)
			frac, exp := math.Frexp(m)
			s := frac * 256 / m
			b.Write([]byte{byte(r * s), byte(g * s), byte(bl * s), byte(exp + 128)})
		}
	}
	env, err := render.DecodeHDR(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	env.Rotation, env.Intensity = math.Pi/6, 1.5
	return env
}

// TestEnvironmentMapMatchesCPU: an importance-sampled HDR environment (with
// rotation and intensity) lights the feature scene the same on both
// backends, seen directly, through glass and by next-event estimation.
func TestEnvironmentMapMatchesCPU(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	sc := featureScene()
	sc.Lights = nil
	matchesCPU(t, d, sc, render.Options{Width: 32, Height: 24, SPP: 64, MaxDepth: 6, EnvMap: testEnvMap(t)})
}

// TestShaderClockCost: asked for a GPU cost, the pipeline paths time each
// pixel with the shader clock where the device has one (the film says so)
// and count rays where it has not; the image is the same either way.
func TestShaderClockCost(t *testing.T) {
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	sc := loadScene(t, "cornell")
	opts := render.Options{Width: 16, Height: 12, SPP: 2, MaxDepth: 3}
	plain := renderOn(t, onPath(d, vulkan.PathRT), sc, opts)
	opts.GPUCost = true
	timed := renderOn(t, onPath(d, vulkan.PathRT), sc, opts)
	want := ""
	if d.ShaderClock {
		want = "clock ticks"
	}
	if timed.CostUnit != want || plain.CostUnit != "" {
		t.Fatalf("cost units %q and %q, want %q and \"\"", timed.CostUnit, plain.CostUnit, want)
	}
	for i, c := range timed.Floats(render.LayerCost) {
		if !(c > 0) {
			t.Fatalf("pixel %d: cost %v", i, c)
		}
	}
	pb, tb := plain.Floats(render.LayerBeauty), timed.Floats(render.LayerBeauty)
	for i := range pb {
		if pb[i] != tb[i] {
			t.Fatalf("the clock changed the image at %d", i)
		}
	}
}

// TestLargeImageOnRayQuery: an image of more pixels than 65535 work groups
// of 64 hold (the least limit a device may have) renders on the ray-query
// path, its dispatches laid out in 2D, without a validation message: an
// empty scene, so only the dispatch sizes cost anything.
func TestLargeImageOnRayQuery(t *testing.T) {
	longtest.Skip(t)
	d := vulkan.DeviceFor(t, vulkan.PathRayQuery)
	sc := &scene.Scene{Materials: []scene.Material{scene.DefaultMaterial()},
		Cameras: []scene.Camera{{Name: "c", YFov: 0.8, Transform: scene.Identity}}}
	opts := render.Options{Width: 2100, Height: 2100, SPP: 1, MaxDepth: 1, EnvColor: [3]float32{0.25, 0.5, 1}}
	film := renderOn(t, onPath(d, vulkan.PathRayQuery), sc, opts)
	pix, _ := film.Resolve(render.AOVBeauty)
	for i, v := range pix { // every pixel: a group dropped or run twice would show
		if want := opts.EnvColor[i%3]; v != want {
			t.Fatalf("value %d: %v, want the environment's %v", i, v, want)
		}
	}
}

// TestFilmBufferHoldsTheLayersAsked: the accumulation buffer holds the
// layers the film does (Options.Layers; render's TestFilmLayoutHoldsWhatIsAsked sizes it): a
// film of the beauty alone gets the same beauty bit for bit as one of
// every layer, and a film with the guides the same guides; a session
// prepared for fewer layers than its film holds refuses the pass.
func TestFilmBufferHoldsTheLayersAsked(t *testing.T) {
	sc := loadScene(t, "hairy-cornell")
	d := vulkan.DeviceFor(t, vulkan.PathRT)
	for _, path := range gpuPaths(t, d) {
		t.Run(path, func(t *testing.T) {
			opts := render.Options{Width: 40, Height: 30, SPP: 2, MaxDepth: 5, EnvColor: [3]float32{0.3, 0.35, 0.4}}
			films := map[render.Layers]*render.Film{}
			for _, layers := range []render.Layers{render.AllLayers, render.BaseLayers, render.BaseLayers | render.GuideLayers} {
				film := render.NewFilmOf(opts.Width, opts.Height, layers)
				if _, err := render.Render(context.Background(), onPath(d, path), sc, opts, film, nil); err != nil {
					t.Fatal(err)
				}
				films[layers] = film
			}
			all := films[render.AllLayers]
			if m, _ := imageMean(all); !(m > 0) {
				t.Fatalf("image mean %v: the test checks nothing", m)
			}
			for layers, film := range films {
				for l := range render.NumLayers {
					if film.Has(l) && render.FilmLayers[l].Exact && !film.Sums[l].Equal(&all.Sums[l]) {
						t.Errorf("a film of %s: its %s differs from a film of every layer's", layers.Names(), render.FilmLayers[l].Name)
					}
				}
			}
			o := opts
			o.Layers = render.BaseLayers
			s, err := onPath(d, path).Prepare(context.Background(), sc, o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Pass(context.Background(), 0, 1, render.NewFilm(opts.Width, opts.Height), nil); err == nil || !strings.Contains(err.Error(), "albedo") {
				t.Errorf("a session prepared for the beauty alone, given a film of every layer: %v", err)
			}
		})
	}
}
