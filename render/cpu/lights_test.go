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

// boxScene is the inside of a closed cube of side 2 made of twelve
// triangles facing outward (so the camera at its centre sees back faces
// unless flip turns them inward), all with material mat.
func boxScene(mat scene.Material, inward bool) *scene.Scene {
	m := scene.Mesh{Bounds: scene.Bounds{Min: scene.Vec3{X: -1, Y: -1, Z: -1}, Max: scene.Vec3{X: 1, Y: 1, Z: 1}}}
	for axis := 0; axis < 3; axis++ {
		for _, sign := range []float32{-1, 1} {
			var n, u, v scene.Vec3
			n.Set(axis, sign)
			u.Set((axis+1)%3, 1)
			v.Set((axis+2)%3, 1)
			if sign < 0 {
				u, v = v, u
			}
			base := uint32(len(m.Positions))
			for _, c := range [][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
				m.Positions = append(m.Positions, n.Add(u.Scale(c[0])).Add(v.Scale(c[1])))
			}
			if inward {
				m.Indices = append(m.Indices, base, base+2, base+1, base, base+3, base+2)
			} else {
				m.Indices = append(m.Indices, base, base+1, base+2, base, base+2, base+3)
			}
		}
	}
	sc := &scene.Scene{
		Meshes:    []scene.Mesh{m},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity}},
		Materials: []scene.Material{mat},
		Bounds:    m.Bounds,
		Cameras:   []scene.Camera{{YFov: 1.2, Transform: scene.LookAt(scene.Vec3{X: 0.1, Y: 0.2, Z: 0.3}, scene.Vec3{X: 0.5, Y: -0.3, Z: -1}, scene.Vec3{X: 0, Y: 1, Z: 0})}},
	}
	return sc
}

// TestEmissiveFurnace: inside a closed box whose walls emit 1 and reflect
// half, radiance is 1 / (1 − ½) = 2 everywhere. It exercises emissive
// triangles under light sampling and BSDF sampling with MIS, one- and
// two-sided emitters; walls that emit only outwards light nothing.
func TestEmissiveFurnace(t *testing.T) {
	cases := []struct {
		name          string
		inward, sides bool
		want          float64
	}{
		{"one-sided, facing in", true, false, 2},
		{"two-sided", false, true, 2},
		{"one-sided, facing out", false, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mat := lambert(0.5)
			mat.Emissive, mat.DoubleSided = scene.Vec3{X: 1, Y: 1, Z: 1}, c.sides
			sc := boxScene(mat, c.inward)
			opts := render.Options{Width: 24, Height: 24, SPP: 128, MaxDepth: 40}
			pix, _ := renderFilm(t, sc, opts).Resolve(render.AOVBeauty)
			var sum float64
			for i := 0; i < len(pix); i += 3 {
				sum += float64(pix[i])
				if math.Abs(float64(pix[i])-c.want) > 0.25 {
					t.Fatalf("pixel %d: %v, want %v", i/3, pix[i], c.want)
				}
			}
			if mean := sum / float64(len(pix)/3); math.Abs(mean-c.want) > 0.01 {
				t.Errorf("mean %.4f, want %v", mean, c.want)
			}
		})
	}
}

// An emission texture scales what the surface emits, where a ray hits it
// and where a light sample lands on it: inside a closed box of albedo ½
// emitting Le everywhere, radiance is 2·Le.
func TestTexturedEmissiveFurnace(t *testing.T) {
	mat := lambert(0.5)
	mat.Emissive, mat.DoubleSided = scene.Vec3{X: 1, Y: 1, Z: 1}, true
	mat.EmissiveTexture = scene.NoTexture
	mat.EmissiveTexture.Texture = 0
	sc := boxScene(mat, true)
	grey := []uint8{128, 128, 128, 255}
	sc.Textures = []scene.Texture{{Width: 2, Height: 2, Pixels: slices.Concat(grey, grey, grey, grey), ColorSpace: scene.Linear}}
	want := 2 * 128 / 255.0
	pix, _ := renderFilm(t, sc, render.Options{Width: 16, Height: 16, SPP: 128, MaxDepth: 40}).Resolve(render.AOVBeauty)
	var sum float64
	for i := 0; i < len(pix); i += 3 {
		sum += float64(pix[i])
	}
	if mean := sum / float64(len(pix)/3); math.Abs(mean-want) > 0.01 {
		t.Errorf("mean %.4f, want %.4f", mean, want)
	}
}

// TestPointLightOnAPlane: direct light from a point light of intensity I at
// height h over a white Lambertian plane is ρ·I·h / (π·d³) at distance d.
func TestPointLightOnAPlane(t *testing.T) {
	const h, intensity = 2, 5
	m := scene.Mesh{
		Positions: []scene.Vec3{{X: -10, Y: 0, Z: -10}, {X: 10, Y: 0, Z: -10}, {X: 10, Y: 0, Z: 10}, {X: -10, Y: 0, Z: 10}},
		Indices:   []uint32{0, 2, 1, 0, 3, 2},
		Bounds:    scene.Bounds{Min: scene.Vec3{X: -10, Y: 0, Z: -10}, Max: scene.Vec3{X: 10, Y: 0, Z: 10}},
	}
	sc := &scene.Scene{
		Meshes:    []scene.Mesh{m},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity}},
		Materials: []scene.Material{lambert(1)},
		Lights:    []scene.Light{{Kind: scene.PointLight, Color: scene.Vec3{X: 1, Y: 1, Z: 1}, Intensity: intensity, Position: scene.Vec3{X: 0, Y: h, Z: 0}}},
		Bounds:    m.Bounds,
		Cameras: []scene.Camera{{Orthographic: true, XMag: 3, YMag: 3,
			Transform: scene.LookAt(scene.Vec3{X: 0, Y: 5, Z: 0}, scene.Vec3{}, scene.Vec3{X: 0, Y: 0, Z: -1})}},
	}
	opts := render.Options{Width: 30, Height: 30, SPP: 16, MaxDepth: 1}
	pix, _ := renderFilm(t, sc, opts).Resolve(render.AOVBeauty)
	cam := render.NewCameraRays(sc.Cameras[0], opts.Width, opts.Height)
	for y := 0; y < opts.Height; y++ {
		for x := 0; x < opts.Width; x++ {
			// The pixel's mean of the closed form, over an 8×8 grid.
			var want float64
			for k := 0; k < 64; k++ {
				o, _ := cam.Ray(float32(x)+(float32(k%8)+0.5)/8, float32(y)+(float32(k/8)+0.5)/8)
				d := math.Sqrt(float64(o.X*o.X+o.Z*o.Z) + h*h)
				want += intensity * h / (math.Pi * d * d * d) / 64
			}
			if got := float64(pix[3*(y*opts.Width+x)]); math.Abs(got-want) > 0.03*want {
				t.Errorf("pixel (%d, %d): %v, want %v", x, y, got, want)
			}
		}
	}
}

// aliasOnly is a kernel.Lights of an alias table's columns alone, every
// column its own entry (what PickLight reads of it without a tree).
type aliasOnly struct {
	kernel.Lights
	cols []layout.LightColumn
	pdf  []float32
}

func (a *aliasOnly) ColumnCount() int                     { return len(a.cols) }
func (a *aliasOnly) LightColumn(c int) layout.LightColumn { return a.cols[c] }
func (a *aliasOnly) LightPdf(k int) float32               { return a.pdf[k] }

// TestAliasTablePicksByPower: over a grid of (u, coin) the selection
// frequencies equal the probabilities, with zero-power lights never picked.
func TestAliasTablePicksByPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	power := make([]float64, 1000)
	for i := range power {
		if i%7 != 0 {
			power[i] = rng.ExpFloat64()
		}
	}
	cols, pdf := render.BuildAlias(power)
	ls := &aliasOnly{cols: cols, pdf: pdf}
	counts := make([]float64, len(power))
	const grid = 4000
	for a := 0; a < len(power); a++ {
		for b := 0; b < grid; b++ {
			u := (float32(a) + 0.5) / float32(len(power))
			k, sel := kernel.PickLight(ls, scene.Vec3{}, u, (float32(b)+0.5)/grid)
			if sel != pdf[k] {
				t.Fatalf("light %d picked with probability %v, its pdf %v", k, sel, pdf[k])
			}
			counts[k]++
		}
	}
	for i, c := range counts {
		f := c / float64(len(power)*grid)
		// Each column's coin is quantised to 1/grid; a light collects a few columns.
		if math.Abs(f-float64(pdf[i])) > 8.0/grid/float64(len(power)) {
			t.Fatalf("light %d picked %.6f of the time, pdf %.6f", i, f, pdf[i])
		}
		if power[i] == 0 && c > 0 {
			t.Fatalf("light %d has no power but was picked", i)
		}
	}
}

// TestNormalMapFromBothSides: a double-sided normal-mapped quad seen from
// behind shades with exactly the opposite of the normal seen from the front.
func TestNormalMapFromBothSides(t *testing.T) {
	mat := lambert(1)
	mat.DoubleSided = true
	mat.NormalTexture = scene.TextureRef{Texture: 0, Transform: [6]float32{1, 0, 0, 0, 1, 0}}
	tex := scene.Texture{Width: 1, Height: 1, Pixels: []uint8{200, 90, 220, 255}, ColorSpace: scene.Linear}
	m := scene.Mesh{
		Positions: []scene.Vec3{{X: -1, Y: -1, Z: 0}, {X: 1, Y: -1, Z: 0}, {X: 1, Y: 1, Z: 0}},
		Normals:   []scene.Vec3{{X: 0, Y: 0, Z: 1}, {X: 0, Y: 0, Z: 1}, {X: 0, Y: 0, Z: 1}},
		Tangents:  []scene.Vec4{{X: 1, Y: 0, Z: 0, W: 1}, {X: 1, Y: 0, Z: 0, W: 1}, {X: 1, Y: 0, Z: 0, W: 1}},
		UV0:       []scene.Vec2{{X: 0, Y: 1}, {X: 1, Y: 1}, {X: 1, Y: 0}},
		Indices:   []uint32{0, 1, 2},
		Bounds:    scene.Bounds{Min: scene.Vec3{X: -1, Y: -1, Z: 0}, Max: scene.Vec3{X: 1, Y: 1, Z: 0}},
	}
	sc := &scene.Scene{
		Meshes: []scene.Mesh{m}, Textures: []scene.Texture{tex}, Materials: []scene.Material{mat},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity}},
	}
	acc := BuildAccel(sc, nil)
	shadeFrom := func(z float32) scene.Vec3 {
		ray := Ray{Origin: scene.Vec3{X: 0.3, Y: -0.2, Z: z}, Dir: scene.Vec3{X: 0, Y: 0, Z: -z}.Normalize(), TMax: 10}
		h, ok := acc.Intersect(&ray)
		if !ok {
			t.Fatal("missed the quad")
		}
		var s kernel.Surface
		acc.shadeAt(&s, &h, &ray)
		return s.Frame.N
	}
	front, back := shadeFrom(2), shadeFrom(-2)
	if front.Add(back).Length() > 1e-5 || front.Z < 0.5 || math.Abs(float64(front.X)) < 0.1 {
		t.Errorf("front %v, back %v: the back must be the exact opposite (and the map must tilt it)", front, back)
	}
}

// TestEmissiveSphereOnAPlane: a white Lambertian plane under an emissive
// sphere of radius r whose centre stands h above the plane reflects
// L·r²·h / D³ at distance D from the centre (the sphere wholly above the
// plane's horizon). Light sampling picks directions in the sphere's cone and
// BSDF sampling hits it too: the MIS weights must add to one, also for a
// sphere set placed by a rotating, uniformly scaling instance.
func TestEmissiveSphereOnAPlane(t *testing.T) {
	const h, r, le = 2.0, 0.5, 3.0
	c, s := math.Cos(0.5), math.Sin(0.5)
	for _, tc := range []struct {
		name      string
		transform scene.Mat4
	}{
		{"identity", scene.Identity},
		// Scaled by 2, turned about y and moved: the object-space sphere
		// below is chosen so that it lands on the same world sphere.
		{"similarity", scene.Mat4{2 * c, 0, -2 * s, 0, 0, 2, 0, 0, 2 * s, 0, 2 * c, 0, 0.3, -0.4, 0.2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plane := scene.Mesh{
				Positions: []scene.Vec3{{X: -10, Y: 0, Z: -10}, {X: 10, Y: 0, Z: -10}, {X: 10, Y: 0, Z: 10}, {X: -10, Y: 0, Z: 10}},
				Indices:   []uint32{0, 2, 1, 0, 3, 2},
				Bounds:    scene.Bounds{Min: scene.Vec3{X: -10, Y: 0, Z: -10}, Max: scene.Vec3{X: 10, Y: 0, Z: 10}},
			}
			// The object-space sphere that the instance takes to radius r at (0, h, 0).
			inv := render.AffineInverse(tc.transform)
			center := inv.Point(scene.Vec3{X: 0, Y: h, Z: 0})
			radius := r / float32(math.Sqrt(tc.transform[0]*tc.transform[0]+tc.transform[1]*tc.transform[1]+tc.transform[2]*tc.transform[2]))
			set := scene.SphereSet{Centers: []scene.Vec3{center}, Radii: []float32{radius},
				Bounds: scene.Bounds{Min: center.Sub(scene.Vec3{X: radius, Y: radius, Z: radius}), Max: center.Add(scene.Vec3{X: radius, Y: radius, Z: radius})}}
			emitter := lambert(0)
			emitter.Emissive = scene.Vec3{X: le, Y: le, Z: le}
			sc := &scene.Scene{
				Meshes:     []scene.Mesh{plane},
				SphereSets: []scene.SphereSet{set},
				Instances: []scene.Instance{
					{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity},
					{Geometry: scene.GeometryRef{Kind: scene.Spheres}, Transform: tc.transform, Material: 1},
				},
				Materials: []scene.Material{lambert(1), emitter},
				Bounds:    plane.Bounds,
				Cameras: []scene.Camera{{Orthographic: true, XMag: 3, YMag: 3,
					Transform: scene.LookAt(scene.Vec3{X: 0, Y: 5, Z: 0}, scene.Vec3{}, scene.Vec3{X: 0, Y: 0, Z: -1})}},
			}
			ls := render.NewLightTable(sc, 0, render.LightSamplerTree)
			if len(ls.Entries) != 1 || ls.Entries[0].Kind != render.LightSphere {
				t.Fatalf("light table %+v: want the sphere", ls.Entries)
			}
			opts := render.Options{Width: 30, Height: 30, SPP: 256, MaxDepth: 1}
			pix, _ := renderFilm(t, sc, opts).Resolve(render.AOVBeauty)
			cam := render.NewCameraRays(sc.Cameras[0], opts.Width, opts.Height)
			checked := 0
			var sumGot, sumWant float64
			for y := 0; y < opts.Height; y++ {
				for x := 0; x < opts.Width; x++ {
					var want float64
					seesSphere := false
					for k := 0; k < 64; k++ {
						o, _ := cam.Ray(float32(x)+(float32(k%8)+0.5)/8, float32(y)+(float32(k/8)+0.5)/8)
						rho2 := float64(o.X*o.X + o.Z*o.Z)
						seesSphere = seesSphere || rho2 < 1.2*r*r
						d := math.Sqrt(rho2 + h*h)
						want += le * r * r * h / (d * d * d) / 64
					}
					if seesSphere {
						continue
					}
					checked++
					got := float64(pix[3*(y*opts.Width+x)])
					sumGot, sumWant = sumGot+got, sumWant+want
					// Per pixel about 1% noise at 256 samples.
					if math.Abs(got-want) > 0.06*want {
						t.Errorf("pixel (%d, %d): %v, want %v", x, y, got, want)
					}
				}
			}
			if checked < 800 {
				t.Fatalf("only %d pixels checked", checked)
			}
			if math.Abs(sumGot/sumWant-1) > 0.004 {
				t.Errorf("all pixels: %.4f of the closed form", sumGot/sumWant)
			}
		})
	}
}

// TestSampleSphere: sampled directions reach the sphere at the distance
// returned, within its cone, at its nearer side, and the pdf is one over
// the cone's solid angle, from near and far (tiny cones).
func TestSampleSphere(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := scene.Vec3{X: 0.3, Y: -0.2, Z: 0.5}
	for _, tc := range []struct{ dist, r float32 }{{3, 1}, {1.01, 1}, {1000, 0.01}} {
		p := c.Add(scene.Vec3{X: 0.6, Y: 0, Z: 0.8}.Scale(tc.dist))
		axis := c.Sub(p).Scale(1 / c.Sub(p).Length())
		sin2Max := float64(tc.r * tc.r / (tc.dist * tc.dist))
		omcMax := sin2Max / (1 + math.Sqrt(1-sin2Max))
		var spread float64 // mean of (1 − cos θ)/(1 − cos θmax): ½ when uniform in the cone
		for i := 0; i < 10000; i++ {
			wi, dist, pdf, ok := kernel.SampleSphere(p, c, tc.r, rng.Float32(), rng.Float32())
			if !ok {
				t.Fatalf("%+v: no sample", tc)
			}
			q := p.Add(wi.Scale(dist))
			// float32 positions: within a few ulps of the distance.
			if e := math.Abs(float64(q.Sub(c).Length() - tc.r)); e > 1e-3*float64(tc.r)+1e-6*float64(tc.dist) {
				t.Fatalf("%+v: point %v off the sphere by %.2g", tc, q, e)
			}
			if n := q.Sub(c).Scale(1 / tc.r); n.Dot(wi) > 1e-3 {
				t.Fatalf("%+v: the far side (n·wi %v)", tc, n.Dot(wi))
			}
			want := 1 / (2 * math.Pi * omcMax)
			if math.Abs(float64(pdf)-want) > 1e-4*want {
				t.Fatalf("%+v: pdf %v, want %v", tc, pdf, want)
			}
			// 1 − cos θ from sin²θ, exact for the tiny cone too.
			sin2 := float64(wi.Cross(axis).Dot(wi.Cross(axis)))
			spread += sin2 / (1 + float64(wi.Dot(axis))) / omcMax / 10000
		}
		if math.Abs(spread-0.5) > 0.02 {
			t.Errorf("%+v: mean (1 − cos θ)/(1 − cos θmax) %.3f, want 0.5 for directions uniform in the cone", tc, spread)
		}
	}
	if _, _, _, ok := kernel.SampleSphere(c, c, 1, 0.5, 0.5); ok {
		t.Fatal("a point inside the sphere got a sample")
	}
}

// lambertIrradiance is the irradiance at x, of normal n, from a polygon of
// uniform unit radiance, by Lambert's formula: half the sum over its edges
// of the angle each subtends times the cosine between n and the normal of
// the plane through x and it.
func lambertIrradiance(x, n [3]float64, poly [][3]float64) float64 {
	sub := func(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	var e float64
	for i := range poly {
		a, b := sub(poly[i], x), sub(poly[(i+1)%len(poly)], x)
		c := cross(a, b)
		theta := math.Atan2(math.Sqrt(dot(c, c)), dot(a, b))
		e += theta * dot(n, c) / math.Sqrt(dot(c, c))
	}
	return math.Abs(e) / 2
}

// TestEmissiveTriangleOnAPlane: a one-sided emissive triangle a little
// above a white Lambertian plane, facing it, lights it as Lambert's
// formula says, pixel by pixel, from right beside its edges (where it
// fills most of the sky and is sampled by its solid angle) to far off
// (by its area); and beside it the pixels' noise is what sampling the
// solid angle leaves, a fraction of what sampling the area did.
func TestEmissiveTriangleOnAPlane(t *testing.T) {
	const h, le = 0.1, 2.0
	tri := [][3]float64{{-0.5, h, -0.4}, {0.6, h, -0.3}, {0, h, 0.6}}
	light := scene.Mesh{Indices: []uint32{0, 1, 2}}
	for _, v := range tri {
		light.Positions = append(light.Positions, scene.Vec3{X: float32(v[0]), Y: float32(v[1]), Z: float32(v[2])})
	}
	if light.Positions[1].Sub(light.Positions[0]).Cross(light.Positions[2].Sub(light.Positions[0])).Y > 0 {
		light.Indices = []uint32{0, 2, 1} // facing down, at the plane
	}
	light.Bounds = scene.Bounds{Min: scene.Vec3{X: -0.5, Y: h, Z: -0.4}, Max: scene.Vec3{X: 0.6, Y: h, Z: 0.6}}
	plane := scene.Mesh{
		Positions: []scene.Vec3{{X: -10, Y: 0, Z: -10}, {X: 10, Y: 0, Z: -10}, {X: 10, Y: 0, Z: 10}, {X: -10, Y: 0, Z: 10}},
		Indices:   []uint32{0, 2, 1, 0, 3, 2},
		Bounds:    scene.Bounds{Min: scene.Vec3{X: -10, Y: 0, Z: -10}, Max: scene.Vec3{X: 10, Y: 0, Z: 10}},
	}
	emitter := lambert(0)
	emitter.Emissive = scene.Vec3{X: le, Y: le, Z: le}
	sc := &scene.Scene{
		Meshes: []scene.Mesh{plane, light},
		Instances: []scene.Instance{
			{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity},
			{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 1}, Transform: scene.Identity, Material: 1},
		},
		Materials: []scene.Material{lambert(1), emitter},
		Bounds:    plane.Bounds,
		Cameras: []scene.Camera{{Orthographic: true, XMag: 1.5, YMag: 1.5,
			Transform: scene.LookAt(scene.Vec3{X: 0, Y: 5, Z: 0}, scene.Vec3{}, scene.Vec3{X: 0, Y: 0, Z: -1})}},
	}
	// Inside the triangle's footprint, grown by margin, the camera sees
	// the light (or its back) rather than the plane.
	inside := func(x, z, margin float64) bool {
		for i := range tri {
			a, b := tri[i], tri[(i+1)%3]
			ex, ez := b[0]-a[0], b[2]-a[2]
			// The edge's outward side: the one away from the third vertex.
			c := tri[(i+2)%3]
			s := ex*(c[2]-a[2]) - ez*(c[0]-a[0])
			d := (ex*(z-a[2]) - ez*(x-a[0])) / math.Hypot(ex, ez)
			if s*d < 0 && math.Abs(d) > margin {
				return false
			}
		}
		return true
	}
	opts := render.Options{Width: 40, Height: 40, SPP: 256, MaxDepth: 1}
	film := renderFilm(t, sc, opts)
	pix, _ := film.Resolve(render.AOVBeauty)
	variance := film.MeanVariance()
	cam := render.NewCameraRays(sc.Cameras[0], opts.Width, opts.Height)
	checked, near := 0, 0
	var sumGot, sumWant, nearNoise float64
	for y := range opts.Height {
		for x := range opts.Width {
			var want float64
			covered := false
			for k := range 64 {
				o, _ := cam.Ray(float32(x)+(float32(k%8)+0.5)/8, float32(y)+(float32(k/8)+0.5)/8)
				covered = covered || inside(float64(o.X), float64(o.Z), 0.02)
				want += le / math.Pi * lambertIrradiance([3]float64{float64(o.X), 0, float64(o.Z)}, [3]float64{0, 1, 0}, tri) / 64
			}
			if covered {
				continue
			}
			checked++
			got := float64(pix[3*(y*opts.Width+x)])
			sumGot, sumWant = sumGot+got, sumWant+want
			if math.Abs(got-want) > 0.05*want+0.002 {
				t.Errorf("pixel (%d, %d): %v, want %v", x, y, got, want)
			}
			o, _ := cam.Ray(float32(x)+0.5, float32(y)+0.5)
			if !inside(float64(o.X), float64(o.Z), 0.15) {
				continue
			}
			near++
			nearNoise += math.Sqrt(float64(variance[y*opts.Width+x])) / want
		}
	}
	if checked < 900 || near < 30 {
		t.Fatalf("only %d pixels checked, %d of them beside the triangle", checked, near)
	}
	if math.Abs(sumGot/sumWant-1) > 0.003 {
		t.Errorf("all pixels: %.4f of the closed form", sumGot/sumWant)
	}
	nearNoise /= float64(near)
	t.Logf("%d pixels, %d beside the triangle: their relative standard error %.4f", checked, near, nearNoise)
	if nearNoise > 0.06 { // 0.031 by the solid angle; 0.13 by the area
		t.Errorf("beside the triangle the relative standard error is %.4f a pixel", nearNoise)
	}
}
