package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// Randoms gives a path its random numbers at its bounce: the CPU from its
// stream keys (StreamKeys), the GPU from Random.
type Randoms interface {
	// PathRandom is the path's number in dimension dim (layout.Dim*).
	PathRandom(p *layout.Path, dim uint32) float32
	// PathRandom2 is its two numbers of a pair of dimensions
	// (layout.Pair*: dimensions 2·pair and 2·pair + 1).
	PathRandom2(p *layout.Path, pair uint32) (float32, float32)
}

// Tracer traces a path's shadow rays.
type Tracer interface {
	// ShadowRay traces the shadow ray from o along d up to tmax and, where
	// nothing is in the way, adds its light to the path and its light
	// group's: AddShadowLight. The CPU traces it with its wave's others
	// after shading; the GPU at once.
	ShadowRay(p *layout.Path, o, d scene.Vec3, tmax float32, contrib, share scene.Vec3, group uint32)
}

// LightGroups keeps, where a render writes light groups, the light that
// reached the camera along each path by the group of lights that sent it
// (render.LightGroups): the CPU per path of its tile, the GPU per path in
// its slot, which the resolve sums into the film. A render without groups
// keeps nothing.
type LightGroups interface {
	// AddGroupLight adds light l, finite, which AddLight or AddSplit has
	// added to the path, to its group's (AddGroupedLight, AddShadowLight).
	AddGroupLight(p *layout.Path, group uint32, l scene.Vec3)
}

// Providers are what the closest-hit and miss shaders read of the scene
// and call of the backend, bundled: GLSL drops the bundle as it drops
// each provider (the CPU's lightSampler, Accel, stream keys and worker;
// the GPU's buffers and its shadow ray).
type Providers struct {
	Lights   Lights
	Texels   Texels
	Geometry Geometry
	Media    Media
	Randoms  Randoms
	Tracer   Tracer
	Groups   LightGroups
}

// Media is what absorption reads of the scene's materials.
type Media interface {
	// Attenuation is material m's KHR_materials_volume attenuation colour
	// and distance (+Inf: none).
	Attenuation(m int32) (color scene.Vec3, distance float32)
}

// Transmittance is what the path's medium (a material's volume, or −1:
// none) lets through over a distance t: Beer–Lambert absorption by
// KHR_materials_volume's attenuation colour and distance. A path is in one
// medium at a time: nested volumes are not tracked.
func Transmittance(media Media, medium int32, t float32) scene.Vec3 {
	if medium < 0 {
		return scene.Vec3{X: 1, Y: 1, Z: 1} // (and inlined where it is called: most paths are in no medium)
	}
	return mediumTransmittance(media, medium, t)
}

// mediumTransmittance is Transmittance inside a medium.
func mediumTransmittance(media Media, medium int32, t float32) scene.Vec3 {
	c, dist := media.Attenuation(medium)
	if dist == float32(math.Inf(1)) {
		return scene.Vec3{X: 1, Y: 1, Z: 1}
	}
	return scene.Vec3{X: channelTransmittance(c.X, dist, t), Y: channelTransmittance(c.Y, dist, t), Z: channelTransmittance(c.Z, dist, t)}
}

// channelTransmittance is Transmittance in one channel of colour c.
func channelTransmittance(c, dist, t float32) float32 {
	if sigma := -math.Log(float64(max(c, 1e-6))) / float64(dist); sigma > 0 {
		return float32(math.Exp(-sigma * float64(t)))
	}
	return 1
}

// Miss is the miss shader: the environment along d, weighted by MIS
// against light sampling; the path ends.
func Miss(pv Providers, p *layout.Path, d scene.Vec3) {
	p.Throughput = p.Throughput.Mul3(Transmittance(pv.Media, p.Medium, float32(math.Inf(1))))
	env := pv.Lights.EnvRadiance(d)
	weight := float32(1)
	if p.Bounce > 0 && p.PrevPdf > 0 {
		weight = PowerHeuristic(p.PrevPdf, PdfEnvironment(pv.Lights, d))
	}
	l := p.Throughput.Mul3(env).Scale(weight)
	AddGroupedLight(pv.Groups, p, pv.Lights.EnvLightGroup(), l)
	p.Alive = 0
}

// ShadowSegment is the shadow ray that tests light sample ls from surface
// s: from s's offset origin, toward the light point itself (not along
// ls.Wi, which leaves from s.P), to ShadowRayEnd of the way there; toward
// a distant light, along ls.Wi. A ray along ls.Wi from the offset origin
// runs parallel to the one the light was sampled along, a few ulps off
// it: where it meets the light's surface at a grazing angle (a ceiling
// beside the lamp hanging from it) it crosses that surface short of its
// end, and the light shadows itself.
func ShadowSegment(s *Surface, ls *LightSample) (o, dir scene.Vec3, tmax float32) {
	o = s.OriginToward(ls.Wi)
	if math.IsInf(float64(ls.Dist), 0) {
		return o, ls.Wi, ls.Dist
	}
	toLight := s.P.Add(ls.Wi.Scale(ls.Dist)).Sub(o)
	l := toLight.Length()
	if !(l > 0) {
		return o, ls.Wi, 0
	}
	return o, toLight.Scale(1 / l), l * layout.ShadowRayEnd
}

// ClosestHit is the closest-hit shader: at hit h of the ray (o, d) (its
// instance's primitive at its parameters, at its distance), of material m,
// it adds the emission (MIS-weighted against light sampling), samples a
// light and traces its shadow ray, samples the BSDF for the path's next
// ray and plays Russian roulette after layout.RouletteStart bounces. s and
// ls are where the surface and the light sample are made; shader is a
// layout.Shader* constant; maxDepth ends the path; forward is the
// camera's, for the depth AOV.
func ClosestHit(pv Providers, p *layout.Path, s *Surface, ls *LightSample, m *layout.Material, h *layout.Hit,
	o, d scene.Vec3, maxDepth uint32, forward scene.Vec3, shader uint32) {
	p.Throughput = p.Throughput.Mul3(Transmittance(pv.Media, p.Medium, h.T))
	Shade(pv.Geometry, pv.Texels, s, m, h, o, d)
	isHair := s.IsHair
	if shader == layout.ShaderSurface {
		isHair = false
	} else if shader == layout.ShaderHair {
		isHair = true
	}
	wo := d.Scale(-1)
	woLocal := s.Frame.ToLocal(wo)
	// What the first hit's albedos, the light sample and the next direction
	// need of wo, computed once a hit, and only when one of them is taken.
	var terms WoTerms
	haveTerms := false
	if p.Bounce == 0 {
		p.FirstInstance = h.Instance + 1
		p.Albedo, p.Normal, p.Depth = s.Albedo, s.Frame.N, h.T*d.Dot(forward)
		if s.AOVNormal != (scene.Vec3{}) {
			p.Normal = s.AOVNormal
		}
		if isHair {
			p.DiffAlbedo = s.Albedo
		} else if !s.Unlit { // an unlit surface reflects nothing: its light is the camera's direct view
			terms, haveTerms = s.BSDF.Terms(woLocal), true
			p.DiffAlbedo, p.SpecAlbedo = s.BSDF.AlbedosWith(&terms, woLocal)
		}
	}
	if s.Emit != (scene.Vec3{}) {
		weight := float32(1)
		if p.Bounce > 0 && p.PrevPdf > 0 {
			weight = PowerHeuristic(p.PrevPdf, PdfEmitter(pv.Lights, int(h.Instance), int(h.Prim), h.T, s.Ng.Dot(wo), o))
		}
		l := p.Throughput.Mul3(s.Emit).Scale(weight)
		AddGroupedLight(pv.Groups, p, pv.Lights.InstanceLightGroup(h.Instance), l)
	}
	if s.Unlit || p.Bounce >= maxDepth {
		p.Alive = 0
		return
	}
	// A dispersive interface refracts by the path's one wavelength, which
	// the first such interface picks (DimBSDFW: surfaces do not use it)
	// and weighs the throughput by.
	if !isHair && m.Dispersion > 0 && s.BSDF.Transmission > 0 && !s.BSDF.Thin {
		if p.Wavelength == 0 {
			p.Wavelength = SampleWavelength(pv.Randoms.PathRandom(p, layout.DimBSDFW))
			p.Throughput = p.Throughput.Mul3(WavelengthWeights(p.Wavelength))
		}
		n := DispersionIOR(GlassIOR(m), m.Dispersion, p.Wavelength)
		if s.Front {
			s.BSDF.Eta = n
		} else {
			s.BSDF.Eta = 1 / n
		}
		haveTerms = false // the glass's terms depend on its index
	}
	if !isHair && !haveTerms && woLocal.Z > 0 { // (below the surface the BSDF reads none)
		terms = s.BSDF.Terms(woLocal)
	}
	p.Events = 0
	// Next-event estimation. Surfaces reflect only (light from below the
	// geometric surface cannot reach them); hair also transmits.
	pick, coin := pv.Randoms.PathRandom2(p, layout.PairLightPick)
	lu, lv := pv.Randoms.PathRandom2(p, layout.PairLightPoint)
	if SampleLight(pv.Lights, ls, s.P, pick, coin, lu, lv) && (s.Transmits() || ls.Wi.Dot(s.Ng) > 0) {
		var f scene.Vec3
		var pdfB float32
		wiL := s.Frame.ToLocal(ls.Wi)
		if isHair {
			f, pdfB = s.Hair.Eval(woLocal, wiL)
		} else {
			f, pdfB = s.BSDF.EvalWith(&terms, woLocal, wiL)
		}
		if f != (scene.Vec3{}) {
			p.Events |= layout.EventLight
			p.Rays++
			p.ShadowRays++
			contrib := p.Throughput.Mul3(f).Mul3(ls.Radiance).Mul3(Transmittance(pv.Media, p.Medium, ls.Dist))
			if !ls.Delta {
				contrib = contrib.Scale(PowerHeuristic(ls.Pdf, pdfB) / ls.Pdf)
			}
			share := p.Split
			if p.Bounce == 0 {
				share = DiffuseShare(isHair, p.DiffAlbedo, wiL, f)
			}
			o, dir, tmax := ShadowSegment(s, ls)
			pv.Tracer.ShadowRay(p, o, dir, tmax, contrib, share, ls.Group)
		}
	}
	// The next direction.
	var wiLocal, weight scene.Vec3
	var pdf float32
	var ok bool
	if isHair {
		lobe, azimuth := pv.Randoms.PathRandom2(p, layout.PairLobe)
		bu, bv := pv.Randoms.PathRandom2(p, layout.PairBSDF)
		wiLocal, weight, pdf, ok = s.Hair.Sample(woLocal, lobe, bu, bv, azimuth)
	} else {
		bu, bv := pv.Randoms.PathRandom2(p, layout.PairBSDF)
		var lobe float32 // a Lambertian BSDF has one lobe: its number is not drawn
		if !s.BSDF.Lambertian() {
			lobe = pv.Randoms.PathRandom(p, layout.DimLobe)
		}
		wiLocal, weight, pdf, ok = s.BSDF.SampleWith(&terms, woLocal, lobe, bu, bv)
	}
	wi := s.Frame.ToWorld(wiLocal)
	// The geometric surface decides which side the path goes on; a sample
	// that the shading frame puts on the other side is dropped.
	crosses := wi.Dot(s.Ng) < 0
	if !ok || (!s.Transmits() && crosses) || (!isHair && crosses != (wiLocal.Z < 0)) {
		p.Alive = 0
		return
	}
	// Passing through a volume's boundary enters or leaves its medium.
	if !isHair && crosses && m.Flags&layout.MatVolume != 0 {
		if s.Front {
			p.Medium = pv.Geometry.InstanceMaterial(h.Instance)
		} else {
			p.Medium = -1
		}
	}
	if !isHair && crosses && s.BSDF.Transmission > 0 && !s.BSDF.GlassThin() { // refracted (diffuse transmission does not bend)
		p.EtaScale *= s.BSDF.Eta * s.BSDF.Eta
	}
	if p.Bounce == 0 {
		p.Split = DiffuseShare(isHair, p.DiffAlbedo, wiLocal, weight.Scale(pdf)) // f·|cos|
	}
	p.Throughput = p.Throughput.Mul3(weight)
	p.PrevPdf = pdf
	p.Origin, p.Dir = s.OriginToward(wi), wi
	if p.Bounce >= layout.RouletteStart {
		rr := p.Throughput.Scale(p.EtaScale)
		q := max(layout.RouletteFloor, 1-max(rr.X, rr.Y, rr.Z))
		if pv.Randoms.PathRandom(p, layout.DimRoulette) < q {
			p.Alive = 0
			return
		}
		p.Throughput = p.Throughput.Scale(1 / (1 - q))
		p.Events |= layout.EventRoulette
	}
	p.Bounce++
}
