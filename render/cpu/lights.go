package cpu

import (
	"math"

	"sertrace/render"
	"sertrace/scene"
)

// lightKind names what a light-sampler entry is.
type lightKind uint8

const (
	lightTriangle    lightKind = iota // one emissive triangle of an instance
	lightPunctual                     // a KHR_lights_punctual light
	lightEnvironment                  // the constant-colour environment
)

type lightEntry struct {
	kind     lightKind
	instance int32
	index    int32 // triangle or punctual light
	area     float32
}

// lightSampler picks lights in proportion to their estimated power (an
// alias table over every emissive triangle, punctual light and the
// environment), for next-event estimation; pdfs for MIS come from it too.
// glTF's photometric light units are used as relative radiometric ones.
type lightSampler struct {
	entries  []lightEntry
	prob     []float32 // alias table: keep probability
	alias    []int32
	pdf      []float32 // selection probability of each entry
	firstTri []int32   // per instance, the entry of its triangle 0, or −1
	envIndex int32     // −1: no environment light
	env      environment
}

// environment is what the miss shader sees: a constant colour or an HDR map.
// With uniform set, the map is sampled uniformly over the sphere (the
// baseline importance sampling is measured against).
type environment struct {
	color   scene.Vec3
	hdr     *render.EnvMap
	uniform bool
}

func (e *environment) radiance(d scene.Vec3) scene.Vec3 {
	if e.hdr != nil {
		return e.hdr.Radiance(d)
	}
	return e.color
}

// pdf is the solid-angle density of sampling direction d.
func (e *environment) pdf(d scene.Vec3) float32 {
	if e.hdr != nil && !e.uniform {
		return e.hdr.Pdf(d)
	}
	return 1 / (4 * math.Pi)
}

func (e *environment) sample(u1, u2 float32) (d, radiance scene.Vec3, pdf float32) {
	if e.hdr != nil && !e.uniform {
		return e.hdr.Sample(u1, u2)
	}
	z := 1 - 2*u1
	r := sqrt32(1 - z*z)
	s, c := math.Sincos(2 * math.Pi * float64(u2))
	d = scene.Vec3{r * float32(c), r * float32(s), z}
	return d, e.radiance(d), 1 / (4 * math.Pi)
}

// power is the average luminance arriving from the environment.
func (e *environment) power() float32 {
	if e.hdr != nil {
		// (1/4π)∫L dω = (1/4π)∫L·2π² sin θ du dv = (π/2)·∫L sin θ du dv.
		return e.hdr.Power() * math.Pi / 2
	}
	return luminance(e.color)
}

func newLightSampler(acc *Accel, env environment) *lightSampler {
	sc := acc.scene
	ls := &lightSampler{firstTri: make([]int32, len(sc.Instances)), envIndex: -1, env: env}
	var power []float64
	for i, in := range sc.Instances {
		ls.firstTri[i] = -1
		mat := &sc.Materials[in.Material]
		// Alpha-masked emitters are left to BSDF sampling (MIS weight 1):
		// light sampling would pick points in their holes.
		if in.Geometry.Kind != scene.Triangles || !mat.Emits() || mat.AlphaMode == scene.AlphaMask {
			continue
		}
		m := &sc.Meshes[in.Geometry.Index]
		ls.firstTri[i] = int32(len(ls.entries))
		sides := 1.0
		if mat.DoubleSided {
			sides = 2
		}
		for t := 0; t < m.TriangleCount(); t++ {
			a := acc.triangleArea(i, t)
			ls.entries = append(ls.entries, lightEntry{kind: lightTriangle, instance: int32(i), index: int32(t), area: a})
			power = append(power, math.Pi*sides*float64(a)*float64(luminance(mat.Emissive)))
		}
	}
	radius := float64(sc.Bounds.Max.Sub(sc.Bounds.Min).Length() / 2)
	if sc.Bounds.Empty() {
		radius = 1
	}
	for k, l := range sc.Lights {
		i := float64(l.Intensity * luminance(l.Color))
		p := 4 * math.Pi * i
		switch l.Kind {
		case scene.SpotLight:
			p = 2 * math.Pi * (1 - math.Cos(float64(l.OuterCone))) * i
		case scene.DirectionalLight:
			p = math.Pi * radius * radius * i
		}
		ls.entries = append(ls.entries, lightEntry{kind: lightPunctual, index: int32(k)})
		power = append(power, p)
	}
	if p := env.power(); p > 0 {
		ls.envIndex = int32(len(ls.entries))
		ls.entries = append(ls.entries, lightEntry{kind: lightEnvironment})
		power = append(power, 4*math.Pi*math.Pi*radius*radius*float64(p))
	}
	ls.buildAlias(power)
	return ls
}

// buildAlias makes Vose's alias table; entries with no power are never picked.
func (ls *lightSampler) buildAlias(power []float64) {
	n := len(power)
	ls.prob, ls.alias, ls.pdf = make([]float32, n), make([]int32, n), make([]float32, n)
	var total float64
	for _, p := range power {
		total += p
	}
	if total <= 0 {
		ls.entries = nil
		return
	}
	scaled := make([]float64, n)
	var small, large []int32
	for i, p := range power {
		ls.pdf[i] = float32(p / total)
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
		ls.prob[s], ls.alias[s] = float32(scaled[s]), l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large, small = large[:len(large)-1], append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		ls.prob[i], ls.alias[i] = 1, i
	}
}

// pick chooses an entry: u picks the column, coin keeps it or takes its
// alias. (One number for both would leave the coin 2^24/n values.)
func (ls *lightSampler) pick(u, coin float32) int32 {
	k := min(int32(u*float32(len(ls.entries))), int32(len(ls.entries)-1))
	if coin < ls.prob[k] {
		return k
	}
	return ls.alias[k]
}

// lightSample is a sampled light direction and what arrives along it.
type lightSample struct {
	wi       scene.Vec3 // towards the light, unit
	dist     float32    // to the light point; +Inf for distant lights
	radiance scene.Vec3 // incident radiance (area lights) or irradiance / pdf terms folded in (delta lights)
	pdf      float32    // solid-angle pdf including selection; 0 for delta lights
	delta    bool
}

// sample draws a light point as seen from p, with numbers u and coin
// (which light) and u1, u2 (where on it).
func (ls *lightSampler) sample(acc *Accel, p scene.Vec3, u, coin, u1, u2 float32) (lightSample, bool) {
	if len(ls.entries) == 0 {
		return lightSample{}, false
	}
	k := ls.pick(u, coin)
	e := &ls.entries[k]
	sel := ls.pdf[k]
	if sel <= 0 {
		return lightSample{}, false
	}
	switch e.kind {
	case lightTriangle:
		q, n, le, ok := acc.sampleTriangle(int(e.instance), int(e.index), u1, u2)
		if !ok {
			return lightSample{}, false
		}
		d := q.Sub(p)
		dist := d.Length()
		if dist == 0 {
			return lightSample{}, false
		}
		wi := d.Scale(1 / dist)
		cosL := -n.Dot(wi)
		mat := &acc.scene.Materials[acc.scene.Instances[e.instance].Material]
		if mat.DoubleSided {
			cosL = float32(math.Abs(float64(cosL)))
		}
		if cosL <= 0 {
			return lightSample{}, false
		}
		return lightSample{wi: wi, dist: dist, radiance: le, pdf: sel / e.area * dist * dist / cosL}, true
	case lightEnvironment:
		d, le, pdf := ls.env.sample(u1, u2)
		if pdf <= 0 {
			return lightSample{}, false
		}
		return lightSample{wi: d, dist: float32(math.Inf(1)), radiance: le, pdf: sel * pdf}, true
	}
	l := &acc.scene.Lights[e.index]
	le := l.Color.Scale(l.Intensity / sel)
	if l.Kind == scene.DirectionalLight {
		return lightSample{wi: l.Direction.Scale(-1), dist: float32(math.Inf(1)), radiance: le, delta: true}, true
	}
	d := l.Position.Sub(p)
	dist := d.Length()
	if dist == 0 {
		return lightSample{}, false
	}
	wi := d.Scale(1 / dist)
	att := 1 / (dist * dist)
	if l.Kind == scene.SpotLight {
		// KHR_lights_punctual's smooth falloff between the cone angles.
		cosIn, cosOut := float32(math.Cos(float64(l.InnerCone))), float32(math.Cos(float64(l.OuterCone)))
		cd := l.Direction.Dot(wi.Scale(-1))
		f := clamp01((cd - cosOut) / max(cosIn-cosOut, 1e-4))
		att *= f * f
	}
	if att <= 0 {
		return lightSample{}, false
	}
	return lightSample{wi: wi, dist: dist, radiance: le.Scale(att), delta: true}, true
}

// pdfTriangle is the solid-angle pdf with which sample picks the point that
// a ray from p hit at distance t on an emissive triangle.
func (ls *lightSampler) pdfTriangle(h *Hit, cosL float32) float32 {
	first := ls.firstTri[h.Instance]
	if first < 0 || len(ls.entries) == 0 || cosL <= 0 {
		return 0
	}
	k := first + h.Prim
	return ls.pdf[k] / ls.entries[k].area * h.T * h.T / cosL
}

// pdfEnvironment is the solid-angle pdf of sampling the environment in
// direction d.
func (ls *lightSampler) pdfEnvironment(d scene.Vec3) float32 {
	if ls.envIndex < 0 || len(ls.entries) == 0 {
		return 0
	}
	return ls.pdf[ls.envIndex] * ls.env.pdf(d)
}

// triangleArea is a triangle's area in the world.
func (acc *Accel) triangleArea(inst, t int) float32 {
	m := &acc.scene.Meshes[acc.scene.Instances[inst].Geometry.Index]
	w := &acc.toWorld[inst]
	p0, p1, p2 := w.point(m.Positions[m.Indices[3*t]]), w.point(m.Positions[m.Indices[3*t+1]]), w.point(m.Positions[m.Indices[3*t+2]])
	return p1.Sub(p0).Cross(p2.Sub(p0)).Length() / 2
}

// sampleTriangle picks a uniform point on an emissive triangle: its world
// position, front-face normal and emitted radiance there.
func (acc *Accel) sampleTriangle(inst, t int, u1, u2 float32) (p, n, le scene.Vec3, ok bool) {
	sc := acc.scene
	m := &sc.Meshes[sc.Instances[inst].Geometry.Index]
	mat := &sc.Materials[sc.Instances[inst].Material]
	w := &acc.toWorld[inst]
	o0, o1, o2 := m.Positions[m.Indices[3*t]], m.Positions[m.Indices[3*t+1]], m.Positions[m.Indices[3*t+2]]
	p0, p1, p2 := w.point(o0), w.point(o1), w.point(o2)
	// The front face as shade decides it: object winding, normal matrix.
	n = normalToWorld(&acc.toObject[inst], o1.Sub(o0).Cross(o2.Sub(o0)))
	if n == (scene.Vec3{}) || p1.Sub(p0).Cross(p2.Sub(p0)) == (scene.Vec3{}) {
		return p, n, le, false
	}
	// Uniform on the triangle: barycentrics of p1 and p2 (p0 has the rest).
	su := sqrt32(u1)
	bu, bv := u2*su, su*(1-u2)
	p = p0.Add(p1.Sub(p0).Scale(bu)).Add(p2.Sub(p0).Scale(bv))
	uvs, _ := triangleAttributes(m, t, bu, bv)
	et := sampleTexture(sc, mat.EmissiveTexture, &uvs)
	le = scene.Vec3{mat.Emissive[0] * et[0], mat.Emissive[1] * et[1], mat.Emissive[2] * et[2]}
	return p, n, le, true
}
