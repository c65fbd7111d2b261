//go:build embree

package embree

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"sertrace/render/cpu"
	"sertrace/scene"
)

// TestAnchor prints Mrays/s of Embree and of sertrace for the same primary,
// shadow and diffuse rays on the same scene, one thread each, with the
// ratio; both must agree on how many rays hit.
func TestAnchor(t *testing.T) {
	sc := scene.BVHBenchmarkScene()
	acc := cpu.BuildAccel(sc, nil)
	if err := Build(sc); err != nil {
		t.Fatal(err)
	}
	primary, shadow, diffuse := cpu.BenchmarkRays(acc, 1<<16)
	fmt.Printf("%d triangles, one thread each\n", sc.Meshes[0].TriangleCount())
	fmt.Println("| rays | Embree 3 Mrays/s | sertrace Mrays/s | sertrace / Embree |")
	fmt.Println("| --- | --- | --- | --- |")
	for _, c := range []struct {
		name      string
		rays      []cpu.Ray
		occlusion bool
	}{{"primary", primary, false}, {"shadow", shadow, true}, {"diffuse", diffuse, false}} {
		packed := Pack(c.rays)
		ourTrace := func() int {
			hits := 0
			for k := range c.rays {
				var hit bool
				if c.occlusion {
					hit = acc.Occluded(&c.rays[k])
				} else {
					_, hit = acc.Intersect(&c.rays[k])
				}
				if hit {
					hits++
				}
			}
			return hits
		}
		// A warm-up each, then rounds that alternate the two; medians.
		Trace(packed, c.occlusion)
		ourTrace()
		const rounds = 5
		var eTimes, sTimes []float64
		var eHits, sHits int
		for i := 0; i < rounds; i++ {
			start := time.Now()
			eHits = Trace(packed, c.occlusion)
			eTimes = append(eTimes, time.Since(start).Seconds())
			start = time.Now()
			sHits = ourTrace()
			sTimes = append(sTimes, time.Since(start).Seconds())
		}
		embree := float64(len(c.rays)) / median(eTimes) / 1e6
		ours := float64(len(c.rays)) / median(sTimes) / 1e6
		fmt.Printf("| %s | %.2f | %.2f | %.2f |\n", c.name, embree, ours, ours/embree)
		if d := eHits - sHits; d > len(c.rays)/1000 || d < -len(c.rays)/1000 {
			t.Errorf("%s: Embree hits %d rays, sertrace %d", c.name, eHits, sHits)
		}
	}
}

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
