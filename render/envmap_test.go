package render

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"sertrace/internal/sharedscenes"
	"sertrace/render/kernel"
)

// encodeRGBE writes an image as a Radiance file, flat or run-length encoded.
func encodeRGBE(w, h int, pix []float32, rle bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n", h, w)
	for y := 0; y < h; y++ {
		row := make([][4]byte, w)
		for x := 0; x < w; x++ {
			p := pix[3*(y*w+x):]
			m := max(p[0], p[1], p[2])
			if m < 1e-32 {
				continue
			}
			frac, exp := math.Frexp(float64(m))
			scale := frac * 256 / float64(m)
			row[x] = [4]byte{byte(float64(p[0]) * scale), byte(float64(p[1]) * scale), byte(float64(p[2]) * scale), byte(exp + 128)}
		}
		if !rle {
			for _, q := range row {
				b.Write(q[:])
			}
			continue
		}
		b.Write([]byte{2, 2, byte(w >> 8), byte(w)})
		for c := 0; c < 4; c++ {
			// Alternate a run and a literal to exercise both.
			for x := 0; x < w; {
				n := min(w-x, 3)
				if (x/3)%2 == 0 && n == 3 && row[x][c] == row[x+1][c] && row[x][c] == row[x+2][c] {
					b.Write([]byte{128 + 3, row[x][c]})
				} else {
					b.WriteByte(byte(n))
					for k := 0; k < n; k++ {
						b.WriteByte(row[x+k][c])
					}
				}
				x += n
			}
		}
	}
	return b.Bytes()
}

func TestDecodeHDR(t *testing.T) {
	w, h := 12, 5
	pix := make([]float32, 3*w*h)
	for i := range pix {
		pix[i] = float32(i%7) * 0.37
		if i/3%5 == 0 {
			pix[i] = 2.5 // runs
		}
	}
	for _, rle := range []bool{false, true} {
		env, err := DecodeHDR(encodeRGBE(w, h, pix, rle))
		if err != nil {
			t.Fatalf("rle %v: %v", rle, err)
		}
		for i, v := range pix {
			// RGBE keeps 8 bits of mantissa under the pixel's largest component.
			q := pix[i/3*3:]
			if math.Abs(float64(env.Pixels[i]-v)) > float64(max(q[0], q[1], q[2]))/128+1e-6 {
				t.Fatalf("rle %v: value %d is %v, want %v", rle, i, env.Pixels[i], v)
			}
		}
	}
	good := encodeRGBE(w, h, pix, true)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"not HDR", []byte("P6\n"), "not a Radiance HDR"},
		{"truncated", good[:len(good)-10], "scanline"},
		{"huge", []byte("#?RADIANCE\n\n-Y 100000 +X 100000\n"), "not supported"},
		{"odd orientation", []byte("#?RADIANCE\n\n+Y 4 +X 4\n"), "standard -Y H +X W"},
		{"run overrun", append([]byte(fmt.Sprintf("#?RADIANCE\n\n-Y 1 +X %d\n", w)), 2, 2, 0, byte(w), 128+100, 7), "overruns"},
	} {
		if _, err := DecodeHDR(c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestEnvMapSamplingIsConsistent: the density integrates to 1 over the
// sphere, Sample reports Pdf's value, and the importance-sampled estimate of
// the environment's integral agrees with quadrature.
func TestEnvMapSamplingIsConsistent(t *testing.T) {
	env := sharedEnv(t)
	env.Rotation = 0.7
	// Quadrature on a grid twice as fine as the texels, in image space.
	const gu, gv = 2048, 1024
	var norm, integral float64
	for j := 0; j < gv; j++ {
		v := (float32(j) + 0.5) / gv
		jac := 2 * math.Pi * math.Pi * math.Sin(math.Pi*float64(v)) / (gu * gv)
		for i := 0; i < gu; i++ {
			d := env.Direction((float32(i)+0.5)/gu, v)
			norm += float64(env.Pdf(d)) * jac
			l := env.Radiance(d)
			integral += float64(luminance3(l.X, l.Y, l.Z)) * jac
		}
	}
	if math.Abs(norm-1) > 0.003 {
		t.Errorf("the density integrates to %.4f", norm)
	}
	rng := rand.New(rand.NewPCG(61, 62))
	const n = 200000
	var imp float64
	for i := 0; i < n; i++ {
		d, l, pdf := env.Sample(rng.Float32(), rng.Float32())
		if math.Abs(float64(pdf-env.Pdf(d))) > 1e-3*float64(pdf) {
			t.Fatalf("Sample's pdf %v, Pdf %v", pdf, env.Pdf(d))
		}
		imp += float64(luminance3(l.X, l.Y, l.Z) / pdf)
	}
	if imp /= n; math.Abs(imp-integral) > 0.01*integral {
		t.Errorf("importance estimate %.4f, quadrature %.4f", imp, integral)
	}
}

func sharedEnv(t *testing.T) *EnvMap {
	t.Helper()
	p := sharedscenes.Path(t, filepath.Join("EnvironmentHDR", "studio_small_03_1k.hdr"))
	env, err := LoadHDR(p)
	if err != nil {
		t.Fatal(err)
	}
	if env.Width != 1024 || env.Height != 512 {
		t.Fatalf("%d×%d", env.Width, env.Height)
	}
	return env
}

// TestEnvMapOrientation pins the documented mapping: the top row is +Y, the
// middle column −Z, u grows towards +X, and Rotation turns the map about +Y.
func TestEnvMapOrientation(t *testing.T) {
	e := &EnvMap{Width: 4, Height: 2, Pixels: make([]float32, 24), Intensity: 1}
	near := func(a, b [3]float32) bool {
		return math.Abs(float64(a[0]-b[0]))+math.Abs(float64(a[1]-b[1]))+math.Abs(float64(a[2]-b[2])) < 1e-5
	}
	for _, c := range []struct {
		u, v, rot float32
		want      [3]float32
	}{
		{0.5, 0.5, 0, [3]float32{0, 0, -1}},
		{0.75, 0.5, 0, [3]float32{1, 0, 0}},
		{0.25, 0.5, 0, [3]float32{-1, 0, 0}},
		{0.3, 0, 0, [3]float32{0, 1, 0}},
		{0.5, 0.5, math.Pi / 2, [3]float32{1, 0, 0}},
	} {
		e.Rotation = c.rot
		d := e.Direction(c.u, c.v)
		if !near(d.Array(), c.want) {
			t.Errorf("u %v v %v rotation %v: %v, want %v", c.u, c.v, c.rot, d, c.want)
		}
		if c.v > 0 {
			if u, v := kernel.EnvMapUV(e, d); math.Abs(float64(u-c.u)) > 1e-5 || math.Abs(float64(v-c.v)) > 1e-5 {
				t.Errorf("uv(Direction(%v, %v)) = %v, %v", c.u, c.v, u, v)
			}
		}
	}
}

// FuzzDecodeHDR: any bytes decode to a map or one clean error, never a
// panic. Seeds: both encodings and the hostile cases above.
//
//	go test ./render -run '^$' -fuzz FuzzDecodeHDR -fuzztime 1m
func FuzzDecodeHDR(f *testing.F) {
	pix := make([]float32, 3*12*5)
	for i := range pix {
		pix[i] = float32(i%9) * 0.3
	}
	f.Add(encodeRGBE(12, 5, pix, false))
	f.Add(encodeRGBE(12, 5, pix, true))
	f.Add([]byte("#?RADIANCE\n\n-Y 1 +X 12\n\x02\x02\x00\x0c\xe4\x07"))
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := DecodeHDR(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("not one line: %q", err)
			}
			return
		}
		if len(env.Pixels) != 3*env.Width*env.Height {
			t.Fatalf("%d values for %d×%d", len(env.Pixels), env.Width, env.Height)
		}
		env.Sample(0.3, 0.7)
	})
}
