package cpu

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"sertrace/internal/sharedscenes"
	"sertrace/render"
	"sertrace/render/cpu/embree"
	"sertrace/render/kernel"
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

// benchStream is how many rays one call traces: a wave of a 16×16 tile at
// 16 samples per pixel.
const benchStream = 4096

func benchTrace(b *testing.B, rays []Ray, occlusion bool, threads int) {
	acc := benchCache.acc
	// Each thread's hits, found once (the renderer's workers keep theirs).
	hits := make([][]Hit, threads)
	found := make([][]bool, threads)
	for w := range threads {
		hits[w], found[w] = make([]Hit, benchStream), make([]bool, benchStream)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	per := (len(rays) + threads - 1) / threads
	for i := 0; i < b.N; i++ {
		for w := 0; w < threads; w++ {
			wg.Add(1)
			go func(rs []Ray, hits []Hit, found []bool) {
				defer wg.Done()
				// In streams of a wave's size, as the renderer traces them.
				for lo := 0; lo < len(rs); lo += benchStream {
					batch := rs[lo:min(lo+benchStream, len(rs))]
					if occlusion {
						acc.OccludedAll(batch, found)
					} else {
						acc.IntersectAll(batch, hits, found, false)
					}
				}
			}(rays[min(w*per, len(rays)):min((w+1)*per, len(rays))], hits[w], found[w])
		}
		wg.Wait()
	}
	b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
}

func BenchmarkTrace(b *testing.B) {
	benchRays()
	b.Logf("CPU: %s; the BVH by %s", ModelName(), Traversal())
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

// BenchmarkRender renders generated scenes end to end on one thread and
// reports samples per second of rendering (the build of the acceleration
// structure excluded, as the render's statistics count it):
// shading, sampling, reordering and film accumulation as well as tracing.
// cornell-lambert is the Cornell box with every surface Lambertian (the
// comparison with Cycles' Diffuse BSDF in benchmarks/cycles).
func BenchmarkRender(b *testing.B) {
	for _, name := range []string{"cornell-lambert", "cornell", "hair", "particles", "hairy-cornell"} {
		sc, err := scene.Generate(strings.TrimSuffix(name, "-lambert"))
		if err != nil {
			b.Fatal(err)
		}
		if strings.HasSuffix(name, "-lambert") {
			for i := range sc.Materials {
				sc.Materials[i].Metallic, sc.Materials[i].Specular = 0, 0
			}
		}
		for _, accel := range []string{render.AccelEmbree, render.AccelBVH} {
			b.Run(name+"/"+accel, func(b *testing.B) {
				opts := render.Options{Width: 64, Height: 64, SPP: 16, MaxDepth: 16, Threads: 1, Accel: accel, EnvColor: [3]float32{0.3, 0.3, 0.3}}
				if _, err := embree.Open(); accel == render.AccelEmbree && err != nil {
					b.Skip(err)
				}
				b.ReportAllocs()
				var seconds float64
				for b.Loop() {
					film := render.NewFilm(opts.Width, opts.Height)
					stats, err := render.Render(context.Background(), (Backend{}), sc, opts, film, nil)
					if err != nil {
						b.Fatal(err)
					}
					seconds += stats.RenderSeconds
				}
				b.ReportMetric(float64(opts.Width*opts.Height*opts.SPP)*float64(b.N)/seconds, "samples/s")
			})
		}
	}
}

// BenchmarkSampleLight reports next-event estimation's light sample (the
// pick, the point, its pdf) at points spread over a scene, by the light
// tree and by power alone: on the many-lights room (272 lights) and on
// the shared CornellBox (a lamp of 10 triangles).
func BenchmarkSampleLight(b *testing.B) {
	scenes := map[string]func() (*scene.Scene, error){
		"many-lights": func() (*scene.Scene, error) { return scene.Generate("many-lights") },
		"CornellBox": func() (*scene.Scene, error) {
			dir, ok := sharedscenes.Find()
			if !ok {
				return nil, fmt.Errorf("no ../shared/scenes")
			}
			return scene.Load(filepath.Join(dir, "CornellBox", "cornellBox-2.80-Eevee-gltf.gltf"))
		},
	}
	for _, name := range []string{"many-lights", "CornellBox"} {
		sc, err := scenes[name]()
		if err != nil {
			b.Logf("%s: %v", name, err)
			continue
		}
		acc := BuildAccel(sc, nil)
		rng := rand.New(rand.NewPCG(3, 4))
		points := make([]scene.Vec3, 1024)
		ext := sc.Bounds.Max.Sub(sc.Bounds.Min)
		for i := range points {
			points[i] = sc.Bounds.Min.Add(scene.Vec3{X: ext.X * rng.Float32(), Y: ext.Y * rng.Float32(), Z: ext.Z * rng.Float32()})
		}
		for _, sampler := range []render.LightSampler{render.LightSamplerTree, render.LightSamplerPower} {
			ls := newLightSampler(acc, environment{}, sampler, nil)
			b.Run(fmt.Sprintf("%s/%s", name, map[render.LightSampler]string{render.LightSamplerTree: "tree", render.LightSamplerPower: "power"}[sampler]), func(b *testing.B) {
				var out kernel.LightSample
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					kernel.SampleLight(ls, &out, points[i%len(points)], rng.Float32(), rng.Float32(), rng.Float32(), rng.Float32())
				}
			})
		}
	}
}
