package cpu

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"sertrace/render"
	"sertrace/render/cpu/embree"
	"sertrace/render/kernel"
	"sertrace/scene"
)

func embreeOrSkip(t testing.TB) {
	t.Helper()
	if _, err := embree.Open(); err != nil {
		t.Skip(err)
	}
}

// compareTracers traces rays with Embree and with the BVH: random rays into
// the scene, and from the hits they find, continuation rays as a path
// tracer makes (from the surface, offset off it, in random directions).
// It returns how many rays were traced, how many hit, how many found two
// coplanar surfaces at the same distance (either may be the closest), how
// many differ next to a joint of chained swept spheres, and the other
// disagreements, which it describes.
func compareTracers(t *testing.T, sc *scene.Scene, anyHit AnyHit, rng *rand.Rand, n int) (rays, hits, ties, joints, differ int) {
	t.Helper()
	bvh := BuildAccel(sc, anyHit)
	emb, chosen, _, err := NewAccel(sc, anyHit, "embree")
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Release()
	t.Logf("%s against bvh", chosen)
	b := scene.EmptyBounds()
	for _, in := range sc.Instances {
		b.Union(sc.GeometryBounds(in.Geometry).Transform(in.Transform))
	}
	size := b.Max.Sub(b.Min)
	// How far from a strand a continuation ray may meet a joint that the
	// two tracers draw differently: 16 of the widest strand's radii.
	jointReach := float32(0)
	for _, in := range sc.Instances {
		if in.Geometry.Kind == scene.SweptSpheres {
			m := render.AffineOf(in.Transform)
			scale, ok := m.UniformScale()
			if !ok {
				scale = max(m.Vector(scene.Vec3{X: 1, Y: 0, Z: 0}).Length(), m.Vector(scene.Vec3{X: 0, Y: 1, Z: 0}).Length(), m.Vector(scene.Vec3{X: 0, Y: 0, Z: 1}).Length())
			}
			for _, r := range sc.CurveSets[in.Geometry.Index].Radii {
				jointReach = max(jointReach, 16*r*scale)
			}
		}
	}
	dir := func() scene.Vec3 {
		for {
			d := scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1}
			if l := d.Dot(d); l > 0.01 && l <= 1 {
				return d.Normalize()
			}
		}
	}
	batch := make([]Ray, 0, n)
	for len(batch) < n {
		o := scene.Vec3{X: b.Min.X + rng.Float32()*size.X, Y: b.Min.Y + rng.Float32()*size.Y, Z: b.Min.Z + rng.Float32()*size.Z}
		o = o.Add(size.Scale(0.5).Mul3(dir()))
		batch = append(batch, Ray{Origin: o, Dir: dir(), TMax: float32(math.Inf(1))})
	}
	for round := 0; round < 3 && len(batch) > 0; round++ {
		want := make([]Hit, len(batch))
		wantOK := make([]bool, len(batch))
		got := make([]Hit, len(batch))
		gotOK := make([]bool, len(batch))
		bvh.IntersectAll(batch, want, wantOK, false)
		emb.IntersectAll(batch, got, gotOK, false)
		// Embree's packets (camera rays go so) find the same hits, or
		// another of coplanar surfaces at the same distance.
		packet := make([]Hit, len(batch))
		packetOK := make([]bool, len(batch))
		emb.IntersectAll(batch, packet, packetOK, true)
		for i := range batch {
			g, p := got[i], packet[i]
			tie := gotOK[i] && packetOK[i] && (g.Instance != p.Instance || g.Prim != p.Prim) && math.Abs(float64(g.T-p.T)) <= 1e-6*max(1, float64(g.T))
			if gotOK[i] != packetOK[i] || gotOK[i] && !tie && (g.Instance != p.Instance || g.Prim != p.Prim || g.Kind != p.Kind ||
				math.Abs(float64(g.T-p.T)) > 1e-5*max(1, float64(g.T)) || math.Abs(float64(g.U-p.U)) > 1e-4 || math.Abs(float64(g.V-p.V)) > 1e-4) {
				t.Errorf("ray %+v: one by one %v %+v, in a packet %v %+v", batch[i], gotOK[i], g, packetOK[i], p)
			}
		}
		occ := make([]bool, len(batch))
		emb.OccludedAll(batch, occ)
		var next []Ray
		for i := range batch {
			rays++
			w, g := want[i], got[i]
			same := wantOK[i] == gotOK[i] && (!wantOK[i] || w.Instance == g.Instance && w.Prim == g.Prim && w.Kind == g.Kind &&
				math.Abs(float64(w.T-g.T)) <= 1e-4*max(1, float64(w.T)) && math.Abs(float64(w.U-g.U)) <= 2e-3 && math.Abs(float64(w.V-g.V)) <= 2e-3)
			if occ[i] != gotOK[i] {
				t.Errorf("ray %+v: Embree's occlusion %v but closest hit %v", batch[i], occ[i], gotOK[i])
			}
			// Coplanar surfaces of two instances (a box standing on the
			// floor of hairy-cornell): either is the closest hit.
			tie := wantOK[i] && gotOK[i] && (w.Instance != g.Instance || w.Prim != g.Prim) &&
				math.Abs(float64(w.T-g.T)) <= 1e-6*max(1, float64(w.T))
			// A ray that leaves a strand at a bend may enter the next
			// segment within a radius: Embree and the BVH split the
			// joint's region between chained segments differently (Embree
			// cuts the cones at the joint), and rarely disagree there.
			nearJoint := func(h Hit, ok bool) bool {
				return ok && h.Kind == HitLinearSweptSphere && (h.U < 0.05 || h.U > 0.95) && h.T < jointReach
			}
			if tie {
				ties++
			} else if !same && (nearJoint(w, wantOK[i]) || nearJoint(g, gotOK[i])) {
				joints++
			} else if !same {
				differ++
				if differ <= 5 {
					t.Logf("ray %+v:\n  bvh    %v %+v\n  embree %v %+v", batch[i], wantOK[i], w, gotOK[i], g)
				}
			}
			if wantOK[i] {
				hits++
				var s kernel.Surface
				bvh.shadeAt(&s, &w, &batch[i])
				d := dir()
				next = append(next, Ray{Origin: s.OriginToward(d), Dir: d, TMax: float32(math.Inf(1))})
			}
		}
		batch = next
	}
	return rays, hits, ties, joints, differ
}

// Embree's hits are the BVH's (instance, primitive, kind, t, u, v) for
// every geometry kind: triangles, spheres, glass spheres that keep exit
// hits, chained tapering swept spheres, instanced under rotations and
// non-uniform scales.
func TestEmbreeMatchesBVH(t *testing.T) {
	embreeOrSkip(t)
	// Alpha masks: every other triangle of the masked instances is cut
	// along u = 0.3 (the any-hit test sees instance, primitive, u and v).
	masked := func() (*scene.Scene, error) {
		sc := randomScene(rand.New(rand.NewPCG(5, 6)))
		mat := scene.DefaultMaterial()
		mat.AlphaMode = scene.AlphaMask
		sc.Materials = append(sc.Materials, mat)
		for i := range sc.Instances {
			if sc.Instances[i].Geometry.Kind == scene.Triangles && i%2 == 0 {
				sc.Instances[i].Material = 1
			}
		}
		return sc, nil
	}
	cut := func(inst, prim int, u, v, _ float32) bool { return prim%2 == 0 || u > 0.3 }
	// Each geometry placed once (so in Embree's top level, in world space),
	// the triangles and the spheres mirrored.
	once := func() (*scene.Scene, error) {
		sc := randomScene(rand.New(rand.NewPCG(9, 10)))
		sc.Instances = sc.Instances[:3]
		for i := range sc.Instances {
			if k := sc.Instances[i].Geometry.Kind; k != scene.SweptSpheres {
				sc.Instances[i].Transform = sc.Instances[i].Transform.Mul(scene.TRS([3]float64{}, [4]float64{0, 0, 0, 1}, [3]float64{-1, 1, 1}))
			}
		}
		return sc, nil
	}
	for _, c := range []struct {
		name   string
		sc     func() (*scene.Scene, error)
		anyHit AnyHit
	}{
		{"random instances", func() (*scene.Scene, error) { return randomScene(rand.New(rand.NewPCG(3, 4))), nil }, nil},
		{"alpha-masked triangles", masked, cut},
		{"placed once, mirrored", once, nil},
		{"hair", func() (*scene.Scene, error) { return scene.Generate("hair") }, nil},
		{"particles", func() (*scene.Scene, error) { return scene.Generate("particles") }, nil},
		{"hairy-cornell", func() (*scene.Scene, error) { return scene.Generate("hairy-cornell") }, nil},
		{"closed loops", func() (*scene.Scene, error) { return loops(rand.New(rand.NewPCG(11, 12))), nil }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := c.sc()
			if err != nil {
				t.Fatal(err)
			}
			rays, hits, ties, joints, differ := compareTracers(t, sc, c.anyHit, rand.New(rand.NewPCG(1, 2)), 4000)
			t.Logf("%d rays, %d hits, %d ties between coplanar surfaces, %d at strands' joints, %d differ", rays, hits, ties, joints, differ)
			if joints > rays/1000 {
				t.Errorf("%d of %d rays differ at strands' joints: more than 0.1%%", joints, rays)
			}
			if hits < 300 {
				t.Errorf("only %d of %d rays hit: the test checks too little", hits, rays)
			}
			if differ > 0 {
				t.Errorf("%d of %d rays differ", differ, rays)
			}
		})
	}
}

// The same render with either tracer: the same random streams and the same
// hits give images equal within their noise (not bit for bit: the two
// compute a hit's distance and barycentrics with different rounding, and
// the paths then part by ulps).
func TestEmbreeImageMatchesBVH(t *testing.T) {
	embreeOrSkip(t)
	for _, name := range []string{"hairy-cornell", "hair", "particles"} {
		t.Run(name, func(t *testing.T) {
			sc := loadSample(t, name)
			opts := render.Options{Width: 48, Height: 36, SPP: 16, MaxDepth: 8, EnvColor: [3]float32{0.3, 0.3, 0.3}, Accel: "bvh"}
			want := renderFilm(t, sc, opts)
			opts.Accel = "embree"
			got := renderFilm(t, sc, opts)
			variance := want.MeanVariance()
			wb, gb := want.Floats(render.LayerBeauty), got.Floats(render.LayerBeauty)
			same, far := 0, 0
			var sumW, sumG, sumVar float64
			for px := 0; px < opts.Width*opts.Height; px++ {
				lw := kernel.Luminance(scene.Vec3{X: float32(wb[3*px]), Y: float32(wb[3*px+1]), Z: float32(wb[3*px+2])}) / float32(opts.SPP)
				lg := kernel.Luminance(scene.Vec3{X: float32(gb[3*px]), Y: float32(gb[3*px+1]), Z: float32(gb[3*px+2])}) / float32(opts.SPP)
				if lw == lg {
					same++
				}
				sumW, sumG, sumVar = sumW+float64(lw), sumG+float64(lg), sumVar+float64(variance[px])
				if d := float64(lg - lw); d*d > 16*2*float64(variance[px])+1e-12 {
					far++
				}
			}
			n := float64(opts.Width * opts.Height)
			meanErr := math.Sqrt(2*sumVar) / n
			t.Logf("%d of %d pixels identical; means %.5f (bvh) and %.5f (embree), ±%.5f; %d pixels beyond 4σ", same, opts.Width*opts.Height, sumW/n, sumG/n, meanErr, far)
			if math.Abs(sumW-sumG)/n > 4*meanErr {
				t.Errorf("means differ by %.5f, more than 4σ (%.5f)", math.Abs(sumW-sumG)/n, 4*meanErr)
			}
			if far > opts.Width*opts.Height/100 {
				t.Errorf("%d pixels differ by more than 4σ", far)
			}
		})
	}
}

// Without Embree, auto traces with the BVH and says why; embree refuses.
func TestFallbackWithoutEmbree(t *testing.T) {
	t.Setenv("SERTRACE_EMBREE", "/nonexistent/libembree3.so.3")
	sc := loadSample(t, "cornell")
	acc, chosen, note, err := NewAccel(sc, nil, "auto")
	if err != nil || chosen != "bvh" || acc.embree != nil || note == "" {
		t.Fatalf("auto without Embree: %q, note %q, error %v; want the BVH and a reason", chosen, note, err)
	}
	t.Log(note)
	if _, _, _, err := NewAccel(sc, nil, "embree"); err == nil {
		t.Error("embree without Embree built something")
	}
	stats := renderStats(t, sc, render.Options{Width: 16, Height: 12, SPP: 1, MaxDepth: 2})
	if stats.Accel != "bvh" {
		t.Errorf("render without Embree traced with %q", stats.Accel)
	}
}

// loops is a scene of closed strands as the loader makes them from glTF's
// LINE_LOOP: each loop's vertices in order and its first vertex again at
// the end; the joints chained by index order, so the closing one keeps
// both caps (the same sphere twice).
func loops(rng *rand.Rand) *scene.Scene {
	sc := &scene.Scene{Materials: []scene.Material{scene.DefaultMaterial()}}
	c := scene.CurveSet{Bounds: scene.EmptyBounds()}
	for loop := 0; loop < 30; loop++ {
		centre := scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1}
		size := 0.1 + 0.3*rng.Float32()
		const n = 9
		// The loop's first vertex again at the end, joined by index order
		// as the loader joins a loop: the closing joint keeps both caps.
		var pts []scene.Vec3
		var radii []float32
		for k := 0; k <= n; k++ {
			a := 2 * math.Pi * float64(k%n) / n
			pts = append(pts, centre.Add(scene.Vec3{X: size * float32(math.Cos(a)), Y: size * float32(math.Sin(a)), Z: 0.3 * size * float32(math.Sin(3*a))}))
			radii = append(radii, 0.01+0.02*float32(k%n)/n)
		}
		c.AddStrand(pts, radii)
	}
	sc.CurveSets = append(sc.CurveSets, c)
	sc.Instances = append(sc.Instances, scene.Instance{Geometry: scene.GeometryRef{Kind: scene.SweptSpheres}, Transform: scene.TRS([3]float64{}, [4]float64{0, 0, 0, 1}, [3]float64{1, 1, 1})})
	return sc
}

// TestSceneBeyondReach: a sphere of radius 1e20 framed by the default
// camera, and a unit sphere seen from 1e19 away (finite float32 values, on
// which Embree's ray.valid() assertion aborted the process and float32
// intersection loses the sphere): Embree is never given them (auto takes
// the BVH and says why, --accel embree refuses by name), and a render
// refuses them with one line. Never an abort, never a wrong image.
func TestSceneBeyondReach(t *testing.T) {
	huge := furnaceScene(lambert(0.5))
	huge.SphereSets[0].Radii[0] = 1e20
	big := scene.Bounds{Min: scene.Vec3{X: -1e20, Y: -1e20, Z: -1e20}, Max: scene.Vec3{X: 1e20, Y: 1e20, Z: 1e20}}
	huge.SphereSets[0].Bounds, huge.Bounds = big, big
	huge.Cameras = []scene.Camera{scene.FramingCamera(big)}
	far := furnaceScene(lambert(0.5))
	far.Cameras[0].Transform = scene.LookAt(scene.Vec3{Z: 1e19}, scene.Vec3{}, scene.Vec3{Y: 1})
	for name, sc := range map[string]*scene.Scene{"huge sphere": huge, "far camera": far} {
		t.Run(name, func(t *testing.T) {
			if _, _, _, err := NewAccel(sc, nil, "embree"); err == nil || !strings.Contains(err.Error(), "beyond the 1e+18 Embree accepts") {
				t.Errorf("--accel embree: %v", err)
			}
			if _, chosen, note, err := NewAccel(sc, nil, "auto"); err != nil || chosen != "bvh" || !strings.Contains(note, "Embree accepts") {
				t.Errorf("auto: %q, note %q, %v", chosen, note, err)
			}
			opts := render.Options{Width: 8, Height: 6, SPP: 1, MaxDepth: 2}
			_, err := render.Render(context.Background(), Backend{}, sc, opts, render.NewFilm(8, 6), nil)
			if err == nil || !strings.Contains(err.Error(), "beyond the 1e+18 sertrace renders") || strings.Contains(err.Error(), "\n") {
				t.Errorf("render: %v", err)
			}
		})
	}
}
