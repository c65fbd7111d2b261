package cpu

import (
	"fmt"
	"math"
	"testing"

	"sertrace/render"
	"sertrace/render/internal/furnace"
	"sertrace/render/kernel"
	"sertrace/scene"
)

// TestGlassSlabTransmittance: looking straight through a slab of glass at an
// emitter, the radiance is the closed form of a slab with multiple internal
// reflections: (1−R)²·τ / (1 − R²·τ²), τ the absorption across it.
func TestGlassSlabTransmittance(t *testing.T) {
	for _, c := range []struct {
		name      string
		color     float32 // attenuation colour at distance 1
		thickness float32
	}{{"clear", 1, 0.5}, {"absorbing", 0.5, 0.5}} {
		t.Run(c.name, func(t *testing.T) {
			mat := lambert(1)
			mat.Specular, mat.Roughness, mat.Transmission, mat.Volume = 1, 0, 1, true
			mat.AttenuationColor, mat.AttenuationDistance = scene.Vec3{X: c.color, Y: c.color, Z: c.color}, 1
			if c.color == 1 {
				mat.AttenuationDistance = float32(math.Inf(1))
			}
			light := scene.DefaultMaterial()
			light.Emissive, light.BaseColor = scene.Vec3{X: 1, Y: 1, Z: 1}, scene.Vec4{X: 0, Y: 0, Z: 0, W: 1}
			half := c.thickness / 2
			quad := func(z float32, up bool) scene.Mesh {
				m := scene.Mesh{Positions: []scene.Vec3{{X: -50, Y: -50, Z: z}, {X: 50, Y: -50, Z: z}, {X: 50, Y: 50, Z: z}, {X: -50, Y: 50, Z: z}},
					Bounds: scene.Bounds{Min: scene.Vec3{X: -50, Y: -50, Z: z}, Max: scene.Vec3{X: 50, Y: 50, Z: z}}}
				if up {
					m.Indices = []uint32{0, 1, 2, 0, 2, 3} // facing +z
				} else {
					m.Indices = []uint32{0, 2, 1, 0, 3, 2}
				}
				return m
			}
			// A closed slab would need sides; 50 m wide, it is closed enough for
			// rays near the axis. Its faces face outwards: +z and −z.
			sc := &scene.Scene{
				Meshes:    []scene.Mesh{quad(half, true), quad(-half, false), quad(-3, true)},
				Materials: []scene.Material{mat, light},
				Instances: []scene.Instance{
					{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 0}, Transform: scene.Identity},
					{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 1}, Transform: scene.Identity},
					{Geometry: scene.GeometryRef{Kind: scene.Triangles, Index: 2}, Transform: scene.Identity, Material: 1},
				},
				Bounds: scene.Bounds{Min: scene.Vec3{X: -50, Y: -50, Z: -3}, Max: scene.Vec3{X: 50, Y: 50, Z: half}},
				Cameras: []scene.Camera{{Orthographic: true, XMag: 0.1, YMag: 0.1,
					Transform: scene.LookAt(scene.Vec3{X: 0, Y: 0, Z: 5}, scene.Vec3{}, scene.Vec3{X: 0, Y: 1, Z: 0})}},
			}
			opts := render.Options{Width: 8, Height: 8, SPP: 1024, MaxDepth: 64}
			pix, _ := renderFilm(t, sc, opts).Resolve(render.AOVBeauty)
			var got float64
			for i := 0; i < len(pix); i += 3 {
				got += float64(pix[i])
			}
			got /= float64(len(pix) / 3)
			r := math.Pow((1.5-1)/(1.5+1), 2)
			tau := math.Pow(float64(c.color), float64(c.thickness))
			want := (1 - r) * (1 - r) * tau / (1 - r*r*tau*tau)
			if math.Abs(got-want) > 0.005 {
				t.Errorf("radiance through the slab %.4f, closed form %.4f", got, want)
			}
		})
	}
}

// TestThinGlassFromBehind: a thin sheet has air on both sides, so seen from
// behind it bends by the same index (a volume would invert it).
func TestThinGlassFromBehind(t *testing.T) {
	for _, volume := range []bool{false, true} {
		mat := lambert(1)
		mat.Transmission, mat.IOR, mat.DoubleSided, mat.Volume = 1, 1.5, true, volume
		m := scene.Mesh{Positions: []scene.Vec3{{X: -1, Y: -1, Z: 0}, {X: 1, Y: -1, Z: 0}, {X: 0, Y: 1, Z: 0}}, Indices: []uint32{0, 1, 2},
			Bounds: scene.Bounds{Min: scene.Vec3{X: -1, Y: -1, Z: 0}, Max: scene.Vec3{X: 1, Y: 1, Z: 0}}}
		sc := &scene.Scene{Meshes: []scene.Mesh{m}, Materials: []scene.Material{mat},
			Instances: []scene.Instance{{Geometry: scene.GeometryRef{Kind: scene.Triangles}, Transform: scene.Identity}}}
		acc := BuildAccel(sc, nil)
		ray := Ray{Origin: scene.Vec3{X: 0, Y: 0, Z: -2}, Dir: scene.Vec3{X: 0, Y: 0, Z: 1}, TMax: 10}
		h, ok := acc.Intersect(&ray)
		if !ok {
			t.Fatal("missed")
		}
		var s kernel.Surface
		acc.shadeAt(&s, &h, &ray)
		want := float32(1.5)
		if volume {
			want = 1 / 1.5
		}
		if s.Front || math.Abs(float64(s.BSDF.Eta-want)) > 1e-6 || s.BSDF.Thin == volume {
			t.Errorf("volume %v, from behind: eta %v thin %v, want eta %v", volume, s.BSDF.Eta, s.BSDF.Thin, want)
		}
	}
}

// TestDispersionSplitsWhiteLight: clear glass in front of a grey
// environment with a sharp edge shows only greys without dispersion, and
// coloured fringes with it (each path refracts by one wavelength).
func TestDispersionSplitsWhiteLight(t *testing.T) {
	// An environment of grey 2 on one half, 0 on the other.
	const w, h = 64, 32
	b := []byte(fmt.Sprintf("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n", h, w))
	for range h {
		for x := range w {
			if x < w/2 {
				b = append(b, 128, 128, 128, 130) // 2 = 0.5·2^2
			} else {
				b = append(b, 0, 0, 0, 0)
			}
		}
	}
	env, err := render.DecodeHDR(b)
	if err != nil {
		t.Fatal(err)
	}
	env.Intensity = 1
	// chroma is each pixel's red minus blue, rendered with seed.
	chroma := func(dispersion float32, seed uint32) []float64 {
		mat := furnace.Glass(0, false)
		mat.Dispersion = dispersion
		film := renderFilm(t, furnace.GlassObjects(mat), render.Options{Width: 32, Height: 32, SPP: 512, MaxDepth: 16, EnvMap: env, Seed: seed})
		pix, _ := film.Resolve(render.AOVBeauty)
		var d []float64
		for i := 0; i < len(pix); i += 3 {
			d = append(d, float64(pix[i]-pix[i+2]))
		}
		return d
	}
	for _, v := range chroma(0, 1) {
		if v != 0 {
			t.Fatalf("without dispersion a pixel's red and blue differ by %v", v)
		}
	}
	// The wavelength's weights make colour noise too; the fringes are what
	// two independent renders agree on.
	a, b2 := chroma(3, 1), chroma(3, 2)
	var ma, mb float64
	for i := range a {
		ma, mb = ma+a[i], mb+b2[i]
	}
	ma, mb = ma/float64(len(a)), mb/float64(len(a))
	var cov, va, vb float64
	for i := range a {
		cov += (a[i] - ma) * (b2[i] - mb)
		va += (a[i] - ma) * (a[i] - ma)
		vb += (b2[i] - mb) * (b2[i] - mb)
	}
	if r := cov / math.Sqrt(va*vb); !(r > 0.45) {
		t.Errorf("the colour fringes of two renders with dispersion 3 correlate by %.3f; want above 0.45 (without the index changing, 0.13)", r)
	} else {
		t.Logf("fringes correlate by %.3f between two seeds", r)
	}
}
