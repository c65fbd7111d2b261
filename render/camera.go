package render

import (
	"math"

	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// CameraRays makes the primary rays of a glTF camera for an image of
// width × height pixels (kernel.CameraRay and LensRay of its state). The
// image's aspect ratio wins over the camera's (which only suggests a
// default resolution).
type CameraRays struct {
	cam layout.Camera
}

// NewCameraRays prepares cam for an image of the given size: sx and sy are
// half the view at distance 1 (perspective) or in world units
// (orthographic); the aperture is the lens's radius (0: a pinhole) and the
// focus the distance of the plane in focus, along the view.
func NewCameraRays(cam scene.Camera, width, height int) CameraRays {
	c := layout.Camera{
		Eye: cam.Transform.Column(3), X: cam.Transform.Column(0), Y: cam.Transform.Column(1), Z: cam.Transform.Column(2),
		W: float32(width), H: float32(height),
	}
	if cam.Orthographic {
		c.Ortho = 1
	}
	aspect := float32(width) / float32(height)
	if cam.Orthographic {
		c.Sy = cam.YMag
	} else {
		c.Sy = float32(math.Tan(float64(cam.YFov) / 2))
	}
	c.Sx = c.Sy * aspect
	c.Aperture, c.Focus = cam.ApertureRadius, cam.FocusDistance
	return CameraRays{cam: c}
}

// Ray returns the ray through image point (px, py), in pixels from the top
// left; the direction is unit length.
func (c *CameraRays) Ray(px, py float32) (origin, dir scene.Vec3) {
	return kernel.CameraRay(&c.cam, px, py)
}

// LensRay turns the pinhole ray through an image point into the thin lens's.
func (c *CameraRays) LensRay(origin, dir scene.Vec3, u1, u2 float32) (scene.Vec3, scene.Vec3) {
	return kernel.LensRay(&c.cam, origin, dir, u1, u2)
}

// Lens reports whether the camera has a lens (LensRay moves the rays):
// without one, its numbers need not be drawn.
func (c *CameraRays) Lens() bool { return kernel.CameraLens(&c.cam) }

// Forward is the direction the camera looks.
func (c *CameraRays) Forward() scene.Vec3 { return c.cam.Z.Scale(-1) }

// Params returns the camera's state, for backends that make the rays
// themselves (the GPU's raygen shader).
func (c *CameraRays) Params() layout.Camera { return c.cam }
