package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/render"
	"sertrace/scene"
)

// boxScene is the inside of a closed cube of side 2 made of twelve
// triangles facing outward (so the camera at its centre sees back faces
// unless flip turns them inward), all with material mat.
func boxScene(mat scene.Material, inward bool) *scene.Scene {
	m := scene.Mesh{Bounds: scene.Bounds{Min: scene.Vec3{-1, -1, -1}, Max: scene.Vec3{1, 1, 1}}}
	for axis := 0; axis < 3; axis++ {
		for _, sign := range []float32{-1, 1} {
			var n, u, v scene.Vec3
			n[axis], u[(axis+1)%3], v[(axis+2)%3] = sign, 1, 1
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
		Cameras:   []scene.Camera{{YFov: 1.2, Transform: scene.LookAt(scene.Vec3{0.1, 0.2, 0.3}, scene.Vec3{0.5, -0.3, -1}, scene.Vec3{0, 1, 0})}},
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
			mat.Emissive, mat.DoubleSided = scene.Vec3{1, 1, 1}, c.sides
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

// TestPointLightOnAPlane: direct light from a point light of intensity I at
// height h over a white Lambertian plane is ρ·I·h / (π·d³) at distance d.
func TestPointLightOnAPlane(t *testing.T) {
	const h, intensity = 2, 5
	m := scene.Mesh{
		Positions: []scene.Vec3{{-10, 0, -10}, {10, 0, -10}, {10, 0, 10}, {-10, 0, 10}},
		Indices:   []uint32{0, 2, 1, 0, 3, 2},
		Bounds:    scene.Bounds{Min: scene.Vec3{-10, 0, -10}, Max: scene.Vec3{10, 0, 10}},
	}
	sc := &scene.Scene{
		Meshes:    []scene.Mesh{m},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity}},
		Materials: []scene.Material{lambert(1)},
		Lights:    []scene.Light{{Kind: scene.PointLight, Color: scene.Vec3{1, 1, 1}, Intensity: intensity, Position: scene.Vec3{0, h, 0}}},
		Bounds:    m.Bounds,
		Cameras: []scene.Camera{{Orthographic: true, XMag: 3, YMag: 3,
			Transform: scene.LookAt(scene.Vec3{0, 5, 0}, scene.Vec3{}, scene.Vec3{0, 0, -1})}},
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
				d := math.Sqrt(float64(o[0]*o[0]+o[2]*o[2]) + h*h)
				want += intensity * h / (math.Pi * d * d * d) / 64
			}
			if got := float64(pix[3*(y*opts.Width+x)]); math.Abs(got-want) > 0.03*want {
				t.Errorf("pixel (%d, %d): %v, want %v", x, y, got, want)
			}
		}
	}
}

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
	ls := &render.LightTable{Entries: make([]render.LightEntry, len(power))}
	ls.BuildAlias(power)
	counts := make([]float64, len(power))
	const grid = 4000
	for a := 0; a < len(power); a++ {
		for b := 0; b < grid; b++ {
			u := (float32(a) + 0.5) / float32(len(power))
			counts[ls.Pick(u, (float32(b)+0.5)/grid)]++
		}
	}
	for i, c := range counts {
		f := c / float64(len(power)*grid)
		// Each column's coin is quantised to 1/grid; a light collects a few columns.
		if math.Abs(f-float64(ls.Pdf[i])) > 8.0/grid/float64(len(power)) {
			t.Fatalf("light %d picked %.6f of the time, pdf %.6f", i, f, ls.Pdf[i])
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
		Positions: []scene.Vec3{{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}},
		Normals:   []scene.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		Tangents:  []scene.Vec4{{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}},
		UV0:       []scene.Vec2{{0, 1}, {1, 1}, {1, 0}},
		Indices:   []uint32{0, 1, 2},
		Bounds:    scene.Bounds{Min: scene.Vec3{-1, -1, 0}, Max: scene.Vec3{1, 1, 0}},
	}
	sc := &scene.Scene{
		Meshes: []scene.Mesh{m}, Textures: []scene.Texture{tex}, Materials: []scene.Material{mat},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity}},
	}
	acc := BuildAccel(sc, nil)
	shadeFrom := func(z float32) scene.Vec3 {
		ray := Ray{Origin: scene.Vec3{0.3, -0.2, z}, Dir: scene.Vec3{0, 0, -z}.Normalize(), TMax: 10}
		h, ok := acc.Intersect(&ray)
		if !ok {
			t.Fatal("missed the quad")
		}
		return acc.shade(&h, &ray).frame.N
	}
	front, back := shadeFrom(2), shadeFrom(-2)
	if front.Add(back).Length() > 1e-5 || front[2] < 0.5 || math.Abs(float64(front[0])) < 0.1 {
		t.Errorf("front %v, back %v: the back must be the exact opposite (and the map must tilt it)", front, back)
	}
}
