package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// HairBSDF is the hair scattering model of Chiang, Bitterli, Tappan and
// Burley ("A Practical and Controllable Hair and Fur Model for Production
// Path Tracing", 2016), as pbrt-v4 and Cycles' Principled Hair implement it:
// for each path p through the fibre — R (reflection), TT (two
// transmissions), TRT, and the residual of all longer ones — a longitudinal
// lobe M_p (with the cuticle tilt), an attenuation A_p (Fresnel and
// absorption) and an azimuthal logistic lobe N_p.
//
// Local frame: x along the fibre, z towards the viewer across it, y = z × x;
// θ is the angle from the normal plane, φ = atan2(y, z), and h ∈ [−1, 1] is
// where the ray crossed the fibre's width.
type HairBSDF struct {
	h, gammaO float32
	eta       float32
	sigmaA    scene.Vec3
	v         [4]float32 // longitudinal variances of R, TT, TRT, residual
	s         float32    // azimuthal logistic scale
	sin2kA    [3]float32 // sin and cos of α, 2α, 4α (the cuticle tilt)
	cos2kA    [3]float32
}

// NewHairBSDF makes the BSDF of a hair material at offset h across the
// fibre. Absorption comes from the melanin concentrations, or from the
// colour when neither is given.
func NewHairBSDF(p layout.HairParams, h float32) HairBSDF {
	hp := ResolveHair(p)
	betaM := hp.BetaM
	betaN := hp.BetaN
	alpha := hp.Alpha * math.Pi / 180
	b := HairBSDF{h: ClampF(h, -1, 1), eta: hp.Eta, sigmaA: hp.SigmaA}
	b.gammaO = float32(math.Asin(float64(b.h)))
	// Longitudinal variance from β_m (the paper's fit), azimuthal logistic scale from β_n.
	v0 := 0.726*betaM + 0.812*betaM*betaM + 3.7*pow32(betaM, 20)
	b.v[0] = v0 * v0
	b.v[1] = 0.25 * b.v[0]
	b.v[2] = 4 * b.v[0]
	b.v[3] = b.v[2]
	b.s = float32(math.Sqrt(math.Pi/8)) * (0.265*betaN + 1.194*betaN*betaN + 5.372*pow32(betaN, 22))
	// sin/cos of α, 2α, 4α by the double-angle formulas.
	b.sin2kA[0] = float32(math.Sin(float64(alpha)))
	b.cos2kA[0] = float32(math.Cos(float64(alpha)))
	for i := 1; i < 3; i++ {
		b.sin2kA[i] = 2 * b.cos2kA[i-1] * b.sin2kA[i-1]
		b.cos2kA[i] = b.cos2kA[i-1]*b.cos2kA[i-1] - b.sin2kA[i-1]*b.sin2kA[i-1]
	}
	return b
}

// HairParameters are a hair material's parameters as the model reads them:
// its absorption σ_a (per unit of the fibre's radius, as Chiang et al.'s
// and Cycles' Principled Hair BSDF read it), its longitudinal and azimuthal
// roughnesses β_m and β_n, its cuticle tilt α in degrees and its index.
type HairParameters struct {
	SigmaA              scene.Vec3
	BetaM, BetaN, Alpha float32
	Eta                 float32
}

// ResolveHair is what a hair material means: its values or their defaults
// (a field is given where its bit of p.Set is), within the model's bounds,
// and its absorption from melanin or a colour.
func ResolveHair(p layout.HairParams) HairParameters {
	var hp HairParameters
	hp.BetaM = ClampF(hairParam(p.Set, layout.HairBetaM, p.BetaM, layout.HairDefaultBeta), layout.HairBetaMin, 1)
	hp.BetaN = ClampF(hairParam(p.Set, layout.HairBetaN, p.BetaN, layout.HairDefaultBeta), layout.HairBetaMin, 1)
	hp.Alpha = hairParam(p.Set, layout.HairAlpha, p.Alpha, layout.HairDefaultAlpha)
	hp.Eta = max(hairParam(p.Set, layout.HairEta, p.Eta, layout.HairDefaultEta), layout.HairEtaMin)
	if p.Set&layout.HairSigmaA != 0 {
		hp.SigmaA = p.Color
	} else if p.Set&(layout.HairEumelanin|layout.HairPheomelanin) != 0 {
		hp.SigmaA = hairMelaninAbsorption(hairParam(p.Set, layout.HairEumelanin, p.Eumelanin, 0), hairParam(p.Set, layout.HairPheomelanin, p.Pheomelanin, 0))
	} else if p.Set&layout.HairColor != 0 {
		hp.SigmaA = hairColorAbsorption(p.Color, hp.BetaN)
	} else {
		hp.SigmaA = hairMelaninAbsorption(layout.HairDefaultEumelanin, 0)
	}
	return hp
}

// hairParam is v where its bit is set, else def.
func hairParam(set, bit uint32, v, def float32) float32 {
	if set&bit != 0 {
		return v
	}
	return def
}

// hairMelaninAbsorption is σ_a from eumelanin and pheomelanin concentrations.
func hairMelaninAbsorption(eu, pheo float32) scene.Vec3 {
	return scene.Vec3{X: 0.419*eu + 0.187*pheo, Y: 0.697*eu + 0.4*pheo, Z: 1.37*eu + 1.05*pheo}
}

// hairColorAbsorption inverts the fit of fibre colour to σ_a for a given β_n.
func hairColorAbsorption(c scene.Vec3, betaN float32) scene.Vec3 {
	d := 5.969 - 0.215*betaN + 2.532*betaN*betaN - 10.73*pow32(betaN, 3) + 5.574*pow32(betaN, 4) + 0.245*pow32(betaN, 5)
	return scene.Vec3{X: hairColorSigma(c.X, d), Y: hairColorSigma(c.Y, d), Z: hairColorSigma(c.Z, d)}
}

// hairColorSigma is one channel of hairColorAbsorption.
func hairColorSigma(c, d float32) float32 {
	l := float32(math.Log(float64(ClampF(c, layout.HairColorMin, 1)))) / d
	return l * l
}

// pow32 is v to the whole power n.
func pow32(v float32, n int) float32 { return float32(math.Pow(float64(v), float64(n))) }

// HairSinCosTheta are sin θ and cos θ of a direction in the fibre's frame.
func HairSinCosTheta(w scene.Vec3) (sin, cos float32) {
	sin = ClampF(w.X, -1, 1)
	return sin, Sqrt32(1 - sin*sin)
}

// HairPhiOf is φ of a direction in the fibre's frame.
func HairPhiOf(w scene.Vec3) float32 { return float32(math.Atan2(float64(w.Y), float64(w.Z))) }

// The constant of hairLogI0 (Go's float64 math.Log(2π)).
const hairLog2Pi = 1.8378770664093453

// hairLongitudinal is M_p for variance v (pbrt's form, with a log-space
// branch for small variances where the Bessel function overflows). The
// GPU computes its float64 in float: the small-variance exponent then
// carries a few ulps of 1/v of absolute error, ~1e-5 relative in M_p at
// the default β_m, ~1e-3 at β_m = 0.01 (where the float32 a and b already
// carry errors of that size).
func hairLongitudinal(cosI, cosO, sinI, sinO, v float32) float32 {
	a := float64(cosI * cosO / v)
	b := float64(sinI * sinO / v)
	if v <= 0.1 {
		return float32(math.Exp(hairLogI0(a) - b - 1/float64(v) + 0.6931 + math.Log(1/(2*float64(v)))))
	}
	return float32(math.Exp(-b) * hairBesselI0(a) / (math.Sinh(1/float64(v)) * 2 * float64(v)))
}

// hairBesselI0 is the modified Bessel function of the first kind, order 0
// (ten terms of its series). All terms are positive, so float sums them to
// float rounding on the GPU; x ≤ 12 wherever it is called (x²ⁱ ≤ 3e19).
func hairBesselI0(x float64) float64 {
	var sum, x2i, ifact, i4 float64 = 0, 1, 1, 1
	for i := 0; i < 10; i++ {
		if i > 1 {
			ifact *= float64(i)
		}
		sum += x2i / (i4 * ifact * ifact)
		x2i *= x * x
		i4 *= 4
	}
	return sum
}

func hairLogI0(x float64) float64 {
	if x > 12 {
		return x + 0.5*(-hairLog2Pi+math.Log(1/x)+1/(8*x))
	}
	return math.Log(hairBesselI0(x))
}

// Attenuations are A_0..A_3: what each path keeps, for a view at sin θ_o,
// and γ_t.
func (b *HairBSDF) Attenuations(sinO, cosO float32) (a [4]scene.Vec3, gammaT float32) {
	sinT := sinO / b.eta
	cosT := Sqrt32(1 - sinT*sinT)
	etap := Sqrt32(b.eta*b.eta-sinO*sinO) / max(cosO, 1e-6)
	sinGT := b.h / etap
	cosGT := Sqrt32(1 - sinGT*sinGT)
	gammaT = float32(math.Asin(float64(ClampF(sinGT, -1, 1))))
	path := 2 * cosGT / max(cosT, 1e-6)
	t := scene.Vec3{X: hairTransmit(b.sigmaA.X, path), Y: hairTransmit(b.sigmaA.Y, path), Z: hairTransmit(b.sigmaA.Z, path)}
	f := FresnelDielectric(cosO*Sqrt32(1-b.h*b.h), b.eta)
	a[0] = scene.Vec3{X: f, Y: f, Z: f}
	a[1] = t.Scale((1 - f) * (1 - f))
	a[2] = a[1].Mul3(t).Scale(f)
	a[3] = scene.Vec3{X: hairResidual(a[2].X, t.X, f), Y: hairResidual(a[2].Y, t.Y, f), Z: hairResidual(a[2].Z, t.Z, f)}
	return a, gammaT
}

// hairTransmit is what one channel keeps across a path through the fibre.
func hairTransmit(sigmaA, path float32) float32 {
	return float32(math.Exp(float64(-sigmaA * path)))
}

// hairResidual is one channel of A_3, the sum of the paths past TRT.
func hairResidual(a2, t, f float32) float32 { return a2 * t * f / max(1-t*f, 1e-6) }

// hairBigPhi is the azimuth of path p's exit relative to the incident azimuth.
func hairBigPhi(p int, gammaO, gammaT float32) float32 {
	return 2*float32(p)*gammaT - 2*gammaO + float32(p)*math.Pi
}

// hairSampleTrimmedLogistic inverts the trimmed logistic's CDF. log(1/d −
// 1) runs to ±Inf at the ends, where the result is ±π (GLSL leaves log(0)
// and 1/0 undefined, so the ends are returned explicitly; where rounding
// makes d exceed 1, π).
func hairSampleTrimmedLogistic(u, s float32) float32 {
	k := LogisticCDF(math.Pi, s) - LogisticCDF(-math.Pi, s)
	d := u*k + LogisticCDF(-math.Pi, s)
	if d <= 0 {
		return -math.Pi
	}
	t := 1/d - 1
	if t <= 0 {
		return math.Pi
	}
	x := -s * float32(math.Log(float64(t)))
	return ClampF(x, -math.Pi, math.Pi)
}

// hairWrapAngle brings an angle to [−π, π]. The loops are bounded so that
// a non-finite angle cannot hang a thread; every finite angle the model
// produces is within a few turns.
func hairWrapAngle(a float32) float32 {
	for i := 0; i < 64 && a > math.Pi; i++ {
		a -= 2 * math.Pi
	}
	for i := 0; i < 64 && a < -math.Pi; i++ {
		a += 2 * math.Pi
	}
	return a
}

// rotatedTheta applies the cuticle tilt to θ_o for path p.
func (b *HairBSDF) rotatedTheta(p int, sinO, cosO float32) (sin, cos float32) {
	switch p {
	case 0:
		sin = sinO*b.cos2kA[1] - cosO*b.sin2kA[1]
		cos = cosO*b.cos2kA[1] + sinO*b.sin2kA[1]
	case 1:
		sin = sinO*b.cos2kA[0] + cosO*b.sin2kA[0]
		cos = cosO*b.cos2kA[0] - sinO*b.sin2kA[0]
	case 2:
		sin = sinO*b.cos2kA[2] + cosO*b.sin2kA[2]
		cos = cosO*b.cos2kA[2] - sinO*b.sin2kA[2]
	default:
		sin = sinO
		cos = cosO
	}
	return sin, float32(math.Abs(float64(cos)))
}

// Eval returns f(wo, wi)·|cos θ_i| and the pdf with which Sample picks wi.
func (b *HairBSDF) Eval(wo, wi scene.Vec3) (scene.Vec3, float32) {
	sinO, cosO := HairSinCosTheta(wo)
	sinI, cosI := HairSinCosTheta(wi)
	phi := HairPhiOf(wi) - HairPhiOf(wo)
	a, gammaT := b.Attenuations(sinO, cosO)
	weights := hairLobeWeights(&a)
	var f scene.Vec3
	var pdf float32
	for p := 0; p < 4; p++ {
		mn := b.Lobe(p, sinO, cosO, sinI, cosI, phi, gammaT)
		f = f.Add(a[p].Scale(mn))
		pdf += mn * weights[p]
	}
	// The model's f has a 1/|cos θ_i| that the rendering equation's cosine cancels.
	return f, pdf
}

// Lobe is M_p·N_p for path p at the angles of wo and wi (phi: the azimuth
// from wo to wi): the lobe's shape, and the solid-angle density with which
// SampleLobe draws wi.
func (b *HairBSDF) Lobe(p int, sinO, cosO, sinI, cosI, phi, gammaT float32) float32 {
	s, c := b.rotatedTheta(p, sinO, cosO)
	m := hairLongitudinal(cosI, c, sinI, s, b.v[p])
	if p == 3 {
		return m * float32(1/(2*math.Pi))
	}
	return m * TrimmedLogistic(hairWrapAngle(phi-hairBigPhi(p, b.gammaO, gammaT)), b.s)
}

// hairLobeWeights is how often Sample picks each path: its share of the
// luminance of the attenuations.
func hairLobeWeights(a *[4]scene.Vec3) (w [4]float32) {
	var sum float32
	for p := range a {
		w[p] = Luminance(a[p])
		sum += w[p]
	}
	if sum <= 0 {
		return [4]float32{1, 0, 0, 0}
	}
	for p := range w {
		w[p] /= sum
	}
	return w
}

// Sample picks wi for wo: a path p by u, a longitudinal angle by u1 and u2,
// an azimuth by u3; it returns f·|cos|/pdf and the pdf, or no sample.
func (b *HairBSDF) Sample(wo scene.Vec3, u, u1, u2, u3 float32) (wi, weight scene.Vec3, pdf float32, ok bool) {
	sinO, cosO := HairSinCosTheta(wo)
	a, gammaT := b.Attenuations(sinO, cosO)
	weights := hairLobeWeights(&a)
	p := 0
	for p < 3 && u >= weights[p] {
		u -= weights[p]
		p++
	}
	wi = b.SampleLobe(p, wo, gammaT, u1, u2, u3)
	f, pdf := b.Eval(wo, wi)
	// A pdf below float32's smallest normal number would make the weight
	// infinite (and a GPU flushes it to zero): no sample, on every backend.
	if !(pdf >= 0x1p-126) {
		return wi, scene.Vec3{}, 0, false
	}
	return wi, f.Scale(1 / pdf), pdf, true
}

// SampleLobe draws wi from path p's lobe alone: θ from M_p by u1, u2 and
// the azimuth from N_p by u3. The GPU sums log's argument in float, not
// float64: near the lobe's peak (u1 within ~1e-5 of 1) and for large v
// that moves the drawn direction by up to ~1e-3; Sample evaluates f and
// the pdf at the direction drawn, so the estimate stays consistent.
func (b *HairBSDF) SampleLobe(p int, wo scene.Vec3, gammaT, u1, u2, u3 float32) scene.Vec3 {
	sinO, cosO := HairSinCosTheta(wo)
	s, c := b.rotatedTheta(p, sinO, cosO)
	v := b.v[p]
	u1 = max(u1, 1e-5)
	cosTheta := 1 + v*float32(math.Log(float64(u1)+float64(1-u1)*math.Exp(-2/float64(v))))
	sinTheta := Sqrt32(1 - cosTheta*cosTheta)
	cosPhi := float32(math.Cos(2 * math.Pi * float64(u2)))
	sinI := -cosTheta*s + sinTheta*cosPhi*c
	cosI := Sqrt32(1 - sinI*sinI)
	dphi := 2 * math.Pi * u3
	if p < 3 {
		dphi = hairBigPhi(p, b.gammaO, gammaT) + hairSampleTrimmedLogistic(u3, b.s)
	}
	phiI := HairPhiOf(wo) + dphi
	return scene.Vec3{X: sinI, Y: cosI * float32(math.Sin(float64(phiI))), Z: cosI * float32(math.Cos(float64(phiI)))}
}

// Logistic is the logistic distribution of scale s at x.
func Logistic(x, s float32) float32 {
	x = float32(math.Abs(float64(x)))
	e := float32(math.Exp(float64(-x / s)))
	return e / (s * (1 + e) * (1 + e))
}

// LogisticCDF is its cumulative distribution.
func LogisticCDF(x, s float32) float32 { return 1 / (1 + float32(math.Exp(float64(-x/s)))) }

// TrimmedLogistic is the logistic normalised on [−π, π].
func TrimmedLogistic(x, s float32) float32 {
	return Logistic(x, s) / (LogisticCDF(math.Pi, s) - LogisticCDF(-math.Pi, s))
}

// Luminance is a linear Rec. 709 colour's luminance.
func Luminance(c scene.Vec3) float32 { return layout.LumR*c.X + layout.LumG*c.Y + layout.LumB*c.Z }
