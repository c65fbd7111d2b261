package render

import (
	"sync"

	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// ThinFilmAlbedo is the directional albedo, seen from μ = cos θo, of a GGX
// layer of roughness² alpha whose Fresnel is the film's: the sum over the bins
// of v·h of their weight times the film's Fresnel at their mean v·h
// (IridescenceBinTable), both read bilinearly.
func ThinFilmAlbedo(f kernel.ThinFilm, mu, alpha float32, baseF0 scene.Vec3) scene.Vec3 {
	i, fx := tableCoord(kernel.Sqrt32(mu), layout.AlbedoTableSize)
	j, fy := tableCoord(kernel.Sqrt32(alpha), layout.AlbedoTableSize)
	t := IridescenceBinTable()
	var e scene.Vec3
	for k := range layout.IridBins {
		lerp := func(c int) float32 {
			return (t[i][j][k][c]*(1-fx)+t[i+1][j][k][c]*fx)*(1-fy) + (t[i][j+1][k][c]*(1-fx)+t[i+1][j+1][k][c]*fx)*fy
		}
		w := lerp(0)
		if w <= 0 {
			continue
		}
		e = e.Add(f.Fresnel(lerp(1)/w, baseF0).Scale(w))
	}
	return scene.Vec3{X: min(e.X, 1), Y: min(e.Y, 1), Z: min(e.Z, 1)}
}

// IridescenceBinTable splits the specular table's A = ∫ D·V·cos (Fresnel
// 1) by v·h into layout.IridBins bins, over √μ = √cos θo and √α as the
// specular table: each bin's weight and its weight times its mean v·h.
// Any Fresnel that is a function of v·h then has the albedo Σ w·F(mean),
// exact where F is linear across a bin; the film's Fresnel varies slowly
// in v·h (its sensitivity's Gaussians damp the fast orders), so 16 bins
// hold its albedo to a few thousandths. Made on first use, from stratified
// visible normals as the specular table (64² a cell where it has 32²: the
// bins need more); the GPU receives it after the sheen's.
func IridescenceBinTable() *[layout.AlbedoTableSize][layout.AlbedoTableSize][layout.IridBins][2]float32 {
	iridOnce.Do(func() {
		const samples = 64
		t := &iridTable
		eachTableCell(func(i, j int, wo scene.Vec3) {
			var sums [layout.IridBins][2]float64
			visibleNormalQuadrature(wo, tableAlpha(j), samples, func(vh, w float32) {
				k := min(int(kernel.Clamp01(vh)*layout.IridBins), layout.IridBins-1)
				sums[k][0] += float64(w)
				sums[k][1] += float64(w) * float64(vh)
			})
			for k := range sums {
				t[i][j][k] = [2]float32{float32(sums[k][0] / (samples * samples)), float32(sums[k][1] / (samples * samples))}
			}
		})
	})
	return &iridTable
}

var (
	iridOnce  sync.Once
	iridTable [layout.AlbedoTableSize][layout.AlbedoTableSize][layout.IridBins][2]float32
)
