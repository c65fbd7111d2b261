package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/render/internal/furnace"
	"sertrace/render/kernel"
	"sertrace/scene"
)

// selfHits aims rays at a straight strand from around it, shades each hit as
// the path tracer does, and from there traces n continuation rays as the
// hair BSDF makes them: reflected (outward) and transmitted (into the
// strand, from an origin on its inner side). It returns how many
// continuation rays were traced, and how many met the strand again, within
// reach of a joint (a segment's end) and elsewhere.
func selfHits(t *testing.T, acc *Accel, sc *scene.Scene, rng *rand.Rand, n int) (rays, atJoints, elsewhere int) {
	t.Helper()
	c := &sc.CurveSets[0]
	first, last := c.Positions[0], c.Positions[len(c.Positions)-1]
	axis := last.Sub(first).Normalize()
	length := last.Sub(first).Length()
	rmax := max(c.Radii[0], c.Radii[len(c.Radii)-1])
	side := kernel.NewFrame(axis)
	random := func() scene.Vec3 {
		for {
			d := scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1}
			if l := d.Dot(d); l > 0.01 && l <= 1 {
				return d.Normalize()
			}
		}
	}
	for rays < n {
		// Aim at a point on the axis, away from the tube's rounded ends,
		// from a few radii off, in a random direction across it.
		target := first.Add(axis.Scale(length * (0.05 + 0.9*rng.Float32())))
		phi := 2 * math.Pi * rng.Float64()
		across := side.T.Scale(float32(math.Cos(phi))).Add(side.B.Scale(float32(math.Sin(phi))))
		from := target.Add(across.Scale(8 * rmax)).Add(axis.Scale(rmax * (rng.Float32()*8 - 4)))
		ray := Ray{Origin: from, Dir: target.Sub(from).Normalize(), TMax: float32(math.Inf(1))}
		h, ok := acc.Intersect(&ray)
		if !ok {
			t.Fatalf("a ray aimed at the strand's axis missed it: %+v", ray)
		}
		var s kernel.Surface
		acc.shadeAt(&s, &h, &ray)
		nearJoint := (h.U < 0.5 && c.Joins[h.Prim]&scene.JoinedPrev != 0) || (h.U >= 0.5 && c.Joins[h.Prim]&scene.JoinedNext != 0)
		for k := 0; k < 8; k++ {
			w := random()
			out := Ray{Origin: s.OriginToward(w), Dir: w, TMax: float32(math.Inf(1))}
			rays++
			if _, hit := acc.Intersect(&out); hit {
				if nearJoint {
					atJoints++
				} else {
					elsewhere++
				}
			}
		}
	}
	return rays, atJoints, elsewhere
}

// A chain of swept spheres is the one smooth tube it draws: light leaving
// it, outward or through it, never meets it again, at a joint or along a
// segment, short or long, on either tracer (the closed form: a straight
// tube, tapered or not, is convex).
func TestChainedStrandDoesNotShadowItself(t *testing.T) {
	cases := []struct {
		name        string
		n           int
		seg, r0, r1 float32
		start, axis scene.Vec3
	}{
		{"constant radius, segments of 4 radii", 16, 0.04, 0.01, 0.01, scene.Vec3{X: 0.3, Y: -0.2, Z: 0.5}, scene.Vec3{X: 1, Y: 0.3, Z: -0.2}},
		{"tapered, segments of 2 radii", 16, 0.02, 0.012, 0.004, scene.Vec3{X: -1.1, Y: 0.4, Z: 0.2}, scene.Vec3{X: 0.2, Y: 1, Z: 0.4}},
		{"short segments, a third of the radius", 60, 0.003, 0.01, 0.01, scene.Vec3{X: 0.1, Y: 0.1, Z: 0.1}, scene.Vec3{X: 0.5, Y: -0.3, Z: 1}},
		{"thin hair, segments of 40 radii", 12, 0.002, 5e-5, 3e-5, scene.Vec3{X: 0.8, Y: 1.2, Z: -0.6}, scene.Vec3{X: -0.3, Y: 1, Z: 0.1}},
		{"one long segment of 240 radii", 1, 2.4, 0.01, 0.01, scene.Vec3{X: -1.2, Y: 0.3, Z: 0.1}, scene.Vec3{X: 1, Y: 0.05, Z: 0.02}},
		{"long segments of 60 radii", 4, 0.6, 0.01, 0.01, scene.Vec3{X: -1.2, Y: 0.3, Z: 0.1}, scene.Vec3{X: 1, Y: 0.05, Z: 0.02}},
	}
	for _, c := range cases {
		for _, tracer := range []string{"bvh", "embree"} {
			t.Run(c.name+"/"+tracer, func(t *testing.T) {
				sc := furnace.Strand(c.start, c.axis, c.n, c.seg, c.r0, c.r1)
				acc := BuildAccel(sc, nil)
				if tracer == "embree" {
					embreeOrSkip(t)
					var err error
					if acc, _, _, err = NewAccel(sc, nil, "embree"); err != nil {
						t.Fatal(err)
					}
					defer acc.Release()
				}
				rays, atJoints, elsewhere := selfHits(t, acc, sc, rand.New(rand.NewPCG(7, 11)), 16000)
				t.Logf("%d rays leaving the strand: %d met it again from next to a joint, %d from elsewhere", rays, atJoints, elsewhere)
				if atJoints+elsewhere > 0 {
					t.Errorf("%d of %d rays leaving a straight strand met it again (%d from next to a joint)", atJoints+elsewhere, rays, atJoints)
				}
			})
		}
	}
}

// A straight strand drawn as a chain of segments renders as the same strand
// drawn as one segment (furnace.BandsScene: depth 1, lit from behind):
// where light passing through the strand near a joint met the chain's kept
// end caps, the chain showed dark bands (15σ in a column).
func TestChainedStrandHasNoBands(t *testing.T) {
	for _, tracer := range []string{"bvh", "embree"} {
		t.Run(tracer, func(t *testing.T) {
			if tracer == "embree" {
				embreeOrSkip(t)
			}
			one, opts := furnace.BandsScene(1)
			chain, _ := furnace.BandsScene(8)
			opts.Accel = tracer
			worst, col, mean := furnace.BandColumns(renderFilm(t, one, opts), renderFilm(t, chain, opts))
			t.Logf("the strand's columns sum to %.2f on average; the worst column (%d of %d) differs by %.1fσ", mean, col, opts.Width, worst)
			if !(worst <= 5) {
				t.Errorf("column %d of the chained strand differs from the single segment's by %.1fσ: bands at the joints", col, worst)
			}
		})
	}
}
