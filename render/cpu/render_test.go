package cpu

import (
	"context"
	"errors"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sertrace/internal/sharedscenes"
	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/scene"
)

// furnaceScene is one unit sphere in front of a camera, under a uniform
// environment of radiance 1.
func furnaceScene(mat scene.Material) *scene.Scene {
	sc := &scene.Scene{
		SphereSets: []scene.SphereSet{{Centers: []scene.Vec3{{X: 0, Y: 0, Z: 0}}, Radii: []float32{1},
			Bounds: scene.Bounds{Min: scene.Vec3{X: -1, Y: -1, Z: -1}, Max: scene.Vec3{X: 1, Y: 1, Z: 1}}}},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Spheres}, Transform: scene.Identity}},
		Materials: []scene.Material{mat},
		Bounds:    scene.Bounds{Min: scene.Vec3{X: -1, Y: -1, Z: -1}, Max: scene.Vec3{X: 1, Y: 1, Z: 1}},
	}
	sc.Cameras = []scene.Camera{{Name: "front", YFov: 0.5, Transform: scene.LookAt(scene.Vec3{X: 0, Y: 0, Z: 5}, scene.Vec3{}, scene.Vec3{X: 0, Y: 1, Z: 0})}}
	return sc
}

func renderFilm(t testing.TB, sc *scene.Scene, opts render.Options) *render.Film {
	t.Helper()
	film := render.NewFilm(opts.Width, opts.Height)
	if _, err := render.Render(context.Background(), (Backend{}), sc, opts, film, nil); err != nil {
		t.Fatal(err)
	}
	return film
}

func lambert(base float32) scene.Material {
	m := scene.DefaultMaterial()
	m.BaseColor = scene.Vec4{X: base, Y: base, Z: base, W: 1}
	m.Metallic, m.Specular = 0, 0
	return m
}

// onSphere reports whether pixel (x, y)'s whole footprint sees the sphere,
// and the cosine between the normal there and the view.
func onSphere(sc *scene.Scene, opts render.Options, x, y int) (float32, bool) {
	cam := render.NewCameraRays(sc.Cameras[0], opts.Width, opts.Height)
	var mu float32
	for _, c := range [][2]float32{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0.5, 0.5}} {
		o, d := cam.Ray(float32(x)+c[0], float32(y)+c[1])
		t, ok := intersectSphere(o, d, scene.Vec3{}, 0.98, 0, 100, false)
		if !ok {
			return 0, false
		}
		if c == [2]float32{0.5, 0.5} {
			t, _ = intersectSphere(o, d, scene.Vec3{}, 1, 0, 100, false)
			mu = o.Add(d.Scale(t)).Normalize().Dot(d.Scale(-1))
		}
	}
	return mu, true
}

// TestWhiteFurnace: under a uniform environment of 1, a white Lambertian
// sphere is invisible (1.0 everywhere), one of albedo 0.5 renders 0.5, and
// a rough dielectric over grey and a rough grey metal return exactly the
// model's directional albedo, nothing more and nothing less.
func TestWhiteFurnace(t *testing.T) {
	opts := render.Options{Width: 48, Height: 48, SPP: 256, MaxDepth: 16, EnvColor: [3]float32{1, 1, 1}}
	coated := lambert(0.5)
	coated.Specular, coated.Roughness = 1, 0.6
	metal := scene.DefaultMaterial()
	metal.Roughness, metal.BaseColor = 0.6, scene.Vec4{X: 0.5, Y: 0.5, Z: 0.5, W: 1}
	cases := []struct {
		name string
		mat  scene.Material
		bsdf kernel.BSDF // whose directional albedo is the answer, when want is nil
		want func(mu float32) float32
	}{
		{"white Lambertian", lambert(1), kernel.BSDF{}, func(float32) float32 { return 1 }},
		{"grey Lambertian", lambert(0.5), kernel.BSDF{}, func(float32) float32 { return 0.5 }},
		{"rough dielectric on grey", coated, kernel.NewBSDF(scene.Vec3{X: 0.5, Y: 0.5, Z: 0.5}, 0, 0.6, 1.5, 1, scene.Vec3{X: 1, Y: 1, Z: 1}), nil},
		{"rough grey metal", metal, kernel.NewBSDF(scene.Vec3{X: 0.5, Y: 0.5, Z: 0.5}, 1, 0.6, 1.5, 1, scene.Vec3{X: 1, Y: 1, Z: 1}), nil},
	}
	rng := rand.New(rand.NewPCG(31, 32))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := furnaceScene(c.mat)
			film := renderFilm(t, sc, opts)
			pix, _ := film.Resolve(render.AOVBeauty)
			var sum, want float64
			n := 0
			for y := 0; y < opts.Height; y++ {
				for x := 0; x < opts.Width; x++ {
					mu, ok := onSphere(sc, opts, x, y)
					if !ok {
						continue // the background and the silhouette
					}
					v := pix[3*(y*opts.Width+x)]
					var w float32
					if c.want != nil {
						w = c.want(mu)
					} else {
						w = sampledAlbedo(&c.bsdf, scene.Vec3{X: kernel.Sqrt32(1 - mu*mu), Y: 0, Z: mu}, 5000, rng)
					}
					sum += float64(v)
					want += float64(w)
					n++
					if math.Abs(float64(v-w)) > 0.15 { // about 5 standard errors at 256 samples; the mean is the precise check
						t.Errorf("pixel (%d, %d), cos %.2f: %v, want %v", x, y, mu, v, w)
					}
				}
			}
			if n < 500 {
				t.Fatalf("only %d pixels on the sphere", n)
			}
			if mean, wmean := sum/float64(n), want/float64(n); math.Abs(mean-wmean) > 0.004 {
				t.Errorf("sphere mean %.4f, want %.4f", mean, wmean)
			}
			if c.name == "rough grey metal" && !(want/float64(n) > 0.3 && want/float64(n) < 0.8) {
				t.Errorf("the grey metal's albedo %.3f: its Fresnel of 0.5 at every bounce should keep it well below 1 and above 0: the test checks nothing", want/float64(n))
			}
		})
	}
}

// TestSameImageWithAnyThreadCount: random numbers are a function of (pixel,
// sample, bounce, dimension), and pixels sum their samples in a fixed order, so one
// thread and two give the same bits; reordering changes the order of work,
// never the result.
func TestSameImageWithAnyThreadCount(t *testing.T) {
	sc, err := scene.Load(filepath.Join("..", "..", "scenes", "hairy-cornell.glb"))
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 40, Height: 30, SPP: 3, MaxDepth: 6, Seed: 7}
	opts.Threads = 1
	a := renderFilm(t, sc, opts)
	opts.Threads = 2
	b := renderFilm(t, sc, opts)
	ab, bb := a.Floats(render.LayerBeauty), b.Floats(render.LayerBeauty)
	for i := range ab {
		if ab[i] != bb[i] {
			t.Fatalf("pixel value %d differs: %v with one thread, %v with two", i, ab[i], bb[i])
		}
	}
	var sum float64
	for _, v := range ab {
		sum += float64(v)
	}
	if sum == 0 {
		t.Fatal("the image is black")
	}
	opts.Seed = 8
	if c := renderFilm(t, sc, opts).Floats(render.LayerBeauty); c[len(c)/2] == ab[len(ab)/2] && c[3] == ab[3] {
		t.Error("another seed gives the same image")
	}
}

// TestSharedScenesRender: every real scene renders a finite, non-black
// image (they have no lights of their own, so an environment lights them);
// one that requires an extension sertrace lacks is refused, as glTF says.
func TestSharedScenesRender(t *testing.T) {
	dir := sharedscenes.Dir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.gl*"))
	if len(files) == 0 {
		t.Fatalf("%s holds no scene", dir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			sc, err := scene.Load(f)
			if unsupported := (*scene.UnsupportedExtensionError)(nil); errors.As(err, &unsupported) {
				t.Skipf("refused, as glTF says a viewer lacking a required extension must: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			opts := render.Options{Width: 32, Height: 24, SPP: 2, MaxDepth: 4, EnvColor: [3]float32{0.5, 0.5, 0.5}}
			pix, _ := renderFilm(t, sc, opts).Resolve(render.AOVBeauty)
			checkImage(t, pix)
		})
	}
}

func checkImage(t *testing.T, pix []float32) {
	t.Helper()
	var sum float64
	for i, v := range pix {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || v < 0 {
			t.Fatalf("value %d is %v", i, v)
		}
		sum += float64(v)
	}
	if sum/float64(len(pix)) < 1e-3 {
		t.Fatalf("the image is black (mean %v)", sum/float64(len(pix)))
	}
}

// TestGeneratedScenesRender: the sample scenes with hair and particles
// render finite, lit images in which the hair and the particles are seen.
func TestGeneratedScenesRender(t *testing.T) {
	for _, name := range []string{"hair", "particles", "hairy-cornell", "cornell"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "..", "scenes", name+".glb")
			if _, err := os.Stat(path); err != nil {
				t.Fatal(err)
			}
			sc, err := scene.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			opts := render.Options{Width: 48, Height: 36, SPP: 2, MaxDepth: 4}
			film := render.NewFilm(opts.Width, opts.Height)
			stats, err := render.Render(context.Background(), (Backend{}), sc, opts, film, nil)
			if err != nil {
				t.Fatal(err)
			}
			pix, _ := film.Resolve(render.AOVBeauty)
			checkImage(t, pix)
			if stats.Rays.Shadow == 0 || len(stats.Bounces) < 2 {
				t.Errorf("stats %+v", stats)
			}
		})
	}
}

// TestTileAllocatesNothing: once a worker's buffers have grown, tracing and
// shading a tile allocate nothing, whatever the path count.
func TestTileAllocatesNothing(t *testing.T) {
	sc, err := scene.Load(filepath.Join("..", "..", "scenes", "hairy-cornell.glb"))
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 32, Height: 32, SPP: 1, MaxDepth: 8, EnvColor: [3]float32{0.2, 0.2, 0.2}}
	for _, tracer := range []string{"bvh", "embree"} {
		acc, _, _, err := NewAccel(sc, func(inst, prim int, u, v, _ float32) bool { return true }, tracer)
		if err != nil {
			t.Logf("%s: %v", tracer, err)
			continue
		}
		w := &worker{r: newRenderer(sc, acc, opts)}
		film := render.NewFilm(32, 32)
		pass, one := directOut(film), directOut(film)
		one.buffers = newPassBuffers(film, true)
		tl := tile{0, 0, 16, 16}
		w.renderTile(tl, 0, 4, pass) // grow the buffers
		if n := testing.AllocsPerRun(5, func() { w.renderTile(tl, 4, 4, pass) }); n > 0 {
			t.Errorf("%s: a tile of 1024 paths allocates %v times", tracer, n)
		}
		if n := testing.AllocsPerRun(5, func() { w.renderTile(tl, 8, 1, one) }); n > 0 {
			t.Errorf("%s: a tile of 256 paths of one sample a pixel allocates %v times", tracer, n)
		}
		acc.Release()
	}
}

func loadSample(t *testing.T, name string) *scene.Scene {
	t.Helper()
	sc, err := scene.Load(filepath.Join("..", "..", "scenes", name+".glb"))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func renderStats(t *testing.T, sc *scene.Scene, opts render.Options) *render.Stats {
	t.Helper()
	stats, err := render.Render(context.Background(), (Backend{}), sc, opts, render.NewFilm(opts.Width, opts.Height), nil)
	if err != nil {
		t.Fatal(err)
	}
	return stats
}

// TestStatisticAOVs: a pixel that sees only the constant environment has no
// variance, one ray, no bounce; pixels on the sphere vary and cost more;
// SIMT efficiency stays within (0, 1]; each is written as a heatmap PNG with
// its legend under the image.
func TestStatisticAOVs(t *testing.T) {
	sc := furnaceScene(lambert(0.5))
	opts := render.Options{Width: 24, Height: 24, SPP: 8, MaxDepth: 4, EnvColor: [3]float32{1, 1, 1}}
	film := renderFilm(t, sc, opts)
	variance, _ := film.Resolve(render.AOVVariance)
	cost, _ := film.Resolve(render.AOVCost)
	length, _ := film.Resolve(render.AOVPathLength)
	simt, _ := film.Resolve(render.AOVSIMT)
	corner, centre := 0, 12*24+12
	if variance[corner] != 0 || cost[corner] != 1 || length[corner] != 0 {
		t.Errorf("background pixel: variance %v, cost %v, length %v", variance[corner], cost[corner], length[corner])
	}
	if !(variance[centre] > 0) || !(cost[centre] > 2) || length[centre] != 1 { // camera, a shadow ray half the time, the bounce that escapes
		t.Errorf("sphere pixel: variance %v, cost %v, length %v", variance[centre], cost[centre], length[centre])
	}
	for i, v := range simt {
		if !(v > 0 && v <= 1) {
			t.Fatalf("SIMT efficiency %v at pixel %d", v, i)
		}
	}
	p := filepath.Join(t.TempDir(), "cost.png")
	if err := render.WriteAOV(p, film, render.AOVCost, render.Display{}); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(p)
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != 24 || cfg.Height != 24+30 {
		t.Errorf("heatmap %dx%d, %v", cfg.Width, cfg.Height, err)
	}
}

// TestReorderingNeverChangesTheImage: no reordering, by shader, and by
// material hint give the same bits; only the work's order (and the SIMT
// figures) change.
func TestReorderingNeverChangesTheImage(t *testing.T) {
	sc := loadSample(t, "hairy-cornell")
	var ref []float64
	for _, mode := range []render.ReorderMode{render.ReorderNone, render.ReorderShader, render.ReorderMaterial, render.ReorderCoherence} {
		film := renderFilm(t, sc, render.Options{Width: 32, Height: 24, SPP: 2, MaxDepth: 5, Reorder: render.Reorder{Mode: mode}})
		if ref == nil {
			ref = film.Floats(render.LayerBeauty)
			continue
		}
		for i, v := range film.Floats(render.LayerBeauty) {
			if v != ref[i] {
				t.Fatalf("reorder %q changes value %d: %v vs %v", mode, i, v, ref[i])
			}
		}
	}
}

// TestFurnaceSplitsLight: under a uniform environment of 1, what a convex
// sphere reflects is each lobe's directional albedo, so the denoiser's
// diffuse and specular buffers, each over its own albedo, are 1 on the
// sphere; they add up to the beauty there, and hold nothing where the
// camera sees the environment.
func TestFurnaceSplitsLight(t *testing.T) {
	opts := render.Options{Width: 48, Height: 48, SPP: 256, MaxDepth: 16, EnvColor: [3]float32{1, 1, 1}}
	coated := lambert(0.5)
	coated.Specular, coated.Roughness = 1, 0.6
	metal := scene.DefaultMaterial()
	metal.BaseColor = scene.Vec4{X: 0.9, Y: 0.6, Z: 0.3, W: 1}
	metal.Roughness = 0.5
	for _, c := range []struct {
		name              string
		mat               scene.Material
		diffuse, specular bool
	}{{"grey Lambertian", lambert(0.5), true, false}, {"rough dielectric on grey", coated, true, true}, {"rough gold-ish metal", metal, false, true}} {
		t.Run(c.name, func(t *testing.T) {
			sc := furnaceScene(c.mat)
			film := renderFilm(t, sc, opts)
			f := struct{ Beauty, Diffuse, Specular, DiffuseAlbedo, SpecularAlbedo []float64 }{film.Floats(render.LayerBeauty),
				film.Floats(render.LayerDiffuse), film.Floats(render.LayerSpecular), film.Floats(render.LayerDiffuseAlbedo), film.Floats(render.LayerSpecularAlbedo)}
			var light, albedo [2]float64
			for y := 0; y < opts.Height; y++ {
				for x := 0; x < opts.Width; x++ {
					p := y*opts.Width + x
					for k := 3 * p; k < 3*p+3; k++ {
						split := f.Diffuse[k] + f.Specular[k]
						if _, ok := onSphere(sc, opts, x, y); ok {
							if math.Abs(split-f.Beauty[k]) > 1e-4*f.Beauty[k] {
								t.Fatalf("pixel (%d, %d): diffuse + specular %.5f, beauty %.5f", x, y, split, f.Beauty[k])
							}
							light[0], light[1] = light[0]+f.Diffuse[k], light[1]+f.Specular[k]
							albedo[0], albedo[1] = albedo[0]+f.DiffuseAlbedo[k], albedo[1]+f.SpecularAlbedo[k]
						}
						if x == 0 && y == 0 && (split != 0 || f.DiffuseAlbedo[k] != 0 || f.SpecularAlbedo[k] != 0) {
							t.Fatalf("the environment's pixel has diffuse + specular %v, albedos %v, %v", split, f.DiffuseAlbedo[k], f.SpecularAlbedo[k])
						}
					}
				}
			}
			for i, name := range []string{"diffuse", "specular"} {
				if has := []bool{c.diffuse, c.specular}[i]; !has {
					if light[i] > 1e-5*(light[0]+light[1]) || albedo[i] != 0 { // rounding of the share aside
						t.Errorf("%s: light %v, albedo %v, want none", name, light[i], albedo[i])
					}
					continue
				}
				if r := light[i] / albedo[i]; math.Abs(r-1) > 0.01 {
					t.Errorf("%s light over its albedo %.4f, want 1", name, r)
				}
			}
		})
	}
}

// TestBlindingLightSumsExactly: a light of radiance 10^12 takes its
// pixels' sums past the low word (2^31) into high words, which the
// workers write at once into the pass buffers (run with -race); one
// thread and two give the same sums, and the image is the one of a light
// of 10^6 (whose sums stay in the low word) times 10^6: light adds
// linearly along the same paths.
func TestBlindingLightSumsExactly(t *testing.T) {
	withLight := func(radiance float32) *scene.Scene {
		sc, err := scene.Load(filepath.Join("..", "..", "scenes", "cornell.glb"))
		if err != nil {
			t.Fatal(err)
		}
		lights := 0
		for i := range sc.Materials {
			if m := &sc.Materials[i]; m.Emissive.X+m.Emissive.Y+m.Emissive.Z > 0 {
				m.Emissive = m.Emissive.Scale(radiance / max(m.Emissive.X, m.Emissive.Y, m.Emissive.Z))
				lights++
			}
		}
		if lights == 0 {
			t.Fatal("the Cornell box has no emissive material")
		}
		return sc
	}
	opts := render.Options{Width: 48, Height: 48, SPP: 5, MaxDepth: 3}
	opts.Threads = 1
	a := renderFilm(t, withLight(1e12), opts)
	opts.Threads = 2
	b := renderFilm(t, withLight(1e12), opts)
	dim := renderFilm(t, withLight(1e6), opts)
	if len(a.Sums[render.LayerBeauty].High) == 0 || len(dim.Sums[render.LayerBeauty].High) > 0 {
		t.Fatalf("high words: %d with the light of 1e12, %d with 1e6; the test needs some and none", len(a.Sums[render.LayerBeauty].High), len(dim.Sums[render.LayerBeauty].High))
	}
	for l := range render.NumLayers {
		x, y := &a.Sums[l], &b.Sums[l]
		if render.FilmLayers[l].Exact && !x.Equal(y) {
			t.Fatalf("%s: one thread and two differ", render.FilmLayers[l].Name)
		}
	}
	bright, _ := a.Resolve(render.AOVBeauty)
	want, _ := dim.Resolve(render.AOVBeauty)
	lit := 0
	for i, v := range bright {
		w := 1e6 * float64(want[i])
		if math.Abs(float64(v)-w) > 1e-5*w+1e-3 {
			t.Fatalf("value %d: %g with the light of 1e12, 1e6 times the 1e6 light's is %g", i, v, w)
		}
		if w > 0 {
			lit++
		}
	}
	if lit < len(bright)/2 {
		t.Errorf("only %d of %d values lit", lit, len(bright))
	}
}

// TestBandsMakeTheSameImage: a render in bands of rows (render.RenderBands)
// takes each pixel's samples as a render in one go does: every band's
// sums, layer by layer, are the whole film's rows bit for bit, the last
// band short of 16 rows included; cancelled, it stops with the band in
// flight marked partial.
func TestBandsMakeTheSameImage(t *testing.T) {
	sc, err := scene.Load(filepath.Join("..", "..", "scenes", "hairy-cornell.glb"))
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 40, Height: 54, SPP: 5, MaxDepth: 6, Seed: 3}
	layers := render.GuideLayers | render.SplitLayers
	whole := render.NewFilmOf(opts.Width, opts.Height, layers)
	if _, err := render.Render(context.Background(), Backend{}, sc, opts, whole, nil); err != nil {
		t.Fatal(err)
	}
	for _, rows := range []int{16, 32} {
		next := 0
		stats, err := render.RenderBands(context.Background(), Backend{}, sc, opts, layers, rows, func(band *render.Film) error {
			if band.Y0 != next || band.Samples != opts.SPP || band.Partial {
				t.Fatalf("band from row %d (%d samples, partial %v) where row %d comes next", band.Y0, band.Samples, band.Partial, next)
			}
			for l := range render.NumLayers {
				got, want := band.Floats(l), whole.Floats(l)
				n := render.FilmLayers[l].Channels * opts.Width
				if want == nil {
					continue
				}
				if !slices.Equal(got, want[band.Y0*n:(band.Y0+band.Height)*n]) {
					t.Fatalf("bands of %d rows: the %s layer of rows %d..%d differs from the whole render's", rows, render.FilmLayers[l].Name, band.Y0, band.Y0+band.Height)
				}
			}
			next += band.Height
			return nil
		}, nil)
		if err != nil || next != opts.Height || stats.SamplesPerPixel != opts.SPP || stats.Partial || !(stats.SamplesPerSec > 0) {
			t.Fatalf("bands of %d rows: %v, %d rows given, stats %+v", rows, err, next, stats)
		}
	}
	// A band its consumer fails ends the render, which is partial: the
	// rows after it were never rendered.
	failed := errors.New("the disk is full")
	stats, err := render.RenderBands(context.Background(), Backend{}, sc, opts, layers, 16, func(band *render.Film) error {
		if band.Y0 > 0 {
			return failed
		}
		return nil
	}, nil)
	if !errors.Is(err, failed) || stats == nil || !stats.Partial || stats.SamplesPerPixel != 0 {
		t.Errorf("a band's consumer failed: %v, stats %+v", err, stats)
	}
	ctx, cancel := context.WithCancel(context.Background())
	bands := 0
	stats, err = render.RenderBands(ctx, Backend{}, sc, opts, layers, 16, func(band *render.Film) error {
		bands++
		cancel() // after the first band: the second stops at its first pass
		return nil
	}, nil)
	if !errors.Is(err, context.Canceled) || bands != 2 || stats == nil || !stats.Partial {
		t.Errorf("cancelled after a band: %v, %d bands given, stats %+v", err, bands, stats)
	}
	if _, err := render.RenderBands(context.Background(), Backend{}, sc, opts, layers, 20, func(*render.Film) error { return nil }, nil); err == nil {
		t.Error("bands of 20 rows, no multiple of the tiles, were rendered")
	}
}

// TestOneSamplePassesMakeTheSameSums: passes of one sample a pixel give
// every layer's sums bit for bit as passes of several samples, straight
// into the film and through whole passes' buffers (which keep each
// sample's float32 values for the film to quantize), the high words of a
// blinding light and the ray and bounce counts included (not the SIMT
// efficiency, which depends on the waves a pass makes), in a render and
// in bands.
func TestOneSamplePassesMakeTheSameSums(t *testing.T) {
	sc, err := scene.Load(filepath.Join("..", "..", "scenes", "hairy-cornell.glb"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range sc.Materials {
		if m := &sc.Materials[i]; m.Emissive.X+m.Emissive.Y+m.Emissive.Z > 0 {
			m.Emissive = m.Emissive.Scale(1e12) // high words
		}
	}
	opts := render.Options{Width: 40, Height: 38, SPP: 6, MaxDepth: 6, Seed: 5}
	several := renderFilm(t, sc, opts)
	if passSamples(opts.Width*opts.Height) < 4 {
		t.Fatal("the test needs passes of several samples at its size")
	}
	defer func(f func(int) int) { passSamples = f }(passSamples)
	passSamples = func(int) int { return 1 }
	one := renderFilm(t, sc, opts)
	whole := opts
	whole.WholePasses = true // through the pass buffers
	wholeOne := renderFilm(t, sc, whole)
	rows := 0
	if _, err := render.RenderBands(context.Background(), Backend{}, sc, opts, render.AllLayers, 16, func(band *render.Film) error {
		for l := range render.NumLayers {
			if l == render.LayerSIMT {
				continue // the waves' efficiency depends on the passes' sizes
			}
			n := render.FilmLayers[l].Channels * opts.Width
			if got, want := band.Floats(l), several.Floats(l); !slices.Equal(got, want[band.Y0*n:(band.Y0+band.Height)*n]) {
				t.Errorf("the %s layer of the band of rows %d..%d differs", render.FilmLayers[l].Name, band.Y0, band.Y0+band.Height)
			}
		}
		rows += band.Height
		return nil
	}, nil); err != nil || rows != opts.Height {
		t.Fatalf("in bands: %v, %d rows", err, rows)
	}
	high := 0
	for l := range render.NumLayers {
		if l == render.LayerSIMT {
			continue
		}
		x := &several.Sums[l]
		high += len(x.High)
		for name, y := range map[string]*render.LayerSums{"": &one.Sums[l], " (whole passes)": &wholeOne.Sums[l]} {
			if !x.Equal(y) {
				t.Errorf("%s: passes of one sample%s and of several differ", render.FilmLayers[l].Name, name)
			}
		}
	}
	if high == 0 {
		t.Error("no high words: the light is not blinding enough for the test")
	}
}

// sampledAlbedo estimates b's directional albedo seen from wo (red
// channel) from n of its samples (kernel's tests check it against uniform
// sampling).
func sampledAlbedo(b *kernel.BSDF, wo scene.Vec3, n int, rng *rand.Rand) float32 {
	var sum float64
	for range n {
		if _, w, _, ok := b.Sample(wo, rng.Float32(), rng.Float32(), rng.Float32()); ok {
			sum += float64(w.X)
		}
	}
	return float32(sum / float64(n))
}
