package scene

import (
	"encoding/json"
	"fmt"
	"math"
)

// Vec2, Vec3 and Vec4 are the float32 vectors that geometry is stored in:
// the same layout the GPU reads, so arrays of them upload without conversion.
// They are structs, not arrays: Go's compiler keeps a small struct in
// registers, while it keeps every array longer than one in memory, so that
// vector arithmetic on arrays went through the stack at every step (six
// times slower, measured on the same code).
type (
	Vec2 struct{ X, Y float32 }
	Vec3 struct{ X, Y, Z float32 }
	Vec4 struct{ X, Y, Z, W float32 }
)

// At is component i of a (0: X, 1: Y, 2: Z), for loops over the axes.
func (a Vec3) At(i int) float32 {
	switch i {
	case 0:
		return a.X
	case 1:
		return a.Y
	}
	return a.Z
}

// Set sets component i of a (0: X, 1: Y, 2: Z).
func (a *Vec3) Set(i int, v float32) {
	switch i {
	case 0:
		a.X = v
	case 1:
		a.Y = v
	default:
		a.Z = v
	}
}

// At is component i of a (0: X, 1: Y).
func (a Vec2) At(i int) float32 {
	if i == 0 {
		return a.X
	}
	return a.Y
}

// Set sets component i of a (0: X, 1: Y).
func (a *Vec2) Set(i int, v float32) {
	if i == 0 {
		a.X = v
	} else {
		a.Y = v
	}
}

// At is component i of a (0: X, 1: Y, 2: Z, 3: W).
func (a Vec4) At(i int) float32 {
	switch i {
	case 0:
		return a.X
	case 1:
		return a.Y
	case 2:
		return a.Z
	}
	return a.W
}

// Set sets component i of a (0: X, 1: Y, 2: Z, 3: W).
func (a *Vec4) Set(i int, v float32) {
	switch i {
	case 0:
		a.X = v
	case 1:
		a.Y = v
	case 2:
		a.Z = v
	default:
		a.W = v
	}
}

// XYZ is the first three components.
func (a Vec4) XYZ() Vec3 { return Vec3{a.X, a.Y, a.Z} }

// Array is a as an array, for code that indexes it.
func (a Vec3) Array() [3]float32 { return [3]float32{a.X, a.Y, a.Z} }

// Array is a as an array, for code that indexes it.
func (a Vec4) Array() [4]float32 { return [4]float32{a.X, a.Y, a.Z, a.W} }

// Array is a as an array, for code that indexes it.
func (a Vec2) Array() [2]float32 { return [2]float32{a.X, a.Y} }

// The vectors print and encode as the arrays they were, [x y z] and
// [x, y, z] in JSON: `sertrace inspect --json` and messages depend on it.

func (a Vec2) String() string { return fmt.Sprint(a.Array()) }
func (a Vec3) String() string { return fmt.Sprint(a.Array()) }
func (a Vec4) String() string { return fmt.Sprint(a.Array()) }

func (a Vec2) MarshalJSON() ([]byte, error) { return json.Marshal(a.Array()) }
func (a Vec3) MarshalJSON() ([]byte, error) { return json.Marshal(a.Array()) }
func (a Vec4) MarshalJSON() ([]byte, error) { return json.Marshal(a.Array()) }

func (a *Vec2) UnmarshalJSON(b []byte) error {
	var v [2]float32
	err := json.Unmarshal(b, &v)
	*a = Vec2{v[0], v[1]}
	return err
}

func (a *Vec3) UnmarshalJSON(b []byte) error {
	var v [3]float32
	err := json.Unmarshal(b, &v)
	*a = V3(v)
	return err
}

func (a *Vec4) UnmarshalJSON(b []byte) error {
	var v [4]float32
	err := json.Unmarshal(b, &v)
	*a = Vec4{v[0], v[1], v[2], v[3]}
	return err
}

// V3 is the vector of an array's three components.
func V3(a [3]float32) Vec3 { return Vec3{a[0], a[1], a[2]} }

func (a Vec3) Add(b Vec3) Vec3      { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }
func (a Vec3) Sub(b Vec3) Vec3      { return Vec3{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }
func (a Vec3) Mul3(b Vec3) Vec3     { return Vec3{a.X * b.X, a.Y * b.Y, a.Z * b.Z} }
func (a Vec3) Scale(s float32) Vec3 { return Vec3{a.X * s, a.Y * s, a.Z * s} }
func (a Vec3) Dot(b Vec3) float32   { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }
func (a Vec3) Length() float32      { return float32(math.Sqrt(float64(a.Dot(a)))) }
func (a Vec3) Min(b Vec3) Vec3      { return Vec3{min(a.X, b.X), min(a.Y, b.Y), min(a.Z, b.Z)} }
func (a Vec3) Max(b Vec3) Vec3      { return Vec3{max(a.X, b.X), max(a.Y, b.Y), max(a.Z, b.Z)} }
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a.Y*b.Z - a.Z*b.Y, a.Z*b.X - a.X*b.Z, a.X*b.Y - a.Y*b.X}
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
	for _, c := range a.Array() {
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
	x, y, z := float64(p.X), float64(p.Y), float64(p.Z)
	return Vec3{
		float32(m[0]*x + m[4]*y + m[8]*z + m[12]),
		float32(m[1]*x + m[5]*y + m[9]*z + m[13]),
		float32(m[2]*x + m[6]*y + m[10]*z + m[14]),
	}
}

// Vector transforms a direction (no translation).
func (m Mat4) Vector(v Vec3) Vec3 {
	x, y, z := float64(v.X), float64(v.Y), float64(v.Z)
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

// Mirrors reports whether the transform turns the winding over: its
// linear part's determinant is negative (in float64, so that a tiny scale
// keeps its sign).
func (m Mat4) Mirrors() bool {
	return m[0]*(m[5]*m[10]-m[6]*m[9])-m[4]*(m[1]*m[10]-m[2]*m[9])+m[8]*(m[1]*m[6]-m[2]*m[5]) < 0
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
func (b Bounds) Empty() bool { return b.Min.X > b.Max.X }

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
			p.Set(k, b.Max.At(k))
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
