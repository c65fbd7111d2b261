package cpu

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"sertrace/scene"
)

// benchScene is a Sponza-sized single mesh: a bumpy ground and a grid of
// displaced spheres, 2·128² + 16·2·64·128 = 294,912 triangles, the kind of
// spatial spread that stresses a BVH (big and small triangles, occlusion).
func benchScene() *scene.Scene {
	m := scene.Mesh{Bounds: scene.EmptyBounds()}
	grid := func(n, k int, at func(u, v float64) scene.Vec3) {
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
	grid(128, 128, func(u, v float64) scene.Vec3 {
		x, z := 20*u-10, 20*v-10
		return scene.Vec3{float32(x), float32(0.3 * math.Sin(x) * math.Cos(z)), float32(z)}
	})
	for s := 0; s < 16; s++ {
		cx, cz := float64(s%4)*4-6, float64(s/4)*4-6
		grid(128, 64, func(u, v float64) scene.Vec3 {
			th, ph := math.Pi*v, 2*math.Pi*u
			r := 1.2 + 0.1*math.Sin(8*ph)*math.Sin(6*th)
			return scene.Vec3{float32(cx + r*math.Sin(th)*math.Cos(ph)), float32(1.5 + r*math.Cos(th)), float32(cz + r*math.Sin(th)*math.Sin(ph))}
		})
	}
	for _, p := range m.Positions {
		m.Bounds.Extend(p)
	}
	return &scene.Scene{
		Meshes:    []scene.Mesh{m},
		Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity}},
		Materials: []scene.Material{scene.DefaultMaterial()},
	}
}

var benchCache struct {
	once                     sync.Once
	sc                       *scene.Scene
	acc                      *Accel
	primary, shadow, diffuse []Ray
}

// benchRays makes 2^16 primary rays from a camera above the scene, then from
// their hits shadow rays to a point light and cosine-distributed diffuse
// rays, as a path tracer's first bounce makes them.
func benchRays() {
	benchCache.once.Do(func() {
		sc := benchScene()
		acc := BuildAccel(sc, nil)
		rng := rand.New(rand.NewPCG(11, 12))
		eye, light := scene.Vec3{0, 8, 16}, scene.Vec3{4, 12, 2}
		m := &sc.Meshes[0]
		const n = 1 << 16
		for i := 0; i < n; i++ {
			x, y := float32(i%256)/256, float32(i/256)/256
			target := scene.Vec3{20*x - 10, 0, 20*y - 10}
			r := Ray{Origin: eye, Dir: target.Sub(eye).Normalize(), TMax: float32(math.Inf(1))}
			benchCache.primary = append(benchCache.primary, r)
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
			benchCache.shadow = append(benchCache.shadow, Ray{Origin: p, Dir: toL.Normalize(), TMin: 0, TMax: toL.Length()})
			// Cosine-weighted about the normal.
			u1, u2 := rng.Float64(), rng.Float64()
			rr, phi := math.Sqrt(u1), 2*math.Pi*u2
			tg := nrm.Cross(scene.Vec3{0.3, 0.5, 0.8}).Normalize()
			bt := nrm.Cross(tg)
			d := tg.Scale(float32(rr * math.Cos(phi))).Add(bt.Scale(float32(rr * math.Sin(phi)))).Add(nrm.Scale(float32(math.Sqrt(1 - u1))))
			benchCache.diffuse = append(benchCache.diffuse, Ray{Origin: p, Dir: d, TMax: float32(math.Inf(1))})
		}
		benchCache.sc, benchCache.acc = sc, acc
	})
}

// BenchmarkBuildBVH reports triangles built per second on all cores.
func BenchmarkBuildBVH(b *testing.B) {
	sc := benchScene()
	tris := sc.Meshes[0].TriangleCount()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buildGeometryBVH(sc, scene.GeometryRef{Kind: scene.Triangles})
	}
	b.ReportMetric(float64(tris)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mtris/s")
}

func benchTrace(b *testing.B, rays []Ray, occlusion bool, threads int) {
	acc := benchCache.acc
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	per := (len(rays) + threads - 1) / threads
	for i := 0; i < b.N; i++ {
		for w := 0; w < threads; w++ {
			wg.Add(1)
			go func(rs []Ray) {
				defer wg.Done()
				for k := range rs {
					if occlusion {
						acc.Occluded(&rs[k])
					} else {
						acc.Intersect(&rs[k])
					}
				}
			}(rays[min(w*per, len(rays)):min((w+1)*per, len(rays))])
		}
		wg.Wait()
	}
	b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
}

func BenchmarkTrace(b *testing.B) {
	benchRays()
	all := runtime.GOMAXPROCS(0)
	for _, c := range []struct {
		name      string
		rays      []Ray
		occlusion bool
	}{{"primary", benchCache.primary, false}, {"shadow", benchCache.shadow, true}, {"diffuse", benchCache.diffuse, false}} {
		b.Run(c.name+"/1-thread", func(b *testing.B) { benchTrace(b, c.rays, c.occlusion, 1) })
		b.Run(c.name+"/all-threads", func(b *testing.B) { benchTrace(b, c.rays, c.occlusion, all) })
	}
}
