// intersect.glsl: the sphere and linear-swept-sphere tests of
// render/cpu/intersect.go and offsetRay of render/cpu/shading.go. Where the
// Go works in float64 this works in double, where it works in float32 this
// works in float, in the same order of operations. Every computed value is
// `precise` (SPIR-V NoContraction), so the compiler fuses no multiply-add
// that Go (amd64, GOAMD64=v1) does not fuse either.
//
// Extensions: none beyond core GLSL 4.60 (double is core); the device needs
// the shaderFloat64 feature (SPIR-V capability Float64).
//
// Calling convention (as render/cpu/accel.go's traceInstance calls these):
//   - o, d are the ray in the instance's object space: the world ray through
//     the world-to-object affine, d NOT renormalised, so t is the world ray's
//     parameter (an intersection shader transforms gl_WorldRay* by the
//     instance's toObject itself, as the CPU does, rather than taking
//     gl_ObjectRay*, so the two agree bit for bit).
//   - tmin is the ray's TMin, which the CPU backend leaves at 0 for every ray
//     (rays leave surfaces by offsetRay below, not by a tmin epsilon); tmax
//     is the current closest hit, shrinking as hits are accepted
//     (gl_RayTminEXT, gl_RayTmaxEXT). A hit counts only inside the open
//     interval (tmin, tmax).
//   - Spheres: c, r = SphereSet.Centers[p], Radii[p]. A radius that is not
//     > 0 never hits. exits is the instance's INSTANCE_EXIT_HITS flag.
//   - Swept spheres, segment p of a scene.CurveSet: v = Segments[p];
//     a, b = Positions[v], Positions[v+1]; ra, rb = Radii[v], Radii[v+1];
//     startCap = (Joins[p] & JoinedPrev) == 0 with JoinedPrev = 1u (bit 0;
//     JoinedNext = 2u is not read here): a chained segment leaves out its
//     start sphere, which its predecessor draws. The hit's u (0 at a, 1 at
//     b, clamped) is the U of Go's Hit and what the NV linear swept spheres
//     extension reports; the shading needs it for sweptSphereNormal.
//   - sweptSphereNormal takes the hit point in object space (Go: inv.point
//     of the world point) and returns the object-space unit normal, which
//     the shading then takes to world space (normalToWorld). The sphere's
//     normal is p_object - centre, unnormalised, the same way.
//   - offsetRay(p, n) moves a world-space surface point off the surface
//     along n (the geometric normal, or its negation to go through).

#ifndef INTERSECT_GLSL
#define INTERSECT_GLSL

#include "govec.glsl"

// dotD is Go's d3.dot: float64, summed left to right.
double dotD(dvec3 a, dvec3 b) {
    precise double r = a.x * b.x + a.y * b.y + a.z * b.z;
    return r;
}

// intersectSphere returns the nearest hit in (tmin, tmax) with a sphere:
// where the ray enters it, as native spheres report (a ray that starts
// inside hits nothing), and with exits its far side too (render.ExitHits).
// It solves the quadratic in double about the point of the ray nearest to
// the centre (Haines et al., Ray Tracing Gems). t is 0 on a miss.
bool intersectSphere(vec3 o, vec3 d, vec3 c, float r, float tmin, float tmax, bool exits, out float t) {
    t = 0.0;
    if (!(r > 0.0)) {
        return false; // a zero-radius particle is not there to hit
    }
    precise dvec3 dv = dvec3(d);
    precise double dd = dotD(dv, dv);
    precise dvec3 oc = dvec3(o) - dvec3(c);
    precise double tc = -dotD(oc, dv) / dd; // nearest approach
    precise dvec3 p = oc + tc * dv;
    precise double disc = double(r) * double(r) - dotD(p, p);
    if (disc < 0.0lf) {
        return false;
    }
    precise double h = sqrt(disc / dd);
    precise double t1 = tc - h;
    if (t1 > double(tmin) && t1 < double(tmax)) {
        t = float(t1);
        return true;
    }
    precise double t2 = tc + h;
    if (exits && t2 > double(tmin) && t2 < double(tmax)) {
        t = float(t2);
        return true;
    }
    return false;
}

// The keep functions of Go's sphere closure in intersectSweptSphere.
const int SWEPT_KEEP_ALWAYS = 0;
const int SWEPT_KEEP_BELOW = 1; // sl <= bound (the start cap, bound sa)
const int SWEPT_KEEP_ABOVE = 2; // sl >= bound (the end cap, bound sb)

// sweptSphereCap is Go's sphere closure: where the ray enters the sphere of
// radius r about origin offset oc, offered to try (t > lo && t < best) when
// keep accepts its axial coordinate (the moved point's dot with ba).
void sweptSphereCap(dvec3 oc, double r, double u, int keep, double bound,
                    dvec3 oa, dvec3 dv, dvec3 ba, double dd, double lo,
                    inout double best, inout double bestU, inout bool found) {
    precise double bq = dotD(oc, dv);
    precise double disc = bq * bq - dd * (dotD(oc, oc) - r * r);
    if (disc < 0.0lf) {
        return;
    }
    precise double t = (-bq - sqrt(disc)) / dd;
    precise dvec3 q = oa + t * dv;
    precise double sl = dotD(q, ba);
    bool ok = keep == SWEPT_KEEP_ALWAYS || (keep == SWEPT_KEEP_BELOW ? sl <= bound : sl >= bound);
    if (ok && t > lo && t < best) {
        best = t;
        bestU = u;
        found = true;
    }
}

// intersectSweptSphere intersects the round cone from sphere (a, ra) to
// sphere (b, rb): the two spheres and the cone tangent to both. With
// startCap false the start sphere is left out (a chained segment). It
// reports only where the ray enters the (convex) round cone, as native swept
// spheres do: a ray that starts inside, or enters through a left-out cap,
// hits nothing of it. It solves in double with the ray's origin moved next
// to the segment. t and u are Go's sweptSphereHit (T, U), both 0 on a miss.
bool intersectSweptSphere(vec3 o, vec3 d, vec3 a, vec3 b, float ra, float rb, bool startCap,
                          float tmin, float tmax, out float t, out float u) {
    t = 0.0;
    u = 0.0;
    precise dvec3 dv = dvec3(d);
    precise dvec3 a64 = dvec3(a);
    precise double dd = dotD(dv, dv);
    precise dvec3 ba = dvec3(b) - a64;
    precise dvec3 mid = a64 + ba * 0.5lf;
    precise double t0 = -dotD(dvec3(o) - mid, dv) / dd; // nearest approach to the midpoint
    precise dvec3 oa = (dvec3(o) - a64) + t0 * dv;      // the moved origin, relative to a
    precise dvec3 ob = oa - ba;
    precise double l = sqrt(dotD(ba, ba));
    precise double r0 = double(ra);
    precise double r1 = double(rb);
    precise double lo = double(tmin) - t0;
    precise double best = double(tmax) - t0;
    precise double bestU = 0.0lf;
    bool found = false;
    if (l <= abs(r0 - r1) && r0 >= r1) { // the start sphere holds the end one
        if (startCap) {
            sweptSphereCap(oa, r0, 0.0lf, SWEPT_KEEP_ALWAYS, 0.0lf, oa, dv, ba, dd, lo, best, bestU, found);
        }
    } else if (l <= abs(r0 - r1)) { // the end sphere holds the start one
        sweptSphereCap(ob, r1, 1.0lf, SWEPT_KEEP_ALWAYS, 0.0lf, oa, dv, ba, dd, lo, best, bestU, found);
    } else {
        precise double k = (r0 - r1) / l; // sine of the cone's half-angle
        precise double c2 = 1.0lf - k * k;
        // The tangent circles lie at axial coordinates r0·k and l + r1·k;
        // the keep tests get them times l.
        precise double sa = r0 * k * l;
        precise double sb = (l + r1 * k) * l;
        if (startCap) {
            sweptSphereCap(oa, r0, 0.0lf, SWEPT_KEEP_BELOW, sa, oa, dv, ba, dd, lo, best, bestU, found);
        }
        sweptSphereCap(ob, r1, 1.0lf, SWEPT_KEEP_ABOVE, sb, oa, dv, ba, dd, lo, best, bestU, found);
        // The cone: (1 − k²)|w|² − s² + 2·r0·k·s − r0² = 0 for w = p − a and
        // s = w·ĉ, between the tangent circles: a quadratic in t, negative
        // inside. The ray enters where it falls, at the root (−qb − h)/qa
        // whatever the sign of qa.
        precise dvec3 c = ba * (1.0lf / l);
        precise double s0 = dotD(oa, c);
        precise double sd = dotD(dv, c);
        precise double qa = c2 * dd - sd * sd;
        precise double qb = c2 * dotD(oa, dv) - s0 * sd + r0 * k * sd;
        precise double qc = c2 * dotD(oa, oa) - s0 * s0 + 2.0lf * r0 * k * s0 - r0 * r0;
        precise double disc = qb * qb - qa * qc;
        if (disc >= 0.0lf && qa != 0.0lf) {
            precise double tc = (-qb - sqrt(disc)) / qa;
            precise double s = s0 + tc * sd;
            if (s * l >= sa && s * l <= sb && tc > lo && tc < best) {
                precise double su = (s - r0 * k) / (l * c2);
                best = tc;
                bestU = su;
                found = true;
            }
        }
    }
    if (!found) {
        return false;
    }
    t = float(best + t0);
    u = float(min(max(bestU, 0.0lf), 1.0lf));
    return true;
}

// sweptSphereNormal is the outward normal at p of the round cone, given the
// hit's u: the direction from the centre of the sphere at u to p (all in
// object space; float32 as in Go).
vec3 sweptSphereNormal(vec3 p, vec3 a, vec3 b, float u) {
    precise vec3 q = p - (a + (b - a) * u);
    return normalizeGo(q);
}

// offsetRay moves a ray's origin off the surface along n by a few ulps of its
// coordinates (Wächter and Binder, "A Fast and Robust Method for Avoiding
// Self-Intersection", Ray Tracing Gems), so the next ray does not hit the
// surface it leaves at any distance from the origin.
vec3 offsetRay(vec3 p, vec3 n) {
    const float origin = 1.0 / 32.0;
    const float floatScale = 1.0 / 65536.0;
    const float intScale = 256.0;
    vec3 outp;
    for (int k = 0; k < 3; k++) {
        int off = int(intScale * n[k]); // truncates toward zero, as Go's int32()
        int bits = floatBitsToInt(p[k]);
        if (p[k] < 0.0) {
            bits -= off;
        } else {
            bits += off;
        }
        outp[k] = intBitsToFloat(bits);
        if (abs(p[k]) < origin) {
            precise float q = p[k] + floatScale * n[k];
            outp[k] = q;
        }
    }
    return outp;
}

#endif // INTERSECT_GLSL
