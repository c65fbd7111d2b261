package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/scene"
)

// TestAnisoSpecularIntegrals: the anisotropic table, read between its
// cells, holds to a fine quadrature (128² visible normals) of A and S at
// random directions and roughnesses, grazing ones and unstretched ones
// included.
func TestAnisoSpecularIntegrals(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var worst float64
	for range 150 {
		mu := float32(0.02 + 0.98*rng.Float64())
		phi := 2 * math.Pi * rng.Float64()
		r := float32(0.05 + 0.95*rng.Float64())
		ay := r * r
		ax := ay // a third unstretched
		if rng.IntN(3) > 0 {
			ax += (1 - ay) * float32(rng.Float64())
		}
		st := Sqrt32(1 - mu*mu)
		wo := scene.Vec3{X: st * float32(math.Cos(phi)), Y: st * float32(math.Sin(phi)), Z: mu}
		a, s := AnisoSpecularIntegrals(wo, ax, ay)
		var sa, ss float64
		const n = 128
		anisoVisibleNormalQuadrature(wo, ax, ay, n, func(vh, w float32) {
			sa += float64(w)
			ss += float64(w * Schlick5(vh))
		})
		da, ds := math.Abs(float64(a)-sa/(n*n)), math.Abs(float64(s)-ss/(n*n))
		worst = max(worst, da, ds)
		if da > 0.0075 || ds > 0.0075 { // the worst of these, 0.0057, at μ 0.03
			t.Errorf("μ %.3f, φ %.2f, αx %.3f, αy %.3f: table A %.4f S %.4f, quadrature A %.4f S %.4f", mu, phi, ax, ay, a, s, sa/(n*n), ss/(n*n))
		}
	}
	t.Logf("largest difference from the fine quadrature: %.4f", worst)
	// The quadrature itself, unstretched, against an independent one (its
	// own formulas, SmithV over SmithG1, strata uniform in u1) at 512²
	// normals.
	for _, c := range [][2]float32{{1, 0.15}, {0.5, 0.04}, {0.1, 0.3}, {0.05, 0.6}} {
		wo := scene.Vec3{X: Sqrt32(1 - c[0]*c[0]), Z: c[0]}
		var sa, si float64
		anisoVisibleNormalQuadrature(wo, c[1], c[1], 64, func(_, w float32) { sa += float64(w) })
		referenceQuadrature(wo, c[1], 512, func(_, w float32) { si += float64(w) })
		if a, i := sa/(64*64), si/(512*512); math.Abs(a-i) > 0.002 {
			t.Errorf("μ %v, α %v: the anisotropic quadrature's A %.4f, the isotropic one's %.4f", c[0], c[1], a, i)
		}
	}
}

// referenceQuadrature is visibleNormalQuadrature written independently of
// the tables' (its weight from SmithV over SmithG1, its strata uniform in
// u1): n² visible normals of a GGX surface of roughness² alpha seen from
// wo whose reflection leaves above the surface, with v·h and a weight
// whose sum is n² times ∫ D·V·cos. Slow to converge where GGX's tail is,
// so the tests use it fine.
func referenceQuadrature(wo scene.Vec3, alpha float32, n int, fn func(vh, w float32)) {
	mu, a2 := wo.Z, alpha*alpha
	for u := range n {
		for v := range n {
			h := SampleVisibleNormal(wo, alpha, (float32(u)+0.5)/float32(n), (float32(v)+0.5)/float32(n))
			vh := wo.Dot(h)
			wi := h.Scale(2 * vh).Sub(wo)
			if wi.Z <= 0 {
				continue
			}
			fn(vh, 4*mu*SmithV(mu, wi.Z, a2)*wi.Z/SmithG1(mu, a2))
		}
	}
}
