package render

import (
	"sertrace/render/layout"
	"sertrace/scene"
)

// HitGroupOf is the hit group of an instance of the scene.
func HitGroupOf(sc *scene.Scene, in *scene.Instance) layout.HitGroup {
	mat := &sc.Materials[in.Material]
	switch in.Geometry.Kind {
	case scene.Spheres:
		return layout.HitSpheres
	case scene.SweptSpheres:
		if mat.Hair != nil {
			return layout.HitHair
		}
		return layout.HitSweptSpheres
	}
	if mat.AlphaTested() {
		return layout.HitTrianglesMasked
	}
	return layout.HitTriangles
}

// ExitHits reports whether rays that start inside the instance's spheres hit
// their far side. Everything else follows VK_NV_ray_tracing_linear_swept_spheres
// (a ray that starts inside a sphere or swept sphere, or enters through a
// left-out end cap, hits nothing of it), so that the AABB fallback, the CPU and
// native geometry agree; but glass and volume spheres track their medium by
// the hit where the path leaves them, and light a sphere transmits
// diffusely leaves through its far side, so on every backend they keep the
// far side (and the intersection shader, never native spheres).
func ExitHits(sc *scene.Scene, in *scene.Instance) bool {
	mat := &sc.Materials[in.Material]
	return in.Geometry.Kind == scene.Spheres && (mat.Transmission > 0 || mat.DiffuseTransmission > 0)
}
