//goglsl:ignore

package kernel

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"sertrace/render/layout"
	"sertrace/scene"
)

// The albedo tables the BSDF's albedo scaling and multiple-scattering
// compensation read (their lookups are lookup.go's, written once): made
// on first use or embedded, and uploaded to the GPU as AlbedoTables lays
// them out. This file is Go alone (goglsl:ignore): its …At functions are
// the lookups' access to the cells, which the GPU's shaders define from
// the uploaded buffer (shaders/tables.glsl). The tables made on first use
// are made by named functions (makeSheenAlbedoTable …), not closures, so
// that their getters, and these, inline: a lookup reads up to 16 cells.

// specularTableAt is SpecularAlbedoTable's cell (i, j): A and S.
func specularTableAt(i, j int) (a, s float32) {
	c := &SpecularAlbedoTable[i][j]
	return c[0], c[1]
}

// sheenTableAt is SheenAlbedoTable's cell (i, j).
func sheenTableAt(i, j int) float32 { return SheenAlbedoTable()[i][j] }

// iridBinAt is IridescenceBinTable's bin k of cell (i, j): its weight and
// its weight times its mean v·h.
func iridBinAt(i, j, k int) (w, wvh float32) {
	c := &IridescenceBinTable()[i][j][k]
	return c[0], c[1]
}

// anisoTableAt is AnisoAlbedoTable's cell: A and S.
func anisoTableAt(cell int) (a, s float32) {
	c := &AnisoAlbedoTable()[cell]
	return c[0], c[1]
}

// glassTableAt is GlassAlbedoTable's cell: the albedos entering and
// leaving, and the reflected part entering.
func glassTableAt(cell int) (entering, leaving, reflected float32) {
	c := &GlassAlbedoTable()[cell]
	return c[0], c[1], c[2]
}

// msTableAt is MultipleScatteringTable's cell.
func msTableAt(cell int) float32 { return MultipleScatteringTable()[cell] }

// SheenAlbedoTable is the sheen lobe's directional albedo ∫ D·V·cos (its
// colour 1) over √μ = √cos θ_o and the sheen roughness, made on first use
// (only scenes with sheen need it; it takes a tenth of a second). The
// midpoint rule over a grid uniform in θ_i and φ_i, which gives the grazing
// lobe its due (cosine-weighted samples left it 20% short at μ 0.05 and
// roughness 0.1), and errs a little high (0.3–1% near grazing), so the
// lobe's normalisation errs on the side of losing energy. The GPU
// receives the same table after the specular one.
func SheenAlbedoTable() *[layout.AlbedoTableSize][layout.AlbedoTableSize]float32 {
	sheenOnce.Do(makeSheenAlbedoTable)
	return &sheenTable
}

// makeSheenAlbedoTable makes SheenAlbedoTable's table once.
func makeSheenAlbedoTable() {
	const n = 48
	t := &sheenTable
	eachTableCell(func(i, j int, wo scene.Vec3) {
		alpha := SheenAlpha(float32(j) / (layout.AlbedoTableSize - 1))
		var sum float64
		for a := range n {
			th := math.Pi / 2 * (float64(a) + 0.5) / n
			st, ct := math.Sincos(th)
			for b := range n {
				sp, cp := math.Sincos(2 * math.Pi * (float64(b) + 0.5) / n)
				wi := scene.Vec3{X: float32(st * cp), Y: float32(st * sp), Z: float32(ct)}
				h := wo.Add(wi).Normalize()
				sum += float64(CharlieD(h.Z, alpha)*SheenV(wo.Z, wi.Z)) * ct * st
			}
		}
		t[i][j] = float32(sum * math.Pi * math.Pi / (n * n))
	})
}

// AlbedoTables is what the GPU reads its tables from: the specular table,
// then the sheen's in the first of each pair, then the film's bins
// (IridescenceBinTable), then the anisotropic specular table
// (AnisoAlbedoTable), then the glass's (GlassAlbedoTable, two pairs a
// cell: the albedos entering and leaving, the reflected part entering),
// then MultipleScatteringTable in the first of each pair (always: every
// microfacet lobe reads it, and it is embedded); zeros for another table
// no material needs, which is not made.
func AlbedoTables(sheen, iridescence, anisotropy, glass bool) [][2]float32 {
	const n = layout.AlbedoTableSize
	irid, aniso, glassAt, ms := layout.IridBinsAt, layout.AnisoTableAt, layout.GlassTableAt, layout.MSTableAt
	t := make([][2]float32, layout.AlbedoTablesLen)
	for c, v := range MultipleScatteringTable() {
		t[ms+c] = [2]float32{v, 0}
	}
	if anisotropy {
		copy(t[aniso:], AnisoAlbedoTable()[:])
	}
	if glass {
		for c, v := range GlassAlbedoTable() {
			t[glassAt+2*c], t[glassAt+2*c+1] = [2]float32{v[0], v[1]}, [2]float32{v[2], 0}
		}
	}
	for i := range n {
		for j := range n {
			t[i*n+j] = SpecularAlbedoTable[i][j]
		}
	}
	if sheen {
		s := SheenAlbedoTable()
		for i := range n {
			for j := range n {
				t[layout.SheenTableAt+i*n+j] = [2]float32{s[i][j], 0}
			}
		}
	}
	if iridescence {
		b := IridescenceBinTable()
		for i := range n {
			for j := range n {
				copy(t[irid+(i*n+j)*layout.IridBins:], b[i][j][:])
			}
		}
	}
	return t
}

var (
	sheenOnce  sync.Once
	sheenTable [layout.AlbedoTableSize][layout.AlbedoTableSize]float32
)

// The specular layer's albedo is E = F0·A(μ, α) + (F90 − F0)·S(μ, α), since
// Schlick's Fresnel is linear in F0 and F90: A = ∫ D·V·cos, S = ∫ (1 − v·h)⁵·D·V·cos
// over the hemisphere. Both are tabulated once, over √μ = √cos θ_o and
// √α = roughness, by stratified visible-normal sampling.
const albedoSamples = 32 // per axis: 1024 a cell

var SpecularAlbedoTable = func() (t [layout.AlbedoTableSize][layout.AlbedoTableSize][2]float32) {
	eachTableCell(func(i, j int, wo scene.Vec3) {
		var sa, ss float64
		visibleNormalQuadrature(wo, tableAlpha(j), albedoSamples, func(vh, w float32) {
			sa += float64(w)
			ss += float64(w * Schlick5(vh))
		})
		n := float64(albedoSamples * albedoSamples)
		t[i][j] = [2]float32{float32(sa / n), float32(ss / n)}
	})
	return t
}()

// AnisoAlbedoTable is SpecularAlbedoTable's A and S for anisotropic GGX,
// made on first use (only anisotropic materials need it; it takes about 3.7
// seconds of one core, spread over all of them), its cells flat in the order
// of AnisoCell. A cell's wo is at √μ from 0 to 1 (so that a third of the
// rows lie where μ < 0.1 and a glossy layer's albedo changes fast: rows
// uniform in μ, as the isotropic table's were, left it 1.5% short at μ = 0.05
// for roughness² 0.01 across the direction) and azimuth
// φ = p/(AnisoTablePhi − 1)·π/2 from the anisotropy's direction (D and Λ
// are even in x and in y, so the albedo is too: φ in [0, π/2] covers every
// wo); its roughness α = anisoTableAlpha(j) across the direction, the
// AnisoTableRough of √α from 0 to 1, and αx = α + (1 − α)·t along it, t = k/(AnisoTableStretch − 1)
// (KHR_materials_anisotropy's strength²). Each is a stratified visible-normal
// quadrature of 16² normals (anisoVisibleNormalQuadrature).
func AnisoAlbedoTable() *[layout.AnisoTableCells][2]float32 {
	anisoOnce.Do(makeAnisoAlbedoTable)
	return &anisoTable
}

// makeAnisoAlbedoTable makes AnisoAlbedoTable's table once.
func makeAnisoAlbedoTable() {
	const n = 16
	var wg sync.WaitGroup
	for i := range layout.AnisoTableMu {
		wg.Go(func() {
			r := float32(i) / (layout.AnisoTableMu - 1)
			mu := max(r*r, 1e-3)
			st := Sqrt32(1 - mu*mu)
			for p := range layout.AnisoTablePhi {
				sp, cp := math.Sincos(math.Pi / 2 * float64(p) / (layout.AnisoTablePhi - 1))
				wo := scene.Vec3{X: st * float32(cp), Y: st * float32(sp), Z: mu}
				for j := range layout.AnisoTableRough {
					ay := anisoTableAlpha(j)
					for k := range layout.AnisoTableStretch {
						ax := ay + (1-ay)*float32(k)/(layout.AnisoTableStretch-1)
						var sa, ss float64
						anisoVisibleNormalQuadrature(wo, ax, ay, n, func(vh, w float32) {
							sa += float64(w)
							ss += float64(w * Schlick5(vh))
						})
						anisoTable[AnisoCell(i, p, j, k)] = [2]float32{float32(sa / (n * n)), float32(ss / (n * n))}
					}
				}
			}
		})
	}
	wg.Wait()
}

var (
	anisoOnce  sync.Once
	anisoTable [layout.AnisoTableCells][2]float32
)

// anisoTableAlpha is the anisotropic table's roughness² across the
// direction at column j (√α from 0 to 1, at least layout.MinAlpha).
func anisoTableAlpha(j int) float32 {
	r := float32(j) / (layout.AnisoTableRough - 1)
	return max(r*r, layout.MinAlpha)
}

// anisoVisibleNormalQuadrature is visibleNormalQuadrature for anisotropic
// GGX, ax along x and ay along y: the weight of a visible normal is
// D·V·cos over its pdf, G2/G1 = (1 + Λo)/(1 + Λo + Λi), times the
// share of u1 its stratum holds. The radial number u1 = 1 − x³, x from 1
// to 0 in n strata, crowds them where GGX's long tail tilts the normals
// far and their reflections cross the horizon: strata uniform in u1, as
// visibleNormalQuadrature's, leave A 1.6% short at μ 1 for α 0.15 with 24²
// normals (0.6% with 32²). Each stratum weighs n times the u1 it covers,
// so that the weights sum to n exactly.
func anisoVisibleNormalQuadrature(wo scene.Vec3, ax, ay float32, n int, fn func(vh, w float32)) {
	lo := LambdaAniso(wo, ax, ay)
	for u := range n {
		hi, low := 1-float32(u)/float32(n), 1-float32(u+1)/float32(n)
		x := 1 - (float32(u)+0.5)/float32(n)
		u1, jacobian := 1-x*x*x, float32(n)*(hi*hi*hi-low*low*low)
		for v := range n {
			h := SampleVisibleNormalAniso(wo, ax, ay, u1, (float32(v)+0.5)/float32(n))
			vh := wo.Dot(h)
			wi := h.Scale(2 * vh).Sub(wo)
			if wi.Z <= 0 {
				continue
			}
			fn(vh, jacobian*(1+lo)/(1+lo+LambdaAniso(wi, ax, ay)))
		}
	}
}

// visibleNormalQuadrature calls fn for n² stratified visible normals h of a
// GGX surface of roughness² alpha seen from wo (local, μ = wo.Z > 0) whose
// reflection leaves above the surface, with v·h and the sample's weight
// D·V·cos over the visible-normal pdf G1·D/(4μ), times its stratum's
// share: the weights sum to n² times ∫ D·V·cos. The albedo tables all sum
// over it; its strata crowd as anisoVisibleNormalQuadrature's (strata
// uniform in u1 left A 0.4% high at roughness 0.25 seen square on, which
// the multiple-scattering compensation turns into a loss).
func visibleNormalQuadrature(wo scene.Vec3, alpha float32, n int, fn func(vh, w float32)) {
	anisoVisibleNormalQuadrature(wo, alpha, alpha, n, fn)
}

// eachTableCell calls fn for every cell (i, j) of an albedo table, with
// the direction wo its row i is seen from: √μ = √(wo.Z) = √cos θo from 0
// to 1, μ at least 1e-3, so that a third of the rows lie where μ < 0.1 and
// a glossy lobe's albedo changes fast (rows uniform in μ left a smooth
// metal's lobe 5% high at μ 0.02); j is the table's roughness, which each
// table maps its own way. tableCoord finds a μ's row.
func eachTableCell(fn func(i, j int, wo scene.Vec3)) {
	for i := range layout.AlbedoTableSize {
		r := float32(i) / (layout.AlbedoTableSize - 1)
		mu := max(r*r, 1e-3)
		wo := scene.Vec3{X: Sqrt32(1 - mu*mu), Y: 0, Z: mu}
		for j := range layout.AlbedoTableSize {
			fn(i, j, wo)
		}
	}
}

// tableAlpha is the specular tables' roughness² at column j (√α from 0
// to 1, at least layout.MinAlpha).
func tableAlpha(j int) float32 {
	r := float32(j) / (layout.AlbedoTableSize - 1)
	return max(r*r, layout.MinAlpha)
}

// Multiple scattering. A GGX lobe's single-scattering albedo A(μ, α) (the
// specular table's A, with Fresnel 1) is what the glTF BRDF reflects: the
// light that meets a second microfacet is lost, 70% of it at roughness 1.
// Every microfacet lobe gets it back, its shape scaled as Turquin's energy
// compensation scales it ("Practical multiple scattering compensation for
// microfacet models", 2019; Filament and Cycles scale so too) by
//
//	1 + F_ms·(1 − A(μo))/A(μo)
//
// so that a white lobe reflects exactly 1. F_ms is the Fresnel of the light
// that meets more than one microfacet, relative to the single-scattering
// light's (so that the lobe reflects E_F + F_ms·(1 − A)·E_F/A, E_F its
// single-scattering albedo): tabulated from Heitz et al.'s random walk on
// the same microsurface ("Multiple-Scattering Microfacet BSDFs with the
// Smith Model", 2016; what Cycles' multiscatter GGX renders), over √μ, √α
// and the Schlick Fresnel's F0 (MultipleScatteringTable). Closed forms
// erred: Turquin's F0 (or Schlick's cosine-weighted mean Fresnel) in place
// of F_ms reflected up to 18% too much at roughness 1, Kulla and Conty's
// series F_avg²·E_avg/(1 − F_avg·(1 − E_avg)) 9% too little, and the best
// of its variants tried 6% too little. The light given back is tinted once
// more by the Fresnel of every further bounce: a coloured metal gets more
// saturated, not only brighter.

// MultipleScatteringTable is F_ms at MSCell's cells: row i at √μ =
// i/(MSTableMu − 1) (μ at least 1e-3), column j at √α = j/(MSTableRough −
// 1) (α at least MinAlpha), F0 k/(MSTableF0 − 1); each from 2^19 random
// walks (MSTableCell) whose energy, the same walks for every F0, is the
// lobe's albedo with every bounce's Fresnel: too slow for first use (a
// minute and a half of one core), so the table is made once and embedded
// (ms_fresnel.bin; TestMultipleScatteringTable remakes it with -update and
// checks it).
func MultipleScatteringTable() *[layout.MSTableCells]float32 {
	msOnce.Do(makeMultipleScatteringTable)
	return &msTable
}

// makeMultipleScatteringTable makes MultipleScatteringTable's table once.
func makeMultipleScatteringTable() {
	copy(msTable[:], embeddedFloats(msFresnelBytes, layout.MSTableCells, "ms_fresnel.bin", "TestMultipleScatteringTable"))
}

// embeddedFloats decodes an embedded table of n little-endian float32s
// (file, which the test named remakes with -update), or panics saying so.
func embeddedFloats(data []byte, n int, file, test string) []float32 {
	if len(data) != 4*n {
		panic(fmt.Sprintf("%s holds %d bytes, want %d: remake it (go test ./render -run %s -update)", file, len(data), 4*n, test))
	}
	f := make([]float32, n)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return f
}

//go:embed ms_fresnel.bin
var msFresnelBytes []byte

var (
	msOnce  sync.Once
	msTable [layout.MSTableCells]float32
)

// MSTableCell computes MultipleScatteringTable's cells at (i, j), every F0:
// F_ms = (E_walk − E_F)/((1 − A)·E_F/A), E_walk the random walks' mean
// energy and A, E_F = F0·A + (1 − F0)·S from a quadrature there. Where
// single scattering loses almost nothing (1 − A below 1e-3, smooth lobes)
// the walks' noise swamps the ratio, and F_ms is the series of Schlick's
// Fresnel averaged uniformly over the hemisphere, F·A/(1 − F·(1 − A)) with
// F = F0 + (1 − F0)/6 (the closed form that came nearest the walk, within
// 6%); at F0 0, which reflects almost nothing seen square on (Schlick's
// grazing term alone, 1e-4), it is extrapolated from F0 1/8 and 2/8.
// The walks are seeded by the cell, so the table is made again bit for
// bit.
func MSTableCell(i, j int) (fms [layout.MSTableF0]float32) {
	x := float32(i) / (layout.MSTableMu - 1)
	mu := max(x*x, 1e-3)
	y := float32(j) / (layout.MSTableRough - 1)
	alpha := max(y*y, layout.MinAlpha)
	wo := scene.Vec3{X: Sqrt32(1 - mu*mu), Z: mu}
	var f0s [layout.MSTableF0]float32
	for k := range f0s {
		f0s[k] = float32(k) / (layout.MSTableF0 - 1)
	}
	var sa, ss float64
	const q = 128
	anisoVisibleNormalQuadrature(wo, alpha, alpha, q, func(vh, w float32) {
		sa += float64(w)
		ss += float64(w * Schlick5(vh))
	})
	a, s := sa/(q*q), ss/(q*q)
	walk := RandomWalkAlbedos(wo, alpha, f0s[:], 1<<19, rand.New(rand.NewPCG(uint64(i), uint64(j))))
	for k, f0 := range f0s {
		ef := float64(f0)*a + (1-float64(f0))*s
		switch {
		case f0 == 1:
			fms[k] = 1
		case 1-a < 1e-3:
			f := f0 + (1-f0)/6
			fms[k] = f / (1 - f*(1-float32(a))) * float32(a)
		case f0 > 0:
			fms[k] = float32(min(max((walk[k]-ef)/((1-a)*ef/a), 0), 1))
		}
	}
	if 1-a >= 1e-3 { // F0 0, extrapolated from its neighbours
		fms[0] = max(2*fms[1]-fms[2], 0)
	}
	return fms
}

// RandomWalkAlbedos are the albedos, seen from wo, of GGX conductors of
// roughness² alpha and Schlick Fresnel from each of f0s to 1, multiple
// scattering included, by Heitz et al.'s random walk on the Smith
// microsurface (uniform heights; the height of the next intersection drawn
// from the masking; visible normals of the direction the light comes from,
// by Dupuy and Benyoub's spherical caps, also below the horizon, where a
// walk going up meets the surface again): n walks, every F0's energy from
// the same walks. A white conductor's is 1 by construction.
func RandomWalkAlbedos(wo scene.Vec3, alpha float32, f0s []float32, n int, rng *rand.Rand) []float64 {
	a := float64(alpha)
	lambda := func(d [3]float64) float64 { // Λ of a direction, negative below the horizon
		if d[2] > 0.9999 {
			return 0
		}
		if d[2] < -0.9999 {
			return -1
		}
		cot := d[2] / math.Sqrt(max(1-d[2]*d[2], 0)) / a
		return 0.5 * (-1 + math.Copysign(1, cot)*math.Sqrt(1+1/(cot*cot)))
	}
	c1 := func(h float64) float64 { return min(1, max(0, 0.5*(h+1))) }
	invC1 := func(u float64) float64 { return max(-1, min(1, 2*u-1)) }
	nextHeight := func(d [3]float64, h, u float64) float64 { // +Inf: it leaves the surface
		switch {
		case d[2] > 0.9999:
			return math.Inf(1)
		case d[2] < -0.9999:
			return invC1(u * c1(h))
		case math.Abs(d[2]) < 1e-4:
			return h
		}
		var g1 float64
		if d[2] > 0 {
			g1 = math.Pow(c1(h), lambda(d))
		}
		if u > 1-g1 {
			return math.Inf(1)
		}
		return invC1(c1(h) / math.Pow(1-u, 1/lambda(d)))
	}
	sum := make([]float64, len(f0s))
	e := make([]float64, len(f0s))
	for range n {
		d := [3]float64{-float64(wo.X), -float64(wo.Y), -float64(wo.Z)} // the ray, going down
		h := 1 + invC1(0.999)
		for k := range e {
			e[k] = 1
		}
		for range 256 {
			if h = nextHeight(d, h, rng.Float64()); math.IsInf(h, 1) {
				break
			}
			wi := scene.Vec3{X: float32(-d[0]), Y: float32(-d[1]), Z: float32(-d[2])}
			ws := scene.Vec3{X: alpha * wi.X, Y: alpha * wi.Y, Z: wi.Z}.Normalize()
			phi := 2 * math.Pi * rng.Float64()
			z := (1-rng.Float32())*(1+ws.Z) - ws.Z
			st := Sqrt32(1 - z*z)
			c := scene.Vec3{X: st * float32(math.Cos(phi)), Y: st * float32(math.Sin(phi)), Z: z}.Add(ws)
			m := scene.Vec3{X: alpha * c.X, Y: alpha * c.Y, Z: max(c.Z, 0)}.Normalize()
			cos := wi.Dot(m)
			s5 := Schlick5(cos)
			for k, f0 := range f0s {
				e[k] *= float64(f0 + (1-f0)*s5)
			}
			r := m.Scale(2 * cos).Sub(wi)
			d = [3]float64{float64(r.X), float64(r.Y), float64(r.Z)}
		}
		for k := range e {
			sum[k] += e[k]
		}
	}
	for k := range sum {
		sum[k] /= float64(n)
	}
	return sum
}

// GlassAlbedoTable is the rough glass interface's single-scattering albedo
// (what it reflects plus what it transmits, as energy: Walter et al.'s
// BTDF without the radiance's 1/η², the exact Fresnel per microfacet),
// and what of it is reflected: GlassCell numbers its cells, each holding
// the albedo of light entering (η = (1 + r)/(1 − r)) and of light leaving
// (its inverse), then the reflected part of light entering (what a thin
// sheet needs; leaving, it jumps to 1 at the critical angle, where no
// table of a few rows can follow it). Each cell is a quadrature of
// 128² visible normals (GlassTableCell), too slow to make on first use (a
// minute of one core: total internal reflection makes the integrand jump,
// and 24² normals erred by 1%), so the table is made once and embedded
// (glass_albedo.bin; TestGlassAlbedoTable remakes it with -update and
// checks that it is current). A smooth interface keeps 1; roughness 1
// keeps 0.89 of light entering index 1.5 square on, 0.41 of light leaving
// it.
func GlassAlbedoTable() *[layout.GlassTableCells][3]float32 {
	glassOnce.Do(makeGlassAlbedoTable)
	return &glassTable
}

// makeGlassAlbedoTable makes GlassAlbedoTable's table once.
func makeGlassAlbedoTable() {
	f := embeddedFloats(glassAlbedoBytes, 3*layout.GlassTableCells, "glass_albedo.bin", "TestGlassAlbedoTable")
	for c := range glassTable {
		copy(glassTable[c][:], f[3*c:])
	}
}

//go:embed glass_albedo.bin
var glassAlbedoBytes []byte

var (
	glassOnce  sync.Once
	glassTable [layout.GlassTableCells][3]float32
)

// GlassTableCell computes cell (√μ row i, √α column j, ∛(r/GlassTableMaxR)
// row k) of GlassAlbedoTable: light entering and leaving, then what of
// the light entering is reflected.
func GlassTableCell(i, j, k int) [3]float32 {
	const n = 128
	x := float32(i) / (layout.GlassTableMu - 1)
	mu := max(x*x, 1e-3)
	wo := scene.Vec3{X: Sqrt32(1 - mu*mu), Z: mu}
	y := float32(j) / (layout.GlassTableRough - 1)
	alpha := max(y*y, layout.MinAlpha)
	z := float32(k) / (layout.GlassTableEta - 1)
	r := z * z * z * layout.GlassTableMaxR
	eta := (1 + r) / (1 - r)
	ee, re := glassQuadrature(wo, alpha, eta, n)
	el, _ := glassQuadrature(wo, alpha, 1/eta, n)
	return [3]float32{ee, el, re}
}

// glassQuadrature is the single-scattering albedo of a GGX interface of
// roughness² alpha and relative index eta seen from wo, and the part of it
// reflected: over n² visible normals (radial strata crowded as
// anisoVisibleNormalQuadrature's), each reflecting F·G2/G1 and
// transmitting (1 − F)·G2/G1 of its share where the direction it sends the
// light to lies on the right side.
func glassQuadrature(wo scene.Vec3, alpha, eta float32, n int) (albedo, reflected float32) {
	lo := LambdaAniso(wo, alpha, alpha)
	var sum, refl float64
	for u := range n {
		hi, low := 1-float32(u)/float32(n), 1-float32(u+1)/float32(n)
		x := 1 - (float32(u)+0.5)/float32(n)
		u1, share := 1-x*x*x, float64(hi*hi*hi-low*low*low)/float64(n)
		for v := range n {
			h := SampleVisibleNormal(wo, alpha, u1, (float32(v)+0.5)/float32(n))
			cosO := wo.Dot(h)
			f := FresnelDielectric(cosO, eta)
			if r := h.Scale(2 * cosO).Sub(wo); r.Z > 0 {
				refl += share * float64(f*(1+lo)/(1+lo+LambdaAniso(r, alpha, alpha)))
			}
			if f >= 1 {
				continue
			}
			cosT := Sqrt32(1 - (1-cosO*cosO)/(eta*eta))
			if t := wo.Scale(-1 / eta).Add(h.Scale(cosO/eta - cosT)); t.Z < 0 {
				sum += share * float64((1-f)*(1+lo)/(1+lo+LambdaAniso(t, alpha, alpha)))
			}
		}
	}
	return float32(sum + refl), float32(refl)
}
