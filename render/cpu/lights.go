package cpu

import (
	"math"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// lightSampler picks lights from the shared light table (an alias table
// over every emissive triangle and sphere, punctual light and the environment, in
// proportion to estimated power) for next-event estimation; pdfs for MIS
// come from it too.
type lightSampler struct {
	*render.LightTable
	env       environment
	triangles []emitter // per entry of the table: its triangle in world space, if it is one
}

// emitter is an emissive triangle ready to sample: in world space, its
// front-face normal, its material's emission (the texture's, where it has
// one, is looked up per sample).
type emitter struct {
	p0, e1, e2  scene.Vec3 // vertex 0 and the edges to vertices 1 and 2
	n           scene.Vec3 // unit front-face normal, as shade decides it (object winding, normal matrix)
	ok          bool       // not degenerate
	doubleSided bool
	textured    bool
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
	r := kernel.Sqrt32(1 - z*z)
	s, c := math.Sincos(2 * math.Pi * float64(u2))
	d = scene.Vec3{X: r * float32(c), Y: r * float32(s), Z: z}
	return d, e.radiance(d), 1 / (4 * math.Pi)
}

// power is the average luminance arriving from the environment.
func (e *environment) power() float32 { return render.EnvironmentPower(e.hdr, e.color) }

func newLightSampler(acc *Accel, env environment) *lightSampler {
	ls := &lightSampler{LightTable: render.NewLightTable(acc.scene, env.power()), env: env}
	sc := acc.scene
	ls.triangles = make([]emitter, len(ls.Entries))
	for k, e := range ls.Entries {
		if e.Kind != render.LightTriangle {
			continue
		}
		in := &sc.Instances[e.Instance]
		m, mat, w := &sc.Meshes[in.Geometry.Index], &sc.Materials[in.Material], &acc.toWorld[e.Instance]
		t := 3 * int(e.Index)
		o0, o1, o2 := m.Positions[m.Indices[t]], m.Positions[m.Indices[t+1]], m.Positions[m.Indices[t+2]]
		p0, p1, p2 := w.Point(o0), w.Point(o1), w.Point(o2)
		em := emitter{p0: p0, e1: p1.Sub(p0), e2: p2.Sub(p0), n: normalToWorld(&acc.toObject[e.Instance], o1.Sub(o0).Cross(o2.Sub(o0))),
			doubleSided: mat.DoubleSided, textured: mat.EmissiveTexture.Valid()}
		em.ok = em.n != (scene.Vec3{}) && em.e1.Cross(em.e2) != (scene.Vec3{})
		ls.triangles[k] = em
	}
	return ls
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
// (which light) and u1, u2 (where on it), into out (a large result is
// written in place: returned, it would be copied through the stack).
func (ls *lightSampler) sample(out *lightSample, acc *Accel, p scene.Vec3, u, coin, u1, u2 float32) bool {
	if len(ls.Entries) == 0 {
		return false
	}
	k := ls.Pick(u, coin)
	e := &ls.Entries[k]
	sel := ls.Pdf[k]
	if sel <= 0 {
		return false
	}
	switch e.Kind {
	case render.LightTriangle:
		t := &ls.triangles[k]
		if !t.ok {
			return false
		}
		// Uniform on the triangle: barycentrics of vertices 1 and 2.
		su := kernel.Sqrt32(u1)
		bu, bv := u2*su, su*(1-u2)
		q, n := t.p0.Add(t.e1.Scale(bu)).Add(t.e2.Scale(bv)), t.n
		mat := &acc.scene.Materials[acc.scene.Instances[e.Instance].Material]
		le := mat.Emissive
		if t.textured {
			uvs, _ := triangleAttributes(&acc.scene.Meshes[acc.scene.Instances[e.Instance].Geometry.Index], int(e.Index), bu, bv)
			et := sampleTexture(acc.scene, &mat.EmissiveTexture, &uvs)
			le = mat.Emissive.Mul3(et.XYZ())
		}
		d := q.Sub(p)
		dist := d.Length()
		if dist == 0 {
			return false
		}
		wi := d.Scale(1 / dist)
		cosL := -n.Dot(wi)
		if t.doubleSided {
			cosL = float32(math.Abs(float64(cosL)))
		}
		if cosL <= 0 {
			return false
		}
		*out = lightSample{wi: wi, dist: dist, radiance: le, pdf: sel / e.Area * dist * dist / cosL}
		return true
	case render.LightSphere:
		c, r := acc.sphereLight(e)
		wi, dist, pdf, ok := kernel.SampleSphere(p, c, r, u1, u2)
		if !ok {
			return false
		}
		mat := &acc.scene.Materials[acc.scene.Instances[e.Instance].Material]
		*out = lightSample{wi: wi, dist: dist, radiance: mat.Emissive, pdf: sel * pdf}
		return true
	case render.LightEnvironment:
		d, le, pdf := ls.env.sample(u1, u2)
		if pdf <= 0 {
			return false
		}
		*out = lightSample{wi: d, dist: float32(math.Inf(1)), radiance: le, pdf: sel * pdf}
		return true
	}
	l := &acc.scene.Lights[e.Index]
	le := l.Color.Scale(l.Intensity / sel)
	if l.Kind == scene.DirectionalLight {
		*out = lightSample{wi: l.Direction.Scale(-1), dist: float32(math.Inf(1)), radiance: le, delta: true}
		return true
	}
	d := l.Position.Sub(p)
	dist := d.Length()
	if dist == 0 {
		return false
	}
	wi := d.Scale(1 / dist)
	att := 1 / (dist * dist)
	if l.Kind == scene.SpotLight {
		// KHR_lights_punctual's smooth falloff between the cone angles.
		cosIn, cosOut := float32(math.Cos(float64(l.InnerCone))), float32(math.Cos(float64(l.OuterCone)))
		cd := l.Direction.Dot(wi.Scale(-1))
		f := kernel.Clamp01((cd - cosOut) / max(cosIn-cosOut, layout.SpotConeMin))
		att *= f * f
	}
	if att <= 0 {
		return false
	}
	*out = lightSample{wi: wi, dist: dist, radiance: le.Scale(att), delta: true}
	return true
}

// pdfEmitter is the solid-angle pdf with which sample picks the point that
// a ray from origin hit at distance t on an emissive triangle or sphere,
// whose normal there makes cosL with the way back.
func (ls *lightSampler) pdfEmitter(acc *Accel, h *Hit, origin scene.Vec3, cosL float32) float32 {
	first := ls.FirstLight[h.Instance]
	if first < 0 || len(ls.Entries) == 0 || cosL <= 0 {
		return 0
	}
	k := first + h.Prim
	e := &ls.Entries[k]
	if e.Kind == render.LightSphere {
		c, r := acc.sphereLight(e)
		toC := c.Sub(origin)
		omc, ok := kernel.SphereCone(toC.Dot(toC), r)
		if !ok {
			return 0
		}
		return ls.Pdf[k] / (2 * math.Pi * omc)
	}
	return ls.Pdf[k] / e.Area * h.T * h.T / cosL
}

// sphereLight is an emissive sphere's world centre and radius.
func (acc *Accel) sphereLight(e *render.LightEntry) (c scene.Vec3, r float32) {
	set := &acc.scene.SphereSets[acc.scene.Instances[e.Instance].Geometry.Index]
	return acc.toWorld[e.Instance].Point(set.Centers[e.Index]), kernel.Sqrt32(e.Area / (4 * math.Pi))
}

// pdfEnvironment is the solid-angle pdf of sampling the environment in
// direction d.
func (ls *lightSampler) pdfEnvironment(d scene.Vec3) float32 {
	if ls.EnvIndex < 0 || len(ls.Entries) == 0 {
		return 0
	}
	return ls.Pdf[ls.EnvIndex] * ls.env.pdf(d)
}
