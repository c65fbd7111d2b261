package render

import "sertrace/scene"

// HitGroup is an instance's hit group: which closest-hit, any-hit and
// intersection shaders run for its hits. The GPU pipeline's shader binding
// table and the CPU emulator's are both laid out by it, so the emulator's
// grouping by shader is the GPU's.
type HitGroup uint8

const (
	HitTriangles       HitGroup = iota // the surface shader
	HitTrianglesMasked                 // and the alpha-mask any-hit shader
	HitSpheres                         // the surface shader, the sphere intersection
	HitSweptSpheres                    // the surface shader, the swept-sphere intersection
	HitHair                            // the hair shader, the swept-sphere intersection
	HitGroupCount
)

// HitGroupNames name the hit groups in statistics.
var HitGroupNames = [HitGroupCount]string{"triangles", "triangles-alpha-mask", "spheres", "swept-spheres", "hair"}

// HitGroupOf is the hit group of an instance of the scene.
func HitGroupOf(sc *scene.Scene, in *scene.Instance) HitGroup {
	mat := &sc.Materials[in.Material]
	switch in.Geometry.Kind {
	case scene.Spheres:
		return HitSpheres
	case scene.SweptSpheres:
		if mat.Hair != nil {
			return HitHair
		}
		return HitSweptSpheres
	}
	if mat.AlphaMode == scene.AlphaMask {
		return HitTrianglesMasked
	}
	return HitTriangles
}

// ExitHits reports whether rays that start inside the instance's spheres hit
// their far side. Everything else follows VK_NV_ray_tracing_linear_swept_spheres
// (a ray that starts inside a sphere or swept sphere, or enters through a
// left-out end cap, hits nothing of it), so that the AABB fallback, the CPU and
// native geometry agree; but glass and volume spheres track their medium by
// the hit where the path leaves them, so on every backend they keep the far
// side (and the intersection shader, never native spheres).
func ExitHits(sc *scene.Scene, in *scene.Instance) bool {
	return in.Geometry.Kind == scene.Spheres && sc.Materials[in.Material].Transmission > 0
}
