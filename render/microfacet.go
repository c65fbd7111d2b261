package render

import (
	"math"
	"sync"

	"sertrace/render/layout"
	"sertrace/scene"
)

// The microfacet pieces that every backend's BSDF shares with the
// tabulated specular albedo the glTF BRDF's albedo scaling reads (the GPU
// receives the same table).

func sqrtClamped(v float32) float32 { return float32(math.Sqrt(float64(max(v, 0)))) }

func clampUnit(v float32) float32 {
	if !(v > 0) {
		return 0
	}
	return min(v, 1)
}

// SmithV is the height-correlated Smith visibility term, which includes
// the 1 / (4·cos·cos) of the microfacet BRDF.
func SmithV(cosO, cosI, a2 float32) float32 {
	go_ := cosI * sqrtClamped(cosO*cosO*(1-a2)+a2)
	gi := cosO * sqrtClamped(cosI*cosI*(1-a2)+a2)
	return 0.5 / (go_ + gi)
}

// SmithG1 is the masking of one direction, for the visible-normal pdf.
func SmithG1(cos, a2 float32) float32 {
	return 2 * cos / (cos + sqrtClamped(a2+(1-a2)*cos*cos))
}

// Schlick5 is (1 − cos)⁵, clamped.
func Schlick5(cos float32) float32 {
	m := clampUnit(1 - cos)
	m2 := m * m
	return m2 * m2 * m
}

// SampleVisibleNormal samples a GGX normal as seen from wo (Heitz, "Sampling
// the GGX Distribution of Visible Normals", JCGT 2018).
func SampleVisibleNormal(wo scene.Vec3, alpha, u1, u2 float32) scene.Vec3 {
	return SampleVisibleNormalAniso(wo, alpha, alpha, u1, u2)
}

// GGXDAniso is the anisotropic GGX distribution at the unit half vector h,
// of roughness ax along x and ay along y.
func GGXDAniso(h scene.Vec3, ax, ay float32) float32 {
	x, y := h.X/ax, h.Y/ay
	d := x*x + y*y + h.Z*h.Z
	return 1 / (math.Pi * ax * ay * d * d)
}

// LambdaAniso is Λ of the anisotropic Smith masking for direction w.
func LambdaAniso(w scene.Vec3, ax, ay float32) float32 {
	c2 := w.Z * w.Z
	if c2 <= 0 {
		return 1e30
	}
	x, y := ax*w.X, ay*w.Y
	return (-1 + sqrtClamped(1+(x*x+y*y)/c2)) / 2
}

// SampleVisibleNormalAniso is SampleVisibleNormal for roughness ax along x
// and ay along y.
func SampleVisibleNormalAniso(wo scene.Vec3, ax, ay, u1, u2 float32) scene.Vec3 {
	vh := scene.Vec3{X: ax * wo.X, Y: ay * wo.Y, Z: wo.Z}.Normalize()
	t1 := scene.Vec3{X: 1, Y: 0, Z: 0}
	if l2 := vh.X*vh.X + vh.Y*vh.Y; l2 > 0 {
		inv := 1 / sqrtClamped(l2)
		t1 = scene.Vec3{X: -vh.Y * inv, Y: vh.X * inv, Z: 0}
	}
	t2 := vh.Cross(t1)
	r := sqrtClamped(u1)
	s, c := math.Sincos(2 * math.Pi * float64(u2))
	p1, p2 := r*float32(c), r*float32(s)
	sh := 0.5 * (1 + vh.Z)
	p2 = (1-sh)*sqrtClamped(1-p1*p1) + sh*p2
	nh := t1.Scale(p1).Add(t2.Scale(p2)).Add(vh.Scale(sqrtClamped(1 - p1*p1 - p2*p2)))
	return scene.Vec3{X: ax * nh.X, Y: ay * nh.Y, Z: max(nh.Z, 1e-7)}.Normalize()
}

// CharlieD is the Charlie sheen distribution (Estevez and Kulla,
// "Production Friendly Microfacet Sheen BRDF", 2017) at a half vector
// whose cosine with the normal is cosH, for α = roughness².
func CharlieD(cosH, alpha float32) float32 {
	inv := 1 / alpha
	sin2 := max(1-cosH*cosH, 0)
	return (2 + inv) * float32(math.Pow(float64(sin2), float64(0.5*inv))) / (2 * math.Pi)
}

// SheenV is the sheen's visibility term (Neubelt and Pettineo's, as the
// glTF sample renderer has it), which includes the 1/(4·cos·cos).
func SheenV(cosO, cosI float32) float32 {
	return 1 / (4 * (cosI + cosO - cosI*cosO))
}

// SheenAlpha is the Charlie α of a sheen roughness: its square, at least
// layout.SheenMinAlpha.
func SheenAlpha(roughness float32) float32 { return max(roughness*roughness, layout.SheenMinAlpha) }

// SheenAlbedoTable is the sheen lobe's directional albedo ∫ D·V·cos (its
// colour 1) over μ = cos θ_o and the sheen roughness, made on first use
// (only scenes with sheen need it; it takes a tenth of a second). The
// midpoint rule over a grid uniform in θ_i and φ_i, which gives the grazing
// lobe its due (cosine-weighted samples left it 20% short at μ 0.05 and
// roughness 0.1), and errs a little high (0.3–1% near grazing), so the
// lobe's normalisation errs on the side of losing energy. The GPU
// receives the same table after the specular one.
func SheenAlbedoTable() *[layout.AlbedoTableSize][layout.AlbedoTableSize]float32 {
	sheenOnce.Do(func() {
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
	})
	return &sheenTable
}

// AlbedoTables is what the GPU reads its tables from: the specular table,
// then the sheen's in the first of each pair, then the film's bins
// (IridescenceBinTable), then the anisotropic specular table
// (AnisoAlbedoTable); zeros for a table no material needs, which is not
// made.
func AlbedoTables(sheen, iridescence, anisotropy bool) [][2]float32 {
	const n = layout.AlbedoTableSize
	t := make([][2]float32, 2*n*n+n*n*layout.IridBins+layout.AnisoTableCells)
	if anisotropy {
		copy(t[2*n*n+n*n*layout.IridBins:], AnisoAlbedoTable()[:])
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
				t[n*n+i*n+j] = [2]float32{s[i][j], 0}
			}
		}
	}
	if iridescence {
		b := IridescenceBinTable()
		for i := range n {
			for j := range n {
				copy(t[2*n*n+(i*n+j)*layout.IridBins:], b[i][j][:])
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
// over the hemisphere. Both are tabulated once, over μ = cos θ_o and
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
// uniform in μ, as the isotropic table's, left it 1.5% short at μ = 0.05
// for roughness² 0.01 across the direction) and azimuth
// φ = p/(AnisoTablePhi − 1)·π/2 from the anisotropy's direction (D and Λ
// are even in x and in y, so the albedo is too: φ in [0, π/2] covers every
// wo); its roughness α = anisoTableAlpha(j) across the direction, the
// AnisoTableRough of √α from 0 to 1, and αx = α + (1 − α)·t along it, t = k/(AnisoTableStretch − 1)
// (KHR_materials_anisotropy's strength²). Each is a stratified visible-normal
// quadrature of 16² normals (anisoVisibleNormalQuadrature).
func AnisoAlbedoTable() *[layout.AnisoTableCells][2]float32 {
	anisoOnce.Do(func() {
		const n = 16
		var wg sync.WaitGroup
		for i := range layout.AnisoTableMu {
			wg.Go(func() {
				r := float32(i) / (layout.AnisoTableMu - 1)
				mu := max(r*r, 1e-3)
				st := sqrtClamped(1 - mu*mu)
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
	})
	return &anisoTable
}

var (
	anisoOnce  sync.Once
	anisoTable [layout.AnisoTableCells][2]float32
)

// AnisoCell is the index of cell (μ row i, azimuth p, roughness j, stretch
// k) in AnisoAlbedoTable.
func AnisoCell(i, p, j, k int) int {
	return ((i*layout.AnisoTablePhi+p)*layout.AnisoTableRough+j)*layout.AnisoTableStretch + k
}

// anisoTableAlpha is the anisotropic table's roughness² across the
// direction at column j (√α from 0 to 1, at least layout.MinAlpha).
func anisoTableAlpha(j int) float32 {
	r := float32(j) / (layout.AnisoTableRough - 1)
	return max(r*r, layout.MinAlpha)
}

// AnisoSpecularIntegrals looks A and S up in AnisoAlbedoTable for wo in the
// anisotropy's frame (x along its direction), roughness² ay across it and
// ax ≥ ay along it: linearly in each of the four coordinates. The GLSL's
// anisoSpecularIntegrals is its twin.
func AnisoSpecularIntegrals(wo scene.Vec3, ax, ay float32) (a, s float32) {
	t := AnisoAlbedoTable()
	coord := func(v float32, n int) (int, float32) {
		x := clampUnit(v) * float32(n-1)
		i := min(int(x), n-2)
		return i, x - float32(i)
	}
	phi := float32(math.Atan2(math.Abs(float64(wo.Y)), math.Abs(float64(wo.X))))
	if wo.X == 0 && wo.Y == 0 {
		phi = 0
	}
	var stretch float32
	if ay < 1 {
		stretch = (ax - ay) / (1 - ay)
	}
	i, fi := coord(sqrtClamped(wo.Z), layout.AnisoTableMu)
	p, fp := coord(phi/(math.Pi/2), layout.AnisoTablePhi)
	j, fj := coord(sqrtClamped(ay), layout.AnisoTableRough)
	k, fk := coord(stretch, layout.AnisoTableStretch)
	for c := range 16 {
		w := float32(1)
		di, dp, dj, dk := c&1, c>>1&1, c>>2&1, c>>3&1
		w *= lerpWeight(fi, di) * lerpWeight(fp, dp) * lerpWeight(fj, dj) * lerpWeight(fk, dk)
		v := t[AnisoCell(i+di, p+dp, j+dj, k+dk)]
		a += w * v[0]
		s += w * v[1]
	}
	return a, s
}

// lerpWeight is the weight of a linear interpolation's corner d (0 or 1)
// at fraction f.
func lerpWeight(f float32, d int) float32 {
	if d == 1 {
		return f
	}
	return 1 - f
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
// D·V·cos over the visible-normal pdf G1·D/(4μ): the weights sum to n²
// times ∫ D·V·cos. The albedo tables all sum over it.
func visibleNormalQuadrature(wo scene.Vec3, alpha float32, n int, fn func(vh, w float32)) {
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

// eachTableCell calls fn for every cell (i, j) of an albedo table, with
// the direction wo its row i is seen from: μ = wo.Z = cos θo from 1e-3 to
// 1 (j is the table's roughness, which each table maps its own way).
func eachTableCell(fn func(i, j int, wo scene.Vec3)) {
	for i := range layout.AlbedoTableSize {
		mu := max(float32(i)/(layout.AlbedoTableSize-1), 1e-3)
		wo := scene.Vec3{X: sqrtClamped(1 - mu*mu), Y: 0, Z: mu}
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
