package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// PowerHeuristic is Veach's MIS weight (β = 2) for a sample of pdf a
// against a strategy of pdf b.
func PowerHeuristic(a, b float32) float32 {
	a2, b2 := a*a, b*b
	if a2+b2 == 0 {
		return 0
	}
	return a2 / (a2 + b2)
}

// AddLight adds light that reached the camera along the path: after the
// first hit has been shaded, to the diffuse and specular parts too, by the
// diffuse share of the first hit's sample that carried it.
func AddLight(p *layout.Path, l scene.Vec3) {
	if p.Bounce == 0 {
		p.Radiance = p.Radiance.Add(l) // the camera's direct view
		return
	}
	AddSplit(p, l, p.Split)
}

// AddGroupedLight is AddLight of light l from light group group, which
// joins that group's light too (LightGroups; its NaN and infinite
// components 0, so that one bad term spoils no group).
func AddGroupedLight(g LightGroups, p *layout.Path, group uint32, l scene.Vec3) {
	AddLight(p, l)
	g.AddGroupLight(p, group, finite3(l))
}

// AddShadowLight is what an unblocked shadow ray adds to its path (the
// Tracer's, once it knows): AddSplit of its light contrib with the diffuse
// share share, and contrib to its light's group as AddGroupedLight adds it.
func AddShadowLight(g LightGroups, p *layout.Path, contrib, share scene.Vec3, group uint32) {
	AddSplit(p, contrib, share)
	g.AddGroupLight(p, group, finite3(contrib))
}

// AddSplit adds light that the first hit reflected, share of it (per
// channel) by the diffuse lobe.
func AddSplit(p *layout.Path, l, share scene.Vec3) {
	p.Radiance = p.Radiance.Add(l)
	d := l.Mul3(share)
	p.Diffuse = p.Diffuse.Add(d)
	p.Specular = p.Specular.Add(l.Sub(d))
}

// DiffuseShare is, per channel, the diffuse lobe's part of f, the first
// hit's f·|cos| towards wi (local): the lobe's albedo (diffAlbedo)·cos wi/π
// over f. Hair is all diffuse.
func DiffuseShare(isHair bool, diffAlbedo, wi, f scene.Vec3) scene.Vec3 {
	if isHair {
		return scene.Vec3{X: 1, Y: 1, Z: 1}
	}
	cos := max(wi.Z, 0)
	return scene.Vec3{X: diffuseShareOf(diffAlbedo.X, cos, f.X), Y: diffuseShareOf(diffAlbedo.Y, cos, f.Y),
		Z: diffuseShareOf(diffAlbedo.Z, cos, f.Z)}
}

// diffuseShareOf is DiffuseShare of one channel.
func diffuseShareOf(albedo, cos, f float32) float32 {
	if f > 0 {
		return min(albedo*cos/math.Pi/f, 1)
	}
	return 0
}
