package main

import (
	"math"
	"os"
	"path/filepath"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// hairFile names the strands beside the prepared scene: Blender's glTF
// importer reads LINES as bare edges, so cycles.py builds them as hair
// curves from this file, and the scene it imports has no lines.
const hairFile = "hair.json"

// cyclesFile is the prepared scene without its lines, for Cycles.
const cyclesFile = "cycles.gltf"

// defaultHairCut is how many pieces each linear segment is cut into for
// Cycles (settings.HairCut), whose round curves are Catmull-Rom splines:
// through a straight line's points cut in eight, a spline strays from it
// only next to the joints, where it rounds the corner a bent strand makes.
const defaultHairCut = 8

// hairGroup is one hair material's strands, in world space, with the
// Principled Hair BSDF's parameters (its absorption parametrisation: σ_a
// as sertrace computes it from melanin or a colour, so no remapping of
// melanin is needed; Cycles' cuticle tilt, Offset, has the opposite sign).
type hairGroup struct {
	SigmaA          [3]float32  `json:"sigma_a"`
	Roughness       float32     `json:"roughness"`        // β_m
	RadialRoughness float32     `json:"radial_roughness"` // β_n
	Offset          float32     `json:"offset"`           // radians
	IOR             float32     `json:"ior"`
	Strands         [][]float32 `json:"strands"` // x, y, z, radius per point
}

// hairStats says how far Cycles' splines through the densified points stray
// from sertrace's straight segments: the mean and largest distance, in units
// of the strand's radius there, over points along the splines.
type hairStats struct {
	Strands, Segments   int
	Cut                 int // the pieces each segment was cut in
	MeanStray, MaxStray float64
}

// exportHair writes the scene's hair strands for cycles.py, each segment cut
// in densify pieces, and says how many there are and how far the splines
// stray.
func exportHair(sc *scene.Scene, dir string, densify int) (hairStats, error) {
	if densify < 1 {
		densify = defaultHairCut
	}
	st := hairStats{Cut: densify}
	groups := map[int]*hairGroup{}
	var order []int
	var strayed float64
	samples := 0
	for _, in := range sc.Instances {
		mat := &sc.Materials[in.Material]
		if in.Geometry.Kind != scene.SweptSpheres || mat.Hair == nil {
			continue
		}
		g := groups[in.Material]
		if g == nil {
			hp := kernel.ResolveHair(layout.PackHair(mat.Hair))
			g = &hairGroup{SigmaA: [3]float32{hp.SigmaA.X, hp.SigmaA.Y, hp.SigmaA.Z}, Roughness: hp.BetaM, RadialRoughness: hp.BetaN,
				Offset: -hp.Alpha * math.Pi / 180, IOR: hp.Eta}
			groups[in.Material] = g
			order = append(order, in.Material)
		}
		toWorld := render.AffineOf(in.Transform)
		scale, _ := toWorld.UniformScale()
		c := &sc.CurveSets[in.Geometry.Index]
		for first := 0; first < len(c.Segments); {
			last := first
			for last+1 < len(c.Segments) && c.Joins[last+1]&scene.JoinedPrev != 0 {
				last++
			}
			var pts []scene.Vec3
			var radii []float32
			for s := first; s <= last; s++ {
				v := c.Segments[s]
				a, b := toWorld.Point(c.Positions[v]), toWorld.Point(c.Positions[v+1])
				ra, rb := c.Radii[v]*scale, c.Radii[v+1]*scale
				for k := 0; k < densify; k++ {
					f := float32(k) / float32(densify)
					pts = append(pts, a.Add(b.Sub(a).Scale(f)))
					radii = append(radii, ra+(rb-ra)*f)
				}
				if s == last {
					pts, radii = append(pts, b), append(radii, rb)
				}
			}
			strand := make([]float32, 0, 4*len(pts))
			for i, p := range pts {
				strand = append(strand, p.X, p.Y, p.Z, radii[i])
			}
			g.Strands = append(g.Strands, strand)
			d, n, m := splineStray(pts, radii, densify)
			strayed, samples, st.MaxStray = strayed+d, samples+n, max(st.MaxStray, m)
			st.Strands++
			st.Segments += last - first + 1
			first = last + 1
		}
	}
	if st.Strands == 0 {
		return st, nil
	}
	st.MeanStray = strayed / float64(samples)
	out := make([]*hairGroup, 0, len(order))
	for _, m := range order {
		out = append(out, groups[m])
	}
	return st, writeJSON(filepath.Join(dir, hairFile), map[string]any{"groups": out, "cut": densify})
}

// splineStray samples the uniform Catmull-Rom spline through pts (its ends'
// tangents from their own span, as Blender's curves take them) and sums each
// sample's distance from the polyline, in units of the radius there: the sum,
// the number of samples and the largest.
func splineStray(pts []scene.Vec3, radii []float32, densify int) (sum float64, n int, worst float64) {
	at := func(i int) scene.Vec3 { return pts[min(max(i, 0), len(pts)-1)] }
	for i := 0; i+1 < len(pts); i++ {
		p0, p1, p2, p3 := at(i-1), at(i), at(i+1), at(i+2)
		for k := 1; k < 8; k++ {
			t := float32(k) / 8
			t2, t3 := t*t, t*t*t
			q := p0.Scale(-t3 + 2*t2 - t).Add(p1.Scale(3*t3 - 5*t2 + 2)).Add(p2.Scale(-3*t3 + 4*t2 + t)).Add(p3.Scale(t3 - t2)).Scale(0.5)
			best := math.Inf(1)
			for j := 0; j+1 < len(pts); j += densify {
				best = min(best, float64(distToSegment(q, pts[j], pts[min(j+densify, len(pts)-1)])))
			}
			r := float64(radii[i] + (radii[i+1]-radii[i])*t)
			sum += best / r
			worst = max(worst, best/r)
			n++
		}
	}
	return sum, n, worst
}

func distToSegment(p, a, b scene.Vec3) float32 {
	ab := b.Sub(a)
	t := float32(0)
	if l := ab.Dot(ab); l > 0 {
		t = min(max(p.Sub(a).Dot(ab)/l, 0), 1)
	}
	return p.Sub(a.Add(ab.Scale(t))).Length()
}

// dropLines removes the line primitives (hair, which cycles.py builds from
// hairFile) from a glTF document's meshes; a mesh left with none goes, and
// its nodes no longer place it.
func dropLines(doc map[string]any) {
	meshes, _ := doc["meshes"].([]any)
	index := make([]int, len(meshes)) // old mesh index to new, −1 for gone
	var kept []any
	for i, m := range meshes {
		mm, _ := m.(map[string]any)
		prims, _ := mm["primitives"].([]any)
		var left []any
		for _, p := range prims {
			if mode, ok := p.(map[string]any)["mode"].(float64); ok && mode >= 1 && mode <= 3 {
				continue
			}
			left = append(left, p)
		}
		index[i] = -1
		if len(left) > 0 {
			mm["primitives"] = left
			index[i] = len(kept)
			kept = append(kept, mm)
		}
	}
	doc["meshes"] = kept
	nodes, _ := doc["nodes"].([]any)
	for _, n := range nodes {
		if nm, ok := n.(map[string]any); ok {
			if m, ok := nm["mesh"].(float64); ok {
				if int(m) >= 0 && int(m) < len(index) && index[int(m)] >= 0 {
					nm["mesh"] = float64(index[int(m)])
				} else {
					delete(nm, "mesh")
				}
			}
		}
	}
}

// cyclesScene is the scene file that Cycles reads: the prepared one without
// its lines where it has hair (prepare writes both), else the same.
func cyclesScene(prepared string) string {
	p := filepath.Join(filepath.Dir(prepared), cyclesFile)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return prepared
}

// removeHairFiles removes a stale hairFile and cyclesFile (a folder kept
// between runs).
func removeHairFiles(dir string) {
	os.Remove(filepath.Join(dir, hairFile))
	os.Remove(filepath.Join(dir, cyclesFile))
}
