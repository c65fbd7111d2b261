// hair.glsl: the Chiang et al. 2016 hair BSDF, a port of render/cpu/hair.go.
// Same formulas and, as far as GLSL lets us say, the same order of float32
// operations. Where Go computes in float64 (math.Exp, math.Log, math.Atan2,
// besselI0, logI0, ...) this file uses float: every one of those results is
// converted to float32 in Go anyway, and the float versions agree with it to
// float rounding (the Bessel series has only positive terms), except where
// noted: hairLongitudinal's small-variance exponent and hairSampleLobe's
// cos θ for u1 near 1. asin and atan2 are computed here rather than by the
// driver (see hairAtan).
//
// Included after common.glsl (PI, luminance), bsdf.glsl (fresnelDielectric) and the layout header
// that defines
//
//	struct HairParams { float eumelanin; float pheomelanin; vec3 color;
//	    float betaM; float betaN; float alpha; float eta; uint set; };
//
// and the HAIR_EUMELANIN ... HAIR_ETA bits of HairParams.set (a clear bit is
// Go's nil pointer: the field takes the default).
//
// Local frame: x along the fibre, z towards the viewer across it, y = z × x;
// θ is the angle from the normal plane, φ = atan2(y, z), and h ∈ [−1, 1] is
// where the ray crossed the fibre's width.

#ifndef HAIR_GLSL
#define HAIR_GLSL

// HairBSDF mirrors Go's HairBSDF.
struct HairBSDF {
    float h;
    float gammaO;
    float eta;
    vec3 sigmaA;
    float v[4];      // longitudinal variances of R, TT, TRT, residual
    float s;         // azimuthal logistic scale
    float sin2kA[3]; // sin and cos of α, 2α, 4α (the cuticle tilt)
    float cos2kA[3];
};

// The defaults (HAIR_DEFAULT_*) come from render/layout, in the generated header.

// math.Sqrt(math.Pi / 8), 1 / (2 * math.Pi) and math.Log(2 * math.Pi),
// which Go evaluates in float64.
const float HAIR_SQRT_PI_OVER_8 = 0.62665706865775;
const float HAIR_INV_2PI = 0.15915494309189535;
const float HAIR_LOG_2PI = 1.8378770664093453;

// --- small helpers ---------------------------------------------------------

// hairPow is hair.go's pow32 for a non-negative integer power, by repeated
// squaring (a few float roundings; GLSL's pow is exp2(n·log2 v) and loses
// more).
float hairPow(float v, int n) {
    float r = 1.0;
    float b = v;
    for (int e = n; e > 0; e >>= 1) {
        if ((e & 1) != 0) {
            r *= b;
        }
        b *= b;
    }
    return r;
}

void hairSinCosTheta(vec3 w, out float s, out float c) {
    s = clampF(w.x, -1.0, 1.0);
    c = sqrt32(1.0 - s * s);
}

// --- arc functions ----------------------------------------------------------
//
// Vulkan lets asin and atan be off by 4096 ulp (lavapipe's asin is off by
// 4e-4), and γ_o, γ_t and φ place azimuthal lobes only a few 1e-3 rad wide
// at small β_n, so these are computed here: the classic single-precision
// minimax polynomials (Cephes' atanf and asinf), within ~2e-7 relative of
// Go's float64 math.Atan2 and math.Asin on every driver.

// hairAtan is math.Atan.
float hairAtan(float x) {
    float ax = abs(x);
    float y = 0.0;
    float z = ax;
    if (ax > 2.414213562373095) { // tan(3π/8)
        y = PI / 2.0;
        z = -1.0 / ax;
    } else if (ax > 0.4142135623730950) { // tan(π/8)
        y = PI / 4.0;
        z = (ax - 1.0) / (ax + 1.0);
    }
    float zz = z * z;
    y += (((8.05374449538e-2 * zz - 1.38776856032e-1) * zz + 1.99777106478e-1) * zz - 3.33329491539e-1) * zz * z + z;
    return x < 0.0 ? -y : y;
}

// hairAtan2 is math.Atan2(y, x) (GLSL's atan(y, x) is undefined at 0, 0;
// Go gives ±0 or ±π there, this gives 0 and, for y = −0, x < 0, +π).
float hairAtan2(float y, float x) {
    if (x == 0.0) {
        if (y > 0.0) {
            return PI / 2.0;
        }
        if (y < 0.0) {
            return -PI / 2.0;
        }
        return 0.0;
    }
    float a = hairAtan(y / x);
    if (x < 0.0) {
        a += y >= 0.0 ? PI : -PI;
    }
    return a;
}

// hairAsin is math.Asin for x in [−1, 1] (every caller clamps first).
float hairAsin(float x) {
    float a = min(abs(x), 1.0);
    bool big = a > 0.5;
    float z, s;
    if (big) {
        z = 0.5 * (1.0 - a); // asin a = π/2 − 2 asin √((1 − a)/2)
        s = sqrt(z);
    } else {
        z = a * a;
        s = a;
    }
    float r = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z + 1.6666752422e-1) * z * s + s;
    if (big) {
        r = PI / 2.0 - 2.0 * r;
    }
    return x < 0.0 ? -r : r;
}

// hairPhiOf is math.Atan2(w.y, w.z).
float hairPhiOf(vec3 w) {
    return hairAtan2(w.y, w.z);
}

// --- NewHairBSDF -----------------------------------------------------------

// hairMelaninAbsorption is σ_a from eumelanin and pheomelanin concentrations.
vec3 hairMelaninAbsorption(float eu, float pheo) {
    return vec3(0.419 * eu + 0.187 * pheo, 0.697 * eu + 0.4 * pheo, 1.37 * eu + 1.05 * pheo);
}

// hairColorAbsorption inverts the fit of fibre colour to σ_a for a given β_n.
vec3 hairColorAbsorption(vec3 c, float betaN) {
    float d = 5.969 - 0.215 * betaN + 2.532 * betaN * betaN - 10.73 * hairPow(betaN, 3) +
              5.574 * hairPow(betaN, 4) + 0.245 * hairPow(betaN, 5);
    vec3 s;
    for (int i = 0; i < 3; i++) {
        float l = log(clampF(c[i], HAIR_COLOR_MIN, 1.0)) / d;
        s[i] = l * l;
    }
    return s;
}

// newHairBSDF makes the BSDF of a hair material at offset h across the
// fibre. Absorption comes from the melanin concentrations, or from the
// colour when neither is given.
HairBSDF newHairBSDF(HairParams p, float h) {
    float betaM = clampF((p.set & HAIR_BETA_M) != 0u ? p.betaM : HAIR_DEFAULT_BETA, HAIR_BETA_MIN, 1.0);
    float betaN = clampF((p.set & HAIR_BETA_N) != 0u ? p.betaN : HAIR_DEFAULT_BETA, HAIR_BETA_MIN, 1.0);
    float alpha = ((p.set & HAIR_ALPHA) != 0u ? p.alpha : HAIR_DEFAULT_ALPHA) * PI / 180.0;
    HairBSDF b;
    b.h = clampF(h, -1.0, 1.0);
    b.eta = max((p.set & HAIR_ETA) != 0u ? p.eta : HAIR_DEFAULT_ETA, HAIR_ETA_MIN);
    b.gammaO = hairAsin(b.h);
    if ((p.set & (HAIR_EUMELANIN | HAIR_PHEOMELANIN)) != 0u) {
        b.sigmaA = hairMelaninAbsorption((p.set & HAIR_EUMELANIN) != 0u ? p.eumelanin : 0.0,
                                         (p.set & HAIR_PHEOMELANIN) != 0u ? p.pheomelanin : 0.0);
    } else if ((p.set & HAIR_COLOR) != 0u) {
        b.sigmaA = hairColorAbsorption(p.color, betaN);
    } else {
        b.sigmaA = hairMelaninAbsorption(HAIR_DEFAULT_EUMELANIN, 0.0);
    }
    // Longitudinal variance from β_m (the paper's fit), azimuthal logistic scale from β_n.
    float v0 = 0.726 * betaM + 0.812 * betaM * betaM + 3.7 * hairPow(betaM, 20);
    b.v[0] = v0 * v0;
    b.v[1] = 0.25 * b.v[0];
    b.v[2] = 4.0 * b.v[0];
    b.v[3] = b.v[2];
    b.s = HAIR_SQRT_PI_OVER_8 * (0.265 * betaN + 1.194 * betaN * betaN + 5.372 * hairPow(betaN, 22));
    // sin/cos of α, 2α, 4α by the double-angle formulas.
    b.sin2kA[0] = sin(alpha);
    b.cos2kA[0] = cos(alpha);
    for (int i = 1; i < 3; i++) {
        b.sin2kA[i] = 2.0 * b.cos2kA[i - 1] * b.sin2kA[i - 1];
        b.cos2kA[i] = b.cos2kA[i - 1] * b.cos2kA[i - 1] - b.sin2kA[i - 1] * b.sin2kA[i - 1];
    }
    return b;
}

// --- M_p: the longitudinal lobe ---------------------------------------------

// hairBesselI0 is the modified Bessel function of the first kind, order 0
// (ten terms of its series, as Go). All terms are positive, so float sums
// them to float rounding; x ≤ 12 wherever it is called (x²ⁱ ≤ 3e19).
float hairBesselI0(float x) {
    float sum = 0.0;
    float x2i = 1.0;
    float ifact = 1.0;
    float i4 = 1.0;
    for (int i = 0; i < 10; i++) {
        if (i > 1) {
            ifact *= float(i);
        }
        sum += x2i / (i4 * ifact * ifact);
        x2i *= x * x;
        i4 *= 4.0;
    }
    return sum;
}

float hairLogI0(float x) {
    if (x > 12.0) {
        return x + 0.5 * (-HAIR_LOG_2PI + log(1.0 / x) + 1.0 / (8.0 * x));
    }
    return log(hairBesselI0(x));
}

// hairLongitudinal is M_p for variance v (pbrt's form, with a log-space
// branch for small variances where the Bessel function overflows).
//
// Go sums the small-variance exponent in float64; here it is float, so the
// exponent carries a few ulps of 1/v of absolute error: ~1e-5 relative in
// M_p at the default β_m, ~1e-3 at β_m = 0.01 (where Go's float32 a and b
// already carry errors of that size).
float hairLongitudinal(float cosI, float cosO, float sinI, float sinO, float v) {
    float a = cosI * cosO / v;
    float b = sinI * sinO / v;
    if (v <= 0.1) {
        return exp(hairLogI0(a) - b - 1.0 / v + 0.6931 + log(1.0 / (2.0 * v)));
    }
    return exp(-b) * hairBesselI0(a) / (sinh(1.0 / v) * 2.0 * v);
}

// --- A_p: attenuations -------------------------------------------------------

// hairAttenuations are A_0..A_3: what each path keeps, for a view at sin θ_o;
// it also gives γ_t.
void hairAttenuations(HairBSDF b, float sinO, float cosO, out vec3 a[4], out float gammaT) {
    float sinT = sinO / b.eta;
    float cosT = sqrt32(1.0 - sinT * sinT);
    float etap = sqrt32(b.eta * b.eta - sinO * sinO) / max(cosO, 1e-6);
    float sinGT = b.h / etap;
    float cosGT = sqrt32(1.0 - sinGT * sinGT);
    gammaT = hairAsin(clampF(sinGT, -1.0, 1.0));
    vec3 t;
    for (int i = 0; i < 3; i++) {
        t[i] = exp(-b.sigmaA[i] * (2.0 * cosGT / max(cosT, 1e-6)));
    }
    float f = fresnelDielectric(cosO * sqrt32(1.0 - b.h * b.h), b.eta);
    for (int i = 0; i < 3; i++) {
        a[0][i] = f;
        a[1][i] = (1.0 - f) * (1.0 - f) * t[i];
        a[2][i] = a[1][i] * t[i] * f;
        a[3][i] = a[2][i] * t[i] * f / max(1.0 - t[i] * f, 1e-6);
    }
}

// --- N_p: the azimuthal lobe --------------------------------------------------

// hairBigPhi is the azimuth of path p's exit relative to the incident azimuth.
float hairBigPhi(int p, float gammaO, float gammaT) {
    return 2.0 * float(p) * gammaT - 2.0 * gammaO + float(p) * PI;
}

// hairSampleTrimmedLogistic inverts the trimmed logistic's CDF. Go's
// log(1/d − 1) runs to ±Inf at the ends (clamped to ±π); GLSL leaves log(0)
// and 1/0 undefined, so those ends are returned explicitly. (Where rounding
// makes d exceed 1, Go's log gives NaN; this returns π.)
float hairSampleTrimmedLogistic(float u, float s) {
    float k = logisticCDF(PI, s) - logisticCDF(-PI, s);
    float d = u * k + logisticCDF(-PI, s);
    if (d <= 0.0) {
        return -PI; // 1/d − 1 = +Inf: x = −Inf
    }
    float t = 1.0 / d - 1.0;
    if (t <= 0.0) {
        return PI; // log(0) = −Inf: x = +Inf
    }
    float x = -s * log(t);
    return clampF(x, -PI, PI);
}

// hairWrapAngle brings an angle to [−π, π]. The loops are bounded (Go's are
// not) so that a non-finite angle cannot hang the GPU; every finite angle
// this file produces is within a few turns.
float hairWrapAngle(float a) {
    for (int i = 0; i < 64 && a > PI; i++) {
        a -= 2.0 * PI;
    }
    for (int i = 0; i < 64 && a < -PI; i++) {
        a += 2.0 * PI;
    }
    return a;
}

// hairRotatedTheta applies the cuticle tilt to θ_o for path p.
void hairRotatedTheta(HairBSDF b, int p, float sinO, float cosO, out float s, out float c) {
    if (p == 0) {
        s = sinO * b.cos2kA[1] - cosO * b.sin2kA[1];
        c = cosO * b.cos2kA[1] + sinO * b.sin2kA[1];
    } else if (p == 1) {
        s = sinO * b.cos2kA[0] + cosO * b.sin2kA[0];
        c = cosO * b.cos2kA[0] - sinO * b.sin2kA[0];
    } else if (p == 2) {
        s = sinO * b.cos2kA[2] + cosO * b.sin2kA[2];
        c = cosO * b.cos2kA[2] - sinO * b.sin2kA[2];
    } else {
        s = sinO;
        c = cosO;
    }
    c = abs(c);
}

// --- the BSDF ------------------------------------------------------------------

// hairLobe is M_p·N_p for path p at the angles of wo and wi (phi: the azimuth
// from wo to wi): the lobe's shape, and the solid-angle density with which
// hairSampleLobe draws wi.
float hairLobe(HairBSDF b, int p, float sinO, float cosO, float sinI, float cosI, float phi, float gammaT) {
    float s, c;
    hairRotatedTheta(b, p, sinO, cosO, s, c);
    float m = hairLongitudinal(cosI, c, sinI, s, b.v[p]);
    if (p == 3) {
        return m * HAIR_INV_2PI;
    }
    return m * trimmedLogistic(hairWrapAngle(phi - hairBigPhi(p, b.gammaO, gammaT)), b.s);
}

// hairLobeWeights is how often hairSample picks each path: its share of the
// luminance of the attenuations.
void hairLobeWeights(vec3 a[4], out float w[4]) {
    float sum = 0.0;
    for (int p = 0; p < 4; p++) {
        w[p] = luminance(a[p]);
        sum += w[p];
    }
    if (sum <= 0.0) {
        w[0] = 1.0;
        w[1] = 0.0;
        w[2] = 0.0;
        w[3] = 0.0;
        return;
    }
    for (int p = 0; p < 4; p++) {
        w[p] /= sum;
    }
}

// hairEval returns f(wo, wi)·|cos θ_i| and the pdf with which hairSample
// picks wi.
vec3 hairEval(HairBSDF b, vec3 wo, vec3 wi, out float pdf) {
    float sinO, cosO, sinI, cosI;
    hairSinCosTheta(wo, sinO, cosO);
    hairSinCosTheta(wi, sinI, cosI);
    float phi = hairPhiOf(wi) - hairPhiOf(wo);
    vec3 a[4];
    float gammaT;
    hairAttenuations(b, sinO, cosO, a, gammaT);
    float weights[4];
    hairLobeWeights(a, weights);
    vec3 f = vec3(0.0);
    pdf = 0.0;
    for (int p = 0; p < 4; p++) {
        float mn = hairLobe(b, p, sinO, cosO, sinI, cosI, phi, gammaT);
        f = f + a[p] * mn;
        pdf += mn * weights[p];
    }
    // The model's f has a 1/|cos θ_i| that the rendering equation's cosine cancels.
    return f;
}

// hairSampleLobe draws wi from path p's lobe alone: θ from M_p by u1 and
// u2, the azimuth from N_p by u3.
//
// Go sums log's argument u1 + (1 − u1)·e^(−2/v) in float64; in float it is
// rounded, which moves cos θ by ~v·6e-8. Near the lobe's peak (u1 within
// ~1e-5 of 1) and for large v (β_m near 1) that shifts the drawn direction
// by up to ~1e-3; hairSample evaluates f and the pdf at the direction drawn,
// so the estimate stays consistent.
vec3 hairSampleLobe(HairBSDF b, int p, vec3 wo, float gammaT, float u1, float u2, float u3) {
    float sinO, cosO;
    hairSinCosTheta(wo, sinO, cosO);
    float s, c;
    hairRotatedTheta(b, p, sinO, cosO, s, c);
    float v = b.v[p];
    u1 = max(u1, 1e-5);
    float cosTheta = 1.0 + v * log(u1 + (1.0 - u1) * exp(-2.0 / v));
    float sinTheta = sqrt32(1.0 - cosTheta * cosTheta);
    float cosPhi = cos(2.0 * PI * u2);
    float sinI = -cosTheta * s + sinTheta * cosPhi * c;
    float cosI = sqrt32(1.0 - sinI * sinI);
    float dphi = 2.0 * PI * u3;
    if (p < 3) {
        dphi = hairBigPhi(p, b.gammaO, gammaT) + hairSampleTrimmedLogistic(u3, b.s);
    }
    float phiI = hairPhiOf(wo) + dphi;
    return vec3(sinI, cosI * sin(phiI), cosI * cos(phiI));
}

// hairSample picks wi for wo: a path p by u, a longitudinal angle by u1 and
// u2, an azimuth by u3; it gives f·|cos|/pdf and the pdf. False (weight 0,
// pdf 0) where the pdf at the drawn wi is not positive.
bool hairSample(HairBSDF b, vec3 wo, float u, float u1, float u2, float u3, out vec3 wi, out vec3 weight, out float pdf) {
    float sinO, cosO;
    hairSinCosTheta(wo, sinO, cosO);
    vec3 a[4];
    float gammaT;
    hairAttenuations(b, sinO, cosO, a, gammaT);
    float weights[4];
    hairLobeWeights(a, weights);
    int p = 0;
    while (p < 3 && u >= weights[p]) {
        u -= weights[p];
        p++;
    }
    wi = hairSampleLobe(b, p, wo, gammaT, u1, u2, u3);
    vec3 f = hairEval(b, wo, wi, pdf);
    if (!(pdf >= 1.17549435e-38)) { // below the smallest normal: no sample (as on the CPU)
        weight = vec3(0.0);
        pdf = 0.0;
        return false;
    }
    weight = f * (1.0 / pdf);
    return true;
}

#endif // HAIR_GLSL
