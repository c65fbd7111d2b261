package scene

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/lightspunctual"
)

// defaultYFov is the framing camera's vertical field of view (40°).
const defaultYFov = 40 * math.Pi / 180

func (l *loader) camera(i int, node string, world Mat4) error {
	if i < 0 || i >= len(l.doc.Cameras) {
		return fmt.Errorf("camera %d does not exist (%d in the file)", i, len(l.doc.Cameras))
	}
	c := l.doc.Cameras[i]
	xf, err := rigid(world)
	if err != nil {
		return fmt.Errorf("camera %d: %w", i, err)
	}
	out := Camera{Name: c.Name, Transform: xf}
	if out.Name == "" {
		out.Name = node
	}
	lens := extrasObject(extrasObject(c.Extras)["sertrace"])
	for key, dst := range map[string]*float32{"aperture_radius": &out.ApertureRadius, "focus_distance": &out.FocusDistance} {
		if v, ok := lens[key]; ok {
			f, isNum := v.(float64)
			if !isNum || !finite(f) || f < 0 {
				return fmt.Errorf("camera %d: extras.sertrace.%s must be a finite number, not negative", i, key)
			}
			*dst = float32(f)
		}
	}
	if out.Name == "" {
		out.Name = fmt.Sprintf("camera %d", i)
	}
	switch {
	case c.Perspective != nil:
		p := c.Perspective
		if !finite(p.Yfov) || p.Yfov <= 0 || p.Yfov >= math.Pi {
			return fmt.Errorf("camera %d: yfov %v is not in (0, π)", i, p.Yfov)
		}
		out.YFov = float32(p.Yfov)
		if p.AspectRatio != nil {
			if !finite(*p.AspectRatio) || *p.AspectRatio <= 0 {
				return fmt.Errorf("camera %d: aspectRatio %v is not positive", i, *p.AspectRatio)
			}
			out.AspectRatio = float32(*p.AspectRatio)
		}
		out.ZNear = float32(max(p.Znear, 0))
		if p.Zfar != nil && finite(*p.Zfar) {
			out.ZFar = float32(*p.Zfar)
		}
	case c.Orthographic != nil:
		o := c.Orthographic
		if !finite(o.Xmag, o.Ymag) || o.Xmag == 0 || o.Ymag == 0 {
			return fmt.Errorf("camera %d: xmag %v and ymag %v must be finite and not zero", i, o.Xmag, o.Ymag)
		}
		out.Orthographic = true
		out.XMag, out.YMag = float32(math.Abs(o.Xmag)), float32(math.Abs(o.Ymag))
		out.ZNear, out.ZFar = float32(o.Znear), float32(o.Zfar)
	default:
		return fmt.Errorf("camera %d has neither perspective nor orthographic properties", i)
	}
	l.sc.Cameras = append(l.sc.Cameras, out)
	return nil
}

// rigid removes scale and shear from a transform, keeping where it is and
// which way its −Z and +Y point (Gram–Schmidt from Z, then Y).
func rigid(m Mat4) (Mat4, error) {
	z := m.Column(2).Normalize()
	y := m.Column(1)
	y = y.Sub(z.Scale(z.Dot(y))).Normalize()
	if z == (Vec3{}) || y == (Vec3{}) {
		return Mat4{}, errors.New("its node's transform collapses it (zero scale)")
	}
	x := y.Cross(z)
	return Mat4{
		float64(x.X), float64(x.Y), float64(x.Z), 0,
		float64(y.X), float64(y.Y), float64(y.Z), 0,
		float64(z.X), float64(z.Y), float64(z.Z), 0,
		m[12], m[13], m[14], 1,
	}, nil
}

// LookAt is the camera-to-world transform of a camera at eye looking at target.
func LookAt(eye, target, up Vec3) Mat4 {
	d := eye.Sub(target)
	if s := max(abs32(d.X), abs32(d.Y), abs32(d.Z)); s > 1e18 {
		d = d.Scale(1 / s) // its squared length would overflow float32
	}
	z := d.Normalize() // the camera looks down −Z
	x := up.Cross(z).Normalize()
	if x == (Vec3{}) {
		x = anyPerpendicular(z)
	}
	y := z.Cross(x)
	return Mat4{
		float64(x.X), float64(x.Y), float64(x.Z), 0,
		float64(y.X), float64(y.Y), float64(y.Z), 0,
		float64(z.X), float64(z.Y), float64(z.Z), 0,
		float64(eye.X), float64(eye.Y), float64(eye.Z), 1,
	}
}

// FramingCamera looks at the box from the front (+Z) and a little above,
// far enough for its bounding sphere to fill a 40° view.
func FramingCamera(b Bounds) Camera {
	cam := Camera{Name: "default", YFov: defaultYFov, Generated: true, Transform: Identity}
	if b.Empty() {
		return cam
	}
	center := b.Center()
	radius := b.Max.Sub(b.Min).Length() / 2
	if radius == 0 {
		radius = 1
	}
	dist := radius / float32(math.Sin(defaultYFov/2)) * 1.05
	dir := Vec3{0, 0.3, 1}.Normalize()
	cam.Transform = LookAt(center.Add(dir.Scale(dist)), center, Vec3{0, 1, 0})
	cam.ZNear = dist * 1e-4
	return cam
}

// light places a node's KHR_lights_punctual light.
func (l *loader) light(n int, nd *gltf.Node, world Mat4) error {
	v, ok := nd.Extensions[lightspunctual.ExtensionName]
	if !ok {
		return nil
	}
	idx, ok := v.(lightspunctual.LightIndex)
	if !ok {
		return fmt.Errorf("%s is malformed", lightspunctual.ExtensionName)
	}
	var lights lightspunctual.Lights
	if v, ok := l.doc.Extensions[lightspunctual.ExtensionName]; ok {
		if lights, ok = v.(lightspunctual.Lights); !ok {
			return fmt.Errorf("the document's %s is malformed", lightspunctual.ExtensionName)
		}
	}
	i := int(idx)
	if i < 0 || i >= len(lights) || lights[i] == nil {
		return fmt.Errorf("light %d does not exist (%d in the file)", i, len(lights))
	}
	src := lights[i]
	col, intensity := src.ColorOrDefault(), src.IntensityOrDefault()
	if !finite(col[:]...) || !finite(intensity) || intensity < 0 || col[0] < 0 || col[1] < 0 || col[2] < 0 {
		return fmt.Errorf("light %d: colour and intensity must be finite and not negative", i)
	}
	out := Light{
		Name:      src.Name,
		Node:      n,
		Color:     Vec3{float32(col[0]), float32(col[1]), float32(col[2])},
		Intensity: float32(intensity),
		Position:  world.Column(3),
		Direction: world.Vector(Vec3{0, 0, -1}).Normalize(),
	}
	if src.Range != nil && finite(*src.Range) && *src.Range > 0 {
		out.Range = float32(*src.Range)
	}
	switch src.Type {
	case lightspunctual.TypePoint:
		out.Kind = PointLight
	case lightspunctual.TypeDirectional:
		out.Kind = DirectionalLight
	case lightspunctual.TypeSpot:
		out.Kind = SpotLight
		out.OuterCone = math.Pi / 4
		if src.Spot != nil {
			out.InnerCone, out.OuterCone = float32(src.Spot.InnerConeAngle), float32(src.Spot.OuterConeAngleOrDefault())
		}
		if !(out.InnerCone >= 0 && out.InnerCone < out.OuterCone && out.OuterCone <= math.Pi/2) {
			return fmt.Errorf("light %d: spot cone angles %v, %v must satisfy 0 ≤ inner < outer ≤ π/2", i, out.InnerCone, out.OuterCone)
		}
	default:
		l.warn("light %d has unknown type %q: ignored", i, src.Type)
		return nil
	}
	if out.Kind != PointLight && out.Direction == (Vec3{}) {
		return fmt.Errorf("light %d: its node's transform collapses its direction", i)
	}
	l.sc.Lights = append(l.sc.Lights, out)
	return nil
}

// FindCamera picks a camera by index ("0", "1", ...) or by name.
func (s *Scene) FindCamera(sel string) (int, error) {
	if i, err := strconv.Atoi(sel); err == nil {
		if i < 0 || i >= len(s.Cameras) {
			return 0, fmt.Errorf("camera %d does not exist (the scene has %d)", i, len(s.Cameras))
		}
		return i, nil
	}
	var names []string
	for i, c := range s.Cameras {
		if c.Name == sel {
			return i, nil
		}
		names = append(names, strconv.Quote(c.Name))
	}
	return 0, fmt.Errorf("no camera named %q (cameras: %s)", sel, strings.Join(names, ", "))
}

func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }
