package render

import (
	"math"
	"testing"

	"sertrace/scene"
)

func TestPerspectiveCameraRays(t *testing.T) {
	cam := scene.Camera{YFov: math.Pi / 2, Transform: scene.LookAt(scene.Vec3{X: 1, Y: 2, Z: 3}, scene.Vec3{X: 1, Y: 2, Z: 0}, scene.Vec3{X: 0, Y: 1, Z: 0})}
	c := NewCameraRays(cam, 200, 100)
	o, d := c.Ray(100, 50)
	if o != (scene.Vec3{X: 1, Y: 2, Z: 3}) || d.Sub(scene.Vec3{X: 0, Y: 0, Z: -1}).Length() > 1e-6 {
		t.Errorf("centre ray %v %v", o, d)
	}
	// The top edge is 45° up (yfov 90°); the right edge 2·tan 45° = 2 across at distance 1.
	if _, d := c.Ray(100, 0); d.Sub(scene.Vec3{X: 0, Y: 1, Z: -1}.Normalize()).Length() > 1e-6 {
		t.Errorf("top ray %v", d)
	}
	if _, d := c.Ray(200, 50); d.Sub(scene.Vec3{X: 2, Y: 0, Z: -1}.Normalize()).Length() > 1e-6 {
		t.Errorf("right ray %v", d)
	}
}

func TestOrthographicCameraRays(t *testing.T) {
	cam := scene.Camera{Orthographic: true, XMag: 3, YMag: 2, Transform: scene.LookAt(scene.Vec3{X: 0, Y: 0, Z: 5}, scene.Vec3{}, scene.Vec3{X: 0, Y: 1, Z: 0})}
	c := NewCameraRays(cam, 100, 100)
	o1, d1 := c.Ray(0, 0)
	o2, d2 := c.Ray(100, 100)
	if d1 != d2 || d1.Sub(scene.Vec3{X: 0, Y: 0, Z: -1}).Length() > 1e-6 {
		t.Errorf("directions %v %v", d1, d2)
	}
	// A square image: the view is ymag high and as wide (the image's aspect wins).
	if o1.Sub(scene.Vec3{X: -2, Y: 2, Z: 5}).Length() > 1e-6 || o2.Sub(scene.Vec3{X: 2, Y: -2, Z: 5}).Length() > 1e-6 {
		t.Errorf("corners %v %v", o1, o2)
	}
}
