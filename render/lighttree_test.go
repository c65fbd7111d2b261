package render

import (
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/render/layout"
	"sertrace/scene"
)

// randomTriangleBounds are the bounds of n small one-sided triangles of
// random normals in a cube of side 10, of power 1 to e.
func randomTriangleBounds(n int) []LightBounds {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]LightBounds, n)
	for i := range out {
		c := scene.Vec3{X: 10 * rng.Float32(), Y: 10 * rng.Float32(), Z: 10 * rng.Float32()}
		box := scene.EmptyBounds()
		box.ExtendBall(c, 0.01)
		z := 2*rng.Float64() - 1
		phi := 2 * math.Pi * rng.Float64()
		r := math.Sqrt(1 - z*z)
		out[i] = LightBounds{Box: box, Phi: math.Exp(rng.Float64()), Axis: [3]float64{r * math.Cos(phi), r * math.Sin(phi), z}, CosO: 1}
	}
	return out
}

// TestLightTreeTrails: every light of the tree is the leaf its trail
// leads to, no trail is longer than layout.LightTreeDepth, lights of no
// power stay out, and a tree of lights all at one point (which no split
// separates) is halved by count.
func TestLightTreeTrails(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bounds []LightBounds
	}{
		{"random", randomTriangleBounds(5000)},
		{"one point", func() []LightBounds {
			b := randomTriangleBounds(3000)
			for i := range b {
				b[i].Box = scene.Bounds{Min: scene.Vec3{X: 1, Y: 2, Z: 3}, Max: scene.Vec3{X: 1, Y: 2, Z: 3}}
			}
			return b
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lights []int32
			for k := range tc.bounds {
				if k%10 != 3 {
					lights = append(lights, int32(k))
				}
			}
			nodes, trails := BuildLightTree(tc.bounds, lights)
			if len(nodes) != len(lights)-1 {
				t.Fatalf("%d nodes for %d lights", len(nodes), len(lights))
			}
			deepest := 0
			for _, k := range lights {
				n := nodes[0]
				for d := 0; ; d++ {
					if d >= layout.LightTreeDepth {
						t.Fatalf("light %d: its trail goes past %d levels", k, d)
					}
					c := n.A
					if trails[k]>>d&1 != 0 {
						c = n.B
					}
					if c.Flags&layout.LightChildLeaf != 0 {
						if int32(c.Next) != k {
							t.Fatalf("light %d: its trail leads to light %d", k, c.Next)
						}
						deepest = max(deepest, d+1)
						break
					}
					n = nodes[c.Next]
				}
			}
			if tc.name == "one point" && deepest != 12 {
				t.Errorf("2700 lights at one point halved by count: %d levels, want 12", deepest)
			}
			t.Logf("%d levels", deepest)
		})
	}
}

// BenchmarkBuildLightTree reports lights built into a tree per second.
func BenchmarkBuildLightTree(b *testing.B) {
	bounds := randomTriangleBounds(100000)
	lights := make([]int32, len(bounds))
	for k := range lights {
		lights[k] = int32(k)
	}
	for b.Loop() {
		BuildLightTree(bounds, lights)
	}
	b.ReportMetric(float64(len(lights))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mlights/s")
}
