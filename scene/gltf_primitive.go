package scene

import (
	"fmt"

	"github.com/qmuntal/gltf"
)

// The attribute that gives points and lines their radius
// (docs/design/11-hair-and-particles.md).
const radiusAttribute = "_RADIUS"

// geometry returns the scene geometry of a primitive, converting it unless
// one with the same accessors was converted already (files often share
// accessors between primitives). ok is false for a primitive that is skipped
// (with a warning). radius is the node's extras.radius, the fallback for
// points and lines.
func (l *loader) geometry(m, p int, prim *gltf.Primitive, needTangents bool, radius float64) (GeometryRef, bool, error) {
	_, hasRadius := prim.Attributes[radiusAttribute]
	if hasRadius || !isCurveOrPoints(prim.Mode) {
		radius = 0 // the key must not split geometry that does not use it
	}
	indices := -1
	if prim.Indices != nil {
		indices = *prim.Indices
	}
	key := fmt.Sprintf("%d|%d|%s|%v|%g", prim.Mode, indices, attributeNames(prim), needTangents, radius)
	if e, ok := l.geometries[key]; ok {
		return e.ref, !e.skipped, nil
	}
	ref, ok, err := l.convertPrimitive(m, p, prim, needTangents, radius)
	if err != nil {
		return ref, false, err
	}
	l.geometries[key] = geometryEntry{ref: ref, skipped: !ok}
	return ref, ok, nil
}

func isCurveOrPoints(mode gltf.PrimitiveMode) bool {
	return mode == gltf.PrimitivePoints || mode == gltf.PrimitiveLines ||
		mode == gltf.PrimitiveLineLoop || mode == gltf.PrimitiveLineStrip
}

func (l *loader) convertPrimitive(m, p int, prim *gltf.Primitive, needTangents bool, radius float64) (GeometryRef, bool, error) {
	name := l.doc.Meshes[m].Name
	if len(l.doc.Meshes[m].Primitives) > 1 {
		name = fmt.Sprintf("%s#%d", name, p)
	}
	if _, ok := prim.Attributes[gltf.POSITION]; !ok {
		l.warn("mesh %d primitive %d has no POSITION: skipped", m, p)
		return GeometryRef{}, false, nil
	}
	pos, err := l.positions(prim.Attributes)
	if err != nil {
		return GeometryRef{}, false, err
	}
	var idx []uint32
	if prim.Indices != nil {
		if idx, err = l.indices(*prim.Indices, len(pos)); err != nil {
			return GeometryRef{}, false, err
		}
	} else {
		idx = make([]uint32, len(pos))
		for i := range idx {
			idx[i] = uint32(i)
		}
	}
	if isCurveOrPoints(prim.Mode) {
		radii, err := l.radii(prim, len(pos), radius)
		if err != nil {
			return GeometryRef{}, false, err
		}
		if radii == nil {
			l.warn("mesh %d primitive %d: %v without %s or node extras.radius: skipped", m, p, prim.Mode, radiusAttribute)
			return GeometryRef{}, false, nil
		}
		if prim.Mode == gltf.PrimitivePoints {
			return l.addSpheres(name, pos, radii, idx), true, nil
		}
		return l.addCurves(m, p, name, prim.Mode, pos, radii, idx), true, nil
	}
	tris, dropped := triangleList(prim.Mode, idx)
	if dropped > 0 {
		l.warn("mesh %d primitive %d: %d trailing indices do not make a whole triangle: ignored", m, p, dropped)
	}
	mesh := Mesh{Name: name, Positions: pos, Indices: tris, Bounds: EmptyBounds()}
	for _, v := range pos {
		mesh.Bounds.Extend(v)
	}
	if err := l.vertexAttributes(prim, &mesh); err != nil {
		return GeometryRef{}, false, err
	}
	if needTangents && mesh.Tangents == nil {
		if mesh.UV0 == nil {
			l.warn("mesh %d primitive %d: its material needs tangents (a normal map or anisotropy) but the mesh has no TEXCOORD_0: they are ignored", m, p)
		} else {
			mesh.Tangents = GenerateTangents(&mesh)
		}
	}
	l.sc.Meshes = append(l.sc.Meshes, mesh)
	return GeometryRef{Kind: Triangles, Index: len(l.sc.Meshes) - 1}, true, nil
}

// positions reads POSITION, whose coordinates must be finite.
func (l *loader) positions(attrs map[string]int) ([]Vec3, error) {
	f, _, err := l.attribute(attrs, gltf.POSITION, -1, 3)
	if err != nil {
		return nil, err
	}
	return vec3s(f), nil
}

func vec3s(f []float32) []Vec3 {
	out := make([]Vec3, len(f)/3)
	for k := range out {
		out[k] = Vec3{f[3*k], f[3*k+1], f[3*k+2]}
	}
	return out
}

// radii returns one radius per vertex: _RADIUS, or the node's fallback, or
// nil when there is neither.
func (l *loader) radii(prim *gltf.Primitive, n int, fallback float64) ([]float32, error) {
	r, _, err := l.attribute(prim.Attributes, radiusAttribute, n, 1)
	if err != nil || r != nil {
		for k, v := range r {
			if v < 0 {
				return nil, fmt.Errorf("%s: radius %d is %v, negative", radiusAttribute, k, v)
			}
		}
		return r, err
	}
	if fallback <= 0 {
		return nil, nil
	}
	r = make([]float32, n)
	for k := range r {
		r[k] = float32(fallback)
	}
	return r, nil
}

func (l *loader) addSpheres(name string, pos []Vec3, radii []float32, idx []uint32) GeometryRef {
	s := SphereSet{Name: name, Centers: make([]Vec3, len(idx)), Radii: make([]float32, len(idx)), Bounds: EmptyBounds()}
	for k, v := range idx {
		c, r := pos[v], radii[v]
		s.Centers[k], s.Radii[k] = c, r
		s.Bounds.ExtendBall(c, r)
	}
	l.sc.SphereSets = append(l.sc.SphereSets, s)
	return GeometryRef{Kind: Spheres, Index: len(l.sc.SphereSets) - 1}
}

// addCurves turns LINES, LINE_STRIP or LINE_LOOP into linear swept spheres
// in successive indexing: a segment continues the previous one when it
// starts where that one ends, and then shares its vertex. A loop's closing
// joint (its last segment ends where its first starts) is not chained: see
// JoinedPrev.
func (l *loader) addCurves(m, p int, name string, mode gltf.PrimitiveMode, pos []Vec3, radii []float32, idx []uint32) GeometryRef {
	var pairs [][2]uint32
	switch mode {
	case gltf.PrimitiveLines:
		if len(idx)%2 != 0 {
			l.warn("mesh %d primitive %d: an odd trailing LINES index is ignored", m, p)
		}
		for k := 0; k+1 < len(idx); k += 2 {
			pairs = append(pairs, [2]uint32{idx[k], idx[k+1]})
		}
	default: // strip and loop
		for k := 0; k+1 < len(idx); k++ {
			pairs = append(pairs, [2]uint32{idx[k], idx[k+1]})
		}
		if mode == gltf.PrimitiveLineLoop && len(idx) > 2 {
			pairs = append(pairs, [2]uint32{idx[len(idx)-1], idx[0]})
		}
	}
	c := CurveSet{Name: name, Bounds: EmptyBounds()}
	push := func(v uint32) {
		c.Positions = append(c.Positions, pos[v])
		c.Radii = append(c.Radii, radii[v])
		r := radii[v]
		c.Bounds.ExtendBall(pos[v], r)
	}
	for k, s := range pairs {
		chained := k > 0 && pairs[k-1][1] == s[0]
		if chained {
			c.Joins[k-1] |= JoinedNext
			c.Segments = append(c.Segments, uint32(len(c.Positions)-1))
			c.Joins = append(c.Joins, JoinedPrev)
		} else {
			push(s[0])
			c.Segments = append(c.Segments, uint32(len(c.Positions)-1))
			c.Joins = append(c.Joins, 0)
		}
		push(s[1])
	}
	l.sc.CurveSets = append(l.sc.CurveSets, c)
	return GeometryRef{Kind: SweptSpheres, Index: len(l.sc.CurveSets) - 1}
}

// triangleList expands strips and fans into a triangle list; dropped counts
// indices left over at the end of a list.
func triangleList(mode gltf.PrimitiveMode, idx []uint32) (tris []uint32, dropped int) {
	switch mode {
	case gltf.PrimitiveTriangleStrip:
		for i := 0; i+2 < len(idx); i++ {
			// glTF: triangle i is {i, i+(1+i%2), i+(2−i%2)}, which keeps the winding.
			tris = append(tris, idx[i], idx[i+1+i%2], idx[i+2-i%2])
		}
		return tris, 0
	case gltf.PrimitiveTriangleFan:
		for i := 1; i+1 < len(idx); i++ {
			tris = append(tris, idx[i], idx[i+1], idx[0])
		}
		return tris, 0
	}
	n := len(idx) / 3 * 3
	return idx[:n:n], len(idx) - n
}

// vertexAttributes reads the optional per-vertex attributes of a triangle mesh.
func (l *loader) vertexAttributes(prim *gltf.Primitive, mesh *Mesh) error {
	n := len(mesh.Positions)
	f, _, err := l.attribute(prim.Attributes, gltf.NORMAL, n, 3)
	if err != nil {
		return err
	}
	if f != nil {
		mesh.Normals = vec3s(f)
		for k := range mesh.Normals {
			mesh.Normals[k] = mesh.Normals[k].Normalize()
		}
	}
	if f, _, err = l.attribute(prim.Attributes, gltf.TANGENT, n, 4); err != nil {
		return err
	}
	if f != nil {
		mesh.Tangents = make([]Vec4, n)
		for k := range mesh.Tangents {
			t := Vec3{f[4*k], f[4*k+1], f[4*k+2]}.Normalize()
			w := float32(1)
			if f[4*k+3] < 0 {
				w = -1
			}
			mesh.Tangents[k] = Vec4{t.X, t.Y, t.Z, w}
		}
	}
	for set, dst := range []*[]Vec2{&mesh.UV0, &mesh.UV1} {
		if f, _, err = l.attribute(prim.Attributes, fmt.Sprintf("TEXCOORD_%d", set), n, 2); err != nil {
			return err
		}
		if f != nil {
			*dst = make([]Vec2, n)
			for k := range *dst {
				(*dst)[k] = Vec2{f[2*k], f[2*k+1]}
			}
		}
	}
	f, c, err := l.attribute(prim.Attributes, "COLOR_0", n, 3, 4)
	if err != nil {
		return err
	}
	if f != nil {
		mesh.Colors = make([]Vec4, n)
		for k := range mesh.Colors {
			mesh.Colors[k] = Vec4{f[c*k], f[c*k+1], f[c*k+2], 1}
			if c == 4 {
				mesh.Colors[k].W = f[c*k+3]
			}
		}
	}
	return nil
}
