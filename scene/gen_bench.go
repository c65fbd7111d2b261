package scene

import "math"

// BVHBenchmarkScene is a Sponza-sized single mesh for measuring BVH builds
// and traversal: a bumpy ground and a grid of displaced spheres,
// 2·128² + 16·2·64·128 = 294,912 triangles, the kind of spatial spread that
// stresses a BVH (big and small triangles, occlusion).
func BVHBenchmarkScene() *Scene {
	m := Mesh{Bounds: EmptyBounds()}
	grid := func(n, k int, at func(u, v float64) Vec3) {
		base := uint32(len(m.Positions))
		for j := 0; j <= k; j++ {
			for i := 0; i <= n; i++ {
				m.Positions = append(m.Positions, at(float64(i)/float64(n), float64(j)/float64(k)))
			}
		}
		w := uint32(n + 1)
		for j := uint32(0); j < uint32(k); j++ {
			for i := uint32(0); i < uint32(n); i++ {
				a := base + j*w + i
				m.Indices = append(m.Indices, a, a+w, a+1, a+1, a+w, a+w+1)
			}
		}
	}
	grid(128, 128, func(u, v float64) Vec3 {
		x, z := 20*u-10, 20*v-10
		return Vec3{float32(x), float32(0.3 * math.Sin(x) * math.Cos(z)), float32(z)}
	})
	for s := 0; s < 16; s++ {
		cx, cz := float64(s%4)*4-6, float64(s/4)*4-6
		grid(128, 64, func(u, v float64) Vec3 {
			th, ph := math.Pi*v, 2*math.Pi*u
			r := 1.2 + 0.1*math.Sin(8*ph)*math.Sin(6*th)
			return Vec3{float32(cx + r*math.Sin(th)*math.Cos(ph)), float32(1.5 + r*math.Cos(th)), float32(cz + r*math.Sin(th)*math.Sin(ph))}
		})
	}
	for _, p := range m.Positions {
		m.Bounds.Extend(p)
	}
	return &Scene{
		Source:    "bvh-benchmark",
		Bounds:    m.Bounds,
		Meshes:    []Mesh{m},
		Instances: []Instance{{Geometry: GeometryRef{Kind: Triangles}, Transform: Identity}},
		Materials: []Material{DefaultMaterial()},
	}
}
