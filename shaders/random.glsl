// random.glsl: the stateless random numbers of render/random.go, bit-exact
// with the Go: Owen-scrambled Sobol points in pairs of dimensions, the
// sample order shuffled per pixel, bounce and pair (Burley, "Practical
// Hash-based Owen Scrambling", JCGT 2020), seeded by pcg4d (Jarzynski and
// Olano, "Hash Functions for GPU Rendering", JCGT 2020). Only uint
// arithmetic, which wraps as Go's uint32 does, and an exact int-to-float
// conversion, so every value equals the CPU backend's.
//
// Extensions: none.

#ifndef RANDOM_GLSL
#define RANDOM_GLSL

// The dimensions of the random stream at each bounce (DIM_*, in pairs that
// are stratified together) and the hashes' constants come from
// render/layout, in the generated header.

uvec4 pcg4d(uvec4 v) {
    v = v * PCG_MULTIPLIER + PCG_INCREMENT;
    v.x += v.y * v.w;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    v.w += v.y * v.z;
    v ^= v >> 16u;
    v.x += v.y * v.w;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    v.w += v.y * v.z;
    return v;
}

// nestedUniformScramble is a hashed Owen scramble of x's bits, the most
// significant first: each bit is flipped by a hash of the bits above it.
uint nestedUniformScramble(uint x, uint seed) {
    x = bitfieldReverse(x);
    x += seed;
    x ^= x * LAINE_KARRAS_0;
    x ^= x * LAINE_KARRAS_1;
    x ^= x * LAINE_KARRAS_2;
    x ^= x * LAINE_KARRAS_3;
    return bitfieldReverse(x);
}

// sobol returns the Sobol sequence's point index in its first dimension
// (van der Corput) or its second (primitive polynomial x + 1).
uint sobol(uint index, bool second) {
    if (!second) {
        return bitfieldReverse(index);
    }
    uint x = 0u;
    for (uint v = 0x80000000u; index != 0u; index >>= 1u, v ^= v >> 1u) {
        if ((index & 1u) != 0u) {
            x ^= v;
        }
    }
    return x;
}

// random returns a number in [0, 1) for a pixel, sample, bounce and
// dimension of the stream that seed selects (Go's Random).
float random(uint pixel, uint sampleIndex, uint bounce, uint dim, uint seed) {
    uint shuffle = pcg4d(uvec4(pixel, bounce * PAIRS_PER_BOUNCE + dim / 2u, seed, SHUFFLE_SALT)).x;
    uint scramble = pcg4d(uvec4(pixel, bounce * DIMS_PER_BOUNCE + dim, seed, SCRAMBLE_SALT)).x;
    uint x = nestedUniformScramble(sobol(nestedUniformScramble(sampleIndex, shuffle), (dim & 1u) != 0u), scramble);
    return float(x >> 8u) * (1.0 / 16777216.0);
}

// hitCoin is a number in [0, 1) for a candidate hit, a hash of its
// instance, primitive, barycentrics and distance (Go's HitCoin).
float hitCoin(uint inst, uint prim, float u, float v, float t) {
    uint x = pcg4d(uvec4(floatBitsToUint(u), floatBitsToUint(v), floatBitsToUint(t), inst * HIT_COIN_STRIDE + prim)).x;
    return float(x >> 8u) * (1.0 / 16777216.0);
}

#endif // RANDOM_GLSL
