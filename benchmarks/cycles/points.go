package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// pointsFile is the buffer pointsAsMeshes writes its spheres into.
const pointsFile = "points-as-meshes.bin"

// pointsAsMeshes replaces each POINTS primitive with radii (sertrace's
// particles, which Blender's importer leaves as bare vertices) by a
// triangle mesh of a UV sphere of sides sides around at each point, of the
// same radius and material, written into a buffer of its own in dir: both
// renderers then render the same triangles (-points-as-meshes). It returns
// how many spheres it made.
func pointsAsMeshes(doc map[string]any, dir string, sides int) (int, error) {
	var pos, nrm []float32
	var idx []uint32
	type prim struct {
		p     map[string]any
		first int // its triangles' first index and count
		count int
		v0    int // its first vertex
		vn    int
		lo    [3]float32
		hi    [3]float32
	}
	var prims []prim
	spheres := 0
	meshes, _ := doc["meshes"].([]any)
	for _, m := range meshes {
		ps, _ := m.(map[string]any)["primitives"].([]any)
		for _, p := range ps {
			pm, _ := p.(map[string]any)
			attrs, _ := pm["attributes"].(map[string]any)
			mode, _ := pm["mode"].(float64)
			if mode != 0 || pm["mode"] == nil || attrs["_RADIUS"] == nil {
				continue
			}
			centres, err := readFloats(doc, dir, attrs["POSITION"], 3)
			if err != nil {
				return 0, err
			}
			radii, err := readFloats(doc, dir, attrs["_RADIUS"], 1)
			if err != nil {
				return 0, err
			}
			if len(radii)*3 != len(centres) {
				return 0, fmt.Errorf("a POINTS primitive has %d positions and %d radii", len(centres)/3, len(radii))
			}
			spheres += len(radii)
			pr := prim{p: pm, first: len(idx), v0: len(pos) / 3, lo: [3]float32{inf, inf, inf}, hi: [3]float32{-inf, -inf, -inf}}
			verts, tris := uvSphere(sides)
			for i, r := range radii {
				base := uint32(len(pos)/3 - pr.v0)
				for _, v := range verts {
					for k := range 3 {
						x := centres[3*i+k] + r*v[k]
						pos = append(pos, x)
						nrm = append(nrm, v[k]/float32(meanWidth(sides)))
						pr.lo[k], pr.hi[k] = min(pr.lo[k], x), max(pr.hi[k], x)
					}
				}
				for _, t := range tris {
					idx = append(idx, base+t[0], base+t[1], base+t[2])
				}
			}
			pr.count, pr.vn = len(idx)-pr.first, len(pos)/3-pr.v0
			prims = append(prims, pr)
		}
	}
	if len(prims) == 0 {
		return 0, nil
	}
	// One buffer: positions, normals, indices; a view and accessors per
	// primitive.
	data := make([]byte, 0, 4*(len(pos)+len(nrm)+len(idx)))
	for _, f := range pos {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(f))
	}
	for _, f := range nrm {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(f))
	}
	for _, i := range idx {
		data = binary.LittleEndian.AppendUint32(data, i)
	}
	if err := os.WriteFile(filepath.Join(dir, pointsFile), data, 0o644); err != nil {
		return 0, err
	}
	buffers, _ := doc["buffers"].([]any)
	doc["buffers"] = append(buffers, map[string]any{"uri": pointsFile, "byteLength": len(data)})
	buffer := len(buffers)
	views, _ := doc["bufferViews"].([]any)
	accessors, _ := doc["accessors"].([]any)
	view := func(offset, length, target int) int {
		views = append(views, map[string]any{"buffer": buffer, "byteOffset": offset, "byteLength": length, "target": target})
		return len(views) - 1
	}
	accessor := func(a map[string]any) int {
		accessors = append(accessors, a)
		return len(accessors) - 1
	}
	nrmAt, idxAt := 4*len(pos), 4*(len(pos)+len(nrm))
	for _, pr := range prims {
		p := accessor(map[string]any{"bufferView": view(12*pr.v0, 12*pr.vn, 34962), "componentType": 5126, "count": pr.vn, "type": "VEC3",
			"min": pr.lo[:], "max": pr.hi[:]})
		n := accessor(map[string]any{"bufferView": view(nrmAt+12*pr.v0, 12*pr.vn, 34962), "componentType": 5126, "count": pr.vn, "type": "VEC3"})
		i := accessor(map[string]any{"bufferView": view(idxAt+4*pr.first, 4*pr.count, 34963), "componentType": 5125, "count": pr.count, "type": "SCALAR"})
		pr.p["attributes"] = map[string]any{"POSITION": p, "NORMAL": n}
		pr.p["indices"] = i
		pr.p["mode"] = 4
	}
	doc["bufferViews"], doc["accessors"] = views, accessors
	return spheres, nil
}

var inf = float32(math.Inf(1))

// uvSphere is a unit UV sphere, poles on z, sides around and sides/2 rings,
// scaled so that its mean width is the sphere's (as cycles.py's
// sphere_mesh makes Cycles' hair tubes' joints): its vertices and its
// triangles, wound outwards.
func uvSphere(sides int) ([][3]float32, [][3]uint32) {
	rings := sides / 2
	s := float32(meanWidth(sides))
	verts := [][3]float32{{0, 0, -s}, {0, 0, s}}
	for i := 1; i < rings; i++ {
		t := math.Pi * float64(i) / float64(rings)
		for k := range sides {
			a := 2 * math.Pi * (float64(k) + 0.5) / float64(sides)
			verts = append(verts, [3]float32{s * float32(math.Sin(t)*math.Cos(a)), s * float32(math.Sin(t)*math.Sin(a)), -s * float32(math.Cos(t))})
		}
	}
	ring := func(i, k int) uint32 { return uint32(2 + (i-1)*sides + (k % sides)) }
	var tris [][3]uint32
	for k := range sides {
		tris = append(tris, [3]uint32{0, ring(1, k+1), ring(1, k)}, [3]uint32{1, ring(rings-1, k), ring(rings-1, k+1)})
	}
	for i := 1; i < rings-1; i++ {
		for k := range sides {
			tris = append(tris, [3]uint32{ring(i, k), ring(i, k+1), ring(i+1, k+1)}, [3]uint32{ring(i, k), ring(i+1, k+1), ring(i+1, k)})
		}
	}
	return verts, tris
}

// meanWidth is the circumradius of a regular polygon of sides sides whose
// mean width is the unit circle's.
func meanWidth(sides int) float64 {
	return math.Pi / (float64(sides) * math.Sin(math.Pi/float64(sides)))
}

// readFloats reads accessor a (an index in doc) of float32 components, n
// a element, from its buffer's file in dir.
func readFloats(doc map[string]any, dir string, a any, n int) ([]float32, error) {
	ai, ok := a.(float64)
	accessors, _ := doc["accessors"].([]any)
	if !ok || int(ai) < 0 || int(ai) >= len(accessors) {
		return nil, fmt.Errorf("accessor %v does not exist", a)
	}
	acc, _ := accessors[int(ai)].(map[string]any)
	if ct, _ := acc["componentType"].(float64); ct != 5126 {
		return nil, fmt.Errorf("accessor %v: component type %v, not float", a, acc["componentType"])
	}
	count, _ := acc["count"].(float64)
	vi, _ := acc["bufferView"].(float64)
	views, _ := doc["bufferViews"].([]any)
	if int(vi) >= len(views) {
		return nil, fmt.Errorf("accessor %v: no buffer view", a)
	}
	view, _ := views[int(vi)].(map[string]any)
	bi, _ := view["buffer"].(float64)
	buffers, _ := doc["buffers"].([]any)
	if int(bi) >= len(buffers) {
		return nil, fmt.Errorf("accessor %v: no buffer", a)
	}
	uri, _ := buffers[int(bi)].(map[string]any)["uri"].(string)
	data, err := os.ReadFile(filepath.Join(dir, uri))
	if err != nil {
		return nil, err
	}
	vo, _ := view["byteOffset"].(float64)
	ao, _ := acc["byteOffset"].(float64)
	stride, _ := view["byteStride"].(float64)
	if stride == 0 {
		stride = float64(4 * n)
	}
	out := make([]float32, 0, int(count)*n)
	for i := range int(count) {
		at := int(vo) + int(ao) + i*int(stride)
		if at+4*n > len(data) {
			return nil, fmt.Errorf("accessor %v overruns its buffer", a)
		}
		for k := range n {
			out = append(out, math.Float32frombits(binary.LittleEndian.Uint32(data[at+4*k:])))
		}
	}
	return out, nil
}
