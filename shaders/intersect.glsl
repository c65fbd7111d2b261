// intersect.glsl: the sphere and linear-swept-sphere tests of
// render/cpu/intersect.go, in float32. The Go works in float64; this moves the ray's origin next to the
// primitive first (to the point nearest the sphere's centre, or the
// segment's midpoint), as Embree, Cycles and pbrt-v4 do, so that float32
// keeps the precision that thin hair needs, and keeps a hit only beyond a
// bound on its error (hitErrorBound), so that a ray leaving a surface
// (kernel.OffsetRay) does not find it again. The images agree with the CPU
// backend's within the CPU-against-Vulkan tests' tolerances, not bit for
// bit. GeForce GPUs run float64 at 1/64 of the float32 rate.
//
// Extensions: none beyond core GLSL 4.60.
//
// Calling convention (as render/cpu/accel.go's traceInstance calls these):
//   - o, d are the ray in the instance's object space: the world ray through
//     the world-to-object affine, d NOT renormalised, so t is the world ray's
//     parameter (an intersection shader transforms gl_WorldRay* by the
//     instance's toObject itself, as the CPU does).
//   - tmin is the ray's TMin, which the CPU backend leaves at 0 for every ray
//     (rays leave surfaces by kernel.OffsetRay, not by a tmin epsilon); tmax
//     is the current closest hit, shrinking as hits are accepted
//     (gl_RayTminEXT, gl_RayTmaxEXT). A hit counts only inside the open
//     interval (tmin, tmax), and beyond hitErrorBound of tmin.
//   - Spheres: c, r = SphereSet.Centers[p], Radii[p]. A radius that is not
//     > 0 never hits. exits is the instance's INSTANCE_EXIT_HITS flag.
//   - Swept spheres, segment p of a scene.CurveSet: v = Segments[p];
//     a, b = Positions[v], Positions[v+1]; ra, rb = Radii[v], Radii[v+1];
//     startCap = (Joins[p] & JoinedPrev) == 0 with JoinedPrev = 1u (bit 0;
//     JoinedNext = 2u is not read here): a chained segment leaves out its
//     start sphere, which its predecessor draws. The hit's u (0 at a, 1 at
//     b, clamped) is the U of Go's Hit and what the NV linear swept spheres
//     extension reports; the shading needs it for the kernel's
//     sweptSphereNormal, which takes the hit point in object space and
//     returns the object-space unit normal, which the shading then takes to
//     world space (normalToWorld). The sphere's normal is p_object - centre,
//     unnormalised, the same way (kernel.HitGeometry.Set).

#ifndef INTERSECT_GLSL
#define INTERSECT_GLSL

// FLOAT_EPS is float32's unit roundoff, 2^-24.
const float FLOAT_EPS = 5.9604645e-8;

// Error-free transformations (Knuth's TwoSum, Dekker's TwoProduct with
// Veltkamp's split): the origin moved next to a primitive, (o − a) + t0·d,
// is computed as a float32 pair and then rounded once, so that it is as
// precise as the float64 of the CPU backend's test, which GPU and CPU then
// agree with to a float32 rounding of t. Every value is `precise`: no
// contraction, no reassociation. TwoProduct by fma would be cheaper, but
// GLSL does not promise a fused fma, and lavapipe does not fuse it: its
// moved origin was 3 ulps off where this one is within a ulp
// (TestProbeMovedOrigin, render/cpu/probe_test.go).
vec3 twoSumErr(vec3 a, vec3 b, vec3 s) {
    precise vec3 bb = s - a;
    precise vec3 e = (a - (s - bb)) + (b - bb);
    return e;
}

vec3 twoProdErr(float a, vec3 b, vec3 p) {
    const float SPLIT = 4097.0; // 2^12 + 1
    precise float ca = SPLIT * a;
    precise float ah = ca - (ca - a);
    precise float al = a - ah;
    precise vec3 cb = SPLIT * b;
    precise vec3 bh = cb - (cb - b);
    precise vec3 bl = b - bh;
    precise vec3 e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return e;
}

// movedOrigin is (o − a) + t·d, rounded once.
vec3 movedOrigin(vec3 o, vec3 a, float t, vec3 d) {
    precise vec3 s = o - a;
    vec3 se = twoSumErr(o, -a, s);
    precise vec3 p = t * d;
    vec3 pe = twoProdErr(t, d, p);
    precise vec3 h = s + p;
    vec3 he = twoSumErr(s, p, h);
    precise vec3 r = h + (he + (se + pe));
    return r;
}

// hitErrorBound bounds the error of a hit's t found from an origin moved
// by t0 along a direction of length |d|, about a primitive of size extent
// (distances from the moved origin): the roundoff of the few float32
// operations that lead to it, with a margin (γ_n of Higham for n = 64).
float hitErrorBound(float t0, float extent, float dd) {
    return 64.0 * FLOAT_EPS * (abs(t0) + extent * inversesqrt(dd));
}

// intersectSphere returns the nearest hit in (tmin, tmax) with a sphere:
// where the ray enters it, as native spheres report (a ray that starts
// inside hits nothing), and with exits its far side too (render.ExitHits).
// It solves the quadratic about the point of the ray nearest to the centre
// (Haines et al., "Precision Improvements for Ray/Sphere Intersection", Ray
// Tracing Gems), where r² − |p|² loses nothing to the ray's distance. t is
// 0 on a miss.
bool intersectSphere(vec3 o, vec3 d, vec3 c, float r, float tmin, float tmax, bool exits, out float t) {
    t = 0.0;
    if (!(r > 0.0)) {
        return false; // a zero-radius particle is not there to hit
    }
    float dd = dot(d, d);
    float tc = -dot(o - c, d) / dd; // nearest approach
    vec3 p = movedOrigin(o, c, tc, d);
    float disc = r * r - dot(p, p);
    if (disc < 0.0) {
        return false;
    }
    float h = sqrt(disc / dd);
    float lo = tmin + hitErrorBound(tc, length(p) + r, dd);
    float t1 = tc - h;
    if (t1 > lo && t1 < tmax) {
        t = t1;
        return true;
    }
    float t2 = tc + h;
    if (exits && t2 > lo && t2 < tmax) {
        t = t2;
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
void sweptSphereCap(vec3 oc, float r, float u, int keep, float bound,
                    vec3 oa, vec3 dv, vec3 ba, float dd, float lo,
                    inout float best, inout float bestU, inout bool found) {
    float bq = dot(oc, dv);
    // |oc − (oc·d̂)d̂|² − r², about the nearest approach, as for spheres.
    vec3 f = oc - (bq / dd) * dv;
    float disc = dd * (r * r - dot(f, f));
    if (disc < 0.0) {
        return;
    }
    float t = (-bq - sqrt(disc)) / dd;
    vec3 q = oa + t * dv;
    float sl = dot(q, ba);
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
// hits nothing of it. It solves with the ray's origin moved to its nearest
// approach to the segment's midpoint. t and u are as Go's sweptSphereHit
// (T, U), both 0 on a miss.
bool intersectSweptSphere(vec3 o, vec3 d, vec3 a, vec3 b, float ra, float rb, bool startCap,
                          float tmin, float tmax, out float t, out float u) {
    t = 0.0;
    u = 0.0;
    float dd = dot(d, d);
    vec3 ba = b - a;
    vec3 mid = a + ba * 0.5;
    float t0 = -dot(o - mid, d) / dd;     // nearest approach to the midpoint
    vec3 oa = movedOrigin(o, a, t0, d); // the moved origin, relative to a
    vec3 ob = oa - ba;
    float l = length(ba);
    float r0 = ra;
    float r1 = rb;
    float lo = tmin - t0 + hitErrorBound(t0, length(oa) + l + max(r0, r1), dd);
    float best = tmax - t0;
    float bestU = 0.0;
    bool found = false;
    if (l <= abs(r0 - r1) && r0 >= r1) { // the start sphere holds the end one
        if (startCap) {
            sweptSphereCap(oa, r0, 0.0, SWEPT_KEEP_ALWAYS, 0.0, oa, d, ba, dd, lo, best, bestU, found);
        }
    } else if (l <= abs(r0 - r1)) { // the end sphere holds the start one
        sweptSphereCap(ob, r1, 1.0, SWEPT_KEEP_ALWAYS, 0.0, oa, d, ba, dd, lo, best, bestU, found);
    } else {
        float k = (r0 - r1) / l; // sine of the cone's half-angle
        float c2 = 1.0 - k * k;
        // The tangent circles lie at axial coordinates r0·k and l + r1·k;
        // the keep tests get them times l.
        float sa = r0 * k * l;
        float sb = (l + r1 * k) * l;
        if (startCap) {
            sweptSphereCap(oa, r0, 0.0, SWEPT_KEEP_BELOW, sa, oa, d, ba, dd, lo, best, bestU, found);
        }
        sweptSphereCap(ob, r1, 1.0, SWEPT_KEEP_ABOVE, sb, oa, d, ba, dd, lo, best, bestU, found);
        // The cone: (1 − k²)|w|² − s² + 2·r0·k·s − r0² = 0 for w = p − a and
        // s = w·ĉ, between the tangent circles: a quadratic in t, negative
        // inside. The ray enters where it falls, at the root (−qb − h)/qa
        // whatever the sign of qa. |w|² − s² is the squared distance from
        // the axis, computed from w's part across it (w − s·ĉ), which keeps
        // what float32 would lose subtracting two near squares.
        vec3 c = ba * (1.0 / l);
        float s0 = dot(oa, c);
        float sd = dot(d, c);
        vec3 oPerp = oa - s0 * c;
        vec3 dPerp = d - sd * c;
        float qa = dot(dPerp, dPerp) - k * k * dd;
        float qb = dot(oPerp, dPerp) - k * k * dot(oa, d) + r0 * k * sd;
        float qc = dot(oPerp, oPerp) - k * k * dot(oa, oa) + 2.0 * r0 * k * s0 - r0 * r0;
        float disc = qb * qb - qa * qc;
        if (disc >= 0.0 && qa != 0.0) {
            float tc = (-qb - sqrt(disc)) / qa;
            float s = s0 + tc * sd;
            if (s * l >= sa && s * l <= sb && tc > lo && tc < best) {
                best = tc;
                bestU = (s - r0 * k) / (l * c2);
                found = true;
            }
        }
    }
    if (!found) {
        return false;
    }
    t = best + t0;
    u = clamp(bestU, 0.0, 1.0);
    // best < tmax − t0, both rounded, can round to a t a ulp past tmax,
    // which a ray query must never be given (VUID 06353).
    if (!(t > tmin && t < tmax)) {
        t = 0.0;
        u = 0.0;
        return false;
    }
    return true;
}

#endif // INTERSECT_GLSL
