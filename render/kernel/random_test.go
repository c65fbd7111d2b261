package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/render/layout"
)

func TestRandomIsUniformAndDecorrelated(t *testing.T) {
	const n = 1 << 16
	var bins [16]int
	var sumXY, sumX float64
	for i := uint32(0); i < n; i++ {
		x := Random(i, 3, 1, layout.DimBSDFU, 0)
		y := Random(i, 3, 1, layout.DimBSDFV, 0)
		if x < 0 || x >= 1 {
			t.Fatalf("%v out of [0, 1)", x)
		}
		bins[int(x*16)]++
		sumXY += float64(x) * float64(y)
		sumX += float64(x)
	}
	for i, b := range bins {
		if math.Abs(float64(b)-n/16) > 5*math.Sqrt(n/16) {
			t.Errorf("bin %d has %d of %d", i, b, n)
		}
	}
	if cov := sumXY/n - (sumX/n)*0.5; math.Abs(cov) > 0.005 {
		t.Errorf("dimensions correlate: covariance %v", cov)
	}
}

// A pixel's first 2^k samples are stratified in every dimension and in the
// pairs sampled together: one sample in each of the 2^k equal intervals of
// a dimension, and one in each cell of every 2^a × 2^(k−a) grid over a
// pair, at every bounce.
func TestRandomStratifies(t *testing.T) {
	pairs := [][2]uint32{{layout.DimPixelX, layout.DimPixelY}, {layout.DimLensU, layout.DimLensV}, {layout.DimBSDFU, layout.DimBSDFV}, {layout.DimLightU, layout.DimLightV}}
	for _, pixel := range []uint32{0, 1, 777, 1 << 20} {
		for _, bounce := range []uint32{0, 1, 5} {
			for _, seed := range []uint32{0, 42} {
				for _, k := range []uint{4, 6} {
					n := uint32(1) << k
					for dim := uint32(0); dim < layout.DimsPerBounce; dim++ {
						seen := map[int]bool{}
						for s := uint32(0); s < n; s++ {
							seen[int(Random(pixel, s, bounce, dim, seed)*float32(n))] = true
						}
						if len(seen) != int(n) {
							t.Errorf("pixel %d bounce %d seed %d dim %d: %d samples fill %d of %d intervals", pixel, bounce, seed, dim, n, len(seen), n)
						}
					}
					for _, p := range pairs {
						for a := uint(0); a <= k; a++ {
							seen := map[[2]int]bool{}
							for s := uint32(0); s < n; s++ {
								x := Random(pixel, s, bounce, p[0], seed)
								y := Random(pixel, s, bounce, p[1], seed)
								seen[[2]int{int(x * float32(uint32(1)<<a)), int(y * float32(uint32(1)<<(k-a)))}] = true
							}
							if len(seen) != int(n) {
								t.Errorf("pixel %d bounce %d seed %d dims %v: %d samples fill %d of the %d×%d cells", pixel, bounce, seed, p, n, len(seen), 1<<a, 1<<(k-a))
							}
						}
					}
				}
			}
		}
	}
}

// Stratification is what it is for: estimating the area of a disk from 64
// samples per pixel errs several times less than independent samples would
// (their RMS error is sqrt(p(1−p)/64) = 0.051), in the camera's pair and in
// a later bounce's light pair, and the pixels' estimates are unbiased.
func TestRandomConvergesFasterThanIndependentSamples(t *testing.T) {
	const spp, pixels = 64, 2000
	p := math.Pi / 4
	independent := math.Sqrt(p * (1 - p) / spp)
	for _, pair := range [][3]uint32{{layout.DimPixelX, layout.DimPixelY, 0}, {layout.DimLightU, layout.DimLightV, 3}} {
		var sumSq, sum float64
		for px := uint32(0); px < pixels; px++ {
			var in int
			for s := uint32(0); s < spp; s++ {
				x := float64(Random(px, s, pair[2], pair[0], 9))
				y := float64(Random(px, s, pair[2], pair[1], 9))
				if x*x+y*y < 1 {
					in++
				}
			}
			e := float64(in)/spp - p
			sum += e
			sumSq += e * e
		}
		rms := math.Sqrt(sumSq / pixels)
		if rms > independent/2 {
			t.Errorf("dims %v: RMS error %.4f, independent samples %.4f", pair, rms, independent)
		}
		if mean := sum / pixels; math.Abs(mean) > 4*rms/math.Sqrt(pixels) {
			t.Errorf("dims %v: biased, mean error %.5f (RMS %.4f)", pair, mean, rms)
		}
		t.Logf("dims %v: RMS error %.4f against %.4f for independent samples", pair, rms, independent)
	}
}

// Dimensions in different groups, bounces and pixels do not correlate
// within a pixel's samples.
func TestRandomGroupsAreIndependent(t *testing.T) {
	const spp, pixels = 16, 4096
	cases := []struct {
		name string
		a, b [3]uint32 // pixel offset, bounce, dim
	}{
		{"pixel x against the BSDF's u", [3]uint32{0, 0, layout.DimPixelX}, [3]uint32{0, 0, layout.DimBSDFU}},
		{"the BSDF's u against the light's u", [3]uint32{0, 1, layout.DimBSDFU}, [3]uint32{0, 1, layout.DimLightU}},
		{"one bounce's BSDF u against the next's", [3]uint32{0, 1, layout.DimBSDFU}, [3]uint32{0, 2, layout.DimBSDFU}},
		{"neighbouring pixels' x", [3]uint32{0, 0, layout.DimPixelX}, [3]uint32{1, 0, layout.DimPixelX}},
		{"the lobe against roulette", [3]uint32{0, 2, layout.DimLobe}, [3]uint32{0, 2, layout.DimRoulette}},
	}
	for _, c := range cases {
		var sxy, sx, sy, sxx, syy float64
		for px := uint32(0); px < pixels; px++ {
			for s := uint32(0); s < spp; s++ {
				x := float64(Random(px+c.a[0], s, c.a[1], c.a[2], 5))
				y := float64(Random(px+c.b[0], s, c.b[1], c.b[2], 5))
				sxy, sx, sy, sxx, syy = sxy+x*y, sx+x, sy+y, sxx+x*x, syy+y*y
			}
		}
		n := float64(spp * pixels)
		r := (sxy/n - sx/n*sy/n) / math.Sqrt((sxx/n-sx/n*sx/n)*(syy/n-sy/n*sy/n))
		if math.Abs(r) > 4/math.Sqrt(n) {
			t.Errorf("%s: correlation %.4f", c.name, r)
		}
	}
}

// The byte tables give the second Sobol dimension that the directions
// define (the GLSL adds the directions bit by bit).
func TestSobolBytesMatchDirections(t *testing.T) {
	for k := uint32(0); k < 1<<16; k++ {
		index := k * 0x9e3779b1
		var want uint32
		for i, v := index, uint32(1<<31); i != 0; i, v = i>>1, v^v>>1 {
			if i&1 != 0 {
				want ^= v
			}
		}
		if got := sobol(index, true); got != want {
			t.Fatalf("index %#x: %#x, want %#x", index, got, want)
		}
	}
	// The first points of the second dimension, in index (not Gray-code)
	// order: 0, 1/2, 3/4, 1/4, 5/8, 1/8.
	for i, want := range []uint32{0, 1 << 31, 3 << 30, 1 << 30, 5 << 29, 1 << 29} {
		if got := sobol(uint32(i), true); got != want {
			t.Errorf("point %d: %#x, want %#x", i, got, want)
		}
	}
}

// randomAsDefined is Random as its definition reads (and as the GLSL
// computes it): the shuffled index's Sobol point, Owen-scrambled.
func randomAsDefined(pixel, sample, bounce, dim, seed uint32) float32 {
	d := bounce*layout.DimsPerBounce + dim
	shuffle, _, _, _ := pcg4d(pixel, bounce*((layout.DimsPerBounce+1)/2)+dim/2, seed, 0x9e3779b9)
	scramble, _, _, _ := pcg4d(pixel, d, seed, 0x85ebca6b)
	x := sobol(nestedUniformScramble(sample, shuffle), dim&1 != 0)
	x = nestedUniformScramble(x, scramble)
	return float32(x>>8) * (1.0 / (1 << 24))
}

// Random and Random2, which share work between the two dimensions of a
// pair and skip reversals that cancel, give the definition's numbers bit
// for bit.
func TestRandomIsItsDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 200000; k++ {
		pixel, sample, bounce, seed := rng.Uint32()>>rng.IntN(32), rng.Uint32()>>rng.IntN(32), rng.Uint32N(20), rng.Uint32()>>rng.IntN(32)
		pair := rng.Uint32N(layout.DimsPerBounce / 2)
		a, b := Random2(pixel, sample, bounce, pair, seed)
		wa, wb := randomAsDefined(pixel, sample, bounce, 2*pair, seed), randomAsDefined(pixel, sample, bounce, 2*pair+1, seed)
		if a != wa || b != wb {
			t.Fatalf("Random2(%d, %d, %d, %d, %d) = %v, %v; want %v, %v", pixel, sample, bounce, pair, seed, a, b, wa, wb)
		}
		dim := rng.Uint32N(layout.DimsPerBounce)
		if got, want := Random(pixel, sample, bounce, dim, seed), randomAsDefined(pixel, sample, bounce, dim, seed); got != want {
			t.Fatalf("Random(%d, %d, %d, %d, %d) = %v; want %v", pixel, sample, bounce, dim, seed, got, want)
		}
	}
}

func BenchmarkRandom(b *testing.B) {
	var sum float32
	for i := 0; i < b.N; i++ {
		sum += Random(uint32(i), uint32(i>>3), 2, uint32(i)%layout.DimsPerBounce, 7)
	}
	_ = sum
}

func BenchmarkRandom2(b *testing.B) {
	var sum float32
	for i := 0; i < b.N; i++ {
		x, y := Random2(uint32(i), uint32(i>>3), 2, uint32(i)%(layout.DimsPerBounce/2), 7)
		sum += x + y
	}
	_ = sum
}

// The definition's cost, for the same-run ratio with the two above.
func BenchmarkRandomAsDefined(b *testing.B) {
	var sum float32
	for i := 0; i < b.N; i++ {
		sum += randomAsDefined(uint32(i), uint32(i>>3), 2, uint32(i)%layout.DimsPerBounce, 7)
	}
	_ = sum
}

// Each pair's constant names its two dimensions.
func TestPairs(t *testing.T) {
	for _, c := range [][3]uint32{{layout.PairPixel, layout.DimPixelX, layout.DimPixelY}, {layout.PairLens, layout.DimLensU, layout.DimLensV}, {layout.PairBSDF, layout.DimBSDFU, layout.DimBSDFV},
		{layout.PairLobe, layout.DimLobe, layout.DimBSDFW}, {layout.PairLightPoint, layout.DimLightU, layout.DimLightV}, {layout.PairLightPick, layout.DimLight, layout.DimLightCoin}} {
		if 2*c[0] != c[1] || 2*c[0]+1 != c[2] {
			t.Errorf("pair %d is dimensions %d and %d, not %d and %d", c[0], 2*c[0], 2*c[0]+1, c[1], c[2])
		}
	}
}

// TestStreamKeys checks that the numbers drawn through a pixel's keys are
// Random's and Random2's, bit for bit, with one StreamKeys set to pixel
// after pixel (no key of another kept).
func TestStreamKeys(t *testing.T) {
	var k StreamKeys
	for _, seed := range []uint32{0, 7, 0xdeadbeef} {
		for pixel := uint32(0); pixel < 300; pixel += 37 {
			for bounce := uint32(0); bounce < 20; bounce += 3 {
				k.Set(pixel, bounce, seed)
				for sample := uint32(0); sample < 70; sample += 3 {
					p := &layout.Path{Pixel: pixel, Bounce: bounce, SampleIndex: sample} // the keys' pixel and bounce
					for dim := uint32(0); dim < layout.DimsPerBounce; dim++ {
						if got, want := k.PathRandom(p, dim), Random(pixel, sample, bounce, dim, seed); got != want {
							t.Fatalf("pixel %d sample %d bounce %d dim %d seed %d: %v, Random gives %v", pixel, sample, bounce, dim, seed, got, want)
						}
					}
					for pair := uint32(0); pair < layout.DimsPerBounce/2; pair++ {
						a, b := k.PathRandom2(p, pair)
						if wa, wb := Random2(pixel, sample, bounce, pair, seed); a != wa || b != wb {
							t.Fatalf("pixel %d sample %d bounce %d pair %d: (%v, %v), Random2 gives (%v, %v)", pixel, sample, bounce, pair, a, b, wa, wb)
						}
					}
				}
			}
		}
	}
}
