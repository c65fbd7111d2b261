package cpu

import (
	"sertrace/render"
	"sertrace/scene"
)

// flatMeshes are the triangles of the meshes that one instance each
// places, in world space under one BVH, as Embree's top level holds them
// (tracer.go): a glTF scene is mostly such meshes, and per instance a ray
// would be moved into object space, set up for the slab and triangle tests
// and taken down a tree of its own.
type flatMeshes struct {
	bvh    *BVH
	leaves *triangleLeaves
	// owners are, in the order of the BVH's Prims (a leaf's together, as
	// its rows are), each triangle's instance and index in its mesh.
	owners []triangleOwner
	bounds scene.Bounds
	of     []bool // per instance: its triangles are here
	// mirrored: per instance, its transform turns the winding over, so a
	// triangle's side in world space is the other of its side in the mesh.
	mirrored []bool
}

// newFlatMeshes gathers the triangle meshes that exactly one instance
// places (and does not scale to nothing).
func newFlatMeshes(acc *Accel) *flatMeshes {
	sc := acc.scene
	f := &flatMeshes{of: make([]bool, len(sc.Instances)), mirrored: make([]bool, len(sc.Instances)), bounds: scene.EmptyBounds()}
	uses := map[scene.GeometryRef]int{}
	for _, in := range sc.Instances {
		uses[in.Geometry]++
	}
	var world scene.Mesh
	var owners []triangleOwner // by triangle
	for i, in := range sc.Instances {
		if in.Geometry.Kind != scene.Triangles || uses[in.Geometry] != 1 || acc.toObject[i] == (render.Affine{}) {
			continue
		}
		f.of[i], f.mirrored[i] = true, in.Transform.Mirrors()
		m := &sc.Meshes[in.Geometry.Index]
		base := uint32(len(world.Positions))
		for _, p := range m.Positions {
			world.Positions = append(world.Positions, acc.toWorld[i].Point(p))
		}
		for t := 0; t < m.TriangleCount(); t++ {
			world.Indices = append(world.Indices, base+m.Indices[3*t], base+m.Indices[3*t+1], base+m.Indices[3*t+2])
			owners = append(owners, triangleOwner{int32(i), int32(t)})
		}
	}
	if len(owners) == 0 {
		return f
	}
	f.bvh = BuildBVH(len(owners), func(t int) scene.Bounds {
		b := scene.EmptyBounds()
		for k := 0; k < 3; k++ {
			b.Extend(world.Positions[world.Indices[3*t+k]])
		}
		return b
	})
	f.leaves = newTriangleLeaves(f.bvh, &world)
	f.owners = make([]triangleOwner, len(f.bvh.Prims))
	for j, t := range f.bvh.Prims {
		f.owners[j] = owners[t]
	}
	// The box of what the tree holds: a vertex no triangle uses is not in
	// it, nor a triangle that a transform overflowing float32 made
	// infinite (BuildBVH leaves it out, so that instance is never hit).
	root := &f.bvh.Nodes[0]
	for c := 0; c < nodeWidth; c++ {
		if root.Child[c] >= 0 || root.Count[c] > 0 {
			f.bounds.Union(scene.Bounds{Min: scene.Vec3{X: root.Min[0][c], Y: root.Min[1][c], Z: root.Min[2][c]},
				Max: scene.Vec3{X: root.Max[0][c], Y: root.Max[1][c], Z: root.Max[2][c]}})
		}
	}
	return f
}

// triangleOwner is a flat triangle's instance and its index in its mesh.
type triangleOwner struct{ inst, prim int32 }

// has reports whether instance i's triangles are here.
func (f *flatMeshes) has(i int) bool { return f.of[i] }

// trace finds the ray's nearest hit among the flat meshes' triangles
// nearer than *tmax (with anyFirst, any hit), as traceInstance does.
func (f *flatMeshes) trace(acc *Accel, ray *Ray, br *boxRay, tmax *float32, best *Hit, anyFirst bool, w *walk) bool {
	if f.bvh == nil {
		return false
	}
	sr := newShearedRay(ray.Dir)
	tr := newTriRay(ray.Origin, &sr)
	var res triHits
	found := false
	w.start(f.bvh, ray.TMin)
	for first, count, ok := w.next(br, *tmax); ok; first, count, ok = w.next(br, *tmax) {
		// The leaf's hits nearest first: the first taken is its answer
		// (alpha masks can make holes).
		for hits, backs := f.leaves.test(first, count, ray.Origin, &sr, &tr, ray.TMin, *tmax, &res); hits != 0; {
			k := nearestLane(hits, &res.t)
			hits &^= 1 << k
			i, prim := f.owners[first+k].inst, f.owners[first+k].prim
			if !acc.opaque[i] && !acc.anyHit(int(i), int(prim), res.u[k], res.v[k], res.t[k]) {
				continue
			}
			kind := HitFrontFace
			if (backs&(1<<k) != 0) != f.mirrored[i] {
				kind = HitBackFace
			}
			*best, *tmax, found = Hit{T: res.t[k], Instance: i, Prim: prim, U: res.u[k], V: res.v[k], Kind: kind}, res.t[k], true
			if anyFirst {
				return true
			}
			break
		}
	}
	return found
}
