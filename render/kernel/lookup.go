package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// The albedo tables' lookups. The tables themselves are made or embedded
// in Go (tables.go) and uploaded to the GPU (AlbedoTables); each lookup
// reads its table's cells through a function the CPU defines in
// tables.go and the GPU's shader defines from its buffer
// (specularTableAt, sheenTableAt, iridBinAt, anisoTableAt, glassTableAt,
// msTableAt), so the interpolation is written once.

// tableCoord is where v in [0, 1] falls on an axis of n cells: the lower
// cell's index and the fraction past it (a table is read linearly between
// cells).
func tableCoord(v float32, n int) (int, float32) {
	x := Clamp01(v) * float32(n-1)
	i := min(int(x), n-2)
	return i, x - float32(i)
}

// lerpWeight is the weight of a linear interpolation's corner d (0 or 1)
// at fraction f.
func lerpWeight(f float32, d int) float32 {
	if d == 1 {
		return f
	}
	return 1 - f
}

// bilerp interpolates the corners v00 … v11 of a cell at fractions fx
// (first index) and fy (second), precisely (SampleTexture's filter).
//
//goglsl:precise
func bilerp(v00, v10, v01, v11, fx, fy float32) float32 {
	v := (v00*(1-fx)+v10*fx)*(1-fy) + (v01*(1-fx)+v11*fx)*fy
	return v
}

// SpecularIntegrals looks A and S up in SpecularAlbedoTable, bilinearly in
// √μ and √α.
func SpecularIntegrals(mu, alpha float32) (a, s float32) {
	i, fx := tableCoord(Sqrt32(mu), layout.AlbedoTableSize)
	j, fy := tableCoord(Sqrt32(alpha), layout.AlbedoTableSize)
	a00, s00 := specularTableAt(i, j)
	a10, s10 := specularTableAt(i+1, j)
	a01, s01 := specularTableAt(i, j+1)
	a11, s11 := specularTableAt(i+1, j+1)
	return bilerp(a00, a10, a01, a11, fx, fy), bilerp(s00, s10, s01, s11, fx, fy)
}

// SheenAlbedo looks the sheen's directional albedo up in
// SheenAlbedoTable, bilinearly in √μ and the sheen roughness.
func SheenAlbedo(mu, roughness float32) float32 {
	i, fx := tableCoord(Sqrt32(mu), layout.AlbedoTableSize)
	j, fy := tableCoord(roughness, layout.AlbedoTableSize)
	return bilerp(sheenTableAt(i, j), sheenTableAt(i+1, j), sheenTableAt(i, j+1), sheenTableAt(i+1, j+1), fx, fy)
}

// ThinFilmAlbedo is the directional albedo, seen from μ = cos θo, of a GGX
// layer of roughness² alpha whose Fresnel is the film's: the sum over the
// bins of v·h of their weight times the film's Fresnel at their mean v·h
// (IridescenceBinTable), both read bilinearly.
func ThinFilmAlbedo(f ThinFilm, mu, alpha float32, baseF0 scene.Vec3) scene.Vec3 {
	i, fx := tableCoord(Sqrt32(mu), layout.AlbedoTableSize)
	j, fy := tableCoord(Sqrt32(alpha), layout.AlbedoTableSize)
	var e scene.Vec3
	for k := range layout.IridBins {
		w00, m00 := iridBinAt(i, j, k)
		w10, m10 := iridBinAt(i+1, j, k)
		w01, m01 := iridBinAt(i, j+1, k)
		w11, m11 := iridBinAt(i+1, j+1, k)
		w := bilerp(w00, w10, w01, w11, fx, fy)
		if w <= 0 {
			continue
		}
		e = e.Add(f.Fresnel(bilerp(m00, m10, m01, m11, fx, fy)/w, baseF0).Scale(w))
	}
	return e.Min(scene.Vec3{X: 1, Y: 1, Z: 1})
}

// AnisoCell is the index of cell (μ row i, azimuth p, roughness j, stretch
// k) in AnisoAlbedoTable.
func AnisoCell(i, p, j, k int) int {
	return ((i*layout.AnisoTablePhi+p)*layout.AnisoTableRough+j)*layout.AnisoTableStretch + k
}

// AnisoSpecularIntegrals looks A and S up in AnisoAlbedoTable for wo in the
// anisotropy's frame (x along its direction), roughness² ay across it and
// ax ≥ ay along it: linearly in each of the four coordinates.
func AnisoSpecularIntegrals(wo scene.Vec3, ax, ay float32) (a, s float32) {
	phi := float32(math.Atan2(math.Abs(float64(wo.Y)), math.Abs(float64(wo.X))))
	if wo.X == 0 && wo.Y == 0 {
		phi = 0
	}
	var stretch float32
	if ay < 1 {
		stretch = (ax - ay) / (1 - ay)
	}
	i, fi := tableCoord(Sqrt32(wo.Z), layout.AnisoTableMu)
	p, fp := tableCoord(phi/(math.Pi/2), layout.AnisoTablePhi)
	j, fj := tableCoord(Sqrt32(ay), layout.AnisoTableRough)
	k, fk := tableCoord(stretch, layout.AnisoTableStretch)
	for c := range 16 {
		w := float32(1)
		di, dp, dj, dk := c&1, c>>1&1, c>>2&1, c>>3&1
		w *= lerpWeight(fi, di) * lerpWeight(fp, dp) * lerpWeight(fj, dj) * lerpWeight(fk, dk)
		va, vs := anisoTableAt(AnisoCell(i+di, p+dp, j+dj, k+dk))
		a += w * va
		s += w * vs
	}
	return a, s
}

// MultipleScatteringFresnel is F_ms of a GGX lobe of roughness² alpha seen
// from cos θo mu whose Schlick Fresnel runs from f0 to f90 (see
// MultipleScatteringTable): f90 times the table's value at F0 f0/f90, read
// linearly in √μ, √α and F0; 1 for a white lobe.
func MultipleScatteringFresnel(mu, alpha, f0, f90 float32) float32 {
	if !(f90 > 0) {
		return 0
	}
	i, fi := tableCoord(Sqrt32(mu), layout.MSTableMu)
	j, fj := tableCoord(Sqrt32(alpha), layout.MSTableRough)
	k, fk := tableCoord(f0/f90, layout.MSTableF0)
	var v float32
	for c := range 8 {
		di, dj, dk := c&1, c>>1&1, c>>2&1
		v += lerpWeight(fi, di) * lerpWeight(fj, dj) * lerpWeight(fk, dk) * msTableAt(MSCell(i+di, j+dj, k+dk))
	}
	return f90 * v
}

// MSCell is the index of cell (√μ row i, √α column j, F0 step k) in
// MultipleScatteringTable.
func MSCell(i, j, k int) int {
	return (i*layout.MSTableRough+j)*layout.MSTableF0 + k
}

// GlassCell is the index of cell (i, j, k) in GlassAlbedoTable.
func GlassCell(i, j, k int) int {
	return (i*layout.GlassTableRough+j)*layout.GlassTableEta + k
}

// GlassAlbedo looks the glass interface's single-scattering albedo up in
// GlassAlbedoTable for cos θo mu, roughness² alpha and relative index eta
// (below 1: leaving), linearly in √μ, √α and ∛r, and for light entering
// (eta ≥ 1) its reflected part (0 leaving).
func GlassAlbedo(mu, alpha, eta float32) (albedo, reflected float32) {
	side := 0
	if eta < 1 {
		side, eta = 1, 1/eta
	}
	i, fi := tableCoord(Sqrt32(mu), layout.GlassTableMu)
	j, fj := tableCoord(Sqrt32(alpha), layout.GlassTableRough)
	k, fk := tableCoord(float32(math.Cbrt(float64(max(eta-1, 0)/(eta+1)/layout.GlassTableMaxR))), layout.GlassTableEta)
	for c := range 8 {
		di, dj, dk := c&1, c>>1&1, c>>2&1
		w := lerpWeight(fi, di) * lerpWeight(fj, dj) * lerpWeight(fk, dk)
		entering, leaving, refl := glassTableAt(GlassCell(i+di, j+dj, k+dk))
		if side == 0 {
			albedo += w * entering
			reflected += w * refl
		} else {
			albedo += w * leaving
		}
	}
	return albedo, reflected
}
