package kernel

import (
	"math"
	"math/bits"

	"sertrace/render/layout"
)

// Random numbers are a stateless function of (pixel, sample, bounce,
// dimension, seed): an image does not depend on thread count or
// scheduling, and the GPU computes the same numbers. They are
// Owen-scrambled Sobol points with a shuffled sample order (Burley,
// "Practical Hash-based Owen Scrambling", JCGT 2020): the dimensions of a
// bounce come in pairs, each pair the first two dimensions of the Sobol
// sequence (a (0, 2)-sequence), its sample order shuffled per pixel, bounce
// and pair and its values scrambled per dimension. Within a pixel, the
// first 2^k samples of a pair are then a (0, k, 2)-net: 16 samples put one
// camera ray in each cell of a 4×4 grid over the pixel (and of the 2×8,
// 8×2, 1×16 and 16×1 grids), one light sample in each cell of such grids
// over the light's square; pixels, pairs, bounces and seeds stay
// independent. Hashes are pcg4d (Jarzynski and Olano, "Hash Functions for
// GPU Rendering", JCGT 2020) and the Laine–Karras permutation with
// Burley's constants.

func pcg4d(x, y, z, w uint32) (uint32, uint32, uint32, uint32) {
	const a, c = layout.PCGMultiplier, layout.PCGIncrement
	x, y, z, w = x*a+c, y*a+c, z*a+c, w*a+c
	x += y * w
	y += z * x
	z += x * y
	w += y * z
	x, y, z, w = x^x>>16, y^y>>16, z^z>>16, w^w>>16
	x += y * w
	y += z * x
	z += x * y
	w += y * z
	return x, y, z, w
}

// sobol returns the Sobol sequence's point index in its first dimension
// (the van der Corput sequence: the index's bits reversed) or its second
// (primitive polynomial x + 1: bit i of the index adds direction m_i·2^(31−i),
// m_0 = 1, m_i = m_(i−1) ⊕ 2·m_(i−1)).
func sobol(index uint32, second bool) uint32 {
	if !second {
		return bits.Reverse32(index)
	}
	var x uint32
	for v := uint32(1 << 31); index != 0; v ^= v >> 1 {
		if index&1 != 0 {
			x ^= v
		}
		index >>= 1
	}
	return x
}

// laineKarras is the Laine–Karras permutation with Burley's constants: it
// flips each bit of x by a hash of the bits below it and of seed.
func laineKarras(x, seed uint32) uint32 {
	x += seed
	x ^= x * layout.LaineKarras0
	x ^= x * layout.LaineKarras1
	x ^= x * layout.LaineKarras2
	x ^= x * layout.LaineKarras3
	return x
}

// nestedUniformScramble is a hashed Owen scramble of x's bits, the most
// significant first: each bit is flipped by a hash of the bits above it.
func nestedUniformScramble(x, seed uint32) uint32 {
	return bits.Reverse32(laineKarras(bits.Reverse32(x), seed))
}

// shuffleKey is the hash that shuffles a pair's sample order in a pixel at
// a bounce.
func shuffleKey(pixel, bounce, pair, seed uint32) uint32 {
	key, _, _, _ := pcg4d(pixel, bounce*layout.PairsPerBounce+pair, seed, layout.ShuffleSalt)
	return key
}

// scrambleKey is the hash that scrambles a dimension's points in a pixel
// at a bounce.
func scrambleKey(pixel, bounce, dim, seed uint32) uint32 {
	key, _, _, _ := pcg4d(pixel, bounce*layout.DimsPerBounce+dim, seed, layout.ScrambleSalt)
	return key
}

// Random returns a number in [0, 1) for a pixel, sample, bounce and
// dimension of the stream that seed selects: the sample's index shuffled
// in its pair's order, its Sobol point in the pair's first or second
// dimension, Owen-scrambled per dimension. (The CPU draws the same
// numbers faster through StreamKeys.)
func Random(pixel, sample, bounce, dim, seed uint32) float32 {
	index := nestedUniformScramble(sample, shuffleKey(pixel, bounce, dim/2, seed))
	x := nestedUniformScramble(sobol(index, dim&1 != 0), scrambleKey(pixel, bounce, dim, seed))
	return float32(x>>8) * (1.0 / (1 << 24))
}

// HitCoin is a number in [0, 1) for a candidate hit: a hash of its
// instance, primitive, barycentrics and distance, the same however often a
// ray meets it, independent between rays (their distances differ). BLEND
// keeps a candidate whose alpha is above it: stochastic transparency.
func HitCoin(instance, prim uint32, u, v, t float32) float32 {
	x, _, _, _ := pcg4d(math.Float32bits(u), math.Float32bits(v), math.Float32bits(t), instance*layout.HitCoinStride+prim)
	return float32(x>>8) * (1.0 / (1 << 24))
}
