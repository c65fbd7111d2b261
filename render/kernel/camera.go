package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// CameraRay is the ray of camera c through image point (px, py), in pixels
// from the top left; the direction is unit length.
func CameraRay(c *layout.Camera, px, py float32) (origin, dir scene.Vec3) {
	u := (2*px/c.W - 1) * c.Sx
	v := (1 - 2*py/c.H) * c.Sy
	if c.Ortho != 0 {
		return c.Eye.Add(c.X.Scale(u)).Add(c.Y.Scale(v)), c.Z.Scale(-1)
	}
	return c.Eye, c.X.Scale(u).Add(c.Y.Scale(v)).Sub(c.Z).Normalize()
}

// CameraLens reports whether camera c has a lens (LensRay moves its rays):
// without one, its numbers need not be drawn.
func CameraLens(c *layout.Camera) bool { return c.Aperture > 0 && c.Focus > 0 }

// LensRay turns the pinhole ray (origin, dir) through an image point into
// the thin lens's: it starts at a point of the lens (from u1, u2) and
// passes through the point where the pinhole ray meets the plane in focus.
// Without a lens the ray stays as it is.
func LensRay(c *layout.Camera, origin, dir scene.Vec3, u1, u2 float32) (scene.Vec3, scene.Vec3) {
	if !CameraLens(c) {
		return origin, dir
	}
	lx, ly := ConcentricDisk(u1, u2)
	forward := c.Z.Scale(-1)
	focusPoint := origin.Add(dir.Scale(c.Focus / dir.Dot(forward)))
	o := origin.Add(c.X.Scale(lx * c.Aperture)).Add(c.Y.Scale(ly * c.Aperture))
	return o, focusPoint.Sub(o).Normalize()
}

// ConcentricDisk maps the unit square to the unit disk, keeping areas
// (Shirley and Chiu).
func ConcentricDisk(u1, u2 float32) (float32, float32) {
	a := 2*u1 - 1
	b := 2*u2 - 1
	if a == 0 && b == 0 {
		return 0, 0
	}
	var r, phi float64
	if a*a > b*b {
		r = float64(a)
		phi = math.Pi / 4 * float64(b/a)
	} else {
		r = float64(b)
		phi = math.Pi/2 - math.Pi/4*float64(a/b)
	}
	return float32(r * math.Cos(phi)), float32(r * math.Sin(phi))
}
