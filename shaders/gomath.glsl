// gomath.glsl: the math functions of Go's that the translated kernel
// (generated/kernel.glsl) calls where GLSL's own are not precise enough.
// GPU-only by nature: Vulkan lets asin and atan be off by 4096 ulp
// (lavapipe's asin is off by 4e-4) and pow be exp2(y·log2 x), while the
// hair's azimuthal lobes are only a few 1e-3 rad wide at small β_n.
// Here: sin and cos of an argument brought to [−π, π], the classic
// single-precision minimax polynomials (Cephes' atanf and asinf), within
// ~2e-7 relative of Go's float64 math.Atan2 and math.Asin on every driver,
// integer powers by repeated squaring, and the cube root refined.
#ifndef GO_MATH_GLSL
#define GO_MATH_GLSL

// sinGo and cosGo are math.Sin and math.Cos. GLSL promises their
// precision on [−π, π] only (the thin film's phases reach 150 radians):
// the argument is brought there first, exactly where it already is.
float sinGo(float x) {
    return sin(x - 6.283185307179586 * round(x * 0.15915494309189535));
}

float cosGo(float x) {
    return cos(x - 6.283185307179586 * round(x * 0.15915494309189535));
}

// powGo is math.Pow: by repeated squaring for a whole power up to 64 (a
// few float roundings), GLSL's pow otherwise.
float powGo(float x, float y) {
    if (y >= 0.0 && y <= 64.0 && y == floor(y)) {
        float r = 1.0;
        float b = x;
        for (int e = int(y); e > 0; e >>= 1) {
            if ((e & 1) != 0) {
                r *= b;
            }
            b *= b;
        }
        return r;
    }
    return pow(x, y);
}

// cbrtGo is math.Cbrt: GLSL's pow (exp2(log2 x / 3), a few ulp off) and
// one Newton step, which brings it within an ulp or two.
float cbrtGo(float x) {
    if (x == 0.0 || isinf(x) || isnan(x)) {
        return x;
    }
    float y = sign(x) * pow(abs(x), 1.0 / 3.0);
    return y - (y * y * y - x) / (3.0 * y * y);
}

// hypotGo is math.Hypot: the length of (x, y).
float hypotGo(float x, float y) {
    return length(vec2(x, y));
}

// atanGo is math.Atan.
float atanGo(float x) {
    float ax = abs(x);
    float y = 0.0;
    float z = ax;
    if (ax > 2.414213562373095) { // tan(3π/8)
        y = 1.5707963267948966;
        z = -1.0 / ax;
    } else if (ax > 0.4142135623730950) { // tan(π/8)
        y = 0.7853981633974483;
        z = (ax - 1.0) / (ax + 1.0);
    }
    float zz = z * z;
    y += (((8.05374449538e-2 * zz - 1.38776856032e-1) * zz + 1.99777106478e-1) * zz - 3.33329491539e-1) * zz * z + z;
    return x < 0.0 ? -y : y;
}

// atan2Go is math.Atan2(y, x) (GLSL's atan(y, x) is undefined at 0, 0;
// Go gives ±0 or ±π there, this gives 0 and, for y = −0, x < 0, +π).
float atan2Go(float y, float x) {
    if (x == 0.0) {
        if (y > 0.0) {
            return 1.5707963267948966;
        }
        if (y < 0.0) {
            return -1.5707963267948966;
        }
        return 0.0;
    }
    float a = atanGo(y / x);
    if (x < 0.0) {
        a += y >= 0.0 ? 3.14159265358979323846 : -3.14159265358979323846;
    }
    return a;
}

// asinGo is math.Asin for x in [−1, 1] (outside, asin of ±1 where Go's is
// NaN: every caller clamps first).
float asinGo(float x) {
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
        r = 1.5707963267948966 - 2.0 * r;
    }
    return x < 0.0 ? -r : r;
}

#endif // GO_MATH_GLSL
