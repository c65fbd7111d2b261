package scene

import "math"

// Vec2, Vec3 and Vec4 are the float32 vectors that geometry is stored in:
// the same layout the GPU reads, so arrays of them upload without conversion.
type (
	Vec2 [2]float32
	Vec3 [3]float32
	Vec4 [4]float32
)

func (a Vec3) Add(b Vec3) Vec3      { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a Vec3) Sub(b Vec3) Vec3      { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a Vec3) Mul(b Vec3) Vec3      { return Vec3{a[0] * b[0], a[1] * b[1], a[2] * b[2]} }
func (a Vec3) Mul3(b Vec3) Vec3     { return Vec3{a[0] * b[0], a[1] * b[1], a[2] * b[2]} }
func (a Vec3) Scale(s float32) Vec3 { return Vec3{a[0] * s, a[1] * s, a[2] * s} }
func (a Vec3) Dot(b Vec3) float32   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a Vec3) Length() float32      { return float32(math.Sqrt(float64(a.Dot(a)))) }
func (a Vec3) Min(b Vec3) Vec3      { return Vec3{min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2])} }
func (a Vec3) Max(b Vec3) Vec3      { return Vec3{max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])} }
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Normalize returns a unit vector, or the zero vector for a zero input.
func (a Vec3) Normalize() Vec3 {
	l := a.Length()
	if l == 0 {
		return Vec3{}
	}
	return a.Scale(1 / l)
}

// Finite reports whether every component is neither NaN nor infinite.
func (a Vec3) Finite() bool {
	for _, c := range a {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return false
		}
	}
	return true
}

// Mat4 is a 4×4 affine transform in column-major order, as glTF stores it,
// kept in float64 so that deep node hierarchies do not lose precision.
type Mat4 [16]float64

// Identity is the transform that changes nothing.
var Identity = Mat4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}

// Mul returns m·n: n applied first, then m.
func (m Mat4) Mul(n Mat4) Mat4 {
	var r Mat4
	for c := 0; c < 4; c++ {
		for row := 0; row < 4; row++ {
			var s float64
			for k := 0; k < 4; k++ {
				s += m[k*4+row] * n[c*4+k]
			}
			r[c*4+row] = s
		}
	}
	return r
}

// Point transforms a position.
func (m Mat4) Point(p Vec3) Vec3 {
	x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
	return Vec3{
		float32(m[0]*x + m[4]*y + m[8]*z + m[12]),
		float32(m[1]*x + m[5]*y + m[9]*z + m[13]),
		float32(m[2]*x + m[6]*y + m[10]*z + m[14]),
	}
}

// Vector transforms a direction (no translation).
func (m Mat4) Vector(v Vec3) Vec3 {
	x, y, z := float64(v[0]), float64(v[1]), float64(v[2])
	return Vec3{
		float32(m[0]*x + m[4]*y + m[8]*z),
		float32(m[1]*x + m[5]*y + m[9]*z),
		float32(m[2]*x + m[6]*y + m[10]*z),
	}
}

// Column returns column c's first three entries (an axis or the translation).
func (m Mat4) Column(c int) Vec3 {
	return Vec3{float32(m[c*4]), float32(m[c*4+1]), float32(m[c*4+2])}
}

// Finite reports whether every entry is neither NaN nor infinite.
func (m Mat4) Finite() bool {
	for _, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// TRS builds translation · rotation · scale, the order glTF defines; the
// rotation is a unit quaternion (x, y, z, w).
func TRS(t [3]float64, q [4]float64, s [3]float64) Mat4 {
	x, y, z, w := q[0], q[1], q[2], q[3]
	if n := math.Sqrt(x*x + y*y + z*z + w*w); n > 0 {
		x, y, z, w = x/n, y/n, z/n, w/n
	}
	return Mat4{
		(1 - 2*(y*y+z*z)) * s[0], 2 * (x*y + z*w) * s[0], 2 * (x*z - y*w) * s[0], 0,
		2 * (x*y - z*w) * s[1], (1 - 2*(x*x+z*z)) * s[1], 2 * (y*z + x*w) * s[1], 0,
		2 * (x*z + y*w) * s[2], 2 * (y*z - x*w) * s[2], (1 - 2*(x*x+y*y)) * s[2], 0,
		t[0], t[1], t[2], 1,
	}
}

// Bounds is an axis-aligned box; the zero value is not empty, use EmptyBounds.
type Bounds struct {
	Min Vec3 `json:"min"`
	Max Vec3 `json:"max"`
}

// EmptyBounds returns a box that any Extend replaces.
func EmptyBounds() Bounds {
	inf := float32(math.Inf(1))
	return Bounds{Min: Vec3{inf, inf, inf}, Max: Vec3{-inf, -inf, -inf}}
}

// Empty reports whether nothing was added to the box.
func (b Bounds) Empty() bool { return b.Min[0] > b.Max[0] }

// Extend grows the box to hold p.
func (b *Bounds) Extend(p Vec3) { b.Min, b.Max = b.Min.Min(p), b.Max.Max(p) }

// ExtendBall grows the box to hold the ball of radius r about c.
func (b *Bounds) ExtendBall(c Vec3, r float32) {
	b.Extend(c.Sub(Vec3{r, r, r}))
	b.Extend(c.Add(Vec3{r, r, r}))
}

// Union grows the box to hold c.
func (b *Bounds) Union(c Bounds) {
	if !c.Empty() {
		b.Min, b.Max = b.Min.Min(c.Min), b.Max.Max(c.Max)
	}
}

// Center is the middle of the box.
func (b Bounds) Center() Vec3 { return b.Min.Add(b.Max).Scale(0.5) }

// Corner is corner i (0..7) of the box: bit k of i picks Max on axis k.
func (b Bounds) Corner(i int) Vec3 {
	p := b.Min
	for k := 0; k < 3; k++ {
		if i&(1<<k) != 0 {
			p[k] = b.Max[k]
		}
	}
	return p
}

// Transform returns the box around the eight transformed corners.
func (b Bounds) Transform(m Mat4) Bounds {
	out := EmptyBounds()
	if b.Empty() {
		return out
	}
	for i := 0; i < 8; i++ {
		out.Extend(m.Point(b.Corner(i)))
	}
	return out
}
