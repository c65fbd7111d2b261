package scene

import (
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
)

// Classic Cornell reflectances and the light's (17, 12, 4) radiance.
var (
	cornellWhite = [3]float64{0.73, 0.73, 0.73}
	cornellRed   = [3]float64{0.63, 0.065, 0.05}
	cornellGreen = [3]float64{0.14, 0.45, 0.091}
)

func yRotation(deg float64) [4]float64 {
	s, c := math.Sincos(deg * math.Pi / 360)
	return [4]float64{0, s, 0, c}
}

// cornellBox adds the closed box: interior x ∈ [−1, 1], y ∈ [0, 2],
// z ∈ [−1, 3], every wall facing in, the light a one-sided quad facing down
// just under the ceiling, and the camera inside, by the front wall.
func cornellBox(b *builder) {
	white := b.material("white", cornellWhite, 0, 1)
	red := b.material("red", cornellRed, 0, 1)
	green := b.material("green", cornellGreen, 0, 1)
	light := b.emissive("light", [3]float64{1, 12.0 / 17, 4.0 / 17}, 17)
	b.quad("floor", [3]float32{-1, 0, 3}, [3]float32{2, 0, 0}, [3]float32{0, 0, -4}, white)
	b.quad("ceiling", [3]float32{-1, 2, -1}, [3]float32{2, 0, 0}, [3]float32{0, 0, 4}, white)
	b.quad("back", [3]float32{-1, 0, -1}, [3]float32{2, 0, 0}, [3]float32{0, 2, 0}, white)
	b.quad("front", [3]float32{1, 0, 3}, [3]float32{-2, 0, 0}, [3]float32{0, 2, 0}, white)
	b.quad("left", [3]float32{-1, 0, 3}, [3]float32{0, 0, -4}, [3]float32{0, 2, 0}, red)
	b.quad("right", [3]float32{1, 0, -1}, [3]float32{0, 0, 4}, [3]float32{0, 2, 0}, green)
	b.quad("light", [3]float32{-0.25, 1.98, -0.2}, [3]float32{0.5, 0, 0}, [3]float32{0, 0, 0.4}, light)
	b.box("short box", [3]float32{0.6, 0.6, 0.6}, white, &gltf.Node{Translation: [3]float64{0.35, 0.3, 0.35}, Rotation: yRotation(-17)})
	b.box("tall box", [3]float32{0.6, 1.2, 0.6}, white, &gltf.Node{Translation: [3]float64{-0.35, 0.6, -0.3}, Rotation: yRotation(17)})
	b.camera("camera", 0.6, Vec3{0, 1, 2.9}, Vec3{0, 1, -1})
}

// Cornell is the closed Cornell box.
func Cornell() *gltf.Document {
	b := newBuilder(1)
	cornellBox(b)
	return b.doc
}

// growStrands grows count strands of segs segments from roots on a sphere
// (centre c, radius r) above latitude minY (in −1..1 of the radius): each
// curls around a centreline that leaves along the normal and bends down
// under gravity, pushed back out where it would enter the sphere. Radii
// taper from rootRadius to a fifth of it at the tip.
func growStrands(b *builder, count, segs int, c Vec3, r, minLen, maxLen, rootRadius float32, minY float64) ([][][3]float32, [][]float32) {
	strands := make([][][3]float32, count)
	radii := make([][]float32, count)
	for s := range strands {
		// Uniform on the cap y ≥ minY.
		y := minY + (1-minY)*b.rng.Float64()
		phi := 2 * math.Pi * b.rng.Float64()
		rho := math.Sqrt(max(0, 1-y*y))
		n := Vec3{float32(rho * math.Cos(phi)), float32(y), float32(rho * math.Sin(phi))}
		length := minLen + (maxLen-minLen)*b.rng.Float32()
		step := length / float32(segs)
		curlR := (0.03 + 0.03*b.rng.Float32()) * r
		turns := 2.5 + 2*b.rng.Float64()
		phase := 2 * math.Pi * b.rng.Float64()
		p, dir := c.Add(n.Scale(r)), n
		line := make([][3]float32, 0, segs+1)
		rad := make([]float32, 0, segs+1)
		for k := 0; k <= segs; k++ {
			f := float32(k) / float32(segs)
			// A frame around the centreline for the curl.
			u := anyPerpendicular(dir)
			v := dir.Cross(u)
			a := phase + 2*math.Pi*turns*float64(f)
			curl := u.Scale(curlR * f * float32(math.Cos(a))).Add(v.Scale(curlR * f * float32(math.Sin(a))))
			q := p.Add(curl)
			if d := q.Sub(c); d.Length() < r*1.01 {
				q = c.Add(d.Normalize().Scale(r * 1.01))
			}
			line = append(line, q.Array())
			rad = append(rad, rootRadius*(1-0.8*f))
			dir = dir.Add(Vec3{0, -0.12, 0}).Normalize()
			p = p.Add(dir.Scale(step))
		}
		strands[s], radii[s] = line, rad
	}
	return strands, radii
}

// Strands are five strands under a sun, close up: two straight, three bent
// in arcs, two of them crossing, light and dark hair, each of 16 chained
// segments a finger thick and longer than the view is wide (their ends out
// of sight). The hair comparison's scene (benchmarks/cycles): joints,
// crossings and light passing through, at a few hundred pixels.
func Strands() *gltf.Document {
	b := newBuilder(5)
	blonde := b.hair("blonde hair", 0.3, 0.35, [3]float64{0.75, 0.6, 0.35})
	brown := b.hair("brown hair", 1.3, 0.2, [3]float64{0.25, 0.12, 0.05})
	const segs = 16
	var light, dark [][][3]float32
	var lightR, darkR [][]float32
	add := func(to *[][][3]float32, toR *[][]float32, from, end Vec3, bow, r0, r1 float32) {
		side := end.Sub(from).Cross(Vec3{0, 0, 1}).Normalize()
		var line [][3]float32
		var rad []float32
		for k := 0; k <= segs; k++ {
			f := float32(k) / segs
			p := from.Add(end.Sub(from).Scale(f)).Add(side.Scale(bow * 4 * f * (1 - f)))
			line = append(line, p.Array())
			rad = append(rad, r0+(r1-r0)*f)
		}
		*to, *toR = append(*to, line), append(*toR, rad)
	}
	add(&light, &lightR, Vec3{-0.9, 0.35, 0}, Vec3{0.9, 0.3, 0}, 0, 0.012, 0.012)
	add(&dark, &darkR, Vec3{-0.9, 0.15, 0.05}, Vec3{0.9, 0.1, 0.05}, 0, 0.012, 0.006)
	add(&light, &lightR, Vec3{-0.9, -0.35, 0}, Vec3{0.9, 0.1, -0.05}, 0.12, 0.012, 0.008)
	add(&dark, &darkR, Vec3{-0.9, 0.05, -0.1}, Vec3{0.9, -0.4, 0.05}, -0.12, 0.01, 0.01)
	add(&light, &lightR, Vec3{-0.1, -0.9, 0.1}, Vec3{0.1, 0.9, 0.1}, 0.15, 0.01, 0.006)
	b.strands("light strands", light, lightR, blonde, [3]float64{})
	b.strands("dark strands", dark, darkR, brown, [3]float64{})
	b.sun("sun", Vec3{-0.4, -0.6, -1}, [3]float64{1, 1, 1}, 3)
	b.camera("camera", 0.75, Vec3{0, 0, 1.6}, Vec3{0, 0, 0})
	return b.doc
}

// HairBall is a head-sized sphere with 3000 curly strands on a floor.
func HairBall() *gltf.Document {
	b := newBuilder(2)
	b.ground(2)
	skin := b.material("skin", [3]float64{0.8, 0.6, 0.5}, 0, 0.6)
	brown := b.hair("brown hair", 1.3, 0.2, [3]float64{0.25, 0.12, 0.05})
	head := Vec3{0, 0.25, 0}
	b.sphereMesh("head", 0.1, 32, 64, skin, &gltf.Node{Translation: [3]float64{0, 0.25, 0}})
	strands, radii := growStrands(b, 3000, 24, Vec3{}, 0.1, 0.10, 0.18, 0.0006, -0.2)
	b.strands("hair", strands, radii, brown, [3]float64{float64(head.X), float64(head.Y), float64(head.Z)})
	b.sun("sun", Vec3{-0.4, -1, -0.5}, [3]float64{1, 0.95, 0.9}, 3)
	b.camera("camera", 0.5, Vec3{0, 0.35, 0.95}, Vec3{0, 0.2, 0})
	return b.doc
}

// particleMaterials adds n distinct materials: diffuse colours, metals,
// glossy plastics, glass, and one emitter.
func particleMaterials(b *builder, n int) []int {
	out := make([]int, 0, n)
	for i := 0; i < n; i++ {
		hue := float64(i) / float64(n)
		col := [3]float64{0.5 + 0.45*math.Cos(2*math.Pi*hue), 0.5 + 0.45*math.Cos(2*math.Pi*(hue-1.0/3)), 0.5 + 0.45*math.Cos(2*math.Pi*(hue-2.0/3))}
		name := fmt.Sprintf("particle %d", i)
		switch i % 5 {
		case 0, 3:
			out = append(out, b.material(name+" diffuse", col, 0, 0.9))
		case 1:
			out = append(out, b.material(name+" metal", col, 1, 0.2+0.5*hue))
		case 2:
			out = append(out, b.material(name+" glossy", col, 0, 0.15))
		case 4:
			if i == 4 {
				out = append(out, b.emissive(name+" emitter", [3]float64{1, 0.6, 0.3}, 8))
			} else {
				out = append(out, b.glass(name+" glass", [3]float64{0.9, 0.95, 1}, 0.05))
			}
		}
	}
	return out
}

// cloud scatters count spheres uniformly in the box lo..hi, with log-normal
// radii around median, and a random one of materials each (the emitter, the
// fifth, rare).
func cloud(b *builder, count int, lo, hi Vec3, median float32, materials []int) ([][3]float32, []float32, func(int) int) {
	centers := make([][3]float32, count)
	radii := make([]float32, count)
	mat := make([]int, count)
	for i := range centers {
		for k := 0; k < 3; k++ {
			centers[i][k] = lo.At(k) + (hi.At(k)-lo.At(k))*b.rng.Float32()
		}
		radii[i] = float32(min(max(float64(median)*math.Exp(0.5*b.rng.NormFloat64()), float64(median)/4), float64(median)*5))
		mat[i] = materials[b.rng.IntN(len(materials))]
		if len(materials) > 4 && mat[i] == materials[4] && b.rng.IntN(10) != 0 {
			mat[i] = materials[0]
		}
	}
	return centers, radii, func(i int) int { return mat[i] }
}

// Particles is 30,000 spheres of eight materials in a box-shaped volume.
func Particles() *gltf.Document {
	b := newBuilder(3)
	b.ground(4)
	mats := particleMaterials(b, 8)
	c, r, m := cloud(b, 30000, Vec3{-1, 0.1, -1}, Vec3{1, 2.1, 1}, 0.012, mats)
	b.points("particles", c, r, mats, m)
	b.sun("sun", Vec3{-0.3, -1, -0.6}, [3]float64{1, 0.97, 0.92}, 3)
	b.camera("camera", 0.6, Vec3{0, 1.2, 4.2}, Vec3{0, 1.05, 0})
	return b.doc
}

// HairyCornell is the Cornell box with a hair ball of two hair colours on
// the short box and a cloud of particles of sixteen materials.
func HairyCornell() *gltf.Document {
	b := newBuilder(4)
	cornellBox(b)
	skin := b.material("skin", [3]float64{0.8, 0.6, 0.5}, 0, 0.6)
	brown := b.hair("brown hair", 1.3, 0.2, [3]float64{0.25, 0.12, 0.05})
	blonde := b.hair("blonde hair", 0.3, 0.35, [3]float64{0.75, 0.6, 0.35})
	center := [3]float64{0.35, 0.82, 0.35}
	b.sphereMesh("head", 0.2, 32, 64, skin, &gltf.Node{Translation: center})
	s, r := growStrands(b, 2400, 24, Vec3{}, 0.2, 0.15, 0.28, 0.0012, -0.3)
	b.strands("brown strands", s[:1200], r[:1200], brown, center)
	b.strands("blonde strands", s[1200:], r[1200:], blonde, center)
	mats := particleMaterials(b, 16)
	c, rad, m := cloud(b, 6000, Vec3{-0.9, 1.3, -0.6}, Vec3{-0.05, 1.85, 0.6}, 0.012, mats)
	b.points("particles", c, rad, mats, m)
	return b.doc
}

// ManyLights is a room open at the top and front, lit only by 256 small
// lights of varied colours and powers at varied heights: 240 emissive
// spheres and 16 one-sided square lamps facing down, among a few boxes.
// Choosing lights by power alone wastes most shadow rays on far lights;
// the light tree's scene.
func ManyLights() *gltf.Document {
	b := newBuilder(7)
	const half = 8
	floor := b.material("floor", [3]float64{0.5, 0.5, 0.5}, 0, 0.8)
	walls := []int{
		b.material("back wall", [3]float64{0.7, 0.7, 0.65}, 0, 1),
		b.material("left wall", [3]float64{0.65, 0.35, 0.3}, 0, 1),
		b.material("right wall", [3]float64{0.3, 0.4, 0.65}, 0, 1),
	}
	b.quad("floor", [3]float32{-half, 0, half}, [3]float32{2 * half, 0, 0}, [3]float32{0, 0, -2 * half}, floor)
	b.quad("back wall", [3]float32{-half, 0, -half}, [3]float32{2 * half, 0, 0}, [3]float32{0, 5, 0}, walls[0])
	b.quad("left wall", [3]float32{-half, 0, half}, [3]float32{0, 0, -2 * half}, [3]float32{0, 5, 0}, walls[1])
	b.quad("right wall", [3]float32{half, 0, -half}, [3]float32{0, 0, 2 * half}, [3]float32{0, 5, 0}, walls[2])
	white := b.material("boxes", [3]float64{0.75, 0.75, 0.75}, 0, 0.9)
	metal := b.material("metal box", [3]float64{0.9, 0.8, 0.6}, 1, 0.3)
	var boxes []Bounds // each box's bounds, turned any way about y
	for i := range 6 {
		s := [3]float32{0.6 + 1.2*b.rng.Float32(), 0.5 + 2*b.rng.Float32(), 0.6 + 1.2*b.rng.Float32()}
		t := [3]float64{-6 + 12*b.rng.Float64(), float64(s[1]) / 2, -6 + 10*b.rng.Float64()}
		m := white
		if i == 0 {
			m = metal
		}
		b.box(fmt.Sprintf("box %d", i), s, m, &gltf.Node{Translation: t, Rotation: yRotation(90 * b.rng.Float64())})
		r := float32(math.Hypot(float64(s[0]), float64(s[2]))) / 2
		boxes = append(boxes, Bounds{Min: Vec3{float32(t[0]) - r, 0, float32(t[2]) - r}, Max: Vec3{float32(t[0]) + r, s[1], float32(t[2]) + r}})
	}
	inBox := func(c Vec3, r float32) bool {
		for _, bx := range boxes {
			if c.X+r > bx.Min.X && c.X-r < bx.Max.X && c.Y-r < bx.Max.Y && c.Z+r > bx.Min.Z && c.Z-r < bx.Max.Z {
				return true
			}
		}
		return false
	}
	// Sixteen emitters: eight hues at two strengths a decade apart.
	var lamps []int
	for i := range 16 {
		h := float64(i%8) / 8 * 2 * math.Pi
		c := [3]float64{0.6 + 0.4*math.Cos(h), 0.6 + 0.4*math.Cos(h-2*math.Pi/3), 0.6 + 0.4*math.Cos(h+2*math.Pi/3)}
		lamps = append(lamps, b.emissive(fmt.Sprintf("lamp %d", i), c, 4*math.Pow(10, float64(i/8))))
	}
	const spheres = 240
	centers, radii := make([][3]float32, spheres), make([]float32, spheres)
	which := make([]int, spheres)
	for i := range spheres {
		radii[i] = float32(0.03 * math.Pow(4, b.rng.Float64())) // 3 to 12 cm
		for {
			c := Vec3{(half - 0.5) * (2*b.rng.Float32() - 1), 0.3 + 4.2*b.rng.Float32(), (half - 0.5) * (2*b.rng.Float32() - 1)}
			if !inBox(c, radii[i]) {
				centers[i] = c.Array()
				break
			}
		}
		which[i] = lamps[b.rng.IntN(len(lamps))]
	}
	b.points("lamps", centers, radii, lamps, func(i int) int { return which[i] })
	for i := range 16 {
		s := float32(0.2 + 0.2*b.rng.Float32())
		c := [3]float32{(half - 1) * (2*b.rng.Float32() - 1), 2 + 3*b.rng.Float32(), (half - 1) * (2*b.rng.Float32() - 1)}
		// Facing down: u × v = (s, 0, 0) × (0, 0, s) points to −y.
		b.quad(fmt.Sprintf("panel %d", i), c, [3]float32{s, 0, 0}, [3]float32{0, 0, s}, lamps[b.rng.IntN(len(lamps))])
	}
	b.camera("camera", 0.9, Vec3{0, 3.5, 12}, Vec3{0, 1, -1})
	return b.doc
}
