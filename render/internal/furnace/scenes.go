package furnace

import (
	"math"
	"math/rand/v2"

	"sertrace/scene"
)

// BlendShadow is a white Lambertian square facing +Z, lit square on by a
// directional light of irradiance π through a black, unlit sheet of alpha
// in front of it, which the camera also looks through: a pixel sees the
// square (radiance 1 where lit) with probability 1 − alpha, and the square
// receives the light with probability 1 − alpha, so every pixel is
// (1 − alpha)².
func BlendShadow(alpha float32) *scene.Scene {
	sheet := Unlit(scene.Vec3{})
	sheet.AlphaMode, sheet.BaseColor.W = scene.AlphaBlend, alpha
	sc := &scene.Scene{Materials: []scene.Material{sheet, White()}, Meshes: []scene.Mesh{gridMesh(3, 12)}}
	behind := scene.Mat4(scene.Identity)
	behind[14] = -1
	sc.Instances = []scene.Instance{
		{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity, Material: 0},
		{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: behind, Material: 1},
	}
	sc.Lights = []scene.Light{{Kind: scene.DirectionalLight, Color: scene.Vec3{X: 1, Y: 1, Z: 1}, Intensity: math.Pi, Direction: scene.Vec3{Z: -1}}}
	return withCamera(sc, scene.Vec3{X: 0, Y: 0, Z: 4}, 0.6)
}

// BlendedSheets are two large parallel squares, each many triangles, of
// unlit white with alphaMode BLEND, alpha front in front of alpha back, seen
// square on against a black environment: a camera ray sees white with
// probability front + (1 − front)·back, so every pixel is that (stochastic
// transparency keeps each candidate with probability alpha, and a ray that
// passes the front sheet goes on to the back one).
func BlendedSheets(front, back float32) *scene.Scene {
	sheet := func(alpha float32) scene.Material {
		m := Unlit(scene.Vec3{X: 1, Y: 1, Z: 1})
		m.AlphaMode, m.BaseColor.W = scene.AlphaBlend, alpha
		return m
	}
	sc := &scene.Scene{Materials: []scene.Material{sheet(front), sheet(back)}, Meshes: []scene.Mesh{gridMesh(3, 12)}}
	behind := scene.Mat4(scene.Identity)
	behind[14] = -1
	sc.Instances = []scene.Instance{
		{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity, Material: 0},
		{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: behind, Material: 1},
	}
	return withCamera(sc, scene.Vec3{X: 0, Y: 0, Z: 4}, 0.6)
}

// gridMesh is an n×n grid of quads over [−h, h]² in the z = 0 plane,
// facing +Z.
func gridMesh(h float32, n int) scene.Mesh {
	m := scene.Mesh{Name: "grid"}
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			m.Positions = append(m.Positions, scene.Vec3{X: h * (2*float32(i)/float32(n) - 1), Y: h * (2*float32(j)/float32(n) - 1)})
		}
	}
	at := func(i, j int) uint32 { return uint32(j*(n+1) + i) }
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			m.Indices = append(m.Indices, at(i, j), at(i+1, j), at(i+1, j+1), at(i, j), at(i+1, j+1), at(i, j+1))
		}
	}
	return m
}

// generated loads a generated scene and gives each instance the material
// that pick says, without the scene's own lights.
func generated(name string, pick func(in *scene.Instance) scene.Material) (*scene.Scene, error) {
	sc, err := scene.Generate(name)
	if err != nil {
		return nil, err
	}
	sc.Lights = nil
	sc.Materials = sc.Materials[:0]
	for i := range sc.Instances {
		sc.Materials = append(sc.Materials, pick(&sc.Instances[i]))
		sc.Instances[i].Material = i
	}
	return sc, nil
}

// CrossingStrands is a tangle of thick, straight and bent hair strands that
// pass through each other, of lossless hair.
func CrossingStrands() *scene.Scene {
	rng := rand.New(rand.NewPCG(21, 1))
	var c scene.CurveSet
	// The two thick straight strands that cross through each other's axes.
	c.AddStrand([]scene.Vec3{{X: -1.5, Y: 0, Z: 0}, {X: 1.5, Y: 0, Z: 0}}, []float32{0.2, 0.2})
	c.AddStrand([]scene.Vec3{{X: 0, Y: -1.5, Z: 0.05}, {X: 0, Y: 1.5, Z: 0.05}}, []float32{0.2, 0.2})
	// Many chained strands through a ball, of radii from 0.2 down to 5 µm.
	for s := 0; s < 60; s++ {
		p := randomInBall(rng, 1)
		dir := randomInBall(rng, 1).Normalize()
		r := float32(0.2 * math.Pow(4e4, -rng.Float64()))
		var pts []scene.Vec3
		var radii []float32
		for k := 0; k < 6; k++ {
			pts = append(pts, p)
			radii = append(radii, r*(1-0.1*float32(k)))
			dir = dir.Add(randomInBall(rng, 0.5)).Normalize()
			p = p.Add(dir.Scale(0.4))
		}
		c.AddStrand(pts, radii)
	}
	return withCamera(curvesScene(c, LosslessHair()), scene.Vec3{X: 0, Y: 0.3, Z: 5}, 0.75)
}

// StrandsIntoSpheres has strands whose roots sink into a closed triangle
// mesh (a head) and strands that end inside particles, all lossless.
func StrandsIntoSpheres() *scene.Scene {
	rng := rand.New(rand.NewPCG(22, 2))
	var c scene.CurveSet
	for s := 0; s < 40; s++ {
		n := randomInBall(rng, 1).Normalize()
		var pts []scene.Vec3
		var radii []float32
		for k := 0; k < 5; k++ { // from 0.1 below the surface out to 1.7
			pts = append(pts, n.Scale(0.9+0.2*float32(k)))
			radii = append(radii, 0.03)
		}
		c.AddStrand(pts, radii)
	}
	spheres := scene.SphereSet{Name: "particles"}
	for s := 0; s < 12; s++ {
		end := randomInBall(rng, 1).Normalize().Scale(1.6)
		spheres.Centers = append(spheres.Centers, end)
		spheres.Radii = append(spheres.Radii, 0.12)
		c.AddStrand([]scene.Vec3{end.Scale(0.7), end.Scale(0.85), end}, []float32{0.02, 0.02, 0.02})
	}
	sc := curvesScene(c, LosslessHair())
	sc.Meshes = append(sc.Meshes, sphereMesh(1, 24, 48))
	sc.SphereSets = append(sc.SphereSets, spheres)
	sc.Materials = append(sc.Materials, White())
	for _, g := range []scene.GeometryRef{{Kind: scene.Triangles}, {Kind: scene.Spheres}} {
		sc.Instances = append(sc.Instances, scene.Instance{Geometry: g, Transform: scene.Identity, Material: 1})
	}
	return withCamera(sc, scene.Vec3{X: 0, Y: 0.5, Z: 6}, 0.8)
}

// GlassObjects is a glass sphere mesh and a glass cube in front of each
// other, and a row of glass particles, of one glass material, or of
// mats[0], mats[1] and mats[2] (the last given for the rest).
func GlassObjects(mats ...scene.Material) *scene.Scene {
	sc := &scene.Scene{Materials: mats}
	sc.Meshes = []scene.Mesh{sphereMesh(0.8, 24, 48), boxMesh(0.5)}
	sc.SphereSets = []scene.SphereSet{{Name: "glass particles"}}
	for k := 0; k < 5; k++ {
		sc.SphereSets[0].Centers = append(sc.SphereSets[0].Centers, scene.Vec3{X: -1.2 + 0.6*float32(k), Y: -1.1, Z: 0.6})
		sc.SphereSets[0].Radii = append(sc.SphereSets[0].Radii, 0.28)
	}
	cube := scene.Mat4(scene.Identity)
	cube[12], cube[13], cube[14] = 0.7, 0.5, -0.8
	sc.Instances = []scene.Instance{
		{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 0}, Transform: scene.Identity},
		{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 1}, Transform: cube, Material: min(1, len(mats)-1)},
		{Geometry: scene.GeometryRef{Kind: scene.Spheres}, Transform: scene.Identity, Material: min(2, len(mats)-1)},
	}
	return withCamera(sc, scene.Vec3{X: 0.3, Y: 0.4, Z: 5}, 0.75)
}

// BrushedObjects is GlassObjects in mats, its meshes' tangents running
// about the vertical axis (along the lines of latitude; +X on the axis).
func BrushedObjects(mats ...scene.Material) *scene.Scene {
	sc := GlassObjects(mats...)
	for i := range sc.Meshes {
		m := &sc.Meshes[i]
		m.Tangents = make([]scene.Vec4, len(m.Positions))
		for k, p := range m.Positions {
			t := scene.Vec3{X: p.Z, Z: -p.X}.Normalize()
			if t == (scene.Vec3{}) {
				t = scene.Vec3{X: 1}
			}
			m.Tangents[k] = scene.Vec4{X: t.X, Y: t.Y, Z: t.Z, W: 1}
		}
	}
	return sc
}

func curvesScene(c scene.CurveSet, mat scene.Material) *scene.Scene {
	return &scene.Scene{CurveSets: []scene.CurveSet{c}, Materials: []scene.Material{mat},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.SweptSpheres}, Transform: scene.Identity}}}
}

// withCamera fills in the geometry's bounds and a camera at eye looking at
// the origin.
func withCamera(sc *scene.Scene, eye scene.Vec3, yfov float32) *scene.Scene {
	sc.Bounds = scene.EmptyBounds()
	for i := range sc.CurveSets {
		c := &sc.CurveSets[i]
		c.Bounds = scene.EmptyBounds()
		for k, p := range c.Positions {
			c.Bounds.ExtendBall(p, c.Radii[k])
		}
	}
	for i := range sc.SphereSets {
		s := &sc.SphereSets[i]
		s.Bounds = scene.EmptyBounds()
		for k, p := range s.Centers {
			s.Bounds.ExtendBall(p, s.Radii[k])
		}
	}
	for i := range sc.Meshes {
		m := &sc.Meshes[i]
		m.Bounds = scene.EmptyBounds()
		for _, p := range m.Positions {
			m.Bounds.Extend(p)
		}
	}
	for _, in := range sc.Instances {
		sc.Bounds.Union(sc.GeometryBounds(in.Geometry).Transform(in.Transform))
	}
	sc.Cameras = []scene.Camera{{Name: "furnace", YFov: yfov, Transform: scene.LookAt(eye, scene.Vec3{}, scene.Vec3{X: 0, Y: 1, Z: 0})}}
	return sc
}

func randomInBall(rng *rand.Rand, r float32) scene.Vec3 {
	for {
		p := scene.Vec3{X: 2*rng.Float32() - 1, Y: 2*rng.Float32() - 1, Z: 2*rng.Float32() - 1}
		if p.Dot(p) <= 1 {
			return p.Scale(r)
		}
	}
}

// sphereMesh is a closed, flat-shaded UV sphere of radius r about the origin.
func sphereMesh(r float32, rings, sectors int) scene.Mesh {
	m := scene.Mesh{Name: "sphere", Positions: []scene.Vec3{{X: 0, Y: r, Z: 0}}}
	for i := 1; i < rings; i++ {
		theta := math.Pi * float64(i) / float64(rings)
		for j := 0; j < sectors; j++ {
			phi := 2 * math.Pi * float64(j) / float64(sectors)
			m.Positions = append(m.Positions, scene.Vec3{
				X: r * float32(math.Sin(theta)*math.Cos(phi)), Y: r * float32(math.Cos(theta)), Z: r * float32(math.Sin(theta)*math.Sin(phi))})
		}
	}
	bottom := uint32(len(m.Positions))
	m.Positions = append(m.Positions, scene.Vec3{X: 0, Y: -r, Z: 0})
	// at is ring i's vertex j; rings 0 and rings are the poles.
	at := func(i, j int) uint32 {
		switch i {
		case 0:
			return 0
		case rings:
			return bottom
		}
		return uint32(1 + (i-1)*sectors + j%sectors)
	}
	for i := 0; i < rings; i++ {
		for j := 0; j < sectors; j++ {
			a, b, c, d := at(i, j), at(i, j+1), at(i+1, j), at(i+1, j+1)
			if i > 0 {
				m.Indices = append(m.Indices, a, b, c) // counter-clockwise seen from outside
			}
			if i < rings-1 {
				m.Indices = append(m.Indices, b, d, c)
			}
		}
	}
	return m
}

// boxMesh is a closed cube of half-size h about the origin.
func boxMesh(h float32) scene.Mesh {
	m := scene.Mesh{Name: "box"}
	for i := 0; i < 8; i++ {
		m.Positions = append(m.Positions, scene.Vec3{X: h * float32(2*(i&1)-1), Y: h * float32(2*(i>>1&1)-1), Z: h * float32(2*(i>>2&1)-1)})
	}
	// Each face's corners, counter-clockwise seen from outside.
	for _, f := range [6][4]uint32{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}} {
		m.Indices = append(m.Indices, f[0], f[1], f[2], f[0], f[2], f[3])
	}
	return m
}
