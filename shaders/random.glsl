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

// Dimensions of the random stream used at each bounce (Go's iota order),
// in pairs (0 and 1, 2 and 3, …) that are stratified together.
const uint DIM_PIXEL_X = 0u;    // camera: where in the pixel (through the pixel filter)
const uint DIM_PIXEL_Y = 1u;
const uint DIM_LENS_U = 2u;     // camera: where on the lens
const uint DIM_LENS_V = 3u;
const uint DIM_BSDF_U = 4u;     // BSDF: the direction
const uint DIM_BSDF_V = 5u;
const uint DIM_LOBE = 6u;       // which lobe
const uint DIM_BSDF_W = 7u;     // the hair BSDF's azimuth
const uint DIM_LIGHT_U = 8u;
const uint DIM_LIGHT_V = 9u;
const uint DIM_LIGHT = 10u;     // next-event estimation: which alias-table column
const uint DIM_LIGHT_COIN = 11u; // and whether to keep it or take its alias
const uint DIM_ROULETTE = 12u;
const uint DIMS_PER_BOUNCE = 13u;

uvec4 pcg4d(uvec4 v) {
    v = v * 1664525u + 1013904223u;
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
    x ^= x * 0x6c50b47cu;
    x ^= x * 0xb82f1e52u;
    x ^= x * 0xc7afe638u;
    x ^= x * 0x8d22f6e6u;
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
    uint shuffle = pcg4d(uvec4(pixel, bounce * ((DIMS_PER_BOUNCE + 1u) / 2u) + dim / 2u, seed, 0x9e3779b9u)).x;
    uint scramble = pcg4d(uvec4(pixel, bounce * DIMS_PER_BOUNCE + dim, seed, 0x85ebca6bu)).x;
    uint x = nestedUniformScramble(sobol(nestedUniformScramble(sampleIndex, shuffle), (dim & 1u) != 0u), scramble);
    return float(x >> 8u) * (1.0 / 16777216.0);
}

#endif // RANDOM_GLSL
