package scene

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/qmuntal/gltf"
)

// Limits on what a file can make the loader do, so that a small hostile file
// cannot make it run or allocate without end: the decoded scene may take
// decodeFactor times the bytes of the file's buffers, plus decodeAllowance.
// (Real files need about 4×: an index byte becomes a uint32, a normalised
// byte a float32; triangle strips and instances add a little.)
const (
	maxNodeDepth    = 1024
	decodeFactor    = 16
	decodeAllowance = 64 << 20
)

// charge takes n bytes from the loader's budget, or says what exceeded it.
func (l *loader) charge(n int64, what string) error {
	if n > l.budget {
		return fmt.Errorf("%s: decoding it would take more memory than the file's %d bytes of buffers allow (%d× plus %d MiB)",
			what, l.bufferBytes, decodeFactor, decodeAllowance>>20)
	}
	l.budget -= n
	return nil
}

// Option is a choice Load and Decode make while reading a file.
type Option func(*loader)

// WithVariant loads the scene with the materials that KHR_materials_variants
// maps to the variant of that name ("": the primitives' own materials).
func WithVariant(name string) Option { return func(l *loader) { l.variant = name } }

// Load reads a .gltf or .glb file, with the buffers and images it refers to
// (only files in its own folder, or data: URIs).
func Load(path string, opts ...Option) (*Scene, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, unwrapPathError(err))
	}
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	defer root.Close()
	return Decode(data, path, DirResources(root.FS()), opts...)
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Decode builds a scene from a glTF or GLB file's bytes; name labels errors
// and warnings, read supplies the files it refers to.
func Decode(data []byte, name string, read ResourceReader, opts ...Option) (sc *Scene, err error) {
	defer func() {
		// A safety net: a loader bug must still end in one clear line.
		if r := recover(); r != nil {
			sc, err = nil, fmt.Errorf("load %s: internal error: %v", name, r)
		}
	}()
	l := &loader{
		name:       name,
		fetch:      read,
		sc:         &Scene{Source: name, Bounds: EmptyBounds()},
		warned:     map[string]bool{},
		geometries: map[string]geometryEntry{},
		textures:   map[textureKey]int{},
		images:     map[int]*decodedImage{},
		defaultMat: -1,
	}
	for _, o := range opts {
		o(l)
	}
	if err := l.load(data); err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	return l.sc, nil
}

type loader struct {
	name        string
	doc         *gltf.Document
	buffers     [][]byte
	fetch       ResourceReader
	budget      int64 // bytes the loader may still decode into
	bufferBytes int64
	sc          *Scene
	warned      map[string]bool
	geometries  map[string]geometryEntry // by primitive content, so shared accessors are loaded once
	textures    map[textureKey]int
	images      map[int]*decodedImage
	imageErrs   map[int]error // images that failed, each said once
	texelBytes  int64
	defaultMat  int
	visited     []bool // nodes placed: each node is placed once
	variant     string // WithVariant's name
	variantIdx  int    // its index in the file's variants, or −1
}

type geometryEntry struct {
	ref     GeometryRef
	skipped bool
}

// warn records a warning once.
func (l *loader) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !l.warned[msg] {
		l.warned[msg] = true
		l.sc.Warnings = append(l.sc.Warnings, msg)
	}
}

// UnsupportedExtensionError is a file that requires a glTF extension
// sertrace does not implement: the specification says to refuse it.
type UnsupportedExtensionError struct{ Extension string }

func (e *UnsupportedExtensionError) Error() string {
	return fmt.Sprintf("requires extension %s, which sertrace does not support", e.Extension)
}

func (l *loader) load(data []byte) error {
	doc, bin, err := parseDocument(data)
	if err != nil {
		return err
	}
	l.doc = doc
	for _, e := range doc.ExtensionsRequired {
		if !supportedExtensions[e] {
			return &UnsupportedExtensionError{Extension: e}
		}
	}
	for _, e := range doc.ExtensionsUsed {
		if !supportedExtensions[e] && !slices.Contains(doc.ExtensionsRequired, e) {
			l.warn("extension %s is not supported: ignored", e)
		}
	}
	if l.buffers, err = loadBuffers(doc, bin, l.fetch); err != nil {
		return err
	}
	// What a file can make the loader allocate is proportional to its data.
	for _, b := range l.buffers {
		l.bufferBytes += int64(len(b))
	}
	l.budget = decodeAllowance + decodeFactor*l.bufferBytes
	if err := l.materials(); err != nil {
		return err
	}
	if err := l.variants(); err != nil {
		return err
	}
	if len(doc.Skins) > 0 {
		l.warn("skins are not applied: skinned meshes render in their bind pose")
	}
	if err := checkNodeGraph(doc.Nodes); err != nil {
		return err
	}
	roots, err := l.rootNodes()
	if err != nil {
		return err
	}
	l.visited = make([]bool, len(doc.Nodes))
	for _, n := range roots {
		if err := l.node(n, Identity, 0, nodeParent{root: -1}); err != nil {
			return err
		}
	}
	for _, inst := range l.sc.Instances {
		b := l.sc.GeometryBounds(inst.Geometry).Transform(inst.Transform)
		if far := (&Scene{Bounds: b}).Reach(); far > MaxReach {
			// Finite positions under a huge translation or scale: the
			// renderers intersect in float32.
			return fmt.Errorf("node %d (%s): its geometry reaches %.3g from the origin, beyond the %.3g sertrace renders (a translation or scale too large)",
				inst.Node, doc.Nodes[inst.Node].Name, far, MaxReach)
		}
		l.sc.Bounds.Union(b)
	}
	for _, c := range l.sc.Cameras {
		if far := (&Scene{Bounds: EmptyBounds(), Cameras: []Camera{c}}).Reach(); far > MaxReach {
			return fmt.Errorf("camera %q is %.3g from the origin, beyond the %.3g sertrace renders (a translation or scale too large)", c.Name, far, MaxReach)
		}
	}
	if len(l.sc.Instances) == 0 {
		l.warn("the scene has no geometry to render")
	}
	if len(l.sc.Cameras) == 0 {
		l.sc.Cameras = append(l.sc.Cameras, FramingCamera(l.sc.Bounds))
	}
	return nil
}

// GeometryBounds is a geometry's object-space box.
func (s *Scene) GeometryBounds(g GeometryRef) Bounds {
	switch g.Kind {
	case Spheres:
		return s.SphereSets[g.Index].Bounds
	case SweptSpheres:
		return s.CurveSets[g.Index].Bounds
	}
	return s.Meshes[g.Index].Bounds
}

// rootNodes is the default scene's node list; without scenes, every node
// that is no other node's child.
func (l *loader) rootNodes() ([]int, error) {
	doc := l.doc
	if len(doc.Scenes) == 0 {
		if doc.Scene != nil {
			return nil, fmt.Errorf("scene %d does not exist (the file has no scenes)", *doc.Scene)
		}
		child := make([]bool, len(doc.Nodes))
		for _, n := range doc.Nodes {
			for _, c := range n.Children {
				if c >= 0 && c < len(child) {
					child[c] = true
				}
			}
		}
		var roots []int
		for i, c := range child {
			if !c {
				roots = append(roots, i)
			}
		}
		return roots, nil
	}
	s := 0
	if doc.Scene != nil {
		s = *doc.Scene
	}
	if s < 0 || s >= len(doc.Scenes) {
		return nil, fmt.Errorf("scene %d does not exist (%d in the file)", s, len(doc.Scenes))
	}
	return doc.Scenes[s].Nodes, nil
}

// checkNodeGraph refuses children that do not exist, nodes with two parents
// and cycles, whether or not a scene reaches them (an iterative depth-first
// search, so a deep graph cannot overflow the stack).
func checkNodeGraph(nodes []*gltf.Node) error {
	parent := make([]int, len(nodes))
	for i := range parent {
		parent[i] = -1
	}
	for p, n := range nodes {
		for _, c := range n.Children {
			if c < 0 || c >= len(nodes) {
				return fmt.Errorf("node %d: child %d does not exist (%d nodes in the file)", p, c, len(nodes))
			}
			if parent[c] == p {
				return fmt.Errorf("node %d lists child %d twice", p, c)
			}
			if parent[c] >= 0 && c != p {
				return fmt.Errorf("node %d has two parents, nodes %d and %d (nodes must form disjoint trees)", c, parent[c], p)
			}
			parent[c] = p
		}
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(nodes))
	type frame struct{ node, next int }
	for start := range nodes {
		if state[start] != unseen {
			continue
		}
		stack := []frame{{start, 0}}
		state[start] = onPath
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			children := nodes[top.node].Children
			if top.next == len(children) {
				state[top.node] = done
				stack = stack[:len(stack)-1]
				continue
			}
			c := children[top.next]
			top.next++
			switch {
			case state[c] == onPath:
				return fmt.Errorf("node %d: the node graph has a cycle (node %d is its own ancestor)", c, c)
			case state[c] == unseen:
				state[c] = onPath
				stack = append(stack, frame{c, 0})
			}
		}
	}
	return nil
}

// node places node n and its subtree under the parent transform.
func (l *loader) node(n int, parent Mat4, depth int, up nodeParent) error {
	if n < 0 || n >= len(l.doc.Nodes) {
		return fmt.Errorf("node %d does not exist (%d in the file)", n, len(l.doc.Nodes))
	}
	if depth > maxNodeDepth {
		return fmt.Errorf("node %d: the node hierarchy is deeper than %d", n, maxNodeDepth)
	}
	if l.visited[n] {
		// glTF's nodes form disjoint trees; reaching one twice would let a
		// small file expand exponentially.
		return fmt.Errorf("node %d is reached twice from the scene's roots (nodes must form disjoint trees)", n)
	}
	l.visited[n] = true
	nd := l.doc.Nodes[n]
	here := l.placeNode(n, nd, up)
	local, err := nodeTransform(nd)
	if err != nil {
		return fmt.Errorf("node %d (%s): %w", n, nd.Name, err)
	}
	world := parent.Mul(local)
	if !world.Finite() {
		return fmt.Errorf("node %d (%s): its world transform overflows", n, nd.Name)
	}
	if nd.Mesh != nil {
		if err := l.meshInstances(n, *nd.Mesh, world); err != nil {
			return fmt.Errorf("node %d (%s): %w", n, nd.Name, err)
		}
	}
	if nd.Camera != nil {
		if err := l.camera(*nd.Camera, nd.Name, world); err != nil {
			return fmt.Errorf("node %d (%s): %w", n, nd.Name, err)
		}
	}
	if err := l.light(n, nd, world); err != nil {
		return fmt.Errorf("node %d (%s): %w", n, nd.Name, err)
	}
	for _, c := range nd.Children {
		if err := l.node(c, world, depth+1, here); err != nil {
			return err
		}
	}
	return nil
}

func nodeTransform(nd *gltf.Node) (Mat4, error) {
	if nd.Matrix != gltf.DefaultMatrix {
		if !finite(nd.Matrix[:]...) {
			return Mat4{}, errors.New("matrix is not finite")
		}
		m := Mat4(nd.Matrix)
		// glTF matrices are affine; a projective last row would be silently wrong.
		if m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1 {
			return Mat4{}, errors.New("matrix is not affine (last row must be 0 0 0 1)")
		}
		return m, nil
	}
	t, r, s := nd.TranslationOrDefault(), nd.RotationOrDefault(), nd.ScaleOrDefault()
	if !finite(t[:]...) || !finite(r[:]...) || !finite(s[:]...) {
		return Mat4{}, errors.New("translation, rotation or scale is not finite")
	}
	return TRS(t, r, s), nil
}

// meshInstances adds one instance per primitive of mesh m, or one per
// primitive and per EXT_mesh_gpu_instancing transform.
func (l *loader) meshInstances(node, m int, world Mat4) error {
	if m < 0 || m >= len(l.doc.Meshes) {
		return fmt.Errorf("mesh %d does not exist (%d in the file)", m, len(l.doc.Meshes))
	}
	transforms := []Mat4{world}
	nd := l.doc.Nodes[node]
	if inst, err := extension[instancing](nd.Extensions, extInstancing); err != nil {
		return err
	} else if inst != nil {
		local, err := l.instanceTransforms(inst)
		if err != nil {
			return fmt.Errorf("%s: %w", extInstancing, err)
		}
		transforms = transforms[:0]
		for _, t := range local {
			transforms = append(transforms, world.Mul(t))
		}
	}
	radius := 0.0
	if v, ok := extrasObject(nd.Extras)["radius"]; ok {
		// A radius that is there but unusable is said as such, not left to
		// read as a missing one.
		if r, isNumber := v.(float64); isNumber && r > 0 && finite(r) {
			radius = r
		} else {
			l.warn("node %d (%s): extras.radius %s is not a positive number: ignored", node, nd.Name, jsonText(v))
		}
	}
	for p, prim := range l.doc.Meshes[m].Primitives {
		// The material (the variant's, where one is chosen) decides whether
		// the geometry needs tangents; a skipped primitive's material is
		// not looked at further, as before variants.
		mat, matErr := l.primitiveMaterialIndex(prim)
		needTangents := matErr == nil && mat >= 0 && l.sc.Materials[mat].NeedsTangents()
		g, ok, err := l.geometry(m, p, prim, needTangents, radius)
		if err != nil {
			return fmt.Errorf("mesh %d (%s) primitive %d: %w", m, l.doc.Meshes[m].Name, p, err)
		}
		if !ok {
			continue
		}
		if matErr != nil {
			return fmt.Errorf("mesh %d primitive %d: %w", m, p, matErr)
		}
		if mat < 0 {
			mat = l.defaultMaterial()
		}
		if err := l.charge(int64(len(transforms))*int64(unsafe.Sizeof(Instance{})), "instances"); err != nil {
			return err
		}
		for _, t := range transforms {
			l.sc.Instances = append(l.sc.Instances, Instance{Geometry: g, Transform: t, Material: mat, Node: node})
		}
	}
	return nil
}

// primitiveMaterialIndex is the material a primitive is drawn with: the
// chosen variant's mapping, else its own, else −1 for glTF's default.
func (l *loader) primitiveMaterialIndex(p *gltf.Primitive) (int, error) {
	if l.variantIdx >= 0 {
		v, err := extension[materialVariants](p.Extensions, extVariants)
		if err != nil {
			return 0, err
		}
		if v != nil {
			for _, m := range v.Mappings {
				if slices.Contains(m.Variants, l.variantIdx) {
					if m.Material < 0 || m.Material >= len(l.doc.Materials) {
						return 0, fmt.Errorf("%s: material %d does not exist (%d in the file)", extVariants, m.Material, len(l.doc.Materials))
					}
					return m.Material, nil
				}
			}
		}
	}
	if p.Material == nil {
		return -1, nil
	}
	if *p.Material < 0 || *p.Material >= len(l.doc.Materials) {
		return 0, fmt.Errorf("material %d does not exist (%d in the file)", *p.Material, len(l.doc.Materials))
	}
	return *p.Material, nil
}

// instanceTransforms reads EXT_mesh_gpu_instancing's TRS accessors.
func (l *loader) instanceTransforms(inst *instancing) ([]Mat4, error) {
	count := -1
	var trs [3][]float32
	for k, name := range []string{"TRANSLATION", "ROTATION", "SCALE"} {
		v, c, err := l.attribute(inst.Attributes, name, count, 3+k%2)
		if err != nil {
			return nil, err
		}
		if v != nil {
			trs[k], count = v, len(v)/c
		}
	}
	if count < 0 {
		return nil, errors.New("no TRANSLATION, ROTATION or SCALE attribute")
	}
	if err := l.charge(int64(count)*int64(unsafe.Sizeof(Mat4{})), "instance transforms"); err != nil {
		return nil, err
	}
	out := make([]Mat4, count)
	for i := range out {
		t, r, s := [3]float64{}, [4]float64{0, 0, 0, 1}, [3]float64{1, 1, 1}
		for c := range 4 {
			if c < 3 && trs[0] != nil {
				t[c] = float64(trs[0][3*i+c])
			}
			if trs[1] != nil {
				r[c] = float64(trs[1][4*i+c])
			}
			if c < 3 && trs[2] != nil {
				s[c] = float64(trs[2][3*i+c])
			}
		}
		out[i] = TRS(t, r, s)
	}
	return out, nil
}

// attribute reads the accessor that attrs names for name, if any: comps
// components (one of those given) for each of n elements (any number when n
// is negative), every value finite.
func (l *loader) attribute(attrs map[string]int, name string, n int, comps ...int) ([]float32, int, error) {
	i, ok := attrs[name]
	if !ok {
		return nil, 0, nil
	}
	f, c, err := l.floats(i, comps...)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	if n >= 0 && len(f)/c != n {
		return nil, 0, fmt.Errorf("%s has %d elements where %d are needed", name, len(f)/c, n)
	}
	for k, v := range f {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, 0, fmt.Errorf("%s: element %d is not finite", name, k/c)
		}
	}
	return f, c, nil
}

// attributeNames lists a primitive's attributes in a stable order.
func attributeNames(p *gltf.Primitive) string {
	names := make([]string, 0, len(p.Attributes))
	for k, v := range p.Attributes {
		names = append(names, fmt.Sprintf("%s=%d", k, v))
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// jsonText is a JSON value as the file wrote it, for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
