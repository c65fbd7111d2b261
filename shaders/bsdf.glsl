// bsdf.glsl: the glTF metallic-roughness BSDF, a port of render/cpu/bsdf.go
// (its pieces already written once come from render/kernel). Same
// formulas and, as far as GLSL lets us say, the same order of float
// operations, so first-hit values match the CPU backend to float rounding.
//
// Included after common.glsl (PI; luminance in the kernel). The includer must define
//
//	vec2 albedoTableAt(int i, int j)
//	float sheenTableAt(int i, int j)
//	vec2 iridBinAt(int i, int j, int k)
//	vec2 anisoTableAt(int cell)
//	vec2 glassTableAt(int cell)
//	float msTableAt(int cell)
//
// before this file: Go's SpecularAlbedoTable[i][j], SheenAlbedoTable()[i][j]
// and IridescenceBinTable()[i][j][k], i the sqrt(mu) index, j the
// sqrt(alpha) (the sheen roughness) index, ALBEDO_TABLE_SIZE each, k the
// v·h bin; AnisoAlbedoTable()[cell], cell as Go's AnisoCell numbers it;
// GlassAlbedoTable()[cell], cell as Go's GlassCell numbers it, two pairs a
// cell; and MultipleScatteringTable()[cell], cell as Go's MSCell numbers it.
//
// Directions are in the local frame, the normal along +Z.

#ifndef BSDF_GLSL
#define BSDF_GLSL

// What is written once in Go (render/kernel, translated): the microfacet
// terms, the frame, the visible-normal and hemisphere sampling, the thin
// film's Fresnel, the spectrum and the hair BSDF.
#include "govec.glsl"
#include "gomath.glsl"
#include "generated/kernel.glsl"

// BSDF mirrors Go's BSDF; newBSDF leaves transmission, eta and thin at Go's
// zero values, the shading code sets them for transmissive materials.
struct BSDF {
    vec3 base;          // linear base colour
    float metallic;
    float alpha;        // roughness², at least MIN_ALPHA
    vec3 f0;            // dielectric reflectance at normal incidence
    float f90;          // dielectric reflectance at grazing incidence
    float transmission; // KHR_materials_transmission share of the dielectric
    float eta;          // index of the far side over the viewer's
    bool thin;          // a sheet: transmits without bending
    float coat;         // KHR_materials_clearcoat's weight (0: none)
    float coatAlpha;    // its roughness², at least MIN_ALPHA
    vec3 coatN;         // its normal, local (+Z unless it differs)
    vec3 sheenColor;    // KHR_materials_sheen's colour (0: none)
    float sheenRoughness;
    float diffTrans;     // KHR_materials_diffuse_transmission's share of the diffuse lobe
    vec3 diffTransColor; // and its tint
    float anisoAlpha;    // KHR_materials_anisotropy: the specular lobes' roughness along anisoDir (0: isotropic)
    vec3 anisoDir;       // local, in the tangent plane
    float irid;          // KHR_materials_iridescence: how much of the film's Fresnel (0: none)
    float filmIOR;       // the film's index
    float filmThickness; // and thickness, nm
};

// --- specular albedo -------------------------------------------------------

// specularIntegrals looks up A and S (render.SpecularIntegrals) bilinearly
// over sqrt(mu), mu = cos θ_o, and sqrt(alpha).
void specularIntegrals(float mu, float alpha, out float a, out float s) {
    float x = clamp01(sqrt32(mu)) * float(ALBEDO_TABLE_SIZE - 1);
    float y = clamp01(sqrt32(alpha)) * float(ALBEDO_TABLE_SIZE - 1);
    int i = min(int(x), ALBEDO_TABLE_SIZE - 2);
    int j = min(int(y), ALBEDO_TABLE_SIZE - 2);
    float fx = x - float(i);
    float fy = y - float(j);
    vec2 l = (albedoTableAt(i, j) * (1.0 - fx) + albedoTableAt(i + 1, j) * fx) * (1.0 - fy) +
             (albedoTableAt(i, j + 1) * (1.0 - fx) + albedoTableAt(i + 1, j + 1) * fx) * fy;
    a = l.x;
    s = l.y;
}

// anisoCell is Go's AnisoCell: the index of cell (mu row i, azimuth p,
// roughness j, stretch k) in the anisotropic table.
int anisoCell(int i, int p, int j, int k) {
    return ((i * ANISO_TABLE_PHI + p) * ANISO_TABLE_ROUGH + j) * ANISO_TABLE_STRETCH + k;
}

// anisoCoord is where v in [0, 1] falls among n cells: the lower one's
// index and the fraction past it.
int anisoCoord(float v, int n, out float f) {
    float x = clamp01(v) * float(n - 1);
    int i = min(int(x), n - 2);
    f = x - float(i);
    return i;
}

// anisoSpecularIntegrals looks A and S up in the anisotropic table (Go's
// render.AnisoSpecularIntegrals): wo in the anisotropy's frame, roughness²
// ay across its direction and ax along it, linearly in each of sqrt(mu),
// the azimuth folded into [0, π/2], sqrt(ay) and the stretch.
void anisoSpecularIntegrals(vec3 wo, float ax, float ay, out float a, out float s) {
    float phi = (wo.x == 0.0 && wo.y == 0.0) ? 0.0 : atan(abs(wo.y), abs(wo.x));
    float stretch = ay < 1.0 ? (ax - ay) / (1.0 - ay) : 0.0;
    float fi, fp, fj, fk;
    int i = anisoCoord(sqrt32(wo.z), ANISO_TABLE_MU, fi);
    int p = anisoCoord(phi / (PI / 2.0), ANISO_TABLE_PHI, fp);
    int j = anisoCoord(sqrt32(ay), ANISO_TABLE_ROUGH, fj);
    int k = anisoCoord(stretch, ANISO_TABLE_STRETCH, fk);
    a = 0.0;
    s = 0.0;
    for (int c = 0; c < 16; c++) {
        int di = c & 1, dp = (c >> 1) & 1, dj = (c >> 2) & 1, dk = (c >> 3) & 1;
        float w = (di == 1 ? fi : 1.0 - fi) * (dp == 1 ? fp : 1.0 - fp) * (dj == 1 ? fj : 1.0 - fj) * (dk == 1 ? fk : 1.0 - fk);
        vec2 v = anisoTableAt(anisoCell(i + di, p + dp, j + dj, k + dk));
        a += w * v.x;
        s += w * v.y;
    }
}

// glassAlbedo is render.GlassAlbedo: the glass interface's
// single-scattering albedo for cos θo mu, roughness² alpha and relative
// index eta (below 1: leaving), linearly in sqrt(mu), sqrt(alpha) and
// cbrt(r), r = |eta - 1|/(eta + 1); for light entering, its reflected part
// in reflected (0 leaving).
float glassAlbedo(float mu, float alpha, float eta, out float reflected) {
    int side = 0;
    if (eta < 1.0) {
        side = 1;
        eta = 1.0 / eta;
    }
    float fi, fj, fk;
    int i = anisoCoord(sqrt32(mu), GLASS_TABLE_MU, fi);
    int j = anisoCoord(sqrt32(alpha), GLASS_TABLE_ROUGH, fj);
    int k = anisoCoord(pow(max(eta - 1.0, 0.0) / (eta + 1.0) / GLASS_TABLE_MAX_R, 1.0 / 3.0), GLASS_TABLE_ETA, fk);
    float e = 0.0;
    reflected = 0.0;
    for (int c = 0; c < 8; c++) {
        int di = c & 1, dj = (c >> 1) & 1, dk = (c >> 2) & 1;
        float w = (di == 1 ? fi : 1.0 - fi) * (dj == 1 ? fj : 1.0 - fj) * (dk == 1 ? fk : 1.0 - fk);
        int cell = ((i + di) * GLASS_TABLE_ROUGH + j + dj) * GLASS_TABLE_ETA + k + dk;
        vec2 v = glassTableAt(2 * cell);
        e += w * (side == 1 ? v.y : v.x);
        if (side == 0) {
            reflected += w * glassTableAt(2 * cell + 1).x;
        }
    }
    return e;
}

// --- multiple scattering (render.MultipleScattering) ------------------------

// multipleScatteringFresnel is render.MultipleScatteringFresnel: the
// Fresnel of the light that scatters more than once in a lobe of
// roughness² alpha seen from cos θo mu whose Schlick Fresnel runs from f0
// to f90, f90 times the random walks' table at F0 f0/f90 (the includer
// reads it with msTableAt), linearly in sqrt(mu), sqrt(alpha) and F0.
float multipleScatteringFresnel(float mu, float alpha, float f0, float f90) {
    if (!(f90 > 0.0)) {
        return 0.0;
    }
    float fi, fj, fk;
    int i = anisoCoord(sqrt32(mu), MS_TABLE_MU, fi);
    int j = anisoCoord(sqrt32(alpha), MS_TABLE_ROUGH, fj);
    int k = anisoCoord(f0 / f90, MS_TABLE_F0, fk);
    float v = 0.0;
    for (int c = 0; c < 8; c++) {
        int di = c & 1, dj = (c >> 1) & 1, dk = (c >> 2) & 1;
        float w = (di == 1 ? fi : 1.0 - fi) * (dj == 1 ? fj : 1.0 - fj) * (dk == 1 ? fk : 1.0 - fk);
        v += w * msTableAt(((i + di) * MS_TABLE_ROUGH + j + dj) * MS_TABLE_F0 + k + dk);
    }
    return f90 * v;
}

// multipleScattering3 is render/cpu's multipleScattering: the factor per
// channel of a lobe of roughness² alpha seen from cos θo mu whose Schlick
// Fresnel runs from f0 to f90.
vec3 multipleScattering3(float a, float mu, float alpha, vec3 f0, float f90) {
    float x = multipleScattering(a, multipleScatteringFresnel(mu, alpha, f0.x, f90));
    if (f0.y == f0.x && f0.z == f0.x) { // a grey lobe's, looked up once
        return vec3(x);
    }
    return vec3(x, multipleScattering(a, multipleScatteringFresnel(mu, alpha, f0.y, f90)),
                multipleScattering(a, multipleScatteringFresnel(mu, alpha, f0.z, f90)));
}

// --- BSDF ------------------------------------------------------------------

BSDF newBSDF(vec3 base, float metallic, float roughness, float ior, float specular, vec3 specularColor) {
    float f0 = 0.04;
    if (ior >= 1.0) {
        f0 = iorToF0(ior);
    }
    BSDF b;
    b.base = base;
    b.metallic = clamp01(metallic);
    b.alpha = max(roughness * roughness, MIN_ALPHA);
    b.f90 = clamp01(specular);
    b.f0 = min(f0 * specularColor, vec3(1.0)) * b.f90;
    b.transmission = 0.0;
    b.eta = 0.0;
    b.thin = false;
    b.coat = 0.0;
    b.coatAlpha = MIN_ALPHA;
    b.coatN = vec3(0.0, 0.0, 1.0);
    b.sheenColor = vec3(0.0);
    b.sheenRoughness = 0.0;
    b.diffTrans = 0.0;
    b.diffTransColor = vec3(0.0);
    b.anisoAlpha = 0.0;
    b.anisoDir = vec3(1.0, 0.0, 0.0);
    b.irid = 0.0;
    b.filmIOR = 1.0;
    b.filmThickness = 0.0;
    return b;
}

// --- thin film (KHR_materials_iridescence) ---------------------------------

// thinFilmAlbedo is render.ThinFilmAlbedo: the albedo, seen from mu, of a
// GGX layer of roughness² alpha with the film's Fresnel, summed over the
// bins of v·h.
vec3 thinFilmAlbedo(float outside, float ior, float thickness, float mu, float alpha, vec3 baseF0) {
    float x = clamp01(sqrt32(mu)) * float(ALBEDO_TABLE_SIZE - 1);
    float y = clamp01(sqrt32(alpha)) * float(ALBEDO_TABLE_SIZE - 1);
    int i = min(int(x), ALBEDO_TABLE_SIZE - 2);
    int j = min(int(y), ALBEDO_TABLE_SIZE - 2);
    float fx = x - float(i), fy = y - float(j);
    vec3 e = vec3(0.0);
    for (int k = 0; k < IRID_BINS; k++) {
        vec2 l = (iridBinAt(i, j, k) * (1.0 - fx) + iridBinAt(i + 1, j, k) * fx) * (1.0 - fy) +
                 (iridBinAt(i, j + 1, k) * (1.0 - fx) + iridBinAt(i + 1, j + 1, k) * fx) * fy;
        if (l.x <= 0.0) {
            continue;
        }
        e += thinFilmFresnel(ThinFilm(outside, ior, thickness), l.y / l.x, baseF0) * l.x;
    }
    return min(e, vec3(1.0));
}

// setIridescence puts a thin film of index ior and thickness (nm) over the
// specular layers, mixed in by factor.
void setIridescence(inout BSDF b, float factor, float ior, float thickness) {
    b.irid = clamp01(factor);
    b.filmIOR = max(ior, 1.0);
    b.filmThickness = max(thickness, 0.0);
}

// filmOutside is the index above the film: air, or as much of the coat's as
// the coat covers.
float filmOutside(BSDF b) {
    return 1.0 + (COAT_IOR - 1.0) * b.coat;
}

// dielectricF0 is the dielectric's F0 before the specular factor: what lies
// under its film.
vec3 dielectricF0(BSDF b) {
    if (b.f90 <= 0.0) {
        return vec3(0.0);
    }
    return b.f0 * (1.0 / b.f90);
}

// setAnisotropy stretches the specular lobes' roughness along the local
// direction dir (Go's SetAnisotropy).
void setAnisotropy(inout BSDF b, float strength, vec3 dir) {
    strength = clamp01(strength);
    if (strength == 0.0) {
        b.anisoAlpha = 0.0;
        return;
    }
    b.anisoAlpha = b.alpha + (1.0 - b.alpha) * strength * strength;
    b.anisoDir = normalizeGo(vec3(dir.x, dir.y, 0.0));
    if (b.anisoDir == vec3(0.0)) {
        b.anisoDir = vec3(1.0, 0.0, 0.0);
    }
}

vec3 toAniso(BSDF b, vec3 w) {
    vec3 d = b.anisoDir;
    return vec3(w.x * d.x + w.y * d.y, w.y * d.x - w.x * d.y, w.z);
}

vec3 fromAniso(BSDF b, vec3 w) {
    vec3 d = b.anisoDir;
    return vec3(w.x * d.x - w.y * d.y, w.x * d.y + w.y * d.x, w.z);
}

// anisoTerms are the anisotropic specular lobe's D, D·V and the masking of
// wo for the half vector h.
float anisoTerms(BSDF b, vec3 wo, vec3 wi, vec3 h, out float dv, out float g1) {
    float ax = b.anisoAlpha, ay = b.alpha;
    float lo = lambdaAniso(toAniso(b, wo), ax, ay), li = lambdaAniso(toAniso(b, wi), ax, ay);
    float d = ggxdAniso(toAniso(b, h), ax, ay);
    dv = d / ((1.0 + lo + li) * 4.0 * wo.z * wi.z);
    g1 = 1.0 / (1.0 + lo);
    return d;
}

// diffuseReflected and diffuseTransmitted are the diffuse lobe's colours
// (Go's diffuseColors).
vec3 diffuseReflected(BSDF b) {
    if (b.diffTrans <= 0.0) {
        return b.base;
    }
    return b.base * (1.0 - b.diffTrans);
}

vec3 diffuseTransmitted(BSDF b) {
    if (b.diffTrans <= 0.0) {
        return vec3(0.0);
    }
    return b.diffTransColor * b.diffTrans;
}

// diffuseBelow is the probability that the diffuse strategy samples the
// far side.
float diffuseBelow(BSDF b) {
    if (b.diffTrans <= 0.0) {
        return 0.0;
    }
    float lr = luminance(diffuseReflected(b)), lt = luminance(diffuseTransmitted(b));
    if (lr + lt <= 0.0) {
        return b.diffTrans;
    }
    return lt / (lr + lt);
}

// setSheen puts a sheen of the given colour and roughness over the base.
void setSheen(inout BSDF b, vec3 color, float roughness) {
    b.sheenColor = vec3(clamp01(color.x), clamp01(color.y), clamp01(color.z));
    b.sheenRoughness = clamp01(roughness);
}

// sheenEval is the sheen lobe's f·cos θi (before its colour and norm).
float sheenEval(BSDF b, vec3 wo, vec3 wi) {
    if (wi.z <= 0.0) {
        return 0.0;
    }
    vec3 h = normalizeGo(wo + wi);
    return charlieD(h.z, sheenAlpha(b.sheenRoughness)) * sheenV(wo.z, wi.z) * wi.z;
}

// sheenAlbedo looks the sheen's directional albedo up bilinearly, over
// sqrt(cos θo) and the sheen roughness (render.SheenAlbedo, from the table
// the includer reads with sheenTableAt).
float sheenAlbedo(float mu, float roughness) {
    float x = clamp01(sqrt32(mu)) * float(ALBEDO_TABLE_SIZE - 1);
    float y = clamp01(roughness) * float(ALBEDO_TABLE_SIZE - 1);
    int i = min(int(x), ALBEDO_TABLE_SIZE - 2), j = min(int(y), ALBEDO_TABLE_SIZE - 2);
    float fx = x - float(i), fy = y - float(j);
    return (sheenTableAt(i, j) * (1.0 - fx) + sheenTableAt(i + 1, j) * fx) * (1.0 - fy) +
           (sheenTableAt(i, j + 1) * (1.0 - fx) + sheenTableAt(i + 1, j + 1) * fx) * fy;
}

// setCoat puts a clearcoat of weight coat and roughness over b, about the
// local normal n (unit, on the +Z side; the zero vector for +Z): Go's SetCoat.
void setCoat(inout BSDF b, float coat, float roughness, vec3 n) {
    b.coat = clamp01(coat);
    b.coatAlpha = max(roughness * roughness, MIN_ALPHA);
    b.coatN = n;
    if (n == vec3(0.0) || !(n.z > 0.0)) {
        b.coatN = vec3(0.0, 0.0, 1.0);
    }
}

// coatAlbedo is the coat's directional albedo seen from wo, times its
// weight, multiple scattering included; kc is the coat lobe's
// multiple-scattering factor.
float coatAlbedo(BSDF b, vec3 wo, out float kc) {
    kc = 0.0;
    if (b.coat <= 0.0) {
        return 0.0;
    }
    float c = dot(b.coatN, wo);
    if (!(c > 0.0)) {
        return 0.0;
    }
    float ca, cs;
    specularIntegrals(c, b.coatAlpha, ca, cs);
    kc = multipleScattering(ca, multipleScatteringFresnel(c, b.coatAlpha, COAT_F0, 1.0));
    return b.coat * min((COAT_F0 * ca + (1.0 - COAT_F0) * cs) * kc, 1.0);
}

// coatEval is the coat's f·cos θi about its normal (single scattering) and,
// in pdf, the pdf of its folded visible-normal sample.
float coatEval(BSDF b, vec3 wo, vec3 wi, out float pdf) {
    pdf = 0.0;
    vec3 n = b.coatN;
    float co = dot(n, wo), ci = dot(n, wi);
    if (co <= 0.0 || ci <= 0.0 || wi.z <= 0.0) {
        return 0.0; // nothing below the shading surface (Go's coatEval says why)
    }
    float a2 = b.coatAlpha * b.coatAlpha;
    vec3 h = normalizeGo(wo + wi);
    float d = ggxd(aboutNormal(h, n), a2);
    // The folded samples: reflections below the coat, mirrored up through it.
    float df = 0.0;
    vec3 hf = normalizeGo(wo + (wi - n * (2.0 * ci)));
    if (dot(n, hf) > 0.0) {
        df = ggxd(aboutNormal(hf, n), a2);
    }
    float fr = COAT_F0 + (1.0 - COAT_F0) * schlick5(dot(wo, h));
    pdf = smithG1(co, a2) * (d + df) / (4.0 * co);
    return b.coat * fr * d * smithV(co, ci, a2) * ci;
}

// coatSample reflects wo about a visible normal of the coat, folding a
// reflection below the coat up through it.
vec3 coatSample(BSDF b, vec3 wo, float u1, float u2) {
    if (b.coatN == vec3(0.0, 0.0, 1.0)) {
        vec3 h = sampleVisibleNormal(wo, b.coatAlpha, u1, u2);
        return foldUp(h * (2.0 * dot(wo, h)) - wo);
    }
    Frame f = newFrame(b.coatN);
    vec3 woC = frameToLocal(f, wo);
    vec3 h = sampleVisibleNormal(woC, b.coatAlpha, u1, u2);
    return frameToWorld(f, foldUp(h * (2.0 * dot(woC, h)) - woC));
}

// glassWeight is the share of f that the glass interface is.
float glassWeight(BSDF b) {
    return (1.0 - b.metallic) * b.transmission;
}

// glassEta is the relative index the glass interface bends by; a sheet
// (glassThin) reflects and transmits as light entering it does (Go's
// glassEta).
float glassEta(BSDF b) {
    float eta = max(b.eta, 1e-3);
    if (eta < 1.0 && (b.thin || 1.0 / eta - 1.0 < NULL_ETA)) {
        return 1.0 / eta;
    }
    return eta;
}

// opaqueWeight is the share of f that the opaque dielectric (diffuse and
// specular layer) is.
float opaqueWeight(BSDF b) {
    return (1.0 - b.metallic) * (1.0 - b.transmission);
}

// specularAlbedo is E for each channel: the dielectric specular layer's
// directional albedo seen from cosO, its film's mixed in, given the
// tabulated integrals a and s.
vec3 specularAlbedo(BSDF b, float cosO, float filmAlpha, float a, float s) {
    vec3 e = schlickAlbedo(b.f0, b.f90, a, s);
    if (b.irid > 0.0) {
        vec3 ei = thinFilmAlbedo(filmOutside(b), b.filmIOR, b.filmThickness, cosO, filmAlpha, dielectricF0(b)) * b.f90;
        if (b.anisoAlpha > 0.0) { // the bins scaled to the anisotropic layer's A
            float ia, is;
            specularIntegrals(cosO, filmAlpha, ia, is);
            if (ia > 0.0) {
                ei = ei * (a / ia);
            }
        }
        e = e * (1.0 - b.irid) + ei * b.irid;
    }
    return e;
}



// lobeProbabilities are how often bsdfSample uses the base's strategies,
// visible-normal reflection, cosine (diffuse) and the glass interface, given
// that it does not take the coat's; sum is their estimates' sum.
void lobeProbabilities(BSDF b, float cosO, vec3 e, out float spec, out float diff, out float glass, out float sum) {
    float lb = luminance(b.base);
    float le = luminance(e);
    float opaque = opaqueWeight(b);
    spec = opaque * le + b.metallic * (lb + (1.0 - lb) * schlick5(cosO));
    diff = opaque * (1.0 - le) * lb;
    if (b.diffTrans > 0.0) {
        diff = opaque * (1.0 - le) * (luminance(diffuseReflected(b)) + luminance(diffuseTransmitted(b)));
    }
    glass = glassWeight(b);
    sum = spec + diff + glass;
    if (sum <= 0.0) {
        spec = 1.0;
        diff = 0.0;
        glass = 0.0;
        sum = 0.0;
        return;
    }
    spec = spec / sum;
    diff = diff / sum;
    glass = glass / sum;
}

// glassFresnel is the glass interface's reflectance per channel at cos
// (v·m), and in pr the probability with which glassSample reflects: the
// exact Fresnel, a thin film's mixed in where light enters.
vec3 glassFresnel(BSDF b, float cos_, out float pr) {
    float eta = glassEta(b);
    float fr = fresnelDielectric(cos_, eta);
    if (b.irid <= 0.0 || eta < 1.0) {
        pr = fr;
        return vec3(fr);
    }
    vec3 fi = thinFilmFresnel(ThinFilm(filmOutside(b), b.filmIOR, b.filmThickness), cos_, vec3(iorToF0(eta)));
    vec3 rgb = vec3(fr) * (1.0 - b.irid) + fi * b.irid;
    pr = (rgb.x + rgb.y + rgb.z) / 3.0;
    return rgb;
}

// glassThin is Go's glassThin: the interface transmits as a sheet (a
// thin-walled material, or a relative index within NULL_ETA of 1).
bool glassThin(BSDF b) {
    return b.thin || abs(glassEta(b) - 1.0) < NULL_ETA;
}

// glassTransAlpha is the roughness² the glass transmits with: a sheet's
// thinTransmissionAlpha, the interface's own otherwise.
float glassTransAlpha(BSDF b) {
    return glassThin(b) ? thinTransmissionAlpha(b.alpha, glassEta(b)) : b.alpha;
}

// glassTerms is Go's glassTerms: the glass interface's multiple-scattering
// factor (k), and for a sheet that transmits at another roughness, the
// probability that its sample reflects (pr: its reflected share of the
// two lobes' energy).
void glassTerms(BSDF b, float cosO, out float k, out float pr) {
    pr = 0.0;
    float eta = glassEta(b);
    float r, rt, s;
    if (!glassThin(b)) {
        k = 1.0 / max(glassAlbedo(cosO, b.alpha, eta, r), 1e-3);
        return;
    }
    float at = glassTransAlpha(b);
    float a;
    specularIntegrals(cosO, b.alpha, a, s);
    float e = a;
    if (at != b.alpha) {
        float at1;
        specularIntegrals(cosO, at, at1, s);
        glassAlbedo(cosO, b.alpha, eta, r);
        glassAlbedo(cosO, at, eta, rt);
        e = r + at1 - rt;
        if (e > 0.0) {
            pr = clamp01(r / e);
        }
    }
    k = 1.0 / max(e, 1e-3);
}

// glassEval is the glass interface's f·|cos wi| and the pdf of glassSample,
// given its multiple-scattering factor k and the sheet's choice pgr.
vec3 glassEval(BSDF b, vec3 wo, vec3 wi, float k, float pgr, out float pdf) {
    float a2 = b.alpha * b.alpha;
    bool thin = glassThin(b);
    float at = glassTransAlpha(b);
    bool split = at != b.alpha; // the probability of reflecting is the interface's, not the microfacet's
    float pr;
    if (wi.z > 0.0) { // reflection off the interface
        vec3 h = normalizeGo(wo + wi);
        vec3 fr = glassFresnel(b, dot(wo, h), pr);
        float d = ggxd(h, a2);
        float g = smithG2(wo, wi, a2);
        pdf = (split ? pgr : pr) * smithG1(wo.z, a2) * d / (4.0 * wo.z);
        return fr * (d * g / (4.0 * wo.z) * k);
    }
    if (thin) {
        // A sheet: the transmitted direction is the reflected one mirrored
        // through the surface, tinted by the base colour.
        float at2 = at * at;
        vec3 wr = vec3(wi.x, wi.y, -wi.z);
        vec3 h = normalizeGo(wo + wr);
        vec3 fr = glassFresnel(b, dot(wo, h), pr);
        float d = ggxd(h, at2);
        float g = smithG2(wo, wr, at2);
        pdf = (1.0 - (split ? pgr : pr)) * smithG1(wo.z, at2) * d / (4.0 * wo.z);
        return b.base * ((vec3(1.0) - fr) * (d * g / (4.0 * wo.z) * k));
    }
    float eta = glassEta(b);
    vec3 wm = normalizeGo(wi * eta + wo);
    if (wm.z < 0.0) {
        wm = wm * -1.0;
    }
    // Microfacets facing away from either direction transmit nothing.
    if (dot(wm, wi) >= 0.0 || dot(wm, wo) <= 0.0) {
        pdf = 0.0;
        return vec3(0.0);
    }
    vec3 fr = glassFresnel(b, dot(wo, wm), pr);
    float d = ggxd(wm, a2);
    float denom = dot(wi, wm) + dot(wo, wm) / eta;
    denom *= denom;
    // Walter et al.'s BTDF times |cos wi|, radiance scaled by 1/η².
    float g = smithG2(wo, wi, a2);
    float j = abs(dot(wi, wm) * dot(wo, wm) / (wo.z * denom));
    pdf = (1.0 - pr) * smithG1(wo.z, a2) * d * dot(wo, wm) / wo.z * abs(dot(wi, wm)) / denom;
    return b.base * ((vec3(1.0) - fr) * (d * g * j / (eta * eta) * k));
}

// glassSample samples a visible microfacet normal, then reflects (with the
// Fresnel reflectance's probability, chosen by u) or refracts about it; a
// sheet that transmits at another roughness chooses first, with pgr, and
// samples that lobe's normal. Returns false for a lost sample (wi is
// still set as Go sets it).
bool glassSample(BSDF b, vec3 wo, float u, float u1, float u2, float pgr, out vec3 wi) {
    bool thin = glassThin(b);
    float at = glassTransAlpha(b);
    if (at != b.alpha) {
        vec3 hs = sampleVisibleNormal(wo, u < pgr ? b.alpha : at, u1, u2);
        vec3 rs = hs * (2.0 * dot(wo, hs)) - wo;
        wi = u < pgr ? rs : vec3(rs.x, rs.y, -rs.z);
        return rs.z > 0.0;
    }
    vec3 h = sampleVisibleNormal(wo, b.alpha, u1, u2);
    float cosO = dot(wo, h);
    float eta = glassEta(b);
    vec3 r = h * (2.0 * cosO) - wo;
    float pr;
    glassFresnel(b, cosO, pr);
    if (u < pr) {
        wi = r;
        return r.z > 0.0;
    }
    if (thin) {
        wi = vec3(r.x, r.y, -r.z);
        return r.z > 0.0;
    }
    float sin2T = (1.0 - cosO * cosO) / (eta * eta);
    if (sin2T >= 1.0) {
        wi = vec3(0.0);
        return false; // total internal reflection; its Fresnel is 1, so u never gets here
    }
    float cosT = sqrt32(1.0 - sin2T);
    vec3 t = wo * (-1.0 / eta) + h * (cosO / eta - cosT);
    wi = t;
    return t.z < 0.0;
}

// coatProbability is how often bsdfSample takes the coat's strategy, given
// the coat's albedo ec and the rest's estimated albedo.
float coatProbability(float ec, float base) {
    float w = ec + (1.0 - ec) * base;
    return w > 0.0 ? ec / w : 0.0;
}

// LayerTerms are the sheen's and the coat's terms for wo (Go's woTerms).
struct LayerTerms {
    float se;        // the sheen's albedo (capped at 1) times max(sheenColor)
    float sheenNorm; // what scales the sheen lobe down to albedo 1
    float psh;       // of the sheen's strategy, given that the coat's was not taken
    float ec;        // the coat's albedo times its weight, multiple scattering included
    float kc;        // the coat lobe's multiple-scattering factor
    float pc;        // of the coat's strategy
};

// layerTerms computes them, given the base's estimates' sum.
LayerTerms layerTerms(BSDF b, vec3 wo, float base) {
    LayerTerms l;
    l.se = 0.0;
    l.sheenNorm = 1.0;
    l.psh = 0.0;
    l.ec = 0.0;
    l.kc = 0.0;
    l.pc = 0.0;
    if (b.sheenColor != vec3(0.0)) {
        float es = sheenAlbedo(wo.z, b.sheenRoughness);
        l.sheenNorm = 1.0 / max(es, 1.0);
        l.se = max(b.sheenColor.x, max(b.sheenColor.y, b.sheenColor.z)) * min(es, 1.0);
        float w = l.se + (1.0 - l.se) * base;
        if (w > 0.0) {
            l.psh = l.se / w;
        }
        base = l.se + (1.0 - l.se) * base; // the rest under the coat, estimated
    }
    if (b.coat > 0.0) {
        l.ec = coatAlbedo(b, wo, l.kc);
        l.pc = coatProbability(l.ec, base);
    }
    return l;
}

// WoTerms are what bsdfAlbedos, bsdfEval and bsdfSample need of wo alone,
// computed once a hit (Go caches them per wo: BSDF.lobesAt).
struct WoTerms {
    float a, s;                 // the tabulated specular integrals
    vec3 e;                     // the specular layer's albedo, multiple scattering included
    vec3 km, kd;                // the metal's and the specular layer's multiple-scattering factors
    float kg, pgr;              // the glass's multiple-scattering factor and a sheet's choice (Go's glassTerms)
    float ps, pd, pg, sum;      // the base's strategies and their estimates' sum
    LayerTerms l;               // the sheen's and the coat's
};

WoTerms woTerms(BSDF b, vec3 wo) {
    WoTerms t;
    float filmAlpha = b.alpha;
    if (b.anisoAlpha > 0.0) {
        vec3 wa = toAniso(b, wo);
        anisoSpecularIntegrals(wa, b.anisoAlpha, b.alpha, t.a, t.s);
        filmAlpha = projectedAlpha(wa, b.anisoAlpha, b.alpha);
    } else {
        specularIntegrals(wo.z, b.alpha, t.a, t.s);
    }
    // The lobes get back what single scattering loses (render.MultipleScattering).
    float msAlpha = b.alpha;
    if (b.anisoAlpha > 0.0) { // the isotropic lobe's at the geometric mean roughness
        msAlpha = sqrt32(b.alpha * b.anisoAlpha);
    }
    t.kd = vec3(1.0); // for a lobe that is not there
    t.km = vec3(1.0);
    if (opaqueWeight(b) > 0.0) {
        t.kd = multipleScattering3(t.a, wo.z, msAlpha, b.f0, b.f90);
    }
    if (b.metallic > 0.0) {
        t.km = multipleScattering3(t.a, wo.z, msAlpha, b.base, 1.0);
    }
    t.e = min(specularAlbedo(b, wo.z, filmAlpha, t.a, t.s) * t.kd, vec3(1.0));
    t.kg = 0.0;
    t.pgr = 0.0;
    if (b.transmission > 0.0) {
        glassTerms(b, wo.z, t.kg, t.pgr);
    }
    lobeProbabilities(b, wo.z, t.e, t.ps, t.pd, t.pg, t.sum);
    t.l = layerTerms(b, wo, t.sum);
    return t;
}

// bsdfAlbedos are the directional albedos seen from wo (local) of the
// diffuse lobe and (estimated for the metal and the glass) of the rest, the
// coat included, given wo's terms. The diffuse lobe's f·|cos wi| is its
// albedo·cos wi/π.
void bsdfAlbedos(BSDF b, WoTerms t, vec3 wo, out vec3 diffuse, out vec3 specular) {
    vec3 e = t.e;
    float opaque = opaqueWeight(b);
    LayerTerms l = t.l;
    float under = 1.0 - l.ec; // what the coat lets through to the rest
    float es = 0.0;          // the sheen's albedo for a white sheen
    if (b.sheenColor != vec3(0.0)) {
        es = min(sheenAlbedo(wo.z, b.sheenRoughness), 1.0);
    }
    float below = under * (1.0 - l.se); // what the sheen lets through to the base
    diffuse = below * opaque * (1.0 - e) * diffuseReflected(b);
    specular = l.ec + under * b.sheenColor * es +
               below * (opaque * e + b.metallic * min(schlickAlbedo(b.base, 1.0, t.a, t.s) * t.km, vec3(1.0)) + glassWeight(b) * b.base + opaque * (1.0 - e) * diffuseTransmitted(b));
}

// bsdfEvalWith is bsdfEval with wo's terms given.
vec3 bsdfEvalWith(BSDF b, WoTerms t, vec3 wo, vec3 wi, out float pdf) {
    pdf = 0.0;
    if (wo.z <= 0.0 || wi.z == 0.0) {
        return vec3(0.0);
    }
    float a2 = b.alpha * b.alpha;
    vec3 e = t.e;
    float ps = t.ps, pd = t.pd, pg = t.pg;
    vec3 f = vec3(0.0);
    float below = diffuseBelow(b);
    if (wi.z > 0.0) {
        vec3 h = normalizeGo(wo + wi);
        float d, spec, g1;
        float df = 0.0;
        // The specular strategy's folded samples (foldUp): those whose
        // reflection about hf went below.
        vec3 hf = normalizeGo(wo + vec3(wi.x, wi.y, -wi.z));
        if (b.anisoAlpha > 0.0) { // the metal's and the dielectric's lobe
            d = anisoTerms(b, wo, wi, h, spec, g1);
            if (hf.z > 0.0) {
                df = ggxdAniso(toAniso(b, hf), b.anisoAlpha, b.alpha);
            }
        } else {
            d = ggxd(h, a2);
            spec = d * smithV(wo.z, wi.z, a2);
            g1 = smithG1(wo.z, a2);
            if (hf.z > 0.0) {
                df = ggxd(hf, a2);
            }
        }
        float vh = dot(wo, h);
        float s5 = schlick5(vh);
        float opaque = opaqueWeight(b);
        vec3 fd = b.f0 + (b.f90 - b.f0) * s5;
        vec3 fm = b.base + (1.0 - b.base) * s5;
        if (b.irid > 0.0) {
            float outside = filmOutside(b);
            if (opaque > 0.0) {
                fd = fd * (1.0 - b.irid) + thinFilmFresnel(ThinFilm(outside, b.filmIOR, b.filmThickness), vh, dielectricF0(b)) * (b.f90 * b.irid);
            }
            if (b.metallic > 0.0) {
                fm = fm * (1.0 - b.irid) + thinFilmFresnel(ThinFilm(outside, b.filmIOR, b.filmThickness), vh, b.base) * b.irid;
            }
        }
        fd = fd * t.kd; // with what single scattering loses
        fm = fm * t.km;
        f = (opaque * ((1.0 - e) * diffuseReflected(b) / PI + fd * spec) + b.metallic * fm * spec) * wi.z;
        pdf = ps * g1 * (d + df) / (4.0 * wo.z) + pd * (1.0 - below) * wi.z / PI;
    } else if (below > 0.0) {
        // The diffuse light that leaves through the far side.
        float c = opaqueWeight(b) * -wi.z / PI;
        f = c * (1.0 - e) * diffuseTransmitted(b);
        pdf = pd * below * -wi.z / PI;
    }
    if (pg > 0.0) {
        float gpdf;
        vec3 gf = glassEval(b, wo, wi, t.kg, t.pgr, gpdf);
        f = f + gf * glassWeight(b);
        pdf += pg * gpdf;
    }
    LayerTerms l = t.l;
    if (l.se > 0.0) {
        float sf = sheenEval(b, wo, wi) * l.sheenNorm;
        f = f * (1.0 - l.se) + b.sheenColor * sf;
        float spdf = 0.0;
        if (wi.z > 0.0) {
            spdf = 1.0 / (2.0 * PI);
        }
        pdf = l.psh * spdf + (1.0 - l.psh) * pdf;
    }
    if (b.coat > 0.0) {
        float cpdf;
        float cf = coatEval(b, wo, wi, cpdf) * l.kc;
        f = f * (1.0 - l.ec) + vec3(cf);
        pdf = l.pc * cpdf + (1.0 - l.pc) * pdf;
    }
    return f;
}

// bsdfEval returns f(wo, wi)·|cos(wi)| and, in pdf, the pdf with which
// bsdfSample picks wi. wo is on the +Z side; wi below it only transmits.
vec3 bsdfEval(BSDF b, vec3 wo, vec3 wi, out float pdf) {
    pdf = 0.0;
    if (wo.z <= 0.0 || wi.z == 0.0) {
        return vec3(0.0);
    }
    return bsdfEvalWith(b, woTerms(b, wo), wo, wi, pdf);
}

// weighed gives a sampled wi its weight f·|cos|/pdf and pdf, which
// bsdfEval gives for whichever strategy drew it; false where the pdf is 0
// (weight and pdf then stay zero). Go's weighed.
bool weighed(BSDF b, WoTerms t, vec3 wo, vec3 wi, inout vec3 weight, inout float pdf) {
    float p;
    vec3 f = bsdfEvalWith(b, t, wo, wi, p);
    if (p <= 0.0) {
        return false;
    }
    weight = f * (1.0 / p);
    pdf = p;
    return true;
}

// bsdfSample picks wi for wo with the numbers u (strategy) and u1, u2
// (direction); weight is f·|cos|/pdf. Returns false when nothing was sampled
// (the path ends); weight and pdf are then zero.
bool bsdfSample(BSDF b, vec3 wo, float u, float u1, float u2, out vec3 wi, out vec3 weight, out float pdf);

// bsdfSampleWith is bsdfSample with wo's terms given: the integrator
// computes them once a hit, for its light sample and its next direction.
bool bsdfSampleWith(BSDF b, WoTerms t, vec3 wo, float u, float u1, float u2, out vec3 wi, out vec3 weight, out float pdf) {
    wi = vec3(0.0);
    weight = vec3(0.0);
    pdf = 0.0;
    if (wo.z <= 0.0) {
        return false;
    }
    float ps = t.ps, pd = t.pd;
    LayerTerms l = t.l;
    float pc = l.pc;
    if (pc > 0.0) {
        if (u < pc) {
            wi = coatSample(b, wo, u1, u2);
            if (dot(b.coatN, wi) <= 0.0 || wi.z <= 0.0) {
                return false; // lost, as a reflection below the surface is
            }
            return weighed(b, t, wo, wi, weight, pdf);
        }
        u = min((u - pc) / (1.0 - pc), ONE_BELOW_ONE); // what is left of u picks among the rest's
    }
    if (l.psh > 0.0) {
        if (u < l.psh) {
            wi = sampleUniform(u1, u2); // the sheen's lobe is broad and grazing: uniformly
            return weighed(b, t, wo, wi, weight, pdf);
        }
        u = min((u - l.psh) / (1.0 - l.psh), ONE_BELOW_ONE); // what is left of u picks among the base's
    }
    if (u < ps) {
        vec3 h;
        if (b.anisoAlpha > 0.0) {
            h = fromAniso(b, sampleVisibleNormalAniso(toAniso(b, wo), b.anisoAlpha, b.alpha, u1, u2));
        } else {
            h = sampleVisibleNormal(wo, b.alpha, u1, u2);
        }
        wi = foldUp(h * (2.0 * dot(wo, h)) - wo);
        if (wi.z == 0.0) {
            return false;
        }
    } else if (u < ps + pd) {
        wi = sampleCosine(u1, u2);
        if ((u - ps) / pd < diffuseBelow(b)) { // what is left of u picks the side
            wi.z = -wi.z;
        }
    } else {
        // The glass picks reflection or transmission by the microfacet's
        // Fresnel: reuse what is left of u for that choice.
        if (!glassSample(b, wo, (u - ps - pd) / max(1.0 - ps - pd, 1e-7), u1, u2, t.pgr, wi)) {
            return false;
        }
    }
    return weighed(b, t, wo, wi, weight, pdf);
}

bool bsdfSample(BSDF b, vec3 wo, float u, float u1, float u2, out vec3 wi, out vec3 weight, out float pdf) {
    if (wo.z <= 0.0) {
        wi = vec3(0.0);
        weight = vec3(0.0);
        pdf = 0.0;
        return false;
    }
    return bsdfSampleWith(b, woTerms(b, wo), wo, u, u1, u2, wi, weight, pdf);
}

#endif // BSDF_GLSL
