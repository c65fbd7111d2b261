package unet

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkFilter times the network denoiser on a 128×128 image, one pass
// and eight (the normal network once, the large colour
// network per pass).
func BenchmarkFilter(b *testing.B) {
	for _, passes := range []int{1, 8} {
		b.Run(fmt.Sprintf("passes=%d", passes), func(b *testing.B) { benchmarkFilter(b, passes) })
	}
}

func benchmarkFilter(b *testing.B, passes int) {
	if Missing(Dir()) != nil {
		b.Skip("no network weights (sertrace weights fetch)")
	}
	f, err := LoadFilter(Dir(), passes)
	if err != nil {
		b.Fatal(err)
	}
	w, h := 128, 128
	rng := rand.New(rand.NewPCG(1, 1))
	col, alb, nrm := make([]float32, 3*w*h), make([]float32, 3*w*h), make([]float32, 3*w*h)
	for i := range col {
		col[i], alb[i] = float32(rng.ExpFloat64()), 0.5
		if i%3 == 2 {
			nrm[i] = 1
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := f.Denoise(context.Background(), col, alb, nrm, w, h); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w*h)*float64(b.N)/b.Elapsed().Seconds(), "pixels/s")
}
