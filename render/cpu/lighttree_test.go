package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// manyLightsScene is the generated many-lights room with every other kind
// of light added: a point, a spot and a directional light, an emissive
// quad placed by a mirroring instance (its front face decided by the
// normal matrix) and a double-sided one.
func manyLightsScene(t testing.TB) *scene.Scene {
	t.Helper()
	sc, err := scene.Generate("many-lights")
	if err != nil {
		t.Fatal(err)
	}
	sc.Lights = append(sc.Lights,
		scene.Light{Name: "point", Kind: scene.PointLight, Color: scene.Vec3{X: 1, Y: 0.9, Z: 0.7}, Intensity: 3, Position: scene.Vec3{X: 2, Y: 3, Z: 1}},
		scene.Light{Name: "spot", Kind: scene.SpotLight, Color: scene.Vec3{X: 0.6, Y: 0.8, Z: 1}, Intensity: 20, Position: scene.Vec3{X: -3, Y: 4.5, Z: 0},
			Direction: scene.Vec3{X: 0.3, Y: -1, Z: 0.1}.Normalize(), InnerCone: 0.2, OuterCone: 0.5},
		scene.Light{Name: "sun", Kind: scene.DirectionalLight, Color: scene.Vec3{X: 1, Y: 1, Z: 0.9}, Intensity: 0.05, Direction: scene.Vec3{X: 0.2, Y: -1, Z: -0.3}.Normalize()})
	quad := scene.Mesh{Positions: []scene.Vec3{{X: -0.3, Y: 0, Z: -0.3}, {X: 0.3, Y: 0, Z: -0.3}, {X: 0.3, Y: 0, Z: 0.3}, {X: -0.3, Y: 0, Z: 0.3}},
		Indices: []uint32{0, 1, 2, 0, 2, 3}, Bounds: scene.Bounds{Min: scene.Vec3{X: -0.3, Z: -0.3}, Max: scene.Vec3{X: 0.3, Z: 0.3}}}
	lamp := scene.DefaultMaterial()
	lamp.BaseColor, lamp.Emissive = scene.Vec4{W: 1}, scene.Vec3{X: 8, Y: 6, Z: 4}
	twoSided := lamp
	twoSided.DoubleSided = true
	sc.Meshes = append(sc.Meshes, quad)
	sc.Materials = append(sc.Materials, lamp, twoSided)
	mirrored := scene.Identity
	mirrored[5] = -1                                      // y ↦ −y: the quad's winding faces −y, its normal matrix +y
	mirrored[12], mirrored[13], mirrored[14] = 3, 1.5, -2 // and moved into the room
	tilted := scene.Mat4{1, 0, 0, 0, 0, 0.8, 0.6, 0, 0, -0.6, 0.8, 0, -4, 2.5, 3, 1}
	mesh := scene.GeometryRef{Kind: scene.Triangles, Index: len(sc.Meshes) - 1}
	sc.Instances = append(sc.Instances,
		scene.Instance{Geometry: mesh, Transform: mirrored, Material: len(sc.Materials) - 2},
		scene.Instance{Geometry: mesh, Transform: tilted, Material: len(sc.Materials) - 1})
	return sc
}

// lampScene is the shared CornellBox's lamp, a slab 0.75 wide and 0.01
// high under a ceiling at y = 3, emitting from its bottom and its four
// sides (ten one-sided triangles), with an emissive sphere, a point and a
// spot light and the sun: a tree of LightTreeFlat lights or fewer, read
// whole.
func lampScene(t testing.TB) *scene.Scene {
	t.Helper()
	const a, lo, hi = 0.375, 2.99, 3.0
	var lamp scene.Mesh
	quad := func(c [4]scene.Vec3, n scene.Vec3) {
		i := uint32(len(lamp.Positions))
		lamp.Positions = append(lamp.Positions, c[:]...)
		if c[1].Sub(c[0]).Cross(c[2].Sub(c[0])).Dot(n) > 0 {
			lamp.Indices = append(lamp.Indices, i, i+1, i+2, i, i+2, i+3)
		} else {
			lamp.Indices = append(lamp.Indices, i, i+2, i+1, i, i+3, i+2)
		}
	}
	quad([4]scene.Vec3{{X: -a, Y: lo, Z: -a}, {X: a, Y: lo, Z: -a}, {X: a, Y: lo, Z: a}, {X: -a, Y: lo, Z: a}}, scene.Vec3{Y: -1})
	for _, s := range []float32{-1, 1} {
		quad([4]scene.Vec3{{X: s * a, Y: lo, Z: -a}, {X: s * a, Y: hi, Z: -a}, {X: s * a, Y: hi, Z: a}, {X: s * a, Y: lo, Z: a}}, scene.Vec3{X: s})
		quad([4]scene.Vec3{{X: -a, Y: lo, Z: s * a}, {X: -a, Y: hi, Z: s * a}, {X: a, Y: hi, Z: s * a}, {X: a, Y: lo, Z: s * a}}, scene.Vec3{Z: s})
	}
	lamp.Bounds = scene.Bounds{Min: scene.Vec3{X: -a, Y: lo, Z: -a}, Max: scene.Vec3{X: a, Y: hi, Z: a}}
	light := scene.DefaultMaterial()
	light.Emissive = scene.Vec3{X: 1, Y: 1, Z: 1}
	ball := scene.SphereSet{Centers: []scene.Vec3{{X: 1.2, Y: 1, Z: -0.8}}, Radii: []float32{0.2},
		Bounds: scene.Bounds{Min: scene.Vec3{X: 1, Y: 0.8, Z: -1}, Max: scene.Vec3{X: 1.4, Y: 1.2, Z: -0.6}}}
	sc := &scene.Scene{Meshes: []scene.Mesh{lamp}, SphereSets: []scene.SphereSet{ball}, Materials: []scene.Material{light},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity},
			{Geometry: scene.GeometryRef{Kind: scene.Spheres}, Transform: scene.Identity}},
		Bounds: scene.Bounds{Min: scene.Vec3{X: -2, Y: 0, Z: -2}, Max: scene.Vec3{X: 2, Y: 3, Z: 2}},
		Lights: []scene.Light{
			{Name: "point", Kind: scene.PointLight, Color: scene.Vec3{X: 1, Y: 0.9, Z: 0.7}, Intensity: 0.3, Position: scene.Vec3{X: -1, Y: 2, Z: 1}},
			{Name: "spot", Kind: scene.SpotLight, Color: scene.Vec3{X: 0.6, Y: 0.8, Z: 1}, Intensity: 2, Position: scene.Vec3{X: 1.5, Y: 2.5, Z: 1.5},
				Direction: scene.Vec3{X: -0.3, Y: -1, Z: -0.2}.Normalize(), InnerCone: 0.2, OuterCone: 0.5},
			{Name: "sun", Kind: scene.DirectionalLight, Color: scene.Vec3{X: 1, Y: 1, Z: 0.9}, Intensity: 0.01, Direction: scene.Vec3{X: 0.2, Y: -1, Z: -0.3}.Normalize()}},
	}
	return sc
}

// forTreeScenes runs f on the many-lights room (a tree descended) and
// the lamp (a tree read whole).
func forTreeScenes(t *testing.T, f func(t *testing.T, sc *scene.Scene)) {
	for _, tc := range []struct {
		name string
		make func(testing.TB) *scene.Scene
	}{{"many-lights", manyLightsScene}, {"lamp", lampScene}} {
		t.Run(tc.name, func(t *testing.T) { f(t, tc.make(t)) })
	}
}

// TestLampSideFromTheCeiling: from the ceiling beside one of the lamp's
// thin sides, which no other light of the lamp can reach, PickLight takes
// that side's two triangles nearly always; its power's share, which the
// lamp's lights had by power alone or through the tree's bounds (where
// that side lies in a node with the bottom), is under 2%.
func TestLampSideFromTheCeiling(t *testing.T) {
	sc := lampScene(t)
	sc.Lights, sc.Instances = nil, sc.Instances[:1]
	ls := treeSampler(t, sc, render.LightSamplerTree)
	if n := len(ls.table.Tree); n == 0 || n >= kernel.LightTreeFlat {
		t.Fatalf("%d nodes: want a tree read whole", n)
	}
	for _, p := range []scene.Vec3{{X: 0.38, Y: 2.9999, Z: -0.119}, {X: 0.45, Y: 2.999, Z: 0.3}, {X: 0.376, Y: 2.995, Z: 0}} {
		side := 0.0
		for k, e := range ls.table.Entries {
			if n := ls.TriangleEmitter(k).N; n.X > 0.99 && e.Kind == render.LightTriangle {
				s, _ := selection(ls, k, p)
				side += s
			}
		}
		if side /= treeShare(ls); side < 0.99 { // of the lamp's picks: the environment has a column of its own
			t.Errorf("from %v the +x side is picked with probability %.4f", p, side)
		}
	}
}

// treeSampler is sc's CPU light sampler with the light tree, under a
// constant environment.
func treeSampler(t testing.TB, sc *scene.Scene, sampler render.LightSampler) *lightSampler {
	t.Helper()
	acc, _, _, err := NewAccel(sc, nil, "bvh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(acc.Release)
	return newLightSampler(acc, environment{color: scene.Vec3{X: 0.02, Y: 0.02, Z: 0.03}}, sampler, nil)
}

// selection is the probability that PickLight chooses entry k from p: for
// an emitter, PdfEmitter's selection part (its solid-angle pdf made a
// probability again), else the table's and the tree's. ok is false where
// PdfEmitter has nothing to say (p inside a sphere).
func selection(ls *lightSampler, k int, p scene.Vec3) (sel float64, ok bool) {
	e := ls.table.Entries[k]
	switch e.Kind {
	case render.LightTriangle:
		// The pdf is the selection over the solid angle where the triangle
		// is sampled by it, else (at t = 1 and cosL = 1) over its area.
		pdf := float64(kernel.PdfEmitter(ls, int(e.Instance), int(e.Index), 1, 1, p))
		tri := ls.TriangleEmitter(k)
		if omega, a, b, c := kernel.TriangleSolidAngle(p, tri.P0, tri.E1, tri.E2); kernel.BySolidAngle(omega, a, b, c) {
			return pdf * float64(omega), true
		}
		return pdf * float64(e.Area), true
	case render.LightSphere:
		c, r, _ := kernel.SphereLight(ls, k)
		d := c.Sub(p)
		omc, ok := kernel.SphereCone(d.Dot(d), r)
		if !ok {
			return 0, false
		}
		return float64(kernel.PdfEmitter(ls, int(e.Instance), int(e.Index), 1, 1, p)) * 2 * math.Pi * float64(omc), true
	}
	sel = float64(ls.LightPdf(k))
	if e.Kind == render.LightPunctual && int(ls.punctual[e.Index].Kind) != layout.PunctualDirectional && ls.LightNodeCount() > 0 {
		sel *= float64(kernel.TreePmf(ls, k, e.Trail, p))
	}
	return sel, true
}

// deadMass is the probability that the tree's descent from p ends at a
// node whose children both have no importance, walking the tree itself
// (not the lights' trails).
func deadMass(ls *lightSampler, p scene.Vec3) float64 {
	var walk func(node int, mass float64) float64
	walk = func(node int, mass float64) float64 {
		n := ls.table.Tree[node]
		ia, ib := float64(kernel.LightImportance(&n.A, p)), float64(kernel.LightImportance(&n.B, p))
		if ia+ib == 0 {
			return mass
		}
		dead := 0.0
		for _, c := range []struct {
			child layout.LightChild
			share float64
		}{{n.A, ia / (ia + ib)}, {n.B, ib / (ia + ib)}} {
			if c.child.Flags&layout.LightChildLeaf == 0 && c.share > 0 {
				dead += walk(int(c.child.Next), mass*c.share)
			}
		}
		return dead
	}
	if len(ls.table.Tree) == 0 {
		return 0
	}
	if len(ls.table.Tree) < kernel.LightTreeFlat { // read whole: dead only where no light of it can light p
		for _, n := range ls.table.Tree {
			for _, c := range []layout.LightChild{n.A, n.B} {
				if c.Flags&layout.LightChildLeaf != 0 && kernel.LightImportance(&c, p) > 0 {
					return 0
				}
			}
		}
		return treeShare(ls)
	}
	return treeShare(ls) * walk(0, 1)
}

// treeShare is the probability of the tree's column: every light of the
// tree's LightPdf.
func treeShare(ls *lightSampler) float64 {
	for k, e := range ls.table.Entries {
		if e.Kind == render.LightTriangle || e.Kind == render.LightSphere {
			if ls.table.Pdf[k] > 0 {
				return float64(ls.table.Pdf[k])
			}
		}
	}
	return 0
}

// randomPoints are n points in and a little around the scene's bounds.
func randomPoints(rng *rand.Rand, b scene.Bounds, n int) []scene.Vec3 {
	pts := make([]scene.Vec3, n)
	ext := b.Max.Sub(b.Min).Scale(1.2)
	lo := b.Min.Sub(b.Max.Sub(b.Min).Scale(0.1))
	for i := range pts {
		pts[i] = lo.Add(scene.Vec3{X: ext.X * rng.Float32(), Y: ext.Y * rng.Float32(), Z: ext.Z * rng.Float32()})
	}
	return pts
}

// TestLightTreePmfSumsToOne: from any point, the probabilities of choosing
// each light (the emitters' as PdfEmitter gives them for MIS, the
// punctual lights' from their trails, the infinite lights' from the
// table) add up to one less the chance that the tree's descent finds no
// light that can reach the point.
func TestLightTreePmfSumsToOne(t *testing.T) {
	forTreeScenes(t, func(t *testing.T, sc *scene.Scene) {
		ls := treeSampler(t, sc, render.LightSamplerTree)
		if len(ls.table.Tree) == 0 || len(ls.table.Columns) != 3 {
			t.Fatalf("%d tree nodes, %d columns: want a tree and the sun's and the environment's columns", len(ls.table.Tree), len(ls.table.Columns))
		}
		rng := rand.New(rand.NewPCG(1, 2))
		withDead := 0
		for i, p := range randomPoints(rng, sc.Bounds, 400) {
			sum := 0.0
			skipped := false
			for k := range ls.table.Entries {
				s, ok := selection(ls, k, p)
				skipped = skipped || !ok
				sum += s
			}
			if skipped {
				continue // inside a sphere: its PdfEmitter is 0 and it is not sampled either
			}
			dead := deadMass(ls, p)
			if dead > 0 {
				withDead++
			}
			if math.Abs(sum+dead-1) > 1e-4 {
				t.Fatalf("point %d %v: the lights' probabilities add up to %.6f, the dead ends' %.6f", i, p, sum, dead)
			}
		}
		t.Logf("%d of 400 points have dead ends", withDead)
	})
}

// TestLightTreePicksByPmf: from a few points, the frequencies with which
// SampleLight's choice (PickLight) takes each light over many random
// numbers match the probabilities that PdfEmitter and the trails give
// (chi-square), the pick's own probability is that one exactly, and
// SampleLight's pdf is PdfEmitter's for the point it samples.
func TestLightTreePicksByPmf(t *testing.T) {
	forTreeScenes(t, func(t *testing.T, sc *scene.Scene) {
		ls := treeSampler(t, sc, render.LightSamplerTree)
		rng := rand.New(rand.NewPCG(3, 4))
		const draws = 400000
		for _, p := range randomPoints(rng, sc.Bounds, 6) {
			want := make([]float64, len(ls.table.Entries))
			total := 0.0
			for k := range want {
				want[k], _ = selection(ls, k, p)
				total += want[k]
			}
			counts := make([]float64, len(want))
			failed := 0.0
			for range draws {
				u, coin := rng.Float32(), rng.Float32()
				k, sel := kernel.PickLight(ls, p, u, coin)
				if k < 0 {
					failed++
					continue
				}
				counts[k]++
				if s, _ := selection(ls, k, p); float32(s) != sel && math.Abs(s-float64(sel)) > 1e-6*s {
					t.Fatalf("from %v light %d picked with probability %v, PdfEmitter's %v", p, k, sel, s)
				}
				var out kernel.LightSample
				e := ls.table.Entries[k]
				if e.Kind == render.LightPunctual || e.Kind == render.LightEnvironment {
					continue
				}
				// SampleLight with the same numbers picks k; its pdf is what
				// PdfEmitter gives the point it found, from p.
				u1, u2 := rng.Float32(), rng.Float32()
				if !kernel.SampleLight(ls, &out, p, u, coin, u1, u2) {
					continue
				}
				cosL := float32(1)
				if e.Kind == render.LightTriangle {
					_, n, _, two, _ := kernel.EmissiveTriangle(ls, k, 0, 0)
					cosL = -n.Dot(out.Wi)
					if two {
						cosL = float32(math.Abs(float64(cosL)))
					}
				}
				pe := kernel.PdfEmitter(ls, int(e.Instance), int(e.Index), out.Dist, cosL, p)
				if math.Abs(float64(pe-out.Pdf)) > 1e-4*float64(out.Pdf) {
					t.Fatalf("from %v light %d: SampleLight's pdf %v, PdfEmitter's %v", p, k, out.Pdf, pe)
				}
			}
			// Chi-square over the lights expected 20 times or more, the rest
			// and the failures pooled.
			chi2, dof := 0.0, -1
			var poolWant, poolGot float64
			for k := range want {
				if e := want[k] * draws; e >= 20 {
					chi2 += (counts[k] - e) * (counts[k] - e) / e
					dof++
				} else {
					poolWant, poolGot = poolWant+e, poolGot+counts[k]
				}
			}
			poolWant += (1 - total) * draws
			poolGot += failed
			if poolWant >= 20 {
				chi2 += (poolGot - poolWant) * (poolGot - poolWant) / poolWant
				dof++
			} else if poolGot > poolWant+20 {
				t.Errorf("from %v: %v picks of rare lights or failures, %.1f expected", p, poolGot, poolWant)
			}
			// Mean dof, standard deviation √(2·dof): 5 of them is p < 1e-6.
			if limit := float64(dof) + 5*math.Sqrt(2*float64(dof)); chi2 > limit {
				t.Errorf("from %v: chi-square %.1f over %d degrees of freedom (limit %.1f)", p, chi2, dof, limit)
			}
		}
	})
}

// TestLightTreeIsConservative: a light that can light a point has a
// chance of being chosen from it: every triangle one of whose points
// faces the point (one-sided, two-sided, under a mirroring instance),
// every sphere the point is outside, every point light, and every spot
// light in whose cone the point lies.
func TestLightTreeIsConservative(t *testing.T) {
	forTreeScenes(t, func(t *testing.T, sc *scene.Scene) {
		ls := treeSampler(t, sc, render.LightSamplerTree)
		rng := rand.New(rand.NewPCG(5, 6))
		reaches := 0
		for _, p := range randomPoints(rng, sc.Bounds, 300) {
			for k, e := range ls.table.Entries {
				can := false
				switch e.Kind {
				case render.LightTriangle:
					for range 16 {
						su := float32(math.Sqrt(rng.Float64()))
						v := rng.Float32()
						q, n, _, two, ok := kernel.EmissiveTriangle(ls, k, v*su, su*(1-v))
						if c := n.Dot(p.Sub(q)); ok && (c > 1e-4 || two && c < -1e-4) {
							can = true
							break
						}
					}
				case render.LightSphere:
					c, r, _ := kernel.SphereLight(ls, k)
					can = c.Sub(p).Length() > r*1.001
				case render.LightPunctual:
					l := ls.punctual[e.Index]
					switch int(l.Kind) {
					case layout.PunctualPoint:
						can = true
					case layout.PunctualSpot:
						can = l.Direction.Dot(p.Sub(l.Position).Normalize()) > float32(math.Cos(float64(l.OuterCone)))+1e-4
					}
				}
				if !can {
					continue
				}
				reaches++
				if sel, _ := selection(ls, k, p); !(sel > 0) {
					t.Fatalf("light %d (%+v) can light %v, but its probability from there is %v", k, e, p, sel)
				}
			}
		}
		if reaches < 1000 {
			t.Errorf("only %d light–point pairs checked", reaches)
		}
	})
}

// TestLightTreeMatchesPower: the many-lights room, rendered with the
// light tree and with lights chosen by power, converges to the same image
// mean (within four standard errors); the tree's pixels are the less
// noisy (the median of their variances over power's).
func TestLightTreeMatchesPower(t *testing.T) {
	sc, err := scene.Generate("many-lights")
	if err != nil {
		t.Fatal(err)
	}
	opts := render.Options{Width: 40, Height: 30, SPP: 256, MaxDepth: 4}
	type result struct {
		mean, se float64
		variance []float32
	}
	results := map[render.LightSampler]result{}
	for _, sampler := range []render.LightSampler{render.LightSamplerTree, render.LightSamplerPower} {
		opts.LightSampler = sampler
		film := renderFilm(t, sc, opts)
		pix, _ := film.Resolve(render.AOVBeauty)
		r := result{variance: film.MeanVariance()}
		n := len(pix) / 3
		var v float64
		for i := range n {
			r.mean += (0.2126*float64(pix[3*i]) + 0.7152*float64(pix[3*i+1]) + 0.0722*float64(pix[3*i+2])) / float64(n)
			v += float64(r.variance[i]) / float64(n*n)
		}
		r.se = math.Sqrt(v)
		results[sampler] = r
	}
	tree, power := results[render.LightSamplerTree], results[render.LightSamplerPower]
	if se := math.Hypot(tree.se, power.se); !(math.Abs(tree.mean-power.mean) <= 4*se) || !(tree.mean > 0) {
		t.Errorf("image mean: tree %.5f, power %.5f: %.1f standard errors apart", tree.mean, power.mean, math.Abs(tree.mean-power.mean)/se)
	}
	var ratios []float64
	for i := range tree.variance {
		if power.variance[i] > 0 {
			ratios = append(ratios, float64(tree.variance[i]/power.variance[i]))
		}
	}
	slices.Sort(ratios)
	median := ratios[len(ratios)/2]
	t.Logf("image mean: tree %.5f ± %.5f, power %.5f ± %.5f; a pixel's variance, tree over power: median %.3f", tree.mean, tree.se, power.mean, power.se, median)
	if !(median < 0.8) {
		t.Errorf("a pixel's variance with the tree over power's: median %.3f", median)
	}
}
