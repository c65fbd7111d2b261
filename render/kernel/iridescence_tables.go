//goglsl:ignore

package kernel

import (
	"sync"

	"sertrace/render/layout"
	"sertrace/scene"
)

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
	iridOnce.Do(makeIridescenceBinTable)
	return &iridTable
}

// makeIridescenceBinTable makes IridescenceBinTable's table once.
func makeIridescenceBinTable() {
	const samples = 64
	t := &iridTable
	eachTableCell(func(i, j int, wo scene.Vec3) {
		var sums [layout.IridBins][2]float64
		visibleNormalQuadrature(wo, tableAlpha(j), samples, func(vh, w float32) {
			k := min(int(Clamp01(vh)*layout.IridBins), layout.IridBins-1)
			sums[k][0] += float64(w)
			sums[k][1] += float64(w) * float64(vh)
		})
		for k := range sums {
			t[i][j][k] = [2]float32{float32(sums[k][0] / (samples * samples)), float32(sums[k][1] / (samples * samples))}
		}
	})
}

var (
	iridOnce  sync.Once
	iridTable [layout.AlbedoTableSize][layout.AlbedoTableSize][layout.IridBins][2]float32
)
