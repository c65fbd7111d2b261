package cpu

import (
	"math"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// lightSampler is the CPU's kernel.Lights: the shared light table (an
// alias table over every emissive triangle and sphere, punctual light and
// the environment, in proportion to estimated power) and the emitters it
// names, which kernel.SampleLight samples for next-event estimation; the
// pdfs MIS needs come from it too.
type lightSampler struct {
	table     *render.LightTable
	acc       *Accel
	env       environment
	triangles []emitter      // per entry of the table: its triangle in world space, if it is one
	punctual  []layout.Light // the scene's punctual lights
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

// radiance, pdf and sample are the kernel's Environment functions of e.
func (e *environment) radiance(d scene.Vec3) scene.Vec3 {
	return kernel.EnvironmentRadiance(e.hdr, e.hdr != nil, e.color, d)
}

func (e *environment) pdf(d scene.Vec3) float32 {
	return kernel.EnvironmentPdf(e.hdr, e.hdr != nil && !e.uniform, d)
}

func (e *environment) sample(u1, u2 float32) (d, radiance scene.Vec3, pdf float32) {
	return kernel.EnvironmentSample(e.hdr, e.hdr != nil, e.hdr != nil && !e.uniform, e.color, u1, u2)
}

// power is the average luminance arriving from the environment.
func (e *environment) power() float32 { return render.EnvironmentPower(e.hdr, e.color) }

func newLightSampler(acc *Accel, env environment) *lightSampler {
	ls := &lightSampler{table: render.NewLightTable(acc.scene, env.power()), acc: acc, env: env}
	sc := acc.scene
	ls.triangles = make([]emitter, len(ls.table.Entries))
	for k, e := range ls.table.Entries {
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
	for i := range sc.Lights {
		ls.punctual = append(ls.punctual, layout.PackLight(&sc.Lights[i]))
	}
	return ls
}

func (ls *lightSampler) LightCount() int             { return len(ls.table.Entries) }
func (ls *lightSampler) LightProb(k int) float32     { return ls.table.Prob[k] }
func (ls *lightSampler) LightAlias(k int) int        { return int(ls.table.Alias[k]) }
func (ls *lightSampler) LightPdf(k int) float32      { return ls.table.Pdf[k] }
func (ls *lightSampler) FirstLight(inst int) int     { return int(ls.table.FirstLight[inst]) }
func (ls *lightSampler) EnvIndex() int               { return int(ls.table.EnvIndex) }
func (ls *lightSampler) Punctual(i int) layout.Light { return ls.punctual[i] }
func (ls *lightSampler) EnvPdf(d scene.Vec3) float32 { return ls.env.pdf(d) }
func (ls *lightSampler) EnvRadiance(d scene.Vec3) scene.Vec3 {
	return ls.env.radiance(d)
}

func (ls *lightSampler) LightEntry(k int) layout.LightEntry {
	e := &ls.table.Entries[k]
	return layout.LightEntry{Kind: uint32(e.Kind), Instance: e.Instance, Index: e.Index, Area: e.Area}
}

func (ls *lightSampler) EnvSample(u1, u2 float32) (d, radiance scene.Vec3, pdf float32) {
	return ls.env.sample(u1, u2)
}

func (ls *lightSampler) EmissiveTriangle(k int, bu, bv float32) (q, n, le scene.Vec3, doubleSided, ok bool) {
	t := &ls.triangles[k]
	if !t.ok {
		return q, n, le, false, false
	}
	e := &ls.table.Entries[k]
	sc := ls.acc.scene
	mat := &ls.acc.materials[sc.Instances[e.Instance].Material]
	le = mat.Emissive
	if t.textured {
		uv, _ := triangleAttributes(&sc.Meshes[sc.Instances[e.Instance].Geometry.Index], int(e.Index), bu, bv)
		et, _ := textureAt(sc, &mat.EmissiveTex, &uv)
		le = mat.Emissive.Mul3(et)
	}
	return t.p0.Add(t.e1.Scale(bu)).Add(t.e2.Scale(bv)), t.n, le, t.doubleSided, true
}

func (ls *lightSampler) SphereLight(k int) (c scene.Vec3, r float32, le scene.Vec3) {
	e := &ls.table.Entries[k]
	sc := ls.acc.scene
	set := &sc.SphereSets[sc.Instances[e.Instance].Geometry.Index]
	return ls.acc.toWorld[e.Instance].Point(set.Centers[e.Index]), kernel.Sqrt32(e.Area / (4 * math.Pi)), sc.Materials[sc.Instances[e.Instance].Material].Emissive
}
