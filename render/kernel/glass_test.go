package kernel

import (
	"flag"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"sertrace/render/layout"
	"sertrace/scene"
)

var update = flag.Bool("update", false, "remake the embedded tables (glass_albedo.bin, ms_fresnel.bin)")

// TestGlassAlbedoTable: the embedded glass table is what GlassTableCell
// computes (with -update, it is remade: about a minute of one core), and read
// between its cells it (the albedo and its reflected part) is within 0.01
// of a quadrature there, at
// random points over the whole range (light entering and leaving, indices
// near 1 included).
func TestGlassAlbedoTable(t *testing.T) {
	if *update {
		var table [layout.GlassTableCells][3]float32
		var wg sync.WaitGroup
		for i := range layout.GlassTableMu {
			wg.Go(func() {
				for j := range layout.GlassTableRough {
					for k := range layout.GlassTableEta {
						table[GlassCell(i, j, k)] = GlassTableCell(i, j, k)
					}
				}
			})
		}
		wg.Wait()
		flat := make([]float32, 0, 3*layout.GlassTableCells)
		for _, c := range table {
			flat = append(flat, c[:]...)
		}
		writeTable(t, "glass_albedo.bin", flat)
	}
	table := GlassAlbedoTable()
	rng := rand.New(rand.NewPCG(5, 6))
	for range 40 {
		i, j, k := rng.IntN(layout.GlassTableMu), rng.IntN(layout.GlassTableRough), rng.IntN(layout.GlassTableEta)
		want := GlassTableCell(i, j, k)
		for s := range 3 {
			if got := table[GlassCell(i, j, k)][s]; math.Abs(float64(got-want[s])) > 1e-5 {
				t.Fatalf("cell (%d, %d, %d) side %d: embedded %v, computed %v: remake it with -update", i, j, k, s, got, want[s])
			}
		}
	}
	worst := 0.0
	for range 150 {
		mu, rough := max(rng.Float32(), 0.02), max(rng.Float32(), 0.05)
		r := rng.Float32() * rng.Float32() * layout.GlassTableMaxR
		eta := (1 + r) / (1 - r)
		if rng.IntN(2) == 0 {
			eta = 1 / eta
		}
		wo := scene.Vec3{X: Sqrt32(1 - mu*mu), Z: mu}
		want, wantR := glassQuadrature(wo, rough*rough, eta, 128)
		if eta < 1 {
			wantR = 0 // not tabulated
		}
		got, gotR := GlassAlbedo(mu, rough*rough, eta)
		d := max(math.Abs(float64(got-want)), math.Abs(float64(gotR-wantR)))
		worst = max(worst, d)
		if d > 0.01 {
			t.Errorf("mu %.3f, roughness %.3f, eta %.4f: table %.4f (reflected %.4f), quadrature %.4f (%.4f)", mu, rough, eta, got, gotR, want, wantR)
		}
	}
	t.Logf("worst difference between the table and a quadrature: %.4f", worst)
}
