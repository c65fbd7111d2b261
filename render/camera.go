package render

import (
	"math"

	"sertrace/scene"
)

// CameraRays makes the primary rays of a glTF camera for an image of
// width × height pixels. The image's aspect ratio wins over the camera's
// (which only suggests a default resolution).
type CameraRays struct {
	eye, x, y, z scene.Vec3
	ortho        bool
	sx, sy       float32 // half the view at distance 1 (perspective) or in world units (orthographic)
	w, h         float32
	aperture     float32 // lens radius; 0: a pinhole
	focus        float32 // distance of the plane in focus, along the view
}

// NewCameraRays prepares cam for an image of the given size.
func NewCameraRays(cam scene.Camera, width, height int) CameraRays {
	c := CameraRays{
		eye: cam.Transform.Column(3), x: cam.Transform.Column(0), y: cam.Transform.Column(1), z: cam.Transform.Column(2),
		ortho: cam.Orthographic, w: float32(width), h: float32(height),
	}
	aspect := float32(width) / float32(height)
	if cam.Orthographic {
		c.sy = cam.YMag
	} else {
		c.sy = float32(math.Tan(float64(cam.YFov) / 2))
	}
	c.sx = c.sy * aspect
	c.aperture, c.focus = cam.ApertureRadius, cam.FocusDistance
	return c
}

// Ray returns the ray through image point (px, py), in pixels from the top
// left; the direction is unit length.
func (c *CameraRays) Ray(px, py float32) (origin, dir scene.Vec3) {
	u := (2*px/c.w - 1) * c.sx
	v := (1 - 2*py/c.h) * c.sy
	if c.ortho {
		return c.eye.Add(c.x.Scale(u)).Add(c.y.Scale(v)), c.z.Scale(-1)
	}
	return c.eye, c.x.Scale(u).Add(c.y.Scale(v)).Sub(c.z).Normalize()
}

// Forward is the direction the camera looks.
func (c *CameraRays) Forward() scene.Vec3 { return c.z.Scale(-1) }

// CameraParams is a CameraRays' state, for backends that make the rays
// themselves (the GPU's raygen shader).
type CameraParams struct {
	Eye, X, Y, Z    scene.Vec3
	Ortho           bool
	Sx, Sy, W, H    float32
	Aperture, Focus float32
}

// Params returns the camera's state.
func (c *CameraRays) Params() CameraParams {
	return CameraParams{Eye: c.eye, X: c.x, Y: c.y, Z: c.z, Ortho: c.ortho, Sx: c.sx, Sy: c.sy, W: c.w, H: c.h,
		Aperture: c.aperture, Focus: c.focus}
}
