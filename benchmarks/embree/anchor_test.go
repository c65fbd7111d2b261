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
// ratios: sertrace's BVH and sertrace's calls into Embree (its --accel
// embree), both given the rays as the renderer gives them, in streams of a
// wave's size; and the primary rays again in packets of 8, as Embree takes
// a tile's camera rays. All must agree on how many rays hit.
func TestAnchor(t *testing.T) {
	sc := scene.BVHBenchmarkScene()
	acc := cpu.BuildAccel(sc, nil)
	if err := Build(sc); err != nil {
		t.Fatal(err)
	}
	viaEmbree, tracer, _, err := cpu.NewAccel(sc, nil, "embree")
	if err != nil {
		t.Fatal(err)
	}
	defer viaEmbree.Release()
	primary, shadow, diffuse := cpu.BenchmarkRays(acc, 1<<16)
	fmt.Printf("CPU: %s; sertrace's BVH by %s\n", cpu.ModelName(), cpu.Traversal())
	fmt.Printf("%d triangles, one thread each; sertrace's calls into %s in streams of %d rays\n", sc.Meshes[0].TriangleCount(), tracer, stream)
	fmt.Println("| rays | Embree 3 Mrays/s | sertrace BVH Mrays/s | BVH / Embree | sertrace via Embree Mrays/s | via Embree / Embree |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	// The last row: the primary rays in coherent packets of 8, by Embree's
	// rtcIntersect8 and by sertrace's calls for camera rays.
	for _, c := range []struct {
		name      string
		rays      []cpu.Ray
		occlusion bool
		packets   bool
	}{{"primary", primary, false, false}, {"shadow", shadow, true, false}, {"diffuse", diffuse, false, false}, {"primary, packets of 8", primary, false, true}} {
		packed := Pack(c.rays)
		embreeTrace := func() int {
			if c.packets {
				return Trace8(packed)
			}
			return Trace(packed, c.occlusion)
		}
		hits := make([]cpu.Hit, stream)
		found := make([]bool, stream)
		// sertrace traces a wave's rays in one call, with either tracer.
		streams := func(acc *cpu.Accel) int {
			n := 0
			for lo := 0; lo < len(c.rays); lo += stream {
				rays := c.rays[lo:min(lo+stream, len(c.rays))]
				if c.occlusion {
					acc.OccludedAll(rays, found)
				} else {
					acc.IntersectAll(rays, hits, found, c.packets)
				}
				for _, f := range found[:len(rays)] {
					if f {
						n++
					}
				}
			}
			return n
		}
		ourTrace := func() int { return streams(acc) }
		viaTrace := func() int { return streams(viaEmbree) }
		// A warm-up each, then rounds that alternate the three; medians.
		embreeTrace()
		ourTrace()
		viaTrace()
		const rounds = 5
		var eTimes, sTimes, vTimes []float64
		var eHits, sHits, vHits int
		for i := 0; i < rounds; i++ {
			start := time.Now()
			eHits = embreeTrace()
			eTimes = append(eTimes, time.Since(start).Seconds())
			start = time.Now()
			sHits = ourTrace()
			sTimes = append(sTimes, time.Since(start).Seconds())
			start = time.Now()
			vHits = viaTrace()
			vTimes = append(vTimes, time.Since(start).Seconds())
		}
		embree := float64(len(c.rays)) / median(eTimes) / 1e6
		ours := float64(len(c.rays)) / median(sTimes) / 1e6
		via := float64(len(c.rays)) / median(vTimes) / 1e6
		fmt.Printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", c.name, embree, ours, ours/embree, via, via/embree)
		for _, h := range []int{sHits, vHits} {
			if d := eHits - h; d > len(c.rays)/1000 || d < -len(c.rays)/1000 {
				t.Errorf("%s: Embree hits %d rays, sertrace %d", c.name, eHits, h)
			}
		}
	}
}

// stream is how many rays go to Embree in one call: a wave of a 16×16
// tile at 16 samples per pixel.
const stream = 4096

func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}
