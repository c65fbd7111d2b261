package cpu

import (
	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// lightSampler is the CPU's kernel.Lights: the shared light table (an
// alias table by estimated power over the infinite lights and the light
// tree over the bounded ones: every emissive triangle and sphere and
// punctual light) and the emitters it names, which kernel.SampleLight
// samples for next-event estimation (the emitters read from the Accel's
// scene); the pdfs MIS needs come from it too.
type lightSampler struct {
	*Accel       // the emitters' geometry (kernel.Geometry)
	*sceneTexels // and their emissive textures' texels (kernel.Texels)
	table        *render.LightTable
	env          environment
	punctual     []layout.Light // the scene's punctual lights
	// per entry of the table: its triangle in world space, if it is one
	// (made once: made at every sample, as the GPU does, it cost the CPU
	// about 3% on hairy-cornell)
	triangles []kernel.TriangleEmitter
	groups    *render.LightGroups // nil: none
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

func newLightSampler(acc *Accel, env environment, sampler render.LightSampler, groups *render.LightGroups) *lightSampler {
	ls := &lightSampler{Accel: acc, sceneTexels: (*sceneTexels)(acc.scene), table: render.NewLightTable(acc.scene, env.power(), sampler),
		env: env, groups: groups}
	ls.triangles = make([]kernel.TriangleEmitter, len(ls.table.Entries))
	for k, e := range ls.table.Entries {
		if e.Kind == render.LightTriangle {
			ls.triangles[k] = kernel.NewTriangleEmitter(acc, uint32(e.Instance), uint32(e.Index))
		}
	}
	for i := range acc.scene.Lights {
		l := layout.PackLight(&acc.scene.Lights[i])
		l.Group = groups.PunctualGroup(i)
		ls.punctual = append(ls.punctual, l)
	}
	return ls
}

func (ls *lightSampler) LightCount() int                      { return len(ls.table.Entries) }
func (ls *lightSampler) ColumnCount() int                     { return len(ls.table.Columns) }
func (ls *lightSampler) LightColumn(c int) layout.LightColumn { return ls.table.Columns[c] }
func (ls *lightSampler) LightPdf(k int) float32               { return ls.table.Pdf[k] }
func (ls *lightSampler) LightNodeCount() int                  { return len(ls.table.Tree) }
func (ls *lightSampler) LightNode(i int) layout.LightNode     { return ls.table.Tree[i] }
func (ls *lightSampler) FirstLight(inst int) int              { return int(ls.table.FirstLight[inst]) }
func (ls *lightSampler) EnvIndex() int                        { return int(ls.table.EnvIndex) }
func (ls *lightSampler) Punctual(i int) layout.Light          { return ls.punctual[i] }
func (ls *lightSampler) EnvPdf(d scene.Vec3) float32          { return ls.env.pdf(d) }
func (ls *lightSampler) EnvLightGroup() uint32                { return ls.groups.EnvGroup() }
func (ls *lightSampler) InstanceLightGroup(inst uint32) uint32 {
	return ls.groups.InstanceGroup(int(inst))
}
func (ls *lightSampler) EnvRadiance(d scene.Vec3) scene.Vec3 {
	return ls.env.radiance(d)
}

func (ls *lightSampler) LightEntry(k int) layout.LightEntry {
	e := &ls.table.Entries[k]
	return layout.LightEntry{Kind: uint32(e.Kind), Instance: e.Instance, Index: e.Index, Area: e.Area, Trail: e.Trail}
}

func (ls *lightSampler) EnvSample(u1, u2 float32) (d, radiance scene.Vec3, pdf float32) {
	return ls.env.sample(u1, u2)
}

func (ls *lightSampler) TriangleEmitter(k int) kernel.TriangleEmitter { return ls.triangles[k] }

func (ls *lightSampler) MaterialEmissive(m int32) scene.Vec3 { return ls.materials[m].Emissive }
func (ls *lightSampler) MaterialEmissiveTex(m int32) layout.TextureRef {
	return ls.materials[m].EmissiveTex
}
func (ls *lightSampler) MaterialFlags(m int32) uint32 { return ls.materials[m].Flags }
