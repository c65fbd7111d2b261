package render

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// samplesLike draws float32 samples as a path tracer's are: mostly in
// [0, 10), some bright (fireflies up to 10^6), some tiny (down to 10^-20,
// below the quantum's reach) and some negative (normals).
func samplesLike(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		switch rng.IntN(10) {
		case 0:
			out[i] = float32(math.Pow(10, 6*rng.Float64()))
		case 1:
			out[i] = float32(math.Pow(10, -20+14*rng.Float64()))
		case 2:
			out[i] = -rng.Float32()
		default:
			out[i] = 10 * rng.Float32()
		}
	}
	return out
}

// TestExactSumsAreOrderFree: however the samples are cut into passes and
// the passes added (as a render's passes or merged slices are), the sums
// come out bit for bit the same, and equal to the exact sum of the
// quantized samples rounded once to float64 (math/big's).
func TestExactSumsAreOrderFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		vals := samplesLike(rng, 1+rng.IntN(300))
		exact := new(big.Float).SetPrec(2000)
		for _, v := range vals {
			exact.Add(exact, new(big.Float).SetPrec(2000).SetFloat64(Quantize(v)))
		}
		want, _ := exact.Float64()

		// One by one, in order.
		var s, r float64
		for _, v := range vals {
			AddExact(&s, &r, Quantize(v))
		}
		// In random slices, each summed alone, added in a random order.
		type pair struct{ s, r float64 }
		var parts []pair
		for i := 0; i < len(vals); {
			n := 1 + rng.IntN(len(vals)-i)
			var p pair
			for _, v := range vals[i : i+n] {
				AddExact(&p.s, &p.r, Quantize(v))
			}
			parts = append(parts, p)
			i += n
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		var ms, mr float64
		for _, p := range parts {
			addExactPair(&ms, &mr, p.s, p.r)
		}
		if s != want || ms != want || r != mr {
			t.Fatalf("trial %d (%d samples): in order %v%+v, in slices %v%+v, exact %v", trial, len(vals), s, r, ms, mr, want)
		}
	}
}

// TestQuantize: values from 2^-41 up are kept; smaller ones go to the
// nearest multiple of 2^-64.
func TestQuantize(t *testing.T) {
	for _, v := range []float32{1, -3.5, 0x1p-41, 1e30, 0} {
		if Quantize(v) != float64(v) {
			t.Errorf("Quantize(%g) = %g, want it kept", v, Quantize(v))
		}
	}
	if q := Quantize(0x1.8p-70); q != 0 {
		t.Errorf("Quantize(1.5·2^-70) = %g, want 0", q)
	}
	if q := Quantize(0x1.8p-64); q != 0x1p-63 {
		t.Errorf("Quantize(1.5·2^-64) = %g, want 2^-63 (ties to even)", q)
	}
}

// TestFilmAddIsExact: films filled pass by pass through AddPass (as the GPU
// adds its launches) and added in either order give the same sums.
func TestFilmAddIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := NewFilm(4, 3), NewFilm(4, 3)
	for l := range NumLayers {
		n := FilmLayers[l].Channels * 12
		a.AddPass(l, samplesLike(rng, n))
		b.AddPass(l, samplesLike(rng, n))
	}
	ab, ba := NewFilm(4, 3), NewFilm(4, 3)
	for _, step := range []struct{ dst, src *Film }{{ab, a}, {ab, b}, {ba, b}, {ba, a}} {
		if err := step.dst.Add(step.src); err != nil {
			t.Fatal(err)
		}
	}
	for l := range NumLayers {
		if !FilmLayers[l].Exact {
			continue
		}
		x, y := ab.Sums(l), ba.Sums(l)
		for i := range x {
			if x[i] != y[i] || ab.Residual[l][i] != ba.Residual[l][i] {
				t.Fatalf("%s[%d]: a+b %v, b+a %v", FilmLayers[l].Name, i, x[i], y[i])
			}
		}
	}
	if err := a.Add(NewFilm(3, 4)); err == nil {
		t.Error("a 3x4 film added to a 4x3 one")
	}
}
