package scene

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/lightspunctual"
	"github.com/qmuntal/gltf/modeler"

	"sertrace/atomicfile"
)

// Generators lists the scenes `sertrace gen` writes, with what each is for.
var Generators = map[string]struct {
	About string
	Build func() *gltf.Document
}{
	"cornell":       {"the classic Cornell box, closed, lit by an area light under the ceiling", Cornell},
	"hair":          {"a head-sized sphere with thousands of curly strands tapering to the tips", HairBall},
	"strands":       {"five strands under a sun, close up: straight, bent and crossing, the hair comparison's scene", Strands},
	"particles":     {"tens of thousands of spheres of varied radii and materials in a volume", Particles},
	"hairy-cornell": {"a Cornell box holding a hair ball and a particle cloud, many materials", HairyCornell},
	"many-lights":   {"a room lit by 256 small lamps of varied colours, powers and heights: spheres and panels", ManyLights},
}

// GeneratorNames lists the generators in order.
func GeneratorNames() []string {
	names := make([]string, 0, len(Generators))
	for k := range Generators {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// WriteGLB encodes doc as a GLB file, atomically: a failure never leaves a
// truncated file in place.
func WriteGLB(doc *gltf.Document, path string) error {
	data, err := encodeGLB(doc)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return atomicfile.WriteBytes(path, data)
}

func encodeGLB(doc *gltf.Document) ([]byte, error) {
	var buf bytes.Buffer
	enc := gltf.NewEncoder(&buf)
	enc.AsBinary = true
	err := enc.Encode(doc)
	return buf.Bytes(), err
}

// Generate builds a generated scene as loading its GLB file would.
func Generate(name string) (*Scene, error) {
	g, ok := Generators[name]
	if !ok {
		return nil, fmt.Errorf("no generated scene %q (there are %v)", name, GeneratorNames())
	}
	data, err := encodeGLB(g.Build())
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", name, err)
	}
	return Decode(data, name+".glb", nil)
}

// builder assembles a glTF document with the modeler.
type builder struct {
	doc *gltf.Document
	rng *rand.Rand
}

func newBuilder(seed uint64) *builder {
	doc := gltf.NewDocument()
	doc.Asset.Generator = "sertrace gen"
	return &builder{doc: doc, rng: rand.New(rand.NewPCG(seed, 0x5e47ace))}
}

func (b *builder) useExtension(name string) {
	if !slices.Contains(b.doc.ExtensionsUsed, name) {
		b.doc.ExtensionsUsed = append(b.doc.ExtensionsUsed, name)
	}
}

// material adds a metallic-roughness material and returns its index.
func (b *builder) material(name string, base [3]float64, metallic, roughness float64) int {
	b.doc.Materials = append(b.doc.Materials, &gltf.Material{
		Name: name,
		PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
			BaseColorFactor: &[4]float64{base[0], base[1], base[2], 1},
			MetallicFactor:  gltf.Float(metallic),
			RoughnessFactor: gltf.Float(roughness),
		},
	})
	return len(b.doc.Materials) - 1
}

// emissive adds a material that emits color × strength (HDR through
// KHR_materials_emissive_strength).
func (b *builder) emissive(name string, color [3]float64, strength float64) int {
	m := b.material(name, [3]float64{0, 0, 0}, 0, 1)
	b.doc.Materials[m].EmissiveFactor = color
	if strength != 1 {
		b.useExtension(extEmissiveStrength)
		b.doc.Materials[m].Extensions = gltf.Extensions{extEmissiveStrength: &emissiveStrength{strength}}
	}
	return m
}

// glass adds a KHR_materials_transmission dielectric.
func (b *builder) glass(name string, tint [3]float64, roughness float64) int {
	m := b.material(name, tint, 0, roughness)
	b.useExtension(extTransmission)
	b.useExtension(extIOR)
	b.doc.Materials[m].Extensions = gltf.Extensions{
		extTransmission: &transmission{TransmissionFactor: 1},
		extIOR:          &ior{IOR: 1.5},
	}
	return m
}

// hair adds a material with the hair BSDF's parameters in its extras.
func (b *builder) hair(name string, eumelanin, pheomelanin float64, approx [3]float64) int {
	m := b.material(name, approx, 0, 0.4)
	b.doc.Materials[m].Extras = map[string]any{"sertrace": map[string]any{"hair": map[string]any{
		"eumelanin": eumelanin, "pheomelanin": pheomelanin,
		"beta_m": 0.3, "beta_n": 0.3, "alpha": 2.0, "eta": 1.55,
	}}}
	return m
}

// node adds a node to the scene's roots and returns its index.
func (b *builder) node(n *gltf.Node) int {
	if n.Scale == [3]float64{} {
		n.Scale = [3]float64{1, 1, 1}
	}
	if n.Rotation == [4]float64{} {
		n.Rotation = [4]float64{0, 0, 0, 1}
	}
	n.Matrix = gltf.DefaultMatrix
	b.doc.Nodes = append(b.doc.Nodes, n)
	i := len(b.doc.Nodes) - 1
	b.doc.Scenes[0].Nodes = append(b.doc.Scenes[0].Nodes, i)
	return i
}

// mesh adds a triangle mesh with normals and places it with a node.
func (b *builder) mesh(name string, pos, nrm [][3]float32, idx []uint32, material int, n *gltf.Node) {
	attrs := gltf.PrimitiveAttributes{
		gltf.POSITION: modeler.WritePosition(b.doc, pos),
		gltf.NORMAL:   modeler.WriteNormal(b.doc, nrm),
	}
	b.doc.Meshes = append(b.doc.Meshes, &gltf.Mesh{Name: name, Primitives: []*gltf.Primitive{{
		Attributes: attrs, Indices: gltf.Index(modeler.WriteIndices(b.doc, idx)), Material: gltf.Index(material),
	}}})
	n.Name, n.Mesh = name, gltf.Index(len(b.doc.Meshes)-1)
	b.node(n)
}

// quad adds a one-sided rectangle: corner c, edges u and v, facing u × v.
func (b *builder) quad(name string, c, u, v [3]float32, material int) {
	n := V3(u).Cross(V3(v)).Normalize().Array()
	p := func(s, t float32) [3]float32 {
		return [3]float32{c[0] + s*u[0] + t*v[0], c[1] + s*u[1] + t*v[1], c[2] + s*u[2] + t*v[2]}
	}
	b.mesh(name, [][3]float32{p(0, 0), p(1, 0), p(1, 1), p(0, 1)},
		[][3]float32{n, n, n, n}, []uint32{0, 1, 2, 0, 2, 3}, material, &gltf.Node{})
}

// box adds an axis-aligned box of size s centred at the node's origin,
// flat-shaded (24 vertices) and facing out.
func (b *builder) box(name string, s [3]float32, material int, n *gltf.Node) {
	var pos, nrm [][3]float32
	var idx []uint32
	for axis := 0; axis < 3; axis++ {
		for _, sign := range []float32{-1, 1} {
			var nv, u, v Vec3
			nv.Set(axis, sign)
			u.Set((axis+1)%3, 1)
			v.Set((axis+2)%3, 1)
			if sign < 0 {
				u, v = v, u
			}
			base := uint32(len(pos))
			for _, c := range [][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
				var p [3]float32
				for k := 0; k < 3; k++ {
					p[k] = (nv.At(k) + c[0]*u.At(k) + c[1]*v.At(k)) * s[k] / 2
				}
				pos = append(pos, p)
				nrm = append(nrm, nv.Array())
			}
			idx = append(idx, base, base+1, base+2, base, base+2, base+3)
		}
	}
	b.mesh(name, pos, nrm, idx, material, n)
}

// sphereMesh adds a UV sphere of radius r, smooth-shaded.
func (b *builder) sphereMesh(name string, r float32, rings, sectors int, material int, n *gltf.Node) {
	var pos, nrm [][3]float32
	var idx []uint32
	for i := 0; i <= rings; i++ {
		th := math.Pi * float64(i) / float64(rings)
		for j := 0; j <= sectors; j++ {
			ph := 2 * math.Pi * float64(j) / float64(sectors)
			d := [3]float32{float32(math.Sin(th) * math.Cos(ph)), float32(math.Cos(th)), float32(-math.Sin(th) * math.Sin(ph))}
			nrm = append(nrm, d)
			pos = append(pos, [3]float32{d[0] * r, d[1] * r, d[2] * r})
		}
	}
	w := uint32(sectors + 1)
	for i := uint32(0); i < uint32(rings); i++ {
		for j := uint32(0); j < uint32(sectors); j++ {
			a, c := i*w+j, (i+1)*w+j
			if i > 0 {
				idx = append(idx, a, c, a+1)
			}
			if i < uint32(rings)-1 {
				idx = append(idx, a+1, c, c+1)
			}
		}
	}
	b.mesh(name, pos, nrm, idx, material, n)
}

// points adds a set of spheres (POINTS with _RADIUS) as one primitive per
// material, all in one mesh placed by a node.
func (b *builder) points(name string, centers [][3]float32, radii []float32, materials []int, material func(i int) int) {
	mesh := &gltf.Mesh{Name: name}
	for _, m := range materials {
		var c [][3]float32
		var r []float32
		for i := range centers {
			if material(i) == m {
				c, r = append(c, centers[i]), append(r, radii[i])
			}
		}
		if len(c) == 0 {
			continue
		}
		mesh.Primitives = append(mesh.Primitives, &gltf.Primitive{
			Mode: gltf.PrimitivePoints,
			Attributes: gltf.PrimitiveAttributes{
				gltf.POSITION:   modeler.WritePosition(b.doc, c),
				radiusAttribute: modeler.WriteAccessor(b.doc, gltf.TargetArrayBuffer, r),
			},
			Material: gltf.Index(m),
		})
	}
	b.doc.Meshes = append(b.doc.Meshes, mesh)
	b.node(&gltf.Node{Name: name, Mesh: gltf.Index(len(b.doc.Meshes) - 1)})
}

// strands adds hair as LINES with _RADIUS: strand s is the polyline
// strands[s], consecutive segments sharing vertices (so they chain).
func (b *builder) strands(name string, strands [][][3]float32, radii [][]float32, material int, t [3]float64) {
	var pos [][3]float32
	var rad []float32
	var idx []uint32
	for s, strand := range strands {
		base := uint32(len(pos))
		pos = append(pos, strand...)
		rad = append(rad, radii[s]...)
		for k := 1; k < len(strand); k++ {
			idx = append(idx, base+uint32(k-1), base+uint32(k))
		}
	}
	b.doc.Meshes = append(b.doc.Meshes, &gltf.Mesh{Name: name, Primitives: []*gltf.Primitive{{
		Mode: gltf.PrimitiveLines,
		Attributes: gltf.PrimitiveAttributes{
			gltf.POSITION:   modeler.WritePosition(b.doc, pos),
			radiusAttribute: modeler.WriteAccessor(b.doc, gltf.TargetArrayBuffer, rad),
		},
		Indices:  gltf.Index(modeler.WriteIndices(b.doc, idx)),
		Material: gltf.Index(material),
	}}})
	b.node(&gltf.Node{Name: name, Mesh: gltf.Index(len(b.doc.Meshes) - 1), Translation: t})
}

// camera adds a perspective camera at eye looking at target.
func (b *builder) camera(name string, yfov float64, eye, target Vec3) {
	b.doc.Cameras = append(b.doc.Cameras, &gltf.Camera{Name: name, Perspective: &gltf.Perspective{Yfov: yfov, Znear: 0.01}})
	m := LookAt(eye, target, Vec3{0, 1, 0})
	b.doc.Nodes = append(b.doc.Nodes, &gltf.Node{Name: name, Camera: gltf.Index(len(b.doc.Cameras) - 1),
		Matrix: [16]float64(m), Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale})
	b.doc.Scenes[0].Nodes = append(b.doc.Scenes[0].Nodes, len(b.doc.Nodes)-1)
}

// sun adds a KHR_lights_punctual directional light shining along dir.
func (b *builder) sun(name string, dir Vec3, color [3]float64, lux float64) {
	b.useExtension(lightspunctual.ExtensionName)
	lights, _ := b.doc.Extensions[lightspunctual.ExtensionName].(lightspunctual.Lights)
	lights = append(lights, &lightspunctual.Light{Type: lightspunctual.TypeDirectional, Name: name,
		Color: &color, Intensity: gltf.Float(lux)})
	if b.doc.Extensions == nil {
		b.doc.Extensions = gltf.Extensions{}
	}
	b.doc.Extensions[lightspunctual.ExtensionName] = lights
	// The light shines down its node's −Z: look from the origin along dir.
	m := LookAt(Vec3{}, dir, Vec3{0, 1, 0})
	if math.Abs(float64(dir.Normalize().Y)) > 0.999 {
		m = LookAt(Vec3{}, dir, Vec3{0, 0, 1})
	}
	b.doc.Nodes = append(b.doc.Nodes, &gltf.Node{Name: name, Matrix: [16]float64(m),
		Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale,
		Extensions: gltf.Extensions{lightspunctual.ExtensionName: lightspunctual.LightIndex(len(lights) - 1)}})
	b.doc.Scenes[0].Nodes = append(b.doc.Scenes[0].Nodes, len(b.doc.Nodes)-1)
}

// ground adds a large grey floor at y = 0.
func (b *builder) ground(half float32) {
	m := b.material("ground", [3]float64{0.5, 0.5, 0.5}, 0, 0.8)
	b.quad("ground", [3]float32{-half, 0, half}, [3]float32{2 * half, 0, 0}, [3]float32{0, 0, -2 * half}, m)
}
