package cpu

import (
	"runtime"
	"sync"
	"testing"

	"sertrace/scene"
)

var benchCache struct {
	once                     sync.Once
	sc                       *scene.Scene
	acc                      *Accel
	primary, shadow, diffuse []Ray
}

// benchRays builds the benchmark scene's accelerator and its rays once.
func benchRays() {
	benchCache.once.Do(func() {
		sc := scene.BVHBenchmarkScene()
		acc := BuildAccel(sc, nil)
		benchCache.primary, benchCache.shadow, benchCache.diffuse = BenchmarkRays(acc, 1<<16)
		benchCache.sc, benchCache.acc = sc, acc
	})
}

// BenchmarkBuildBVH reports triangles built per second on all cores.
func BenchmarkBuildBVH(b *testing.B) {
	sc := scene.BVHBenchmarkScene()
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
