package cpu

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"sertrace/render"
	"sertrace/render/cpu/embree"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// The tracers behind Accel: sertrace's own BVH, or Intel Embree where it
// loads (render.Options.Accel). Both report the same hits: instance,
// primitive, u/v, hit kind and distance.

// NewAccel builds the acceleration structure the choice names ("embree",
// "bvh", or "" and "auto": Embree where it loads). It says what it chose
// ("embree 3.13.5", "bvh") and, for auto without Embree, why not.
func NewAccel(sc *scene.Scene, anyHit AnyHit, choice string) (acc *Accel, chosen, note string, err error) {
	if err := render.CheckAccel(choice); err != nil {
		return nil, "", "", err
	}
	if choice == render.AccelBVH {
		return BuildAccel(sc, anyHit), render.AccelBVH, "", nil
	}
	if far := sc.Reach(); far >= embreeReach {
		// Embree asserts that a ray's origin lies within its FLT_LARGE and
		// aborts the process otherwise: such a scene is not given to it.
		why := fmt.Errorf("%s %.3g from the origin, beyond the %.3g Embree accepts", sceneReachNote, far, embreeReach)
		if choice == render.AccelEmbree {
			return nil, "", "", fmt.Errorf("--accel embree: %v", why)
		}
		return BuildAccel(sc, anyHit), render.AccelBVH, fmt.Sprintf("tracing with sertrace's BVH, not Embree: %v", why), nil
	}
	dev, err := embree.Open()
	if err == nil {
		acc, err = buildEmbreeAccel(sc, anyHit, dev)
		if err == nil {
			return acc, "embree " + dev.Version, "", nil
		}
	}
	if choice == render.AccelEmbree {
		return nil, "", "", fmt.Errorf("--accel embree: %v", err)
	}
	return BuildAccel(sc, anyHit), render.AccelBVH, fmt.Sprintf("tracing with sertrace's BVH, not Embree: %v", err), nil
}

// sceneReachNote opens the reason a scene too large for Embree gives.
const sceneReachNote = "the scene reaches"

// embreeReach is how far from the origin Embree takes a ray's origin: its
// FLT_LARGE (1.844e18), with a margin.
const embreeReach = 1e18

// embreeNoteOnce makes auto's reason for not using Embree said once per
// process, not once per job of a batch.
var embreeNoteOnce sync.Once

// buildEmbreeAccel gives every instance's geometry to Embree: triangles
// (alpha-masked ones with the any-hit test as a filter), spheres (with exit
// hits where render.ExitHits keeps them) and round linear curves, placed by
// their instances' transforms.
func buildEmbreeAccel(sc *scene.Scene, anyHit AnyHit, dev *embree.Device) (*Accel, error) {
	acc := newAccel(sc, anyHit)
	type key struct {
		g     scene.GeometryRef
		flags bool // exit hits (spheres) or alpha-masked (triangles)
	}
	keyOf := func(i int) key {
		in := &sc.Instances[i]
		k := key{g: in.Geometry}
		switch in.Geometry.Kind {
		case scene.Spheres:
			k.flags = acc.exitHits[i]
		case scene.Triangles:
			k.flags = !acc.opaque[i]
		}
		return k
	}
	uses := map[key]int{}
	for i := range sc.Instances {
		uses[keyOf(i)]++
	}
	var masked embree.AnyHit = func(inst, prim uint32, u, v, t float32) bool {
		return acc.opaque[inst] || anyHit(int(inst), int(prim), u, v, t)
	}
	es, err := dev.Build(func(es *embree.Scene) error {
		built := map[key]embree.Geometry{}
		kinds := make([]uint8, len(sc.Instances))
		for i, in := range sc.Instances {
			kinds[i] = [...]uint8{scene.Triangles: embree.KindFront, scene.Spheres: embree.KindSphere, scene.SweptSpheres: embree.KindCurve}[in.Geometry.Kind]
			if acc.toObject[i] == (render.Affine{}) {
				continue // scaled to nothing: never hit
			}
			k := keyOf(i)
			// A geometry placed once goes into the top level in world
			// space: no instance to traverse (spheres and curves only under
			// a uniform scale, which keeps them round).
			if uses[k] == 1 {
				if _, uniform := acc.toWorld[i].UniformScale(); uniform || in.Geometry.Kind == scene.Triangles {
					if _, err := embreeGeometry(sc, es, embree.Top(uint32(i)), k.g, k.flags, masked, &acc.toWorld[i]); err != nil {
						return err
					}
					// The object-space winding decides a triangle's front:
					// Embree's world normal does in the top level, unless a
					// mirroring transform put it there, reversing the winding.
					if in.Geometry.Kind == scene.Triangles && in.Transform.Mirrors() {
						kinds[i] = embree.KindInstancedTriangle
					}
					continue
				}
			}
			g, ok := built[k]
			if !ok {
				var err error
				if g, err = embreeGeometry(sc, es, embree.Own, k.g, k.flags, masked, nil); err != nil {
					return err
				}
				built[k] = g
			}
			if err := es.Place(g, uint32(i), acc.toWorld[i]); err != nil {
				return err
			}
			if in.Geometry.Kind == scene.Triangles {
				kinds[i] = embree.KindInstancedTriangle // Embree 3 gives its normal in object space
			}
		}
		for _, k := range kinds {
			acc.instancedTriangles = acc.instancedTriangles || k == embree.KindInstancedTriangle
			acc.curves = acc.curves || k == embree.KindCurve
		}
		es.SetKinds(kinds)
		return nil
	})
	if err != nil {
		return nil, err
	}
	acc.embree = es
	return acc, nil
}

// embreeGeometry gives Embree one geometry, in object space, or in world
// space by toWorld (a uniform scale for spheres and curves) when it is not
// nil.
func embreeGeometry(sc *scene.Scene, es *embree.Scene, to embree.Target, g scene.GeometryRef, flag bool, masked embree.AnyHit, toWorld *render.Affine) (embree.Geometry, error) {
	point, scale := func(p scene.Vec3) scene.Vec3 { return p }, float32(1)
	if toWorld != nil {
		point = toWorld.Point
		scale, _ = toWorld.UniformScale()
	}
	switch g.Kind {
	case scene.Spheres:
		s := &sc.SphereSets[g.Index]
		cr := make([]float32, 0, 4*len(s.Centers))
		for i, c := range s.Centers {
			r := s.Radii[i] * scale
			if !(r > 0) {
				r = 0
			}
			c = point(c)
			cr = append(cr, c.X, c.Y, c.Z, r)
		}
		return es.Spheres(to, cr, flag)
	case scene.SweptSpheres:
		c := &sc.CurveSets[g.Index]
		vr := make([]float32, 0, 4*len(c.Positions))
		for i, p := range c.Positions {
			p = point(p)
			vr = append(vr, p.X, p.Y, p.Z, c.Radii[i]*scale)
		}
		// A joint that the BVH leaves uncapped (JoinedPrev) has Embree's
		// neighbour flag, where the neighbour is the previous vertex's
		// segment: a loop's closing joint (its first segment starts at a
		// vertex of its own) keeps both caps, the same sphere twice.
		flags := make([]uint8, len(c.Segments))
		for i, first := range c.Segments {
			if c.Joins[i]&scene.JoinedPrev != 0 && i > 0 && c.Segments[i-1]+1 == first {
				flags[i] |= embree.NeighbourBefore
			}
		}
		return es.Curves(to, vr, c.Segments, flags, embree.StrandRule{TolTravel: layout.StrandTolTravel, TolPosition: layout.StrandTolPosition, TolRadius: layout.StrandTolRadius, Reach: layout.StrandReach})
	}
	m := &sc.Meshes[g.Index]
	pos := make([]float32, 0, 3*len(m.Positions))
	for _, p := range m.Positions {
		p = point(p)
		pos = append(pos, p.X, p.Y, p.Z)
	}
	var anyHit embree.AnyHit
	if flag {
		anyHit = masked
	}
	return es.Triangles(to, pos, m.Indices, anyHit)
}

// Embree writes the Go tracer's hits as they are: the two layouts and hit
// kinds are one.
var (
	_ [unsafe.Sizeof(Hit{}) - unsafe.Sizeof(embree.Hit{})]struct{}
	_ [unsafe.Sizeof(embree.Hit{}) - unsafe.Sizeof(Hit{})]struct{}
	_ [unsafe.Offsetof(Hit{}.Instance) - unsafe.Offsetof(embree.Hit{}.Inst)]struct{}
	_ [unsafe.Offsetof(Hit{}.Prim) - unsafe.Offsetof(embree.Hit{}.Prim)]struct{}
	_ [unsafe.Offsetof(Hit{}.U) - unsafe.Offsetof(embree.Hit{}.U)]struct{}
	_ [unsafe.Offsetof(Hit{}.Kind) - unsafe.Offsetof(embree.Hit{}.Kind)]struct{}
	_ [HitFrontFace - embree.KindFront]struct{}
	_ [embree.KindFront - HitFrontFace]struct{}
	_ [HitBackFace - embree.KindBack]struct{}
	_ [embree.KindBack - HitBackFace]struct{}
	_ [HitSphere - embree.KindSphere]struct{}
	_ [embree.KindSphere - HitSphere]struct{}
	_ [HitLinearSweptSphere - embree.KindCurve]struct{}
	_ [embree.KindCurve - HitLinearSweptSphere]struct{}
)

// Rays are passed to Embree as they are: the two layouts are one.
var (
	_ [unsafe.Sizeof(Ray{}) - unsafe.Sizeof(embree.Ray{})]struct{}
	_ [unsafe.Sizeof(embree.Ray{}) - unsafe.Sizeof(Ray{})]struct{}
	_ [unsafe.Offsetof(Ray{}.TMin) - unsafe.Offsetof(embree.Ray{}.TNear)]struct{}
	_ [unsafe.Offsetof(Ray{}.Dir) - unsafe.Offsetof(embree.Ray{}.Dir)]struct{}
	_ [unsafe.Offsetof(Ray{}.TMax) - unsafe.Offsetof(embree.Ray{}.TFar)]struct{}
)

func asEmbree(rays []Ray) []embree.Ray {
	return unsafe.Slice((*embree.Ray)(unsafe.Pointer(unsafe.SliceData(rays))), len(rays))
}

// IntersectAll finds the closest hit of every ray: with Embree in one call
// for all of them (coherent rays, side by side, in packets), with the BVH
// one by one.
func (acc *Accel) IntersectAll(rays []Ray, hits []Hit, found []bool, coherent bool) {
	var st *traceStacks // Embree's walks keep their own
	if acc.embree == nil {
		st = stacks.Get().(*traceStacks)
		defer stacks.Put(st)
	}
	acc.intersectAll(rays, hits, found, coherent, st)
}

// intersectAll is IntersectAll with the BVH walks' stacks given (a
// renderer's worker keeps its own).
func (acc *Accel) intersectAll(rays []Ray, hits []Hit, found []bool, coherent bool, st *traceStacks) {
	if acc.embree == nil {
		for i := range rays {
			hits[i], found[i] = acc.trace(&rays[i], false, st)
		}
		return
	}
	acc.embree.Intersect(asEmbree(rays), unsafe.Slice((*embree.Hit)(unsafe.Pointer(unsafe.SliceData(hits))), len(hits)), found, coherent)
	if acc.curves {
		// Embree's segment and u of a curve hit near a joint are where it
		// cuts segments by their neighbours: the shading's normal needs
		// the segment and sphere nearest to the hit, as the BVH's.
		for i := range rays {
			if h := &hits[i]; found[i] && h.Kind == HitLinearSweptSphere && (h.U < strandUEnds || h.U > 1-strandUEnds) {
				acc.strandU(h, &rays[i])
			}
		}
	}
	if !acc.instancedTriangles {
		return
	}
	// Embree 3 gives an instance's triangle normal in object space (and a
	// mirrored one in the top level has its winding reversed): the side is
	// decided here, by the object-space winding.
	for i := range rays {
		h := &hits[i]
		if found[i] && h.Kind == embree.KindInstancedTriangle {
			h.Kind = HitFrontFace
			if facesAway(&acc.scene.Meshes[acc.scene.Instances[h.Instance].Geometry.Index], int(h.Prim), acc.toObject[h.Instance].Vector(rays[i].Dir)) {
				h.Kind = HitBackFace
			}
		}
	}
}

// OccludedAll says for every ray whether anything blocks it.
func (acc *Accel) OccludedAll(rays []Ray, occluded []bool) {
	var st *traceStacks
	if acc.embree == nil {
		st = stacks.Get().(*traceStacks)
		defer stacks.Put(st)
	}
	acc.occludedAll(rays, occluded, st)
}

// occludedAll is OccludedAll with the BVH walks' stacks given.
func (acc *Accel) occludedAll(rays []Ray, occluded []bool, st *traceStacks) {
	if acc.embree == nil {
		for i := range rays {
			_, occluded[i] = acc.trace(&rays[i], true, st)
		}
		return
	}
	acc.embree.Occluded(asEmbree(rays), occluded)
}

// Release frees what the tracer holds outside Go's heap.
func (acc *Accel) Release() {
	if acc.embree != nil {
		acc.embree.Release()
		acc.embree = nil
	}
}

// strandUEnds: Embree's u within this of a segment's end is set again
// (within the segment, Embree's u is the nearest sphere's already).
const strandUEnds = 0.01

// strandU sets a curve hit's segment and u as the BVH's exact test
// reports them: the segment on whose surface the hit lies (Embree gives a
// chained segment's neighbour's surface near their joint to the segment
// itself) and the u of its sphere nearest to the hit.
func (acc *Accel) strandU(h *Hit, ray *Ray) {
	in := &acc.scene.Instances[h.Instance]
	c := &acc.scene.CurveSets[in.Geometry.Index]
	x := kernel.ToVec3d(acc.toObject[h.Instance].Point(ray.Origin.Add(ray.Dir.Scale(h.T))))
	best := math.Inf(1)
	try := func(p int) {
		v := c.Segments[p]
		a := kernel.ToVec3d(c.Positions[v])
		d, u := kernel.RoundConeNearest(x.Sub(a), kernel.ToVec3d(c.Positions[v+1]).Sub(a), float64(c.Radii[v]), float64(c.Radii[v+1]))
		if d = math.Abs(d); d < best {
			best, h.Prim, h.U = d, int32(p), float32(u)
		}
	}
	p := int(h.Prim)
	try(p)
	if c.Joins[p]&scene.JoinedPrev != 0 {
		try(p - 1)
	}
	if c.Joins[p]&scene.JoinedNext != 0 {
		try(p + 1)
	}
}
