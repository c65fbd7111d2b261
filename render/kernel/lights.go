package kernel

import (
	"math"

	"sertrace/render/layout"
	"sertrace/scene"
)

// SphereCone is how a sphere of radius r at distance² d2 from a point looks
// from it: 1 − cos θmax of the cone it subtends, computed without
// cancellation for small spheres; ok is false when the point is inside or
// the cone is empty (light sampling skips the sphere there, and its pdf is 0).
func SphereCone(d2, r float32) (oneMinusCos float32, ok bool) {
	sin2 := r * r / d2
	if !(sin2 < 1) {
		return 0, false
	}
	omc := sin2 / (1 + float32(math.Sqrt(float64(1-sin2))))
	return omc, omc > 0
}

// SampleSphere picks a direction toward a sphere (centre c, radius r) seen
// from p uniformly in the cone it subtends: the direction, the distance to
// the sphere's nearer point along it and the solid-angle pdf. ok is false
// when p is inside.
func SampleSphere(p, c scene.Vec3, r, u1, u2 float32) (wi scene.Vec3, dist, pdf float32, ok bool) {
	toC := c.Sub(p)
	d2 := toC.Dot(toC)
	omc, ok := SphereCone(d2, r)
	if !ok {
		return wi, 0, 0, false
	}
	d := Sqrt32(d2)
	f := NewFrame(toC.Scale(1 / d))
	// cos θ uniform in [cos θmax, 1], kept as 1 − cos θ for small cones.
	omcT := u1 * omc
	cosT := 1 - omcT
	sinT := Sqrt32(omcT * (2 - omcT))
	s, co := math.Sincos(2 * math.Pi * float64(u2))
	wi = f.T.Scale(sinT * float32(co)).Add(f.B.Scale(sinT * float32(s))).Add(f.N.Scale(cosT))
	// The nearer intersection of p + t·wi with the sphere.
	dist = d*cosT - Sqrt32(r*r-d2*sinT*sinT)
	if !(dist > 0) {
		return wi, 0, 0, false
	}
	return wi, dist, 1 / (2 * math.Pi * omc), true
}

// Lights is what light sampling reads of the scene: the shared light
// sampler (render.LightTable on the CPU, the light buffers on the GPU) and
// the environment, and of the emitters its entries name their geometry,
// their materials' emission and its texels (EmissiveTriangle,
// SphereLight).
type Lights interface {
	Geometry
	Texels
	// LightCount is the number of light entries (0: no lights).
	LightCount() int
	// ColumnCount is the number of columns of the alias table that picks
	// a light, or the light tree that then picks one, and LightColumn is
	// column c.
	ColumnCount() int
	LightColumn(c int) layout.LightColumn
	// LightPdf is the probability that entry k's column is picked (for a
	// light of the tree, the tree's).
	LightPdf(k int) float32
	// LightEntry is entry k.
	LightEntry(k int) layout.LightEntry
	// LightNodeCount is the number of nodes of the light tree (0: none,
	// every light its own column), and LightNode is node i (0: the root,
	// the tree having two lights at least).
	LightNodeCount() int
	LightNode(i int) layout.LightNode
	// FirstLight is the entry of instance inst's triangle or sphere 0, or
	// −1 where its material emits nothing.
	FirstLight(inst int) int
	// TriangleEmitter is the triangle entry k names, as
	// NewTriangleEmitter makes it: the CPU makes each once, the GPU at
	// every sample.
	TriangleEmitter(k int) TriangleEmitter
	// MaterialEmissive, MaterialEmissiveTex and MaterialFlags are
	// material m's emissive factor, its texture and its layout.Mat* flags.
	MaterialEmissive(m int32) scene.Vec3
	MaterialEmissiveTex(m int32) layout.TextureRef
	MaterialFlags(m int32) uint32
	// Punctual is KHR_lights_punctual light i.
	Punctual(i int) layout.Light
	// EnvSample samples a direction toward the environment: it, the
	// radiance arriving along it and its solid-angle pdf (0: none).
	EnvSample(u1, u2 float32) (d, radiance scene.Vec3, pdf float32)
	// EnvPdf is the solid-angle pdf with which EnvSample picks d.
	EnvPdf(d scene.Vec3) float32
	// EnvRadiance is the radiance arriving from the environment along d.
	EnvRadiance(d scene.Vec3) scene.Vec3
	// EnvIndex is the environment's entry, or −1.
	EnvIndex() int
	// InstanceLightGroup and EnvLightGroup are the light groups of
	// instance inst's emission and of the environment (render.LightGroups;
	// 0 in a render without groups).
	InstanceLightGroup(inst uint32) uint32
	EnvLightGroup() uint32
}

// TriangleEmitter is an emissive triangle in world space, as light
// sampling reads it (Lights.TriangleEmitter): its vertex 0, its edges to
// vertices 1 and 2 and its unit front-face normal (as Shade decides it:
// object winding, normal matrix); OK is false for a degenerate one.
type TriangleEmitter struct {
	P0, E1, E2 scene.Vec3
	N          scene.Vec3
	OK         bool
}

// NewTriangleEmitter is instance inst's triangle tri as an emitter.
func NewTriangleEmitter(geo Geometry, inst, tri uint32) TriangleEmitter {
	mesh := geo.InstanceGeometry(inst)
	i0, i1, i2 := geo.TriangleVertices(mesh, tri)
	o0, o1, o2 := geo.VertexPosition(mesh, i0), geo.VertexPosition(mesh, i1), geo.VertexPosition(mesh, i2)
	world := geo.ToWorld(inst)
	p0, p1, p2 := AffinePoint(&world, o0), AffinePoint(&world, o1), AffinePoint(&world, o2)
	inv := geo.ToObject(inst)
	t := TriangleEmitter{P0: p0, E1: p1.Sub(p0), E2: p2.Sub(p0), N: NormalToWorld(&inv, o1.Sub(o0).Cross(o2.Sub(o0)))}
	t.OK = t.N != (scene.Vec3{}) && t.E1.Cross(t.E2) != (scene.Vec3{})
	return t
}

// EmissiveTriangle is the point at barycentrics bu, bv (of vertices 1 and
// 2) of the triangle light entry k names, in world space: the point, the
// triangle's unit front-face normal, the radiance it emits there (its
// emissive texture applied) and whether its material is double-sided; ok
// is false for a degenerate triangle.
func EmissiveTriangle(ls Lights, k int, bu, bv float32) (q, n, le scene.Vec3, doubleSided, ok bool) {
	t := ls.TriangleEmitter(k)
	if !t.OK {
		return q, n, le, false, false
	}
	e := ls.LightEntry(k)
	m := ls.InstanceMaterial(uint32(e.Instance))
	return t.P0.Add(t.E1.Scale(bu)).Add(t.E2.Scale(bv)), t.N, TriangleEmission(ls, e, m, bu, bv), ls.MaterialFlags(m)&layout.MatDoubleSided != 0, true
}

// TriangleEmission is the radiance that triangle light entry e, of
// material m, emits at barycentrics bu, bv: the material's emissive
// factor, times its emissive texture where it has one.
func TriangleEmission(ls Lights, e layout.LightEntry, m int32, bu, bv float32) scene.Vec3 {
	le := ls.MaterialEmissive(m)
	if tex := ls.MaterialEmissiveTex(m); tex.Texture >= 0 {
		uv, _ := HitAttributes(ls, uint32(e.Instance), uint32(e.Index), bu, bv)
		et, _ := SampleTexture(ls, &tex, &uv)
		le = le.Mul3(et)
	}
	return le
}

// SphereLight is the world centre and radius of the sphere light entry k
// names, and the radiance it emits.
func SphereLight(ls Lights, k int) (c scene.Vec3, r float32, le scene.Vec3) {
	e := ls.LightEntry(k)
	inst := uint32(e.Instance)
	world := ls.ToWorld(inst)
	c = AffinePoint(&world, ls.SphereCenter(ls.InstanceGeometry(inst), uint32(e.Index)))
	return c, Sqrt32(e.Area / (4 * math.Pi)), ls.MaterialEmissive(ls.InstanceMaterial(inst))
}

// A triangle light is sampled uniformly in the solid angle it subtends
// (SampleSphericalTriangle) where that lies between SphericalTriangleMin
// and SphericalTriangleMax steradians (BySolidAngle), uniformly on its
// area elsewhere. Near
// a large triangle, sampling its area leaves the 1/d² and the cosines of
// the points it draws in the estimate: the halo that a lamp throws on the
// ceiling it hangs from, seen in a Cornell box, is then a few rare samples
// a hundred times its mean. A triangle of less than a thousandth of a
// steradian looks the same from all its points to within a few per cent,
// and its vertices' directions agree too closely for float32 to find its
// angles; beyond 2.5 sr the point lies nearly in its plane, its angles
// near π, where float32 Arvo draws a sliver's directions a few per cent
// off (and where a mesh's lights are seldom seen from).
// Nor where one of its angles passes SphericalTriangleMaxAngle (its
// cosine below SphericalTriangleMinCos, about 172°): a triangle seen
// nearly edge on, or a needle, whose spherical triangle float32 Arvo
// samples up to 0.7% off (TestSphericalTriangleSlivers).
const (
	SphericalTriangleMin    = 1e-3
	SphericalTriangleMax    = 2.5
	SphericalTriangleMinCos = -0.99
)

// BySolidAngle says whether a triangle of solid angle omega and unit
// vertex directions a, b, c is sampled by its solid angle (else by its
// area): SampleTriangle and PdfEmitter both ask it.
func BySolidAngle(omega float32, a, b, c scene.Vec3) bool {
	cosAtA, cosAtB, cosAtC := VertexAngles(a, b, c)
	return bySolidAngleCos(omega, cosAtA, cosAtB, cosAtC)
}

// bySolidAngleCos is BySolidAngle of the vertex angles' cosines.
func bySolidAngleCos(omega, cosAtA, cosAtB, cosAtC float32) bool {
	return omega > SphericalTriangleMin && omega < SphericalTriangleMax &&
		cosAtA > SphericalTriangleMinCos && cosAtB > SphericalTriangleMinCos && cosAtC > SphericalTriangleMinCos
}

// VertexAngles are the cosines of the spherical triangle's angles at its
// unit vertices a, b and c.
func VertexAngles(a, b, c scene.Vec3) (cosAtA, cosAtB, cosAtC float32) {
	return cosVertexAngle(a, b, c), cosVertexAngle(b, c, a), cosVertexAngle(c, a, b)
}

// TriangleSolidAngle is the solid angle that the triangle with vertex p0
// and edges e1, e2 subtends from p, by Van Oosterom and Strackee's formula
// (tan Ω/2 as a triple product over a sum of lengths and dot products,
// exact for small triangles where the sum of the spherical angles less π
// cancels), and the unit directions from p to its three vertices. omega
// is not positive for a degenerate triangle or a p in its plane.
func TriangleSolidAngle(p, p0, e1, e2 scene.Vec3) (omega float32, a, b, c scene.Vec3) {
	a = p0.Sub(p)
	b = a.Add(e1)
	c = a.Add(e2)
	la, lb, lc := a.Length(), b.Length(), c.Length()
	if !(la > 0 && lb > 0 && lc > 0) {
		return 0, a, b, c
	}
	num := float32(math.Abs(float64(a.Dot(b.Cross(c)))))
	den := la*lb*lc + a.Dot(b)*lc + a.Dot(c)*lb + b.Dot(c)*la
	omega = 2 * float32(math.Atan2(float64(num), float64(den)))
	return omega, a.Scale(1 / la), b.Scale(1 / lb), c.Scale(1 / lc)
}

// cosVertexAngle is the cosine of the spherical triangle's angle at unit
// vertex a, between the arcs to b and to c: of their tangents there.
func cosVertexAngle(a, b, c scene.Vec3) float32 {
	tb := b.Sub(a.Scale(a.Dot(b))).Normalize()
	tc := c.Sub(a.Scale(a.Dot(c))).Normalize()
	return tb.Dot(tc)
}

// SampleSphericalTriangle is a direction drawn uniformly within the
// spherical triangle of unit vertices a, b, c and area omega, by Arvo's
// method (1995): u1 fixes the point c' on the arc from a to c that cuts off
// the triangle a, b, c' of area u1·omega, and u2 the point on the arc from
// b to c', by the cosine of its angle from b, uniform. The vertices are
// first turned (their order kept) so that the one of the smallest angle
// is a: in float32 the formula for c' is otherwise ill-conditioned on a
// sliver (a lamp's 1 cm side, 50 cm long), and the directions it drew
// were off by up to 1% of the irradiance, depending on which vertex the
// mesh lists first (TestSphericalTriangleSlivers).
func SampleSphericalTriangle(a, b, c scene.Vec3, omega, u1, u2 float32) scene.Vec3 {
	cosAtA, cosAtB, cosAtC := VertexAngles(a, b, c)
	return sphericalTriangleSample(a, b, c, cosAtA, cosAtB, cosAtC, omega, u1, u2)
}

// sphericalTriangleSample is SampleSphericalTriangle with the vertex
// angles' cosines (VertexAngles) given.
func sphericalTriangleSample(a, b, c scene.Vec3, cosAtA, cosAtB, cosAtC, omega, u1, u2 float32) scene.Vec3 {
	if cosAtB > cosAtA && cosAtB >= cosAtC {
		a, b, c = b, c, a
	} else if cosAtC > cosAtA && cosAtC > cosAtB {
		a, b, c = c, a, b
	}
	// The angle α at a by its cosine and sine.
	tb := b.Sub(a.Scale(a.Dot(b))).Normalize()
	tc := c.Sub(a.Scale(a.Dot(c))).Normalize()
	cosA := max(-1, min(1, tb.Dot(tc)))
	sinA := tb.Cross(tc).Length()
	// With the area Â = u1·omega: s and t are sin and cos of Â − α.
	sa, ca := math.Sincos(float64(u1 * omega))
	s := float32(sa)*cosA - float32(ca)*sinA
	t := float32(ca)*cosA + float32(sa)*sinA
	u := t - cosA
	v := s + sinA*a.Dot(b)
	// q: the cosine of the arc from a to c'.
	q := ((v*t-u*s)*cosA - v) / ((v*s + u*t) * sinA)
	q = max(-1, min(1, q))
	cp := a.Scale(q).Add(tc.Scale(Sqrt32(1 - q*q)))
	z := 1 - u2*(1-cp.Dot(b))
	z = max(-1, min(1, z))
	tcp := cp.Sub(b.Scale(cp.Dot(b))).Normalize()
	return b.Scale(z).Add(tcp.Scale(Sqrt32(1 - z*z)))
}

// SampleTriangle draws a point of triangle light entry k, picked with
// probability sel, as seen from p (by its solid angle or its area, as the
// constants above say): false where it cannot light p.
func SampleTriangle(ls Lights, out *LightSample, k int, sel float32, p scene.Vec3, u1, u2 float32) bool {
	t := ls.TriangleEmitter(k)
	if !t.OK {
		return false
	}
	e := ls.LightEntry(k)
	m := ls.InstanceMaterial(uint32(e.Instance))
	doubleSided := ls.MaterialFlags(m)&layout.MatDoubleSided != 0
	// The side of the triangle p is on: the one its front faces, or either
	// of a double-sided one's.
	side := t.N.Dot(p.Sub(t.P0))
	if side == 0 || !doubleSided && side < 0 {
		return false
	}
	omega, a, b, c := TriangleSolidAngle(p, t.P0, t.E1, t.E2)
	var wi scene.Vec3
	var dist, bu, bv, pdf float32
	cosAtA, cosAtB, cosAtC := VertexAngles(a, b, c)
	if bySolidAngleCos(omega, cosAtA, cosAtB, cosAtC) {
		wi = sphericalTriangleSample(a, b, c, cosAtA, cosAtB, cosAtC, omega, u1, u2)
		// Where the direction crosses the triangle (Möller and Trumbore):
		// its distance and barycentrics, which rounding may put a hair
		// outside the edges.
		pv := wi.Cross(t.E2)
		det := t.E1.Dot(pv)
		if det == 0 {
			return false
		}
		tv := p.Sub(t.P0)
		qv := tv.Cross(t.E1)
		bu = tv.Dot(pv) / det
		bv = wi.Dot(qv) / det
		dist = t.E2.Dot(qv) / det
		bu, bv = max(bu, 0), max(bv, 0)
		if sum := bu + bv; sum > 1 {
			bu, bv = bu/sum, bv/sum
		}
		pdf = sel / omega
	} else {
		// Uniform on the area: barycentrics of vertices 1 and 2.
		su := Sqrt32(u1)
		bu, bv = u2*su, su*(1-u2)
		d := t.P0.Add(t.E1.Scale(bu)).Add(t.E2.Scale(bv)).Sub(p)
		dist = d.Length()
		if !(dist > 0) {
			return false
		}
		wi = d.Scale(1 / dist)
		cosL := float32(math.Abs(float64(t.N.Dot(wi))))
		if !(cosL > 0) {
			return false
		}
		pdf = sel / e.Area * dist * dist / cosL
	}
	if !(dist > 0) || !(pdf > 0) || t.N.Dot(wi) == 0 {
		return false
	}
	le := TriangleEmission(ls, e, m, bu, bv)
	*out = LightSample{Wi: wi, Dist: dist, Radiance: le, Pdf: pdf, Group: ls.InstanceLightGroup(uint32(e.Instance))}
	return true
}

// LightSample is a sampled light direction and what arrives along it.
type LightSample struct {
	Wi       scene.Vec3 // towards the light, unit
	Dist     float32    // to the light point; +Inf for distant lights
	Radiance scene.Vec3 // incident radiance (area lights), or with the selection and attenuation folded in (delta lights)
	Pdf      float32    // solid-angle pdf including selection; 0 for delta lights
	Delta    bool
	Group    uint32 // the light group of the light it came from
}

// PickLight chooses the light entry that next-event estimation samples as
// seen from p, and the probability of choosing it (k < 0: none). u picks
// the alias table's column, coin keeps it or takes its alias (one number
// for both would leave the coin 2^24/n values); a column of the light
// tree descends it with what is left of u.
func PickLight(ls Lights, p scene.Vec3, u, coin float32) (k int, sel float32) {
	n := ls.ColumnCount()
	un := u * float32(n)
	c := min(int(un), n-1)
	rest := min(un-float32(c), layout.OneBelowOne) // uniform in [0, 1) whichever column u lands in
	col := ls.LightColumn(c)
	if !(coin < col.Prob) {
		col = ls.LightColumn(int(col.Alias))
	}
	if col.Entry >= 0 {
		return int(col.Entry), ls.LightPdf(int(col.Entry))
	}
	k, pmf := TreePick(ls, p, rest)
	if k < 0 {
		return -1, 0
	}
	return k, ls.LightPdf(k) * pmf
}

// LightImportance is a conservative estimate of what the lights under
// child c of a light tree's node give point p, for choosing between two
// children: their power over the squared distance to their bounding
// sphere's centre (no less than its radius²), times the cosine of the
// smallest angle by which any of them can emit toward p. It is 0 only
// where none of them can: where p lies beyond θo + θe of the normals'
// cone, seen over the bounding sphere's cone. The shading normal is left
// out: PdfEmitter, which must give the same probability, knows only the
// previous vertex's position.
func LightImportance(c *layout.LightChild, p scene.Vec3) float32 {
	toP := p.Sub(c.Center)
	if c.Flags&layout.LightChildPlanar != 0 && !(c.Axis.Dot(toP) > 0) {
		return 0 // behind one-sided lights in one plane
	}
	d2 := toP.Dot(toP)
	r2 := c.Radius * c.Radius
	if !(d2 > r2) { // p within the bounding sphere, which sees every direction
		return c.Phi / max(r2, 1e-30)
	}
	if !(c.CosO > -1) { // normals every way
		return c.Phi / d2
	}
	// With d = |toP|: cos θw = a/d, sin θw = s/d; θb, the bounding
	// sphere's half-angle seen from p, has cos q/d and sin r/d. Kept as
	// numerators over d: two roots, and the divisions left to the end.
	a := c.Axis.Dot(toP)
	if c.Flags&layout.LightChildTwoSided != 0 {
		a = float32(math.Abs(float64(a)))
	}
	s := Sqrt32(max(d2-a*a, 0))
	q := Sqrt32(d2 - r2)
	// θx = θw − θo, and θ' = max(θx − θb, 0), as cosines.
	cosX, sinX := a*c.CosO+s*c.SinO, s*c.CosO-a*c.SinO
	if sinX < 0 || sinX == 0 && cosX > 0 { // θw ≤ θo: some normal points at p
		return c.Phi / d2
	}
	if cosX >= q { // θx ≤ θb
		return c.Phi / d2
	}
	cosT := cosX*q + sinX*c.Radius // cos θ' · d²
	if cosT <= c.CosE*d2 {
		return 0
	}
	return c.Phi * (cosT / d2) / d2
}

// ChildShare is the probability with which the light tree's descent at p
// takes node n's child A (B's is 1 − it), in proportion to their
// LightImportance; ok is false where neither can light p. TreePick and
// TreePmf both take it, so they make the same choices.
func ChildShare(n *layout.LightNode, p scene.Vec3) (pa float32, ok bool) {
	ia, ib := LightImportance(&n.A, p), LightImportance(&n.B, p)
	if !(ia+ib > 0) {
		return 0, false
	}
	return ia / (ia + ib), true
}

// LightTreeFlat is the most lights a light tree holds that is not
// descended but read whole: TreePick weighs each of them by its own
// LightImportance at p and picks one in proportion. Descending costs two
// importances a level, so a small tree is read whole for about the price
// of its descent, and the choice is the light's own rather than one made
// from bounds that hold lights of every side: a ceiling lamp's small side
// faces and its bottom in one node, where the ceiling beside a side face
// sees none of them but that face.
const LightTreeFlat = 16

// flatWalk is one pass over a small tree's leaves at p, each weighed by
// its LightImportance. With k < 0 it picks one in proportion with u
// (weighted reservoir sampling: each light replaces the one kept with
// probability its share of the weight so far, u rescaled at each
// choice); else it reads entry k's weight on the way, and picks none:
// the entry picked (−1 where none is, or none can light p), its weight,
// k's and their sum. flatPick and flatPmf both take it, so they see the
// same weights summed in the same order.
func flatWalk(ls Lights, p scene.Vec3, u float32, k int) (picked int, kept, wk, sum float32) {
	picked = -1
	for i := range ls.LightNodeCount() {
		n := ls.LightNode(i)
		for side := range 2 {
			c := n.A
			if side == 1 {
				c = n.B
			}
			if c.Flags&layout.LightChildLeaf == 0 {
				continue
			}
			w := LightImportance(&c, p)
			if !(w > 0) {
				continue
			}
			sum += w
			if k >= 0 {
				if int(c.Next) == k {
					wk = w
				}
				continue
			}
			share := w / sum
			if u < share {
				picked, kept = int(c.Next), w
				u = min(u/share, layout.OneBelowOne)
			} else {
				u = min((u-share)/(1-share), layout.OneBelowOne)
			}
		}
	}
	return picked, kept, wk, sum
}

// flatPick picks one of a small tree's lights in proportion to its
// LightImportance at p: the light's entry and the probability of picking
// it (k < 0: none can light p).
func flatPick(ls Lights, p scene.Vec3, u float32) (k int, pmf float32) {
	k, kept, _, sum := flatWalk(ls, p, u, -1)
	if k < 0 {
		return -1, 0
	}
	return k, kept / sum
}

// flatPmf is the probability with which flatPick picks light entry k at
// p.
func flatPmf(ls Lights, k int, p scene.Vec3) float32 {
	if k < 0 {
		return 0
	}
	_, _, wk, sum := flatWalk(ls, p, 0, k)
	if !(sum > 0) {
		return 0
	}
	return wk / sum
}

// TreePick descends the light tree from its root to a light, choosing at
// each node a child in proportion to its LightImportance at p with u
// (what is left of it picking further down): the light's entry and the
// probability of reaching it (k < 0: none can light p). A tree of
// LightTreeFlat lights or fewer is read whole instead (flatPick).
func TreePick(ls Lights, p scene.Vec3, u float32) (k int, pmf float32) {
	if ls.LightNodeCount() < LightTreeFlat {
		return flatPick(ls, p, u)
	}
	pmf = 1
	n := ls.LightNode(0)
	for range layout.LightTreeDepth {
		pa, ok := ChildShare(&n, p)
		if !ok {
			return -1, 0
		}
		next, flags := n.B.Next, n.B.Flags
		if u < pa {
			u = min(u/pa, layout.OneBelowOne)
			pmf *= pa
			next, flags = n.A.Next, n.A.Flags
		} else {
			u = min((u-pa)/(1-pa), layout.OneBelowOne)
			pmf *= 1 - pa
		}
		if flags&layout.LightChildLeaf != 0 {
			return int(next), pmf
		}
		n = ls.LightNode(int(next))
	}
	return -1, 0 // (trails hold the tree's depth: never)
}

// TreePmf is the probability with which TreePick reaches light entry k,
// whose trail from the root is trail, seen from p: the same products of
// the same choices (flatPmf for a tree read whole).
func TreePmf(ls Lights, k int, trail uint32, p scene.Vec3) float32 {
	if ls.LightNodeCount() < LightTreeFlat {
		return flatPmf(ls, k, p)
	}
	pmf := float32(1)
	n := ls.LightNode(0)
	for d := range layout.LightTreeDepth {
		pa, ok := ChildShare(&n, p)
		if !ok {
			return 0
		}
		next, flags := n.B.Next, n.B.Flags
		if trail>>uint32(d)&1 == 0 {
			pmf *= pa
			next, flags = n.A.Next, n.A.Flags
		} else {
			pmf *= 1 - pa
		}
		if flags&layout.LightChildLeaf != 0 {
			return pmf
		}
		n = ls.LightNode(int(next))
	}
	return 0
}

// SampleLight draws a light point as seen from p, with the numbers u and
// coin (which light) and u1, u2 (where on it), into out; false when there
// is none to draw or it cannot reach p.
func SampleLight(ls Lights, out *LightSample, p scene.Vec3, u, coin, u1, u2 float32) bool {
	if ls.LightCount() == 0 {
		return false
	}
	k, sel := PickLight(ls, p, u, coin)
	if !(sel > 0) {
		return false
	}
	e := ls.LightEntry(k)
	switch e.Kind {
	case layout.LightTriangle:
		return SampleTriangle(ls, out, k, sel, p, u1, u2)
	case layout.LightSphere:
		c, r, le := SphereLight(ls, k)
		wi, dist, pdf, ok := SampleSphere(p, c, r, u1, u2)
		if !ok {
			return false
		}
		*out = LightSample{Wi: wi, Dist: dist, Radiance: le, Pdf: sel * pdf, Group: ls.InstanceLightGroup(uint32(e.Instance))}
		return true
	case layout.LightEnvironment:
		d, le, pdf := ls.EnvSample(u1, u2)
		if pdf <= 0 {
			return false
		}
		*out = LightSample{Wi: d, Dist: float32(math.Inf(1)), Radiance: le, Pdf: sel * pdf, Group: ls.EnvLightGroup()}
		return true
	}
	l := ls.Punctual(int(e.Index))
	le := l.Color.Scale(l.Intensity / sel)
	if int(l.Kind) == layout.PunctualDirectional {
		*out = LightSample{Wi: l.Direction.Scale(-1), Dist: float32(math.Inf(1)), Radiance: le, Delta: true, Group: l.Group}
		return true
	}
	d := l.Position.Sub(p)
	dist := d.Length()
	if dist == 0 {
		return false
	}
	wi := d.Scale(1 / dist)
	att := 1 / (dist * dist)
	if int(l.Kind) == layout.PunctualSpot {
		// KHR_lights_punctual's smooth falloff between the cone angles.
		cosIn, cosOut := float32(math.Cos(float64(l.InnerCone))), float32(math.Cos(float64(l.OuterCone)))
		cd := l.Direction.Dot(wi.Scale(-1))
		f := Clamp01((cd - cosOut) / max(cosIn-cosOut, layout.SpotConeMin))
		att *= f * f
	}
	if att <= 0 {
		return false
	}
	*out = LightSample{Wi: wi, Dist: dist, Radiance: le.Scale(att), Delta: true, Group: l.Group}
	return true
}

// PdfEmitter is the solid-angle pdf with which SampleLight picks the point
// that a ray from origin hit at distance t on primitive prim (a triangle
// or a sphere) of instance inst, whose normal there makes cosL with the
// way back.
func PdfEmitter(ls Lights, inst, prim int, t, cosL float32, origin scene.Vec3) float32 {
	first := ls.FirstLight(inst)
	if first < 0 || ls.LightCount() == 0 || cosL <= 0 {
		return 0
	}
	k := first + prim
	sel := ls.LightPdf(k)
	if !(sel > 0) {
		return 0
	}
	e := ls.LightEntry(k)
	if ls.LightNodeCount() > 0 { // then every light with a place in the table has one in the tree
		sel *= TreePmf(ls, k, e.Trail, origin)
	}
	if e.Kind == layout.LightSphere {
		c, r, _ := SphereLight(ls, k)
		toC := c.Sub(origin)
		omc, ok := SphereCone(toC.Dot(toC), r)
		if !ok {
			return 0
		}
		return sel / (2 * math.Pi * omc)
	}
	tri := ls.TriangleEmitter(k)
	omega, a, b, c := TriangleSolidAngle(origin, tri.P0, tri.E1, tri.E2)
	if BySolidAngle(omega, a, b, c) {
		return sel / omega
	}
	return sel / e.Area * t * t / cosL
}

// PdfEnvironment is the solid-angle pdf with which SampleLight picks
// direction d toward the environment.
func PdfEnvironment(ls Lights, d scene.Vec3) float32 {
	if ls.EnvIndex() < 0 || ls.LightCount() == 0 {
		return 0
	}
	return ls.LightPdf(ls.EnvIndex()) * ls.EnvPdf(d)
}
