package render

import (
	"fmt"
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// LightKind names what a light-table entry is.
type LightKind uint8

const (
	LightTriangle    LightKind = layout.LightTriangle    // one emissive triangle of an instance
	LightPunctual    LightKind = layout.LightPunctual    // a KHR_lights_punctual light
	LightEnvironment LightKind = layout.LightEnvironment // the environment
	LightSphere      LightKind = layout.LightSphere      // one emissive sphere of an instance's sphere set
)

// LightEntry is one light of the table.
type LightEntry struct {
	Kind     LightKind
	Instance int32
	Index    int32   // triangle, sphere or punctual light
	Area     float32 // world area of a triangle or sphere
	Trail    uint32  // its way from the light tree's root (layout.LightEntry.Trail)
}

// LightSampler is how next-event estimation chooses a light
// (--light-sampler).
type LightSampler string

const (
	// LightSamplerTree (the zero value, the default) chooses the bounded
	// lights by a light tree, by their estimated contribution at the
	// shading point; the infinite ones (the environment, directional
	// lights) by power against the tree's.
	LightSamplerTree LightSampler = ""
	// LightSamplerPower chooses every light by its estimated power alone.
	LightSamplerPower LightSampler = "power"
)

// ParseLightSampler resolves --light-sampler: tree (or empty) or power.
func ParseLightSampler(s string) (LightSampler, error) {
	switch s {
	case "", "tree":
		return LightSamplerTree, nil
	case "power":
		return LightSamplerPower, nil
	}
	return "", fmt.Errorf("unknown light sampler %q (tree or power)", s)
}

// LightTable is what every backend samples lights from, so they pick the
// same lights with the same random numbers. Its entries are every
// emissive triangle and sphere and punctual light, then the infinite
// lights (directional lights, the environment); an alias table chooses by
// estimated power (glTF's photometric light units used as relative
// radiometric ones) between the infinite lights and the light tree over
// the bounded ones, which chooses among them by their estimated
// contribution at the shading point (kernel.PickLight). With power
// sampling, or fewer than two bounded lights, there is no tree: every
// light is a column of its own.
type LightTable struct {
	Entries    []LightEntry
	Columns    []layout.LightColumn // the alias table
	Pdf        []float32            // per entry: the probability of its column (the tree's, for its lights)
	Tree       []layout.LightNode   // the light tree (BuildLightTree); empty: none
	FirstLight []int32              // per instance, the entry of its triangle or sphere 0, or −1
	EnvIndex   int32                // −1: no environment light
}

// EnvironmentPower is the average luminance arriving from an environment:
// the HDR map when there is one, else the constant colour.
func EnvironmentPower(env *EnvMap, color scene.Vec3) float32 {
	if env != nil {
		// (1/4π)∫L dω = (1/4π)∫L·2π² sin θ du dv = (π/2)·∫L sin θ du dv.
		return env.Power() * math.Pi / 2
	}
	return luminance3(color.X, color.Y, color.Z)
}

// NewLightTable builds the light table of a scene whose environment has
// the given power (EnvironmentPower), choosing lights as sampler says.
func NewLightTable(sc *scene.Scene, envPower float32, sampler LightSampler) *LightTable {
	ls := &LightTable{FirstLight: make([]int32, len(sc.Instances)), EnvIndex: -1}
	var power []float64
	var bounds []LightBounds // per bounded entry
	for i, in := range sc.Instances {
		ls.FirstLight[i] = -1
		mat := &sc.Materials[in.Material]
		// Alpha-tested emitters are left to BSDF sampling (MIS weight 1):
		// light sampling would pick points in their holes.
		if !mat.Emits() || mat.AlphaTested() {
			continue
		}
		w := AffineOf(in.Transform)
		lum := luminance3(mat.Emissive.X, mat.Emissive.Y, mat.Emissive.Z)
		if in.Geometry.Kind == scene.Spheres {
			// Emissive spheres are sampled by the solid angle they subtend
			// (SampleSphere). Textured ones, and those an instance stretches
			// into ellipsoids, are left to BSDF sampling.
			scale, ok := w.UniformScale()
			if !ok || mat.EmissiveTexture.Valid() {
				continue
			}
			set := &sc.SphereSets[in.Geometry.Index]
			ls.FirstLight[i] = int32(len(ls.Entries))
			for k, r := range set.Radii {
				a := float32(0)
				if r > 0 && !math.IsInf(float64(r), 0) {
					a = 4 * math.Pi * (r * scale) * (r * scale)
				}
				ls.Entries = append(ls.Entries, LightEntry{Kind: LightSphere, Instance: int32(i), Index: int32(k), Area: a})
				power = append(power, math.Pi*float64(a)*float64(lum))
				box := scene.EmptyBounds()
				box.ExtendBall(w.Point(set.Centers[k]), r*scale)
				bounds = append(bounds, LightBounds{Box: box, Phi: power[len(power)-1], Axis: [3]float64{0, 0, 1}, CosO: -1, CosE: 0})
			}
			continue
		}
		if in.Geometry.Kind != scene.Triangles {
			continue // emissive hair is left to BSDF sampling
		}
		m := &sc.Meshes[in.Geometry.Index]
		ls.FirstLight[i] = int32(len(ls.Entries))
		sides := 1.0
		if mat.DoubleSided {
			sides = 2
		}
		inv := AffineInverse(in.Transform)
		for t := 0; t < m.TriangleCount(); t++ {
			o0, o1, o2 := m.Positions[m.Indices[3*t]], m.Positions[m.Indices[3*t+1]], m.Positions[m.Indices[3*t+2]]
			p0, p1, p2 := w.Point(o0), w.Point(o1), w.Point(o2)
			a := p1.Sub(p0).Cross(p2.Sub(p0)).Length() / 2
			ls.Entries = append(ls.Entries, LightEntry{Kind: LightTriangle, Instance: int32(i), Index: int32(t), Area: a})
			power = append(power, math.Pi*sides*float64(a)*float64(lum))
			box := scene.EmptyBounds()
			box.Extend(p0)
			box.Extend(p1)
			box.Extend(p2)
			axis := frontNormal(&inv, o1.Sub(o0).Cross(o2.Sub(o0)))
			bounds = append(bounds, LightBounds{Box: box, Phi: power[len(power)-1], Axis: axis, CosO: 1, CosE: 0, TwoSided: mat.DoubleSided,
				Planar: !mat.DoubleSided && a > 0 && dot3(axis, axis) > 0.5, Plane: dot3(axis, [3]float64{float64(p0.X), float64(p0.Y), float64(p0.Z)})})
		}
	}
	radius := float64(sc.Bounds.Max.Sub(sc.Bounds.Min).Length() / 2)
	if sc.Bounds.Empty() {
		radius = 1
	}
	punctual := func(directional bool) {
		for k, l := range sc.Lights {
			if (l.Kind == scene.DirectionalLight) != directional {
				continue
			}
			i := float64(l.Intensity * luminance3(l.Color.X, l.Color.Y, l.Color.Z))
			lb := LightBounds{Phi: 4 * math.Pi * i, Axis: [3]float64{0, 0, 1}, CosO: -1, CosE: 0}
			switch l.Kind {
			case scene.SpotLight:
				d := l.Direction.Normalize()
				lb.Phi = 2 * math.Pi * (1 - math.Cos(float64(l.OuterCone))) * i
				lb.Axis, lb.CosO, lb.CosE = [3]float64{float64(d.X), float64(d.Y), float64(d.Z)}, 1, math.Cos(float64(l.OuterCone))
			case scene.DirectionalLight:
				lb.Phi = math.Pi * radius * radius * i
			}
			lb.Box = scene.Bounds{Min: l.Position, Max: l.Position}
			ls.Entries = append(ls.Entries, LightEntry{Kind: LightPunctual, Index: int32(k)})
			power = append(power, lb.Phi)
			if !directional {
				bounds = append(bounds, lb)
			}
		}
	}
	punctual(false)
	bounded := len(ls.Entries)
	punctual(true)
	if envPower > 0 {
		ls.EnvIndex = int32(len(ls.Entries))
		ls.Entries = append(ls.Entries, LightEntry{Kind: LightEnvironment})
		power = append(power, 4*math.Pi*math.Pi*radius*radius*float64(envPower))
	}
	// The bounded lights that give light. Two or more make a tree, even
	// one mesh's triangles: a tree of kernel.LightTreeFlat lights or fewer
	// is read whole, each light weighed at the shading point, which on
	// the shared CornellBox's lamp (its bottom and four thin sides) leaves
	// 2.9 times less noise a sample than choosing by power, for 1.5 times
	// the time (benchmarks/results/cpu-amd-epyc-2vcpu/light-tree.md).
	var tree []int32
	for k := range bounded {
		if power[k] > 0 {
			tree = append(tree, int32(k))
		}
	}
	if sampler == LightSamplerPower || len(tree) < 2 {
		ls.Columns, ls.Pdf = BuildAlias(power)
	} else {
		// One column for the tree, with the bounded lights' power, then
		// one for each infinite light.
		var treePower float64
		for _, k := range tree {
			treePower += power[k]
		}
		cols, pdf := BuildAlias(append([]float64{treePower}, power[bounded:]...))
		ls.Columns = cols
		ls.Columns[0].Entry = -1
		for c := 1; c < len(cols); c++ {
			ls.Columns[c].Entry = int32(bounded + c - 1)
		}
		ls.Pdf = make([]float32, len(power))
		for _, k := range tree {
			ls.Pdf[k] = pdf[0]
		}
		copy(ls.Pdf[bounded:], pdf[1:])
		var trails []uint32
		ls.Tree, trails = BuildLightTree(bounds, tree)
		for _, k := range tree {
			ls.Entries[k].Trail = trails[k]
		}
	}
	if ls.Columns == nil {
		ls.Entries = nil // no power at all: no lights
	}
	return ls
}

// frontNormal is the unit world normal of an object-space face normal n
// (unnormalised) as Shade decides a face's front: by the normal matrix,
// the transpose of the world-to-object transform inv.
func frontNormal(inv *Affine, n scene.Vec3) [3]float64 {
	x := float64(inv[0])*float64(n.X) + float64(inv[4])*float64(n.Y) + float64(inv[8])*float64(n.Z)
	y := float64(inv[1])*float64(n.X) + float64(inv[5])*float64(n.Y) + float64(inv[9])*float64(n.Z)
	z := float64(inv[2])*float64(n.X) + float64(inv[6])*float64(n.Y) + float64(inv[10])*float64(n.Z)
	l := math.Sqrt(x*x + y*y + z*z)
	if !(l > 0) {
		return [3]float64{0, 0, 1} // a degenerate triangle: never sampled
	}
	return [3]float64{x / l, y / l, z / l}
}

// BuildAlias makes Vose's alias table over the columns' powers, each
// column its own entry, and the probability of each; columns with no power
// are never picked. With no power at all, there is no table (nil).
func BuildAlias(power []float64) ([]layout.LightColumn, []float32) {
	n := len(power)
	var total float64
	for _, p := range power {
		total += p
	}
	if !(total > 0) {
		return nil, make([]float32, n)
	}
	cols, pdf := make([]layout.LightColumn, n), make([]float32, n)
	scaled := make([]float64, n)
	var small, large []int32
	for i, p := range power {
		cols[i].Entry = int32(i)
		pdf[i] = float32(p / total)
		scaled[i] = p / total * float64(n)
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		cols[s].Prob, cols[s].Alias = float32(scaled[s]), l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large, small = large[:len(large)-1], append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		cols[i].Prob, cols[i].Alias = 1, i
	}
	return cols, pdf
}
