package render

import (
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
}

// LightTable is what every backend samples lights from, so they pick the
// same lights with the same random numbers: an alias table over every
// emissive triangle and sphere, punctual light and the environment, in proportion to
// their estimated power. glTF's photometric light units are used as
// relative radiometric ones.
type LightTable struct {
	Entries    []LightEntry
	Prob       []float32 // alias table: keep probability
	Alias      []int32
	Pdf        []float32 // selection probability of each entry
	FirstLight []int32   // per instance, the entry of its triangle or sphere 0, or −1
	EnvIndex   int32     // −1: no environment light
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
// the given power (EnvironmentPower).
func NewLightTable(sc *scene.Scene, envPower float32) *LightTable {
	ls := &LightTable{FirstLight: make([]int32, len(sc.Instances)), EnvIndex: -1}
	var power []float64
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
		for t := 0; t < m.TriangleCount(); t++ {
			p0, p1, p2 := w.Point(m.Positions[m.Indices[3*t]]), w.Point(m.Positions[m.Indices[3*t+1]]), w.Point(m.Positions[m.Indices[3*t+2]])
			a := p1.Sub(p0).Cross(p2.Sub(p0)).Length() / 2
			ls.Entries = append(ls.Entries, LightEntry{Kind: LightTriangle, Instance: int32(i), Index: int32(t), Area: a})
			power = append(power, math.Pi*sides*float64(a)*float64(lum))
		}
	}
	radius := float64(sc.Bounds.Max.Sub(sc.Bounds.Min).Length() / 2)
	if sc.Bounds.Empty() {
		radius = 1
	}
	for k, l := range sc.Lights {
		i := float64(l.Intensity * luminance3(l.Color.X, l.Color.Y, l.Color.Z))
		p := 4 * math.Pi * i
		switch l.Kind {
		case scene.SpotLight:
			p = 2 * math.Pi * (1 - math.Cos(float64(l.OuterCone))) * i
		case scene.DirectionalLight:
			p = math.Pi * radius * radius * i
		}
		ls.Entries = append(ls.Entries, LightEntry{Kind: LightPunctual, Index: int32(k)})
		power = append(power, p)
	}
	if envPower > 0 {
		ls.EnvIndex = int32(len(ls.Entries))
		ls.Entries = append(ls.Entries, LightEntry{Kind: LightEnvironment})
		power = append(power, 4*math.Pi*math.Pi*radius*radius*float64(envPower))
	}
	ls.BuildAlias(power)
	return ls
}

// BuildAlias makes Vose's alias table over the entries' powers; entries
// with no power are never picked. With no power at all, the table is empty.
func (ls *LightTable) BuildAlias(power []float64) {

	n := len(power)
	ls.Prob, ls.Alias, ls.Pdf = make([]float32, n), make([]int32, n), make([]float32, n)
	var total float64
	for _, p := range power {
		total += p
	}
	if total <= 0 {
		ls.Entries = nil
		return
	}
	scaled := make([]float64, n)
	var small, large []int32
	for i, p := range power {
		ls.Pdf[i] = float32(p / total)
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
		ls.Prob[s], ls.Alias[s] = float32(scaled[s]), l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large, small = large[:len(large)-1], append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		ls.Prob[i], ls.Alias[i] = 1, i
	}
}

// Pick chooses an entry: u picks the column, coin keeps it or takes its
// alias. (One number for both would leave the coin 2^24/n values.)
func (ls *LightTable) Pick(u, coin float32) int32 {
	k := min(int32(u*float32(len(ls.Entries))), int32(len(ls.Entries)-1))
	if coin < ls.Prob[k] {
		return k
	}
	return ls.Alias[k]
}
