package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sertrace/internal/longtest"
	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/render/vulkan"
	"sertrace/scene"
)

// The probe tests run each GLSL helper of shaders/probe.comp on thousands
// of inputs on a Vulkan device (lavapipe here) and hold it against its Go
// function, within the stated tolerance: breaking a helper in either
// language fails them, where the image comparisons might only blur it.

// probe is probeGLSL for the long tests.
func probe(t *testing.T, fn int, in []float32) []float32 {
	t.Helper()
	longtest.Skip(t)
	return probeGLSL(t, fn, in)
}

// probeGLSL runs fn on the records and returns the outputs, skipping the
// test where no Vulkan device runs the probe shader (failing it under CI).
func probeGLSL(t *testing.T, fn int, in []float32) []float32 {
	t.Helper()
	out, err := vulkan.Probe(-1, fn, in)
	if err != nil {
		skipWithoutDevice(t, err)
		t.Fatal(err)
	}
	return out
}

// skipWithoutDevice skips t, outside CI, where err says that no Vulkan
// device runs the probe shaders, or no Vulkan instance could be made (a
// loader without a driver), as the Vulkan tests skip.
func skipWithoutDevice(t *testing.T, err error) {
	t.Helper()
	_, noInstance := vulkan.Devices()
	if os.Getenv("CI") == "" && (noInstance != nil || strings.Contains(err.Error(), "Vulkan") || strings.Contains(err.Error(), "no device")) {
		t.Skipf("no Vulkan device runs the probe shader: %v", err)
	}
}

// records lays out n input records, fill writing each.
func records(n int, fill func(i int, r []float32)) []float32 {
	in := make([]float32, n*layout.ProbeIn)
	for i := range n {
		fill(i, in[i*layout.ProbeIn:(i+1)*layout.ProbeIn])
	}
	return in
}

func put3(r []float32, k int, v scene.Vec3) { r[k], r[k+1], r[k+2] = v.X, v.Y, v.Z }
func get3(r []float32, k int) scene.Vec3    { return scene.Vec3{X: r[k], Y: r[k+1], Z: r[k+2]} }
func fbits(v uint32) float32                { return math.Float32frombits(v) }

func randVec(rng *rand.Rand, s float32) scene.Vec3 {
	return scene.Vec3{X: s * (2*rng.Float32() - 1), Y: s * (2*rng.Float32() - 1), Z: s * (2*rng.Float32() - 1)}
}

func randDir(rng *rand.Rand) scene.Vec3 {
	for {
		if v := randVec(rng, 1); v.Dot(v) > 1e-4 && v.Dot(v) <= 1 {
			return v.Normalize()
		}
	}
}

// TestProbeRandom: the random streams are bit for bit the same.
func TestProbeRandom(t *testing.T) {
	longtest.Skip(t)
	checkProbeRandom(t, 8192)
}

// checkProbeRandom is TestProbeRandom on its first n records.
func checkProbeRandom(t *testing.T, n int) {
	rng := rand.New(rand.NewPCG(1, 1))
	in := records(n, func(i int, r []float32) {
		r[0], r[1], r[2], r[3], r[4] = fbits(rng.Uint32()), fbits(rng.Uint32()%4096), fbits(rng.Uint32()%64), fbits(rng.Uint32()%layout.DimsPerBounce), fbits(rng.Uint32())
	})
	out := probeGLSL(t, layout.ProbeRandom, in)
	for i := range n {
		r := in[i*layout.ProbeIn:]
		want := kernel.Random(math.Float32bits(r[0]), math.Float32bits(r[1]), math.Float32bits(r[2]), math.Float32bits(r[3]), math.Float32bits(r[4]))
		if got := out[i*layout.ProbeOut]; got != want {
			t.Fatalf("record %d: GLSL %v, Go %v", i, got, want)
		}
	}
}

// TestProbeHitCoin: BLEND's coin is bit for bit the same.
func TestProbeHitCoin(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 8192
	in := records(n, func(i int, r []float32) {
		r[0], r[1] = fbits(rng.Uint32()%1000), fbits(rng.Uint32())
		r[2], r[3], r[4] = rng.Float32(), rng.Float32(), 100*rng.Float32()
	})
	out := probe(t, layout.ProbeHitCoin, in)
	for i := range n {
		r := in[i*layout.ProbeIn:]
		want := kernel.HitCoin(math.Float32bits(r[0]), math.Float32bits(r[1]), r[2], r[3], r[4])
		if got := out[i*layout.ProbeOut]; got != want {
			t.Fatalf("record %d: GLSL %v, Go %v", i, got, want)
		}
	}
}

// TestProbeRoundCone: the strand rule's distance to a round cone is the
// Go's, to float32 roundings of the distances involved.
func TestProbeRoundCone(t *testing.T) {
	longtest.Skip(t)
	checkProbeRoundCone(t, 8192)
}

// checkProbeRoundCone is TestProbeRoundCone on its first n records.
func checkProbeRoundCone(t *testing.T, n int) {
	rng := rand.New(rand.NewPCG(12, 12))
	in := records(n, func(i int, r []float32) {
		ba := scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1}.Scale(rng.Float32())
		ra, rb := 0.01+0.3*rng.Float32(), 0.01+0.3*rng.Float32()
		if i%4 == 0 {
			rb = ra
		}
		x := ba.Scale(rng.Float32()*1.6 - 0.3).Add(scene.Vec3{X: rng.Float32()*2 - 1, Y: rng.Float32()*2 - 1, Z: rng.Float32()*2 - 1}.Scale(0.5))
		put3(r, 0, x)
		put3(r, 3, ba)
		r[6], r[7] = ra, rb
	})
	out := probeGLSL(t, layout.ProbeRoundCone, in)
	for i := range n {
		r := in[i*layout.ProbeIn:]
		x, ba := get3(r, 0), get3(r, 3)
		want, _ := kernel.RoundConeNearest(kernel.ToVec3d(x), kernel.ToVec3d(ba), float64(r[6]), float64(r[7]))
		scale := float64(x.Length() + ba.Length() + r[6] + r[7])
		if got := float64(out[i*layout.ProbeOut]); math.Abs(got-want) > 1e-5*scale {
			t.Fatalf("record %d: x %v, ba %v, radii %v %v: GLSL %v, Go %v", i, x, ba, r[6], r[7], got, want)
		}
	}
}

// TestProbeSpectrum: a dispersive path's wavelength, its RGB weights and
// the glass's index at it are the Go's (the weights to 1e-4: GLSL's exp).
func TestProbeSpectrum(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	const n = 8192
	in := records(n, func(i int, r []float32) {
		r[0], r[1], r[2] = rng.Float32(), 1+1.5*rng.Float32(), 2*rng.Float32()
	})
	out := probe(t, layout.ProbeSpectrum, in)
	for i := range n {
		r, o := in[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
		lambda := kernel.SampleWavelength(r[0])
		if o[0] != lambda || !close3Rel(get3(o, 1), kernel.WavelengthWeights(lambda), 1e-4) || !closeRel(o[4], kernel.DispersionIOR(r[1], r[2], lambda), 1e-6) {
			t.Fatalf("record %d: GLSL %v %v %v, Go %v %v %v", i, o[0], get3(o, 1), o[4], lambda, kernel.WavelengthWeights(lambda), kernel.DispersionIOR(r[1], r[2], lambda))
		}
	}
}

// TestProbeIntersections: the GPU's float32 sphere and swept-sphere tests
// find the hits the CPU's float64 ones do, at the same t to a few float32
// roundings of the distance, on rays aimed at, past and from inside the
// primitives, from near and far, at sizes from hair to particles; only rays
// that graze a silhouette may disagree on whether they hit.
func TestProbeIntersections(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	const n = 8192
	type rec struct{ o, d scene.Vec3 }
	spheres := records(n, func(i int, r []float32) {
		c := randVec(rng, 2)
		rad := float32(math.Pow(10, -3+3*rng.Float64()))
		o := c.Add(randDir(rng).Scale(rad * float32(math.Pow(10, 6*rng.Float64())) * 0.5))
		target := c.Add(randVec(rng, 1.3*rad))
		d := target.Sub(o).Scale(float32(math.Pow(10, 2*rng.Float64()-1))) // not unit length
		put3(r, 0, o)
		put3(r, 3, d)
		put3(r, 6, c)
		r[9], r[10], r[11] = rad, 0, float32(math.Inf(1))
		if rng.IntN(4) == 0 {
			r[11] = 2 * rng.Float32()
		}
		r[12] = fbits(uint32(rng.IntN(2)))
	})
	out := probe(t, layout.ProbeSphere, spheres)
	disagree := 0
	for i := range n {
		r, g := spheres[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
		o, d, c := get3(r, 0), get3(r, 3), get3(r, 6)
		tw, hw := intersectSphere(o, d, c, r[9], r[10], r[11], math.Float32bits(r[12]) != 0)
		if hg := g[0] != 0; hg != hw {
			disagree++
			continue
		}
		if hw && !close(g[1], tw, o.Sub(c).Length()/d.Length()+r[9]/d.Length()) {
			t.Errorf("sphere %d: t GLSL %v, Go %v", i, g[1], tw)
		}
		// The GPU's hit lies on the sphere, to its float32 rounding.
		if hg := g[0] != 0; hg && !onSurface(o, d, g[1], c, r[9]) {
			t.Errorf("sphere %d: the GPU's hit at t %v is off the sphere (Go's t %v)", i, g[1], tw)
		}
	}
	if disagree > n/200 {
		t.Errorf("spheres: %d of %d rays hit on one side only", disagree, n)
	}

	swept := records(n, func(i int, r []float32) {
		a := randVec(rng, 2)
		l := float32(math.Pow(10, -2+2*rng.Float64()))
		b := a.Add(randDir(rng).Scale(l))
		ra, rb := l*float32(math.Pow(10, -2.5+2*rng.Float64())), l*float32(math.Pow(10, -2.5+2*rng.Float64()))
		mid := a.Add(b.Sub(a).Scale(rng.Float32()))
		o := mid.Add(randDir(rng).Scale(l * float32(math.Pow(10, 3*rng.Float64()))))
		target := mid.Add(randVec(rng, 1.3*max(ra, rb)))
		d := target.Sub(o).Scale(float32(math.Pow(10, 2*rng.Float64()-1)))
		put3(r, 0, o)
		put3(r, 3, d)
		put3(r, 6, a)
		put3(r, 9, b)
		r[12], r[13], r[14], r[15], r[16] = ra, rb, fbits(uint32(rng.IntN(2))), 0, float32(math.Inf(1))
		if rng.IntN(4) == 0 { // a closer hit found already: tmax about where this one lies
			r[16] = o.Sub(mid).Length() / d.Length() * (0.5 + rng.Float32())
		}
	})
	out = probe(t, layout.ProbeSweptSphere, swept)
	disagree = 0
	for i := range n {
		r, g := swept[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
		o, d, a, b := get3(r, 0), get3(r, 3), get3(r, 6), get3(r, 9)
		hit, hw := intersectSweptSphere(o, d, a, b, r[12], r[13], math.Float32bits(r[14]) != 0, r[15], r[16])
		if hg := g[0] != 0; hg != hw {
			disagree++
			continue
		}
		scale := (o.Sub(a).Length() + b.Sub(a).Length()) / d.Length()
		if hw && (!close(g[1], hit.T, scale) || math.Abs(float64(g[2]-hit.U)) > 1e-3) {
			t.Errorf("swept sphere %d: (t, u) GLSL (%v, %v), Go (%v, %v)", i, g[1], g[2], hit.T, hit.U)
		}
		// The GPU's hit lies on the sphere of the segment at its u.
		if u := g[2]; hw && !onSurface(o, d, g[1], a.Add(b.Sub(a).Scale(u)), r[12]+(r[13]-r[12])*u) {
			t.Errorf("swept sphere %d: the GPU's hit at (t, u) (%v, %v) is off the round cone (Go's %v, %v)", i, g[1], g[2], hit.T, hit.U)
		}
	}
	if disagree > n/200 {
		t.Errorf("swept spheres: %d of %d rays hit on one side only", disagree, n)
	}
}

// onSurface reports whether the point at t along the ray lies on the sphere
// (c, r), to float32 roundings of the distance travelled and of the
// coordinates (in float64 from the float32 inputs).
func onSurface(o, d scene.Vec3, t float32, c scene.Vec3, r float32) bool {
	var dist2 float64
	for k := range 3 {
		p := float64(o.At(k)) + float64(t)*float64(d.At(k)) - float64(c.At(k))
		dist2 += p * p
	}
	travel := math.Abs(float64(t)) * float64(d.Length())
	slack := 1e-3*float64(r) + 64*0x1p-24*(travel+float64(o.Sub(c).Length()))
	return math.Abs(math.Sqrt(dist2)-float64(r)) <= slack
}

// close reports whether two hit distances agree to the float32 roundings
// of a computation on distances of about scale.
func close(a, b, scale float32) bool {
	return math.Abs(float64(a-b)) <= 1e-5*float64(scale)
}

// TestProbeBSDF: the metallic-roughness BSDF's value and pdf agree with
// the Go's to 1e-4 relative, its samples' directions to 2e-5 and weights
// and pdfs to 1e-3 (a grazing sample's cosine amplifies a direction's
// rounding; one sample in a thousand may agree only to 1e-2), and the
// visible-normal samples to 2e-5, over random materials and directions,
// both hemispheres.
func TestProbeBSDF(t *testing.T) {
	longtest.Skip(t)
	rng := rand.New(rand.NewPCG(4, 5))
	const n = 8192
	checkProbeBSDFEval(t, rng, n)
	bsdfs := make([]kernel.BSDF, n)
	in := records(n, func(i int, r []float32) {
		bsdfs[i] = randomBSDF(rng, r)
		put3(r, 10, upperDir(rng))
		r[13], r[14], r[15] = rng.Float32(), rng.Float32(), rng.Float32()
	})
	out := probe(t, layout.ProbeBSDFSample, in)
	loose := 0 // samples where a rounding is amplified past the tolerance (grazing, at a lobe's edge)
	for i := range n {
		r, g := in[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
		wi, weight, pdf, ok := bsdfs[i].Sample(get3(r, 10), r[13], r[14], r[15])
		if (g[0] != 0) != ok {
			t.Errorf("sample %d: ok GLSL %v, Go %v", i, g[0] != 0, ok)
			continue
		}
		if !ok || (sameDir(get3(g, 1), wi) && agree3(get3(g, 4), weight, 1e-3) && agree(g[7], pdf, 1e-3)) {
			continue
		}
		loose++
		if d := get3(g, 1).Sub(wi); d.Dot(d) > 1e-4 || !agree3(get3(g, 4), weight, 1e-2) || !agree(g[7], pdf, 1e-2) {
			t.Errorf("sample %d: GLSL wi %v weight %v pdf %v, Go %v %v %v", i, get3(g, 1), get3(g, 4), g[7], wi, weight, pdf)
		}
	}
	t.Logf("BSDF samples: %d of %d agree only to 1e-2", loose, n)
	if loose > n/1000 {
		t.Errorf("%d of %d samples agree only to 1e-2", loose, n)
	}
	in = records(n, func(i int, r []float32) {
		put3(r, 0, upperDir(rng))
		r[3], r[4], r[5] = max(rng.Float32(), layout.MinAlpha), rng.Float32(), rng.Float32()
	})
	out = probe(t, layout.ProbeVisibleNormal, in)
	loose = 0 // a smooth lobe's rim (u near 1) amplifies a rounding of sin and cos
	for i := range n {
		r, g := in[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
		h := kernel.SampleVisibleNormal(get3(r, 0), r[3], r[4], r[5])
		if sameDir(get3(g, 0), h) {
			continue
		}
		loose++
		if d := get3(g, 0).Sub(h); d.Dot(d) > 1e-6 {
			t.Errorf("visible normal %d (wo %v, alpha %v, u %v %v): GLSL %v, Go %v", i, get3(r, 0), r[3], r[4], r[5], get3(g, 0), h)
		}
	}
	if loose > n/1000 {
		t.Errorf("%d of %d visible normals agree only to 1e-3", loose, n)
	}
}

// checkProbeBSDFEval is TestProbeBSDF's evaluations on its first n records,
// drawn from rng.
func checkProbeBSDFEval(t *testing.T, rng *rand.Rand, n int) {
	bsdfs := make([]kernel.BSDF, n)
	in := records(n, func(i int, r []float32) {
		bsdfs[i] = randomBSDF(rng, r)
		put3(r, 10, upperDir(rng))
		wi := randDir(rng)
		put3(r, 13, wi)
	})
	out := probeGLSL(t, layout.ProbeBSDFEval, in)
	for i := range n {
		r, g := in[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
		f, pdf := bsdfs[i].Eval(get3(r, 10), get3(r, 13))
		if !agree3(get3(g, 0), f, 1e-4) || !agree(g[3], pdf, 1e-4) {
			t.Errorf("eval %d: GLSL %v pdf %v, Go %v pdf %v", i, get3(g, 0), g[3], f, pdf)
		}
	}
}

// randomBSDF writes a random material into r and returns its BSDF.
func randomBSDF(rng *rand.Rand, r []float32) kernel.BSDF {
	base := scene.Vec3{X: rng.Float32(), Y: rng.Float32(), Z: rng.Float32()}
	spec := scene.Vec3{X: rng.Float32(), Y: rng.Float32(), Z: rng.Float32()}
	metallic, rough, ior, specular := rng.Float32(), rng.Float32(), 1+1.5*rng.Float32(), rng.Float32()
	if rng.IntN(4) == 0 {
		metallic = float32(rng.IntN(2))
	}
	put3(r, 0, base)
	r[3], r[4], r[5], r[6] = metallic, rough, ior, specular
	put3(r, 7, spec)
	b := kernel.NewBSDF(base, metallic, rough, ior, specular, spec)
	// A quarter are glass (refracting or thin), under the layers too.
	if rng.IntN(4) == 0 {
		b.Transmission, b.Eta, b.Thin = rng.Float32(), 1/1.6+rng.Float32(), rng.IntN(2) == 0
		r[25], r[26] = b.Transmission, b.Eta
		if b.Thin {
			r[27] = 1
		}
	}
	// A quarter transmit some of their diffuse light.
	if rng.IntN(4) == 0 {
		b.DiffTrans, b.DiffTransColor = rng.Float32(), scene.Vec3{X: rng.Float32(), Y: rng.Float32(), Z: rng.Float32()}
		r[28] = b.DiffTrans
		put3(r, 29, b.DiffTransColor)
	}
	// A third are anisotropic.
	if rng.IntN(3) == 0 {
		strength, dir := rng.Float32(), scene.Vec3{X: 2*rng.Float32() - 1, Y: 2*rng.Float32() - 1, Z: rng.Float32()}
		r[32] = strength
		put3(r, 33, dir)
		b.SetAnisotropy(strength, dir)
	}
	// A third under a thin film, thin to thick, of low to high index.
	if rng.IntN(3) == 0 {
		factor, ior, thickness := rng.Float32(), 1+1.3*rng.Float32(), 1200*rng.Float32()
		r[36], r[37], r[38] = factor, ior, thickness
		b.SetIridescence(factor, ior, thickness)
	}
	// Half of them under a clearcoat, a third of those about a tilted
	// normal of their own.
	if rng.IntN(2) == 0 {
		coat, coatRough := rng.Float32(), rng.Float32()
		var n scene.Vec3
		if rng.IntN(3) == 0 {
			n = scene.Vec3{X: 0.6 * (2*rng.Float32() - 1), Y: 0.6 * (2*rng.Float32() - 1), Z: 1}.Normalize()
		}
		r[16], r[17] = coat, coatRough
		put3(r, 18, n)
		b.SetCoat(coat, coatRough, n)
	}
	// Half under a sheen (the GLSL sets a zero one on the others).
	if rng.IntN(2) == 0 {
		color, rough := scene.Vec3{X: rng.Float32(), Y: rng.Float32(), Z: rng.Float32()}, rng.Float32()
		put3(r, 21, color)
		r[24] = rough
		b.SetSheen(color, rough)
	}
	return b
}

// upperDir is a random direction in the upper hemisphere.
func upperDir(rng *rand.Rand) scene.Vec3 {
	d := randDir(rng)
	d.Z = float32(math.Abs(float64(d.Z)))
	return d
}

// agree reports whether a and b agree to rel relative to the larger (and an
// absolute floor of rel times 1e-3, for values near 0).
func agree(a, b, rel float32) bool {
	d := math.Abs(float64(a - b))
	return d <= float64(rel)*max(math.Abs(float64(a)), math.Abs(float64(b)), 1e-3)
}

// sameDir reports whether two unit vectors agree to float32 roundings.
func sameDir(a, b scene.Vec3) bool {
	d := a.Sub(b)
	return d.Dot(d) <= 2e-5*2e-5
}

func agree3(a, b scene.Vec3, rel float32) bool {
	return agree(a.X, b.X, rel) && agree(a.Y, b.Y, rel) && agree(a.Z, b.Z, rel)
}

// TestProbeHair: the hair BSDF (Chiang et al.) agrees with the Go's: value
// and pdf to 1e-3 relative, samples to 1e-4 in direction and 1e-3 in weight
// and pdf, over random fibres (melanin, colour or defaults; roughness from
// smooth to rough; cuticle tilt; index) and directions; the float32 GLSL
// departs from Go's float64 in the longitudinal lobe of the smoothest
// fibres and in sampling near grazing (render/kernel/hair.go), which one record in a
// thousand may show, to 1e-2 (none did here). A 0.2% error put into the
// GLSL's azimuthal logistic fails half the evaluations.
func TestProbeHair(t *testing.T) {
	longtest.Skip(t)
	rng := rand.New(rand.NewPCG(6, 7))
	const n = 8192
	checkProbeHairEval(t, rng, n)
	hairs := make([]kernel.HairBSDF, n)
	in := records(n, func(i int, r []float32) {
		hairs[i] = randomFibre(rng, r)
		put3(r, 11, randDir(rng))
		r[14], r[15], r[16], r[17] = rng.Float32(), rng.Float32(), rng.Float32(), rng.Float32()
	})
	out := probe(t, layout.ProbeHairSample, in)
	loose := 0
	for i := range n {
		r, g := in[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
		wi, weight, pdf, ok := hairs[i].Sample(get3(r, 11), r[14], r[15], r[16], r[17])
		if (g[0] != 0) != ok {
			t.Errorf("hair sample %d: ok GLSL %v, Go %v", i, g[0] != 0, ok)
			continue
		}
		d := get3(g, 1).Sub(wi)
		if !ok || (d.Dot(d) <= 1e-4*1e-4 && agree3(get3(g, 4), weight, 1e-3) && agree(g[7], pdf, 1e-3)) {
			continue
		}
		loose++
		if d.Dot(d) > 1e-2*1e-2 || !agree3(get3(g, 4), weight, 1e-2) || !agree(g[7], pdf, 1e-2) {
			t.Errorf("hair sample %d: GLSL wi %v weight %v pdf %v, Go %v %v %v", i, get3(g, 1), get3(g, 4), g[7], wi, weight, pdf)
		}
	}
	t.Logf("hair samples: %d of %d agree only to 1e-2", loose, n)
	if loose > n/1000 {
		t.Errorf("%d of %d hair samples agree only to 1e-2", loose, n)
	}
}

// checkProbeHairEval is TestProbeHair's evaluations on its first n records,
// drawn from rng.
func checkProbeHairEval(t *testing.T, rng *rand.Rand, n int) {
	hairs := make([]kernel.HairBSDF, n)
	in := records(n, func(i int, r []float32) {
		hairs[i] = randomFibre(rng, r)
		put3(r, 11, randDir(rng))
		put3(r, 14, randDir(rng))
	})
	out := probeGLSL(t, layout.ProbeHairEval, in)
	loose := 0
	for i := range n {
		r, g := in[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
		f, pdf := hairs[i].Eval(get3(r, 11), get3(r, 14))
		if agree3(get3(g, 0), f, 1e-3) && agree(g[3], pdf, 1e-3) {
			continue
		}
		loose++
		if !agree3(get3(g, 0), f, 1e-2) || !agree(g[3], pdf, 1e-2) {
			t.Errorf("hair eval %d: GLSL %v pdf %v, Go %v pdf %v", i, get3(g, 0), g[3], f, pdf)
		}
	}
	t.Logf("hair evaluations: %d of %d agree only to 1e-2", loose, n)
	if loose > n/1000 {
		t.Errorf("%d of %d hair evaluations agree only to 1e-2", loose, n)
	}
}

// randomFibre writes a random hair material and offset h into r and
// returns its BSDF.
func randomFibre(rng *rand.Rand, r []float32) kernel.HairBSDF {
	var p scene.Hair
	set := uint32(0)
	pick := func(bit uint32, field **float32, v float32, k int) {
		if rng.IntN(2) == 0 {
			set |= bit
			*field = &v
			r[k] = v
		}
	}
	pick(layout.HairEumelanin, &p.Eumelanin, 8*rng.Float32(), 0)
	pick(layout.HairPheomelanin, &p.Pheomelanin, 2*rng.Float32(), 1)
	if rng.IntN(3) == 0 {
		set |= layout.HairColor
		c := scene.Vec3{X: rng.Float32(), Y: rng.Float32(), Z: rng.Float32()}
		p.Color = &c
		put3(r, 2, c)
	}
	pick(layout.HairBetaM, &p.BetaM, 0.05+0.95*rng.Float32(), 5)
	pick(layout.HairBetaN, &p.BetaN, 0.05+0.95*rng.Float32(), 6)
	pick(layout.HairAlpha, &p.Alpha, 6*rng.Float32(), 7)
	pick(layout.HairEta, &p.Eta, 1.3+0.5*rng.Float32(), 8)
	r[9] = fbits(set)
	h := 2*rng.Float32() - 1
	r[10] = h
	return kernel.NewHairBSDF(layout.PackHair(&p), h)
}

// TestProbeCamera: camera rays, pinhole and thin lens, perspective and
// orthographic, agree with the Go's: directions to 2e-5, origins to 1e-5 of
// the camera's distance from the origin (the GLSL takes float32 sin and cos
// for the lens where the Go takes float64's).
func TestProbeCamera(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n = 8192
	cams := make([]render.CameraRays, n)
	in := records(n, func(i int, r []float32) {
		eye := randVec(rng, 10)
		cam := scene.Camera{Transform: scene.LookAt(eye, randVec(rng, 1), scene.Vec3{Y: 1}), YFov: 0.2 + 1.3*rng.Float32()}
		if rng.IntN(5) == 0 {
			cam.Orthographic, cam.YMag = true, 0.5+5*rng.Float32()
		}
		if rng.IntN(2) == 0 {
			cam.ApertureRadius, cam.FocusDistance = 0.2*rng.Float32(), 0.5+10*rng.Float32()
		}
		w, h := 16+rng.IntN(2000), 16+rng.IntN(2000)
		cams[i] = render.NewCameraRays(cam, w, h)
		p := cams[i].Params()
		put3(r, 0, p.Eye)
		put3(r, 3, p.X)
		put3(r, 6, p.Y)
		put3(r, 9, p.Z)
		r[12] = fbits(p.Ortho)
		r[13], r[14], r[15], r[16], r[17], r[18] = p.Sx, p.Sy, p.W, p.H, p.Aperture, p.Focus
		r[19], r[20], r[21], r[22] = float32(w)*rng.Float32(), float32(h)*rng.Float32(), rng.Float32(), rng.Float32()
	})
	out := probe(t, layout.ProbeCamera, in)
	for i := range n {
		r, g := in[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
		o, d := cams[i].Ray(r[19], r[20])
		if cams[i].Lens() {
			o, d = cams[i].LensRay(o, d, r[21], r[22])
		}
		do := get3(g, 0).Sub(o)
		scale := 1e-5 * (get3(r, 0).Length() + 1)
		if !sameDir(get3(g, 3), d) || do.Dot(do) > scale*scale {
			t.Errorf("camera ray %d: GLSL %v %v, Go %v %v", i, get3(g, 0), get3(g, 3), o, d)
		}
	}
}

// TestProbeMovedOrigin: the intersection tests' moved origin, (o − a) +
// t·d rounded once through error-free transformations, is the float64
// value rounded to float32, to a ulp, even where t·d cancels (o − a) to a
// ten-thousandth of it; a device whose fma did not fuse, or a TwoSum that
// the compiler reassociated, would be off by float32's rounding of o − a.
func TestProbeMovedOrigin(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	const n = 8192
	in := records(n, func(i int, r []float32) {
		o := randVec(rng, float32(math.Pow(10, 4*rng.Float64())))
		a := randVec(rng, 1)
		d := randDir(rng).Scale(float32(math.Pow(10, 2*rng.Float64()-1)))
		tt := -o.Sub(a).Dot(d) / d.Dot(d) // the nearest approach: the sum nearly cancels
		put3(r, 0, o)
		put3(r, 3, a)
		r[6] = tt
		put3(r, 7, d)
	})
	out := probe(t, layout.ProbeMovedOrigin, in)
	for i := range n {
		r, g := in[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
		o, a, tt, d := get3(r, 0), get3(r, 3), float64(r[6]), get3(r, 7)
		for k := range 3 {
			want := float32((float64(o.At(k)) - float64(a.At(k))) + tt*float64(d.At(k)))
			ulp := math.Nextafter32(float32(math.Abs(float64(want))), float32(math.Inf(1))) - float32(math.Abs(float64(want)))
			if math.Abs(float64(g[k]-want)) > float64(ulp)+1e-12*float64(o.Sub(a).Length()) {
				t.Fatalf("record %d, axis %d: GLSL %v, float64 rounded %v (o %v, a %v, t %v, d %v)", i, k, g[k], want, o, a, tt, d)
			}
		}
	}
}

// probeScene is probe for the scene probe shader, with sc's parameter block.
func probeScene(t *testing.T, sc *scene.Scene, opts render.Options, fn int, in []float32) []float32 {
	t.Helper()
	longtest.Skip(t)
	out, err := vulkan.ProbeScene(-1, sc, opts, fn, in)
	if err != nil {
		skipWithoutDevice(t, err)
		t.Fatal(err)
	}
	return out
}

// flatHDR is a Radiance .hdr of w×h pixels (flat scanlines) of random
// radiance with a bright patch, decoded: an environment worth importance
// sampling.
func flatHDR(t *testing.T, rng *rand.Rand, w, h int) *render.EnvMap {
	b := []byte(fmt.Sprintf("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n", h, w))
	for y := range h {
		for x := range w {
			v := [3]float64{rng.Float64(), rng.Float64(), rng.Float64()}
			if x > w/2 && x < w/2+3 && y > h/4 && y < h/4+2 {
				v = [3]float64{40, 30, 20}
			}
			e := math.Ceil(math.Log2(max(v[0], v[1], v[2]) + 1e-9))
			s := math.Ldexp(1, int(e)-8)
			b = append(b, byte(v[0]/s), byte(v[1]/s), byte(v[2]/s), byte(e+128))
		}
	}
	env, err := render.DecodeHDR(b)
	if err != nil {
		t.Fatal(err)
	}
	env.Rotation, env.Intensity = 0.7, 1.5
	return env
}

// withPunctualLights adds a point, a spot and a directional light above
// the scene's middle, so that every kind of light is in its table.
func withPunctualLights(sc *scene.Scene) {
	b := sc.Bounds
	mid := b.Min.Add(b.Max).Scale(0.5)
	top := mid.Add(scene.Vec3{Y: 0.4 * (b.Max.Y - b.Min.Y)})
	down := scene.Vec3{X: 0.1, Y: -1, Z: 0.05}.Normalize()
	sc.Lights = append(sc.Lights,
		scene.Light{Name: "point", Kind: scene.PointLight, Color: scene.Vec3{X: 1, Y: 0.8, Z: 0.6}, Intensity: 5, Position: top},
		scene.Light{Name: "spot", Kind: scene.SpotLight, Color: scene.Vec3{X: 0.5, Y: 1, Z: 1}, Intensity: 8, Position: top.Add(scene.Vec3{X: 0.1}), Direction: down, InnerCone: 0.2, OuterCone: 0.6},
		scene.Light{Name: "sun", Kind: scene.DirectionalLight, Color: scene.Vec3{X: 1, Y: 1, Z: 0.9}, Intensity: 2, Direction: down})
}

// TestProbeLights: next-event estimation's light sample (which light, the
// point on it, its radiance and pdf) and the pdfs MIS weighs it by are the
// same on the GPU as in Go, over scenes whose tables hold emissive
// triangles (textured too) and spheres, point, spot and directional lights
// and an importance-sampled HDR environment, with light trees of a few to
// thousands of lights; the environment's radiance too. Picks agree (the
// alias table is 24-bit exact; a tree's choice may fall the other way
// where GLSL's rounding moves a child's probability across u, a few
// records); values to float32 roundings of GLSL's own math.
func TestProbeLights(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	kinds := map[render.LightKind]int{}
	for _, name := range []string{"cornell", "particles", "hairy-cornell", "many-lights"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scene.Load(filepath.Join("..", "..", "scenes", name+".glb"))
			if err != nil {
				t.Fatal(err)
			}
			withPunctualLights(sc)
			env := flatHDR(t, rng, 32, 16)
			opts := render.Options{Width: 16, Height: 12, SPP: 1, MaxDepth: 4, EnvMap: env, EnvColor: [3]float32{1, 1, 1}}
			acc, _, _, err := NewAccel(sc, nil, "bvh")
			if err != nil {
				t.Fatal(err)
			}
			ls := newLightSampler(acc, environment{color: scene.V3(opts.EnvColor), hdr: env}, opts.LightSampler, nil)
			for _, e := range ls.table.Entries {
				kinds[e.Kind]++
			}
			b := sc.Bounds
			const n = 8192
			in := records(n, func(i int, r []float32) {
				ext := b.Max.Sub(b.Min)
				put3(r, 0, b.Min.Add(scene.Vec3{X: ext.X * rng.Float32(), Y: ext.Y * rng.Float32(), Z: ext.Z * rng.Float32()}))
				r[3], r[4], r[5], r[6] = rng.Float32(), rng.Float32(), rng.Float32(), rng.Float32()
			})
			out := probeScene(t, sc, opts, layout.ProbeLightSample, in)
			// A direction on the edge between two texels of the
			// environment, or a point on a light's plane or a sphere's
			// rim, can fall either way in float32 and float64: a few such
			// records are allowed, a pattern is not.
			mismatched, compared := 0, 0
			mismatch := func(format string, args ...any) {
				if mismatched++; mismatched <= 3 {
					t.Logf(format, args...)
				}
			}
			for i := range n {
				r, o := in[i*layout.ProbeIn:], out[i*layout.ProbeOut:]
				var want kernel.LightSample
				ok := kernel.SampleLight(ls, &want, get3(r, 0), r[3], r[4], r[5], r[6])
				if gotOK := o[0] != 0; gotOK != ok {
					mismatch("record %d: GLSL found a sample: %v, Go: %v", i, gotOK, ok)
					continue
				}
				if !ok {
					continue
				}
				compared++
				if (o[9] != 0) != want.Delta || !closeDir(get3(o, 1), want.Wi, 2e-4) || !closeRel(o[4], want.Dist, 2e-4) ||
					!close3Rel(get3(o, 5), want.Radiance, 2e-4) || !closeRel(o[8], want.Pdf, 2e-3) {
					mismatch("record %d (p %v, u %v %v %v %v): GLSL wi %v dist %v radiance %v pdf %v delta %v; Go %+v",
						i, get3(r, 0), r[3], r[4], r[5], r[6], get3(o, 1), o[4], get3(o, 5), o[8], o[9], want)
				}
			}
			if mismatched > n/1000 || compared < n/2 {
				t.Errorf("light samples: %d of %d differ; %d compared", mismatched, n, compared)
			}
			mismatched = 0

			// The pdfs MIS weighs BSDF samples by: of hitting each emitter,
			// and of the environment in each direction.
			var emitters []int
			for k, e := range ls.table.Entries {
				if e.Kind == render.LightTriangle || e.Kind == render.LightSphere {
					emitters = append(emitters, k)
				}
			}
			in = records(n, func(i int, r []float32) {
				if len(emitters) > 0 {
					k := emitters[rng.IntN(len(emitters))]
					e := ls.table.Entries[k]
					r[0], r[1] = fbits(uint32(e.Instance)), fbits(uint32(int32(k)-ls.table.FirstLight[e.Instance]))
				}
				r[2], r[3] = 0.1+3*rng.Float32(), rng.Float32()
				put3(r, 4, b.Min.Add(b.Max.Sub(b.Min).Scale(rng.Float32())))
				put3(r, 7, randDir(rng))
			})
			if len(emitters) > 0 {
				out = probeScene(t, sc, opts, layout.ProbePdfEmitter, in)
				for i := range n {
					r := in[i*layout.ProbeIn:]
					h := Hit{Instance: int32(math.Float32bits(r[0])), Prim: int32(math.Float32bits(r[1])), T: r[2]}
					want := kernel.PdfEmitter(ls, int(h.Instance), int(h.Prim), h.T, r[3], get3(r, 4))
					if got := out[i*layout.ProbeOut]; !closeRel(got, want, 2e-4) {
						mismatch("pdfEmitter record %d (%+v from %v, cos %v): GLSL %v, Go %v", i, h, get3(r, 4), r[3], got, want)
					}
				}
			}
			for i := range n {
				copy(in[i*layout.ProbeIn:], in[i*layout.ProbeIn+7:i*layout.ProbeIn+10])
			}
			out = probeScene(t, sc, opts, layout.ProbeEnvironment, in)
			for i := range n {
				d, o := get3(in[i*layout.ProbeIn:], 0), out[i*layout.ProbeOut:]
				if want := kernel.PdfEnvironment(ls, d); !closeRel(o[0], want, 2e-3) {
					mismatch("pdfEnvironment(%v): GLSL %v, Go %v", d, o[0], want)
				} else if want := ls.env.radiance(d); !close3Rel(get3(o, 1), want, 1e-5) {
					mismatch("environment radiance(%v): GLSL %v, Go %v", d, get3(o, 1), want)
				}
			}
			if mismatched > 2*n/1000 {
				t.Errorf("pdfs and the environment: %d of %d differ", mismatched, 2*n)
			}
		})
	}
	for _, k := range []render.LightKind{render.LightTriangle, render.LightSphere, render.LightPunctual, render.LightEnvironment} {
		if kinds[k] == 0 {
			t.Errorf("no light of kind %d was probed", k)
		}
	}
}

func closeRel(a, b, tol float32) bool {
	return a == b || math.Abs(float64(a-b)) <= float64(tol)*max(math.Abs(float64(a)), math.Abs(float64(b)))
}

// closeDir reports whether unit vectors a and b differ by at most tol.
func closeDir(a, b scene.Vec3, tol float64) bool {
	return float64(a.Sub(b).Length()) <= tol
}

func close3Rel(a, b scene.Vec3, tol float32) bool {
	return closeRel(a.X, b.X, tol) && closeRel(a.Y, b.Y, tol) && closeRel(a.Z, b.Z, tol)
}
