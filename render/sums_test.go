package render

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// samplesLike draws float32 samples as a path tracer's are: mostly in
// [0, 10), some bright (fireflies up to 10^6, and now and then far past
// what a sum's low word holds, up to 10^30), some tiny (down to 10^-20,
// below the quantum's reach) and some negative (normals).
func samplesLike(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		switch rng.IntN(20) {
		case 0, 1:
			out[i] = float32(math.Pow(10, 6*rng.Float64()))
		case 2, 3:
			out[i] = float32(math.Pow(10, -20+14*rng.Float64()))
		case 4, 5:
			out[i] = -rng.Float32()
		case 6:
			out[i] = float32(math.Copysign(math.Pow(10, 9+21*rng.Float64()), rng.Float64()-0.2))
		default:
			out[i] = 10 * rng.Float32()
		}
	}
	return out
}

// exactBig is element i of exact sums, in the layer's units, as a big
// integer.
func exactBig(s *LayerSums, i int) *big.Int {
	if s.Narrow != nil {
		v := new(big.Int).Lsh(big.NewInt(s.High[i]), 32)
		return v.Add(v, big.NewInt(int64(s.Narrow[i])))
	}
	return bigOf(s.High[i], s.Fixed[i])
}

// bigOf is the 128-bit sum (hi, lo) in units, as a big integer.
func bigOf(hi, lo int64) *big.Int {
	v := new(big.Int).Lsh(big.NewInt(hi), 64)
	return v.Add(v, big.NewInt(lo))
}

// quantizedBig is a sample rounded to units of 2^-32 (ties to even), as
// math/big rounds it: what Quantize must give.
func quantizedBig(v float32) *big.Int {
	x := math.Max(-0x1p62, math.Min(0x1p62, float64(v)))
	if x != x {
		return new(big.Int)
	}
	f := new(big.Float).SetPrec(200).SetFloat64(x)
	f.Mul(f, new(big.Float).SetMantExp(big.NewFloat(1), 32))
	i, acc := f.Int(nil) // towards zero
	if acc != big.Exact {
		rest := new(big.Float).Sub(f, new(big.Float).SetInt(i))
		half := rest.Abs(rest).Cmp(big.NewFloat(0.5))
		if half > 0 || (half == 0 && i.Bit(0) == 1) {
			i.Add(i, big.NewInt(int64(f.Sign())))
		}
	}
	return i
}

// TestQuantize: Quantize is the sample rounded to the nearest unit, ties
// to even, clamped to ±2^62, with NaN as 0, in its canonical 128-bit form.
func TestQuantize(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vals := append(samplesLike(rng, 20000), 1, -3.5, 0x1.8p-33, 0x1.8p-32, 0x1p31, 0x1p40, -0x1p40, 0x1p62, 0x1p63, 3e38,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0, 0x1p-149)
	for _, v := range vals {
		hi, lo := Quantize(v)
		if got, want := bigOf(hi, lo), quantizedBig(v); got.Cmp(want) != 0 {
			t.Fatalf("Quantize(%g) = %v units, want %v", v, got, want)
		}
	}
}

// TestExactSumsAreOrderFree: however the samples are cut into passes and
// the passes added (as a render's passes or merged slices are), the sums
// come out bit for bit the same, equal to the exact sum of the quantized
// samples (math/big's), also where they pass the low word's range.
func TestExactSumsAreOrderFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		vals := samplesLike(rng, 1+rng.IntN(300))
		want := new(big.Int)
		for _, v := range vals {
			want.Add(want, quantizedBig(v))
		}
		// One by one, in order.
		var hi, lo int64
		for _, v := range vals {
			qh, ql := Quantize(v)
			AddFixed(&hi, &lo, qh, ql)
		}
		// In random slices, each summed alone, added in a random order.
		type pair struct{ hi, lo int64 }
		var parts []pair
		for i := 0; i < len(vals); {
			n := 1 + rng.IntN(len(vals)-i)
			var p pair
			for _, v := range vals[i : i+n] {
				qh, ql := Quantize(v)
				AddFixed(&p.hi, &p.lo, qh, ql)
			}
			parts = append(parts, p)
			i += n
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		var mh, ml int64
		for _, p := range parts {
			AddFixed(&mh, &ml, p.hi, p.lo)
		}
		if bigOf(hi, lo).Cmp(want) != 0 || mh != hi || ml != lo {
			t.Fatalf("trial %d (%d samples): in order %v, in slices %v, exact %v", trial, len(vals), bigOf(hi, lo), bigOf(mh, ml), want)
		}
		// The float64 readers see is the exact sum's, rounded (within the
		// two roundings of its words).
		exact, _ := new(big.Float).SetInt(want).Float64()
		if got := fixedValue(hi, lo) / Quantum; math.Abs(got-exact) > 1e-15*math.Abs(exact)+1 {
			t.Fatalf("trial %d: value %g units, exact %g", trial, got, exact)
		}
	}
}

// TestFilmAddIsExact: films filled pass by pass through AddPass (as the GPU
// adds its launches) and added in either order give the same sums, with
// high words where a pixel's sum passes the low word's range.
func TestFilmAddIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := NewFilm(4, 3), NewFilm(4, 3)
	for l := range NumLayers {
		n := FilmLayers[l].Channels * 12
		for range 30 {
			a.AddPass(l, samplesLike(rng, n))
			b.AddPass(l, samplesLike(rng, n))
		}
	}
	ab, ba := NewFilm(4, 3), NewFilm(4, 3)
	for _, step := range []struct{ dst, src *Film }{{ab, a}, {ab, b}, {ba, b}, {ba, a}} {
		if err := step.dst.Add(step.src); err != nil {
			t.Fatal(err)
		}
	}
	highs := 0
	for l := range NumLayers {
		x, y := &ab.Sums[l], &ba.Sums[l]
		if !FilmLayers[l].Exact {
			continue
		}
		highs += len(x.High)
		if !x.Equal(y) {
			t.Fatalf("%s: a+b and b+a differ", FilmLayers[l].Name)
		}
		for i := range x.Len() {
			sum := new(big.Int).Add(exactBig(&a.Sums[l], i), exactBig(&b.Sums[l], i))
			if exactBig(x, i).Cmp(sum) != 0 {
				t.Fatalf("%s[%d]: a+b %v, want %v", FilmLayers[l].Name, i, exactBig(x, i), sum)
			}
		}
	}
	if highs == 0 {
		t.Error("no sum passed the low word's range: the test checks no carry")
	}
	if !ab.Whole() {
		t.Error("the sum of two films is not whole")
	}
	if err := a.Add(NewFilm(3, 4)); err == nil {
		t.Error("a 3x4 film added to a 4x3 one")
	}
}

// BenchmarkAddPass adds a one-sample pass of a 3840x2160 beauty (the CPU's
// one-sample buffers and the GPU's read-back go through it).
func BenchmarkAddPass(b *testing.B) {
	const w, h = 3840, 2160
	film := NewFilmOf(w, h, BaseLayers)
	src := make([]float32, 3*w*h)
	for i := range src {
		src[i] = float32(i%1000) * 0.001
	}
	b.SetBytes(int64(4 * len(src)))
	for b.Loop() {
		film.AddPass(LayerBeauty, src)
	}
}

// TestAddPassOnEveryCoreIsExact: a pass long enough for AddPass to add it
// on every core gives each element the sum one sample at a time gives,
// high words (carries from huge and negative samples) included.
func TestAddPassOnEveryCoreIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 3*parallelAdd + 7
	w := n / 3
	parallel, serial := NewFilmOf(w, 1, BaseLayers), NewFilmOf(w, 1, BaseLayers)
	for range 4 {
		src := samplesLike(rng, 3*w)
		parallel.AddPass(LayerBeauty, src)
		for i, v := range src {
			serial.Sums[LayerBeauty].AddSample(i, v)
		}
	}
	p, s := &parallel.Sums[LayerBeauty], &serial.Sums[LayerBeauty]
	if len(s.High) == 0 {
		t.Fatal("no high words: the test needs carries")
	}
	if !p.Equal(s) {
		t.Error("added on every core, the sums differ from one sample at a time")
	}
}

// TestAddPassRunsAddsAsAddPassAt: runs of a pass's sums added on every
// core (many of them) give the film's sums bit for bit as the runs added
// one by one, high words and pixels marked ahead included.
func TestAddPassRunsAddsAsAddPassAt(t *testing.T) {
	const w, h = 512, 256
	rng := rand.New(rand.NewPCG(3, 4))
	var runs []PassRun
	from := 0
	for px := 0; px < w*h; {
		n := 1 + rng.IntN(300)
		n = min(n, w*h-px)
		if rng.IntN(3) > 0 { // the others are stopped pixels: no run
			runs = append(runs, PassRun{Pixel: px, From: from, N: n})
			from += n
		}
		px += n + rng.IntN(40)
	}
	src := make([]float32, 3*from)
	for i := range src {
		src[i] = rng.Float32() * 4
		if rng.IntN(1000) == 0 {
			src[i] = 3e9 // a carry into the high word
		}
	}
	a, b := NewFilmOf(w, h, BaseLayers), NewFilmOf(w, h, BaseLayers)
	for _, f := range []*Film{a, b} {
		f.AheadPixels = make([]uint64, (w*h+63)/64)
		for px := 0; px < w*h; px += 7 {
			f.MarkAhead(px)
		}
	}
	if 3*from < parallelAdd {
		t.Fatalf("%d values: under the parallel add's %d", 3*from, parallelAdd)
	}
	for range 2 { // twice: carries where the first pass did not
		a.AddPassRuns(LayerBeauty, runs, src)
		for _, r := range runs {
			b.AddPassAt(LayerBeauty, r.Pixel, src[3*r.From:3*(r.From+r.N)])
		}
	}
	if !a.Sums[LayerBeauty].Equal(&b.Sums[LayerBeauty]) || len(a.Sums[LayerBeauty].High) == 0 {
		t.Errorf("the runs' sums differ from AddPassAt's (%d high words)", len(a.Sums[LayerBeauty].High))
	}
	// One run of every pixel (a launch without a list).
	one := []PassRun{{Pixel: 0, From: 0, N: from}}
	a.AddPassRuns(LayerBeauty, one, src)
	b.AddPassAt(LayerBeauty, 0, src)
	if !a.Sums[LayerBeauty].Equal(&b.Sums[LayerBeauty]) {
		t.Error("one run's sums differ from AddPassAt's")
	}
}
