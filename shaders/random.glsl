// random.glsl: the stateless random numbers of render/random.go, bit-exact
// with the Go: pcg4d (Jarzynski and Olano, "Hash Functions for GPU
// Rendering", JCGT 2020) of (pixel, sample, bounce·DIMS_PER_BOUNCE + dim,
// seed). Only uint arithmetic, which wraps as Go's uint32 does, and an exact
// int-to-float conversion, so every value equals the CPU backend's.
//
// Extensions: none.

#ifndef RANDOM_GLSL
#define RANDOM_GLSL

// Dimensions of the random stream used at each bounce (Go's iota order).
const uint DIM_PIXEL_X = 0u;    // camera: where in the pixel (through the pixel filter)
const uint DIM_PIXEL_Y = 1u;
const uint DIM_LENS_U = 2u;     // camera: where on the lens
const uint DIM_LENS_V = 3u;
const uint DIM_LOBE = 4u;       // BSDF: which lobe
const uint DIM_BSDF_U = 5u;
const uint DIM_BSDF_V = 6u;
const uint DIM_BSDF_W = 7u;     // the hair BSDF's azimuth
const uint DIM_LIGHT = 8u;      // next-event estimation: which alias-table column
const uint DIM_LIGHT_COIN = 9u; // and whether to keep it or take its alias
const uint DIM_LIGHT_U = 10u;
const uint DIM_LIGHT_V = 11u;
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

// random returns a number in [0, 1) for a pixel, sample, bounce and
// dimension of the stream that seed selects (Go's Random).
float random(uint pixel, uint sampleIndex, uint bounce, uint dim, uint seed) {
    uint x = pcg4d(uvec4(pixel, sampleIndex, bounce * DIMS_PER_BOUNCE + dim, seed)).x;
    return float(x >> 8u) * (1.0 / 16777216.0);
}

#endif // RANDOM_GLSL
