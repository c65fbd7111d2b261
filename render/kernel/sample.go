package kernel

import (
	"math"

	"sertrace/scene"
)

// SampleVisibleNormal samples a GGX normal as seen from wo (Heitz, "Sampling
// the GGX Distribution of Visible Normals", JCGT 2018).
func SampleVisibleNormal(wo scene.Vec3, alpha, u1, u2 float32) scene.Vec3 {
	return SampleVisibleNormalAniso(wo, alpha, alpha, u1, u2)
}

// SampleVisibleNormalAniso is SampleVisibleNormal for roughness ax along x
// and ay along y.
func SampleVisibleNormalAniso(wo scene.Vec3, ax, ay, u1, u2 float32) scene.Vec3 {
	vh := scene.Vec3{X: ax * wo.X, Y: ay * wo.Y, Z: wo.Z}.Normalize()
	t1 := scene.Vec3{X: 1, Y: 0, Z: 0}
	if l2 := vh.X*vh.X + vh.Y*vh.Y; l2 > 0 {
		inv := 1 / Sqrt32(l2)
		t1 = scene.Vec3{X: -vh.Y * inv, Y: vh.X * inv, Z: 0}
	}
	t2 := vh.Cross(t1)
	r := Sqrt32(u1)
	s, c := math.Sincos(2 * math.Pi * float64(u2))
	p1 := r * float32(c)
	p2 := r * float32(s)
	sh := 0.5 * (1 + vh.Z)
	p2 = (1-sh)*Sqrt32(1-p1*p1) + sh*p2
	nh := t1.Scale(p1).Add(t2.Scale(p2)).Add(vh.Scale(Sqrt32(1 - p1*p1 - p2*p2)))
	return scene.Vec3{X: ax * nh.X, Y: ay * nh.Y, Z: max(nh.Z, 1e-7)}.Normalize()
}

// SampleUniform samples the hemisphere about +Z uniformly: the sheen's
// strategy, whose lobe peaks at grazing angles, where the cosine's density
// vanishes (cosine samples made fireflies of up to 18 in a sheen furnace).
func SampleUniform(u1, u2 float32) scene.Vec3 {
	r := Sqrt32(1 - u1*u1)
	s, c := math.Sincos(2 * math.Pi * float64(u2))
	return scene.Vec3{X: r * float32(c), Y: r * float32(s), Z: u1}
}

// SampleCosine samples the hemisphere about +Z in proportion to cos θ.
func SampleCosine(u1, u2 float32) scene.Vec3 {
	r := Sqrt32(u1)
	s, c := math.Sincos(2 * math.Pi * float64(u2))
	return scene.Vec3{X: r * float32(c), Y: r * float32(s), Z: Sqrt32(1 - u1)}
}

// Frame is an orthonormal basis about a normal (Duff et al., "Building an
// Orthonormal Basis, Revisited", JCGT 2017).
type Frame struct{ T, B, N scene.Vec3 }

// NewFrame builds a frame about the unit normal n.
func NewFrame(n scene.Vec3) Frame {
	var f Frame
	f.Set(n)
	return f
}

// Set makes f the frame about the unit normal n, in place.
func (f *Frame) Set(n scene.Vec3) {
	sign := float32(1)
	if n.Z < 0 {
		sign = -1
	}
	a := -1 / (sign + n.Z)
	b := n.X * n.Y * a
	f.T = scene.Vec3{X: 1 + sign*n.X*n.X*a, Y: sign * b, Z: -sign * n.X}
	f.B = scene.Vec3{X: b, Y: sign + n.Y*n.Y*a, Z: -n.Y}
	f.N = n
}

// ToLocal expresses a world direction in the frame.
func (f *Frame) ToLocal(v scene.Vec3) scene.Vec3 {
	return scene.Vec3{X: v.Dot(f.T), Y: v.Dot(f.B), Z: v.Dot(f.N)}
}

// ToWorld expresses a local direction in the world.
func (f *Frame) ToWorld(v scene.Vec3) scene.Vec3 {
	return f.T.Scale(v.X).Add(f.B.Scale(v.Y)).Add(f.N.Scale(v.Z))
}
