package cpu

import (
	"math"
	"math/rand/v2"

	"sertrace/render/kernel"
	"sertrace/scene"
)

// BenchmarkRays makes n primary rays from a camera above the BVH benchmark
// scene (scene.BVHBenchmarkScene), then from their hits shadow rays to a
// point light and cosine-distributed diffuse rays, as a path tracer's first
// bounce makes them: the rays the traversal benchmarks and the Embree
// anchor trace.
func BenchmarkRays(acc *Accel, n int) (primary, shadow, diffuse []Ray) {
	rng := rand.New(rand.NewPCG(11, 12))
	eye, light := scene.Vec3{X: 0, Y: 8, Z: 16}, scene.Vec3{X: 4, Y: 12, Z: 2}
	m := &acc.scene.Meshes[0]
	side := int(math.Sqrt(float64(n)))
	for i := 0; i < n; i++ {
		x, y := float32(i%side)/float32(side), float32(i/side)/float32(side)
		target := scene.Vec3{X: 20*x - 10, Y: 0, Z: 20*y - 10}
		r := Ray{Origin: eye, Dir: target.Sub(eye).Normalize(), TMax: float32(math.Inf(1))}
		primary = append(primary, r)
		h, ok := acc.Intersect(&r)
		if !ok {
			continue
		}
		p := eye.Add(r.Dir.Scale(h.T))
		nrm := m.FaceNormal(int(h.Prim))
		if nrm.Dot(r.Dir) > 0 {
			nrm = nrm.Scale(-1)
		}
		p = p.Add(nrm.Scale(1e-3))
		toL := light.Sub(p)
		shadow = append(shadow, Ray{Origin: p, Dir: toL.Normalize(), TMax: toL.Length()})
		f := kernel.NewFrame(nrm)
		d := f.ToWorld(kernel.SampleCosine(rng.Float32(), rng.Float32()))
		diffuse = append(diffuse, Ray{Origin: p, Dir: d, TMax: float32(math.Inf(1))})
	}
	return primary, shadow, diffuse
}
