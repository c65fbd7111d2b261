// Package scene is the scene model that every backend builds its acceleration
// structures from, the glTF loader that fills it, and the generators that
// write sample scenes. Geometry is stored in flat arrays, ready to upload.
package scene

import "math"

// Scene is everything a renderer needs, in world units (metres, Y up).
type Scene struct {
	Source     string // the file it was loaded from
	Meshes     []Mesh
	SphereSets []SphereSet
	CurveSets  []CurveSet
	Instances  []Instance
	// Nodes are the file's nodes by index, as the scene placed them (a
	// node no scene reaches is zero).
	Nodes     []Node
	Materials []Material // the file's, then glTF's default material if a primitive names none
	Textures  []Texture
	Lights    []Light
	Cameras   []Camera // never empty: a framing camera is added when the file has none
	Bounds    Bounds   // world bounds of every instance, radii included
	Warnings  []string
	// KHR_materials_variants: the file's variants, and the one whose
	// materials the primitives took ("": their default materials).
	Variants []string
	Variant  string
}

// GeometryKind says which array of the scene a GeometryRef points into.
type GeometryKind uint8

const (
	Triangles    GeometryKind = iota // Scene.Meshes
	Spheres                          // Scene.SphereSets
	SweptSpheres                     // Scene.CurveSets
)

func (k GeometryKind) String() string {
	return [...]string{"triangles", "spheres", "swept-spheres"}[k]
}

// GeometryRef names one geometry of the scene.
type GeometryRef struct {
	Kind  GeometryKind
	Index int
}

// Mesh is one glTF primitive's triangles. Attributes other than Positions are
// nil when the file has none; nil Normals means flat shading (the geometric
// normal is the shading normal, which is what glTF asks for).
type Mesh struct {
	Name      string
	Positions []Vec3
	Normals   []Vec3
	Tangents  []Vec4 // xyz tangent, w handedness (±1) of the bitangent
	UV0, UV1  []Vec2
	Colors    []Vec4 // COLOR_0, linear RGBA
	Indices   []uint32
	Bounds    Bounds // object space
}

// TriangleCount is the number of triangles.
func (m *Mesh) TriangleCount() int { return len(m.Indices) / 3 }

// FaceNormal is triangle t's geometric normal, in object space, unit length.
func (m *Mesh) FaceNormal(t int) Vec3 {
	a, b, c := m.Positions[m.Indices[3*t]], m.Positions[m.Indices[3*t+1]], m.Positions[m.Indices[3*t+2]]
	return b.Sub(a).Cross(c.Sub(a)).Normalize()
}

// SphereSet is a set of particles: glTF POINTS with a radius.
type SphereSet struct {
	Name    string
	Centers []Vec3
	Radii   []float32
	Bounds  Bounds // object space, radii included
}

// Segment join flags. In VK_NV_ray_tracing_linear_swept_spheres' chained
// end-caps mode the first segment of a chain has both end caps and every
// following one only its trailing cap: the sphere at a joint is drawn once,
// by the segment that ends there. A segment with JoinedPrev has no start cap.
// Chains follow index order, as that mode and Embree's neighbour flags do:
// segment i is joined to segment i−1 only, sharing its vertex
// (Segments[i] == Segments[i-1]+1). A LINE_LOOP's closing joint, from its
// last segment to its first, is therefore not a join: both keep their caps
// there, the same sphere twice.
const (
	JoinedPrev uint8 = 1 << iota // the start vertex is segment i−1's end: no start cap
	JoinedNext                   // the end vertex is segment i+1's start (its end cap stays)
)

// CurveSet is a set of hair strands as linear swept spheres: segment i is the
// round cone from Positions[Segments[i]] to Positions[Segments[i]+1], with the
// radii at those vertices (the successive indexing mode of the NV extension).
type CurveSet struct {
	Name      string
	Positions []Vec3
	Radii     []float32
	Segments  []uint32
	Joins     []uint8 // per segment, JoinedPrev | JoinedNext
	Bounds    Bounds  // object space, radii included
}

// AddStrand appends one strand through pts, its radii per point, its
// segments chained (as the loader chains a LINE_STRIP), and grows Bounds to
// hold it.
func (c *CurveSet) AddStrand(pts []Vec3, radii []float32) {
	first := uint32(len(c.Positions))
	c.Positions = append(c.Positions, pts...)
	c.Radii = append(c.Radii, radii...)
	for k, p := range pts {
		c.Bounds.ExtendBall(p, radii[k])
		if k+1 == len(pts) {
			break
		}
		var j uint8
		if k > 0 {
			j |= JoinedPrev
		}
		if k+2 < len(pts) {
			j |= JoinedNext
		}
		c.Segments = append(c.Segments, first+uint32(k))
		c.Joins = append(c.Joins, j)
	}
}

// Instance places one geometry in the world with one material.
type Instance struct {
	Geometry  GeometryRef
	Transform Mat4 // object to world
	Material  int
	Node      int // the glTF node it came from
}

// Light is a KHR_lights_punctual light, placed in the world. Emissive
// triangles are lights too; renderers find them through the materials.
type Light struct {
	Name      string
	Node      int // the glTF node that placed it
	Kind      LightKind
	Color     Vec3    // linear RGB
	Intensity float32 // candela (point, spot) or lux (directional)
	Position  Vec3
	Direction Vec3    // where it shines (node −Z), unit length
	Range     float32 // 0: unlimited
	InnerCone float32 // radians, spot only
	OuterCone float32
}

// LightKind is point, spot or directional.
type LightKind uint8

const (
	PointLight LightKind = iota
	SpotLight
	DirectionalLight
)

func (k LightKind) String() string { return [...]string{"point", "spot", "directional"}[k] }

// Camera is a glTF camera placed by its node: it looks down its −Z axis with
// +Y up. Transform is camera to world, with any scale removed.
type Camera struct {
	Name         string
	Orthographic bool
	YFov         float32 // perspective: vertical field of view, radians
	AspectRatio  float32 // 0: take it from the image
	XMag, YMag   float32 // orthographic: half the view's width and height
	ZNear, ZFar  float32 // ZFar 0: infinite
	Transform    Mat4
	Generated    bool // made by the loader because the file has no camera
	// Thin-lens depth of field, from the camera's extras
	// {"sertrace": {"aperture_radius": m, "focus_distance": m}}; a zero
	// radius is a pinhole.
	ApertureRadius float32
	FocusDistance  float32
}

// MaxReach is how far from the origin a scene may reach: the renderers
// intersect in float32, whose squares of distances overflow past about
// 1.8e19 (and Embree refuses ray origins past 1.8e18).
const MaxReach = 1e18

// Reach is the largest magnitude of a coordinate of the scene's world box
// or of a camera's position; NaN counts as infinitely far.
func (s *Scene) Reach() float64 {
	far := 0.0
	grow := func(v Vec3) {
		for _, c := range []float32{v.X, v.Y, v.Z} {
			if a := math.Abs(float64(c)); !(a <= far) {
				far = math.Inf(1)
				if !math.IsNaN(a) {
					far = a
				}
			}
		}
	}
	if !s.Bounds.Empty() {
		grow(s.Bounds.Min)
		grow(s.Bounds.Max)
	}
	for _, c := range s.Cameras {
		grow(c.Transform.Point(Vec3{}))
	}
	return far
}
