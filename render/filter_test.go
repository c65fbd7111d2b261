package render

import (
	"math"
	"math/rand/v2"
	"testing"

	"sertrace/scene"
)

// TestPixelFiltersSampleTheirShape: offsets drawn by filter importance
// sampling follow the filter's profile and stay inside its radius.
func TestPixelFiltersSampleTheirShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	shapes := map[string]func(x float64) float64{
		"gaussian": func(x float64) float64 { return math.Max(0, math.Exp(-2*x*x)-math.Exp(-2*1.5*1.5)) },
		"blackman-harris": func(x float64) float64 {
			t := 2 * math.Pi * (x/3 + 0.5)
			return 0.35875 - 0.48829*math.Cos(t) + 0.14128*math.Cos(2*t) - 0.01168*math.Cos(3*t)
		},
		"box": func(x float64) float64 {
			if math.Abs(x) <= 0.5 {
				return 1
			}
			return 0
		},
	}
	for name, shape := range shapes {
		f, err := NewPixelFilter(name)
		if err != nil {
			t.Fatal(err)
		}
		const bins, n = 30, 300000
		var hist [bins]float64
		for i := 0; i < n; i++ {
			x := f.Sample(rng.Float32())
			if math.Abs(float64(x)) > float64(f.Radius)+1e-6 {
				t.Fatalf("%s: offset %v beyond radius %v", name, x, f.Radius)
			}
			hist[min(int((x+1.5)/3*bins), bins-1)]++
		}
		var total float64
		want := make([]float64, bins)
		for b := range want {
			for k := 0; k < 20; k++ {
				want[b] += shape(-1.5 + 3*(float64(b)+(float64(k)+0.5)/20)/bins)
			}
			total += want[b]
		}
		for b := range want {
			exp := want[b] / total * n
			if math.Abs(hist[b]-exp) > 5*math.Sqrt(exp)+0.002*n {
				t.Errorf("%s: bin %d holds %v, the filter says %.0f", name, b, hist[b], exp)
			}
		}
	}
}

// TestThinLens: every lens ray through a pixel meets at the plane in focus;
// at another depth they spread over the circle of confusion, of radius
// R·|z − f| / f.
func TestThinLens(t *testing.T) {
	const radius, focus = 0.1, 4.0
	cam := scene.Camera{YFov: 0.8, ApertureRadius: radius, FocusDistance: focus,
		Transform: scene.LookAt(scene.Vec3{X: 0, Y: 0, Z: 0}, scene.Vec3{X: 0, Y: 0, Z: -1}, scene.Vec3{X: 0, Y: 1, Z: 0})}
	c := NewCameraRays(cam, 64, 64)
	o0, d0 := c.Ray(40.5, 20.5)
	at := func(o, d scene.Vec3, z float32) scene.Vec3 { return o.Add(d.Scale((z - o.Z) / d.Z)) }
	pin := at(o0, d0, -focus)
	for _, z := range []float32{-focus, -2, -8} {
		centre := at(o0, d0, z)
		var spread float32
		for i := 0; i < 64; i++ {
			o, d := c.LensRay(o0, d0, (float32(i%8)+0.5)/8, (float32(i/8)+0.5)/8)
			spread = max(spread, at(o, d, z).Sub(centre).Length())
			if z == -focus && at(o, d, z).Sub(pin).Length() > 1e-5 {
				t.Fatalf("a lens ray misses the point in focus by %v", at(o, d, z).Sub(pin).Length())
			}
		}
		// The outermost lens samples sit at 7/8 of the radius along the diagonal-free grid.
		want := radius * float32(math.Abs(float64(-z-focus))) / focus
		if spread > want*1.0001+1e-5 || spread < want*0.8 {
			t.Errorf("depth %v: spread %v, circle of confusion %v", -z, spread, want)
		}
	}
}
