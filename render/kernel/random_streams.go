//goglsl:ignore

package kernel

import (
	"math/bits"

	"sertrace/render/layout"
)

// The CPU's fast path to kernel.Random's numbers (random.go): the second
// Sobol dimension by tables, a byte of the index at a time, pairs that
// share their shuffled index, and each pixel's keys made once for all its
// samples (StreamKeys). Go alone: the GPU computes Random as defined.
// TestRandomIsItsDefinition holds the two equal bit for bit.

// sobolBytes[b][v] is the second dimension's point for index v<<(8b): the
// XOR of the directions of v's bits, a byte of the index at a time.
var sobolBytes = func() (t [4][256]uint32) {
	var dir [32]uint32
	for i, v := 0, uint32(1<<31); i < 32; i, v = i+1, v^v>>1 {
		dir[i] = v
	}
	for b := range 4 {
		for v := range 256 {
			for i := range 8 {
				if v>>i&1 != 0 {
					t[b][v] ^= dir[8*b+i]
				}
			}
		}
	}
	return t
}()

// sobolReversedBytes is sobolBytes with each entry's bits reversed: the
// second dimension's point, reversed, is their XOR as well.
var sobolReversedBytes = func() (t [4][256]uint32) {
	for b := range 4 {
		for v := range 256 {
			t[b][v] = bits.Reverse32(sobolBytes[b][v])
		}
	}
	return t
}()

// Random2 returns the pair of numbers that Random gives for dimensions
// 2·pair and 2·pair+1, for the cost of little more than one: the two share
// their shuffled sample index.
func Random2(pixel, sample, bounce, pair, seed uint32) (float32, float32) {
	index := shuffledIndex(pixel, sample, bounce, pair, seed)
	return scrambledPoint(index, pixel, bounce, 2*pair, seed), scrambledPoint(index, pixel, bounce, 2*pair+1, seed)
}

// StreamKeys marks the keys it has made in one 32-bit word.
var _ [32 - layout.PairsPerBounce - layout.DimsPerBounce]struct{}

// StreamKeys are the hashes that a pixel's numbers at one bounce derive
// from: each pair's shuffle and each dimension's scramble. Every sample of
// the pixel shares them, so a renderer that draws several samples of a
// pixel at once makes each once, when it is first needed (Random and
// Random2 hash them anew for every number); the numbers are the same.
type StreamKeys struct {
	pixel, bounce, seed uint32
	made                uint32 // a bit per key made: the pairs' shuffles, then the dimensions' scrambles
	shuffle             [layout.PairsPerBounce]uint32
	scramble            [layout.DimsPerBounce]uint32
}

// Set makes k the keys of a pixel's numbers at a bounce: those made
// already stay when k holds that pixel, bounce and seed, and are dropped
// otherwise. (The zero StreamKeys is pixel 0's at bounce 0 with seed 0,
// none made.)
func (k *StreamKeys) Set(pixel, bounce, seed uint32) {
	if k.pixel != pixel || k.bounce != bounce || k.seed != seed {
		k.pixel, k.bounce, k.seed, k.made = pixel, bounce, seed, 0
	}
}

func (k *StreamKeys) shuffleOf(pair uint32) uint32 {
	if k.made&(1<<pair) == 0 {
		k.shuffle[pair] = shuffleKey(k.pixel, k.bounce, pair, k.seed)
		k.made |= 1 << pair
	}
	return k.shuffle[pair]
}

func (k *StreamKeys) scrambleOf(dim uint32) uint32 {
	if bit := uint32(1) << (layout.PairsPerBounce + dim); k.made&bit == 0 {
		k.scramble[dim] = scrambleKey(k.pixel, k.bounce, dim, k.seed)
		k.made |= bit
	}
	return k.scramble[dim]
}

// PathRandom is Random's number of path p in dimension dim, for keys Set
// to its pixel and bounce (Randoms).
func (k *StreamKeys) PathRandom(p *layout.Path, dim uint32) float32 {
	index := nestedUniformScramble(p.SampleIndex, k.shuffleOf(dim/2))
	return pointOf(index, dim, k.scrambleOf(dim))
}

// PathRandom2 is Random2's pair of numbers of path p, for keys Set to its
// pixel and bounce (Randoms).
func (k *StreamKeys) PathRandom2(p *layout.Path, pair uint32) (float32, float32) {
	index := nestedUniformScramble(p.SampleIndex, k.shuffleOf(pair))
	return pointOf(index, 2*pair, k.scrambleOf(2*pair)), pointOf(index, 2*pair+1, k.scrambleOf(2*pair+1))
}

// shuffledIndex is the sample's index in its pair's shuffled order. The
// shuffle flips each bit of the index by a hash of the bits above it, so
// the first 2^k samples map onto one aligned block of 2^k indices, in some
// order, and such a block of Sobol points is a net.
func shuffledIndex(pixel, sample, bounce, pair, seed uint32) uint32 {
	return nestedUniformScramble(sample, shuffleKey(pixel, bounce, pair, seed))
}

// scrambledPoint is the Sobol point of a (shuffled) index in the pair's
// first or second dimension, Owen-scrambled per dimension, as a number in
// [0, 1). The scramble works on the point's bits reversed, and the first
// dimension's point is the index reversed: it is scrambled as the index.
func scrambledPoint(index, pixel, bounce, dim, seed uint32) float32 {
	return pointOf(index, dim, scrambleKey(pixel, bounce, dim, seed))
}

// pointOf is scrambledPoint with the dimension's scramble key given.
func pointOf(index, dim, scramble uint32) float32 {
	reversed := index // sobol(index, false), reversed
	if dim&1 != 0 {
		t := &sobolReversedBytes
		reversed = t[0][index&255] ^ t[1][index>>8&255] ^ t[2][index>>16&255] ^ t[3][index>>24]
	}
	x := bits.Reverse32(laineKarras(reversed, scramble))
	return float32(x>>8) * (1.0 / (1 << 24))
}
