package kernel

import (
	"sertrace/render/layout"
	"sertrace/scene"
)

// Geometry is what the kernel reads of the scene's instances and
// primitives: plain accessors, which the CPU reads from its slices and the
// GPU from its buffers. HitGeometry.Set and HitAttributes interpolate a
// hit from them, EmissiveTriangle and SphereLight an emitter.
type Geometry interface {
	// InstanceKind is instance inst's kind of geometry (layout.Kind*),
	// InstanceGeometry its index among the meshes, sphere sets or curve
	// sets of that kind and InstanceMaterial its material.
	InstanceKind(inst uint32) int
	InstanceGeometry(inst uint32) uint32
	InstanceMaterial(inst uint32) int32
	// ToWorld is instance inst's object-to-world affine, rows first;
	// ToObject is its inverse.
	ToWorld(inst uint32) [3]scene.Vec4
	ToObject(inst uint32) [3]scene.Vec4
	// TriangleVertices is mesh's triangle prim: its vertices' indices.
	TriangleVertices(mesh, prim uint32) (i0, i1, i2 uint32)
	// VertexPosition is mesh's vertex i's position, in object space.
	VertexPosition(mesh, i uint32) scene.Vec3
	// HasNormals, HasTexCoords (of UV set 0 or 1), HasColors and
	// HasTangents say which attributes mesh's vertices carry, and
	// VertexNormal, VertexTexCoord, VertexColor and VertexTangent are
	// vertex i's (a tangent's w is its bitangent's sign).
	HasNormals(mesh uint32) bool
	VertexNormal(mesh, i uint32) scene.Vec3
	HasTexCoords(mesh uint32, set int) bool
	VertexTexCoord(mesh uint32, set int, i uint32) (u, v float32)
	HasColors(mesh uint32) bool
	VertexColor(mesh, i uint32) scene.Vec4
	HasTangents(mesh uint32) bool
	VertexTangent(mesh, i uint32) scene.Vec4
	// SphereCenter is sphere i's centre in sphere set spheres, in object
	// space.
	SphereCenter(spheres, i uint32) scene.Vec3
	// SegmentPoints are the control points that segment prim of curve
	// set curves joins, in object space.
	SegmentPoints(curves, prim uint32) (a, b scene.Vec3)
}

// HitGeometry is what a hit's shading reads of the primitive it hit,
// interpolated from the scene's Geometry (Set); world space.
type HitGeometry struct {
	Kind    int        // the instance's geometry: layout.KindTriangles, KindSpheres or KindSweptSpheres
	Ng      scene.Vec3 // unit geometric normal (a triangle's by its object-space winding)
	Ns      scene.Vec3 // unit interpolated vertex normal, or zero
	Tangent scene.Vec4 // unit interpolated tangent and its bitangent's sign, or zero
	Fibre   scene.Vec3 // a swept sphere's segment, from its first vertex to its second
	UV      UVs
	Color   scene.Vec4 // the vertex colour, or white
}

// Set sets every field of g for a hit at world point p of instance inst's
// primitive prim, at its parameters u, v (a triangle's barycentrics of
// vertices 1 and 2, a swept sphere's place along its segment); the tangent
// only where tangents is true (zero otherwise, as the fields a primitive
// lacks).
func (g *HitGeometry) Set(geo Geometry, inst, prim uint32, u, v float32, p scene.Vec3, tangents bool) {
	kind := geo.InstanceKind(inst)
	index := geo.InstanceGeometry(inst)
	inv := geo.ToObject(inst)
	*g = HitGeometry{Kind: kind, Color: scene.Vec4{X: 1, Y: 1, Z: 1, W: 1}}
	switch kind {
	case layout.KindTriangles:
		i0, i1, i2 := geo.TriangleVertices(index, prim)
		// The object-space winding decides the front face; the normal
		// matrix keeps that side for mirrored instances, whose world
		// winding glTF defines as clockwise.
		p0, p1, p2 := geo.VertexPosition(index, i0), geo.VertexPosition(index, i1), geo.VertexPosition(index, i2)
		g.Ng = NormalToWorld(&inv, p1.Sub(p0).Cross(p2.Sub(p0)))
		g.UV, g.Color = triangleAttributes(geo, index, i0, i1, i2, u, v)
		w := 1 - u - v
		if geo.HasNormals(index) {
			n := geo.VertexNormal(index, i0).Scale(w).Add(geo.VertexNormal(index, i1).Scale(u)).Add(geo.VertexNormal(index, i2).Scale(v))
			g.Ns = NormalToWorld(&inv, n)
		}
		if tangents && geo.HasTangents(index) {
			t0, t1, t2 := geo.VertexTangent(index, i0), geo.VertexTangent(index, i1), geo.VertexTangent(index, i2)
			tw := xyz(t0).Scale(w).Add(xyz(t1).Scale(u)).Add(xyz(t2).Scale(v))
			world := geo.ToWorld(inst)
			tw = AffineVector(&world, tw).Normalize()
			g.Tangent = scene.Vec4{X: tw.X, Y: tw.Y, Z: tw.Z, W: t0.W}
		}
	case layout.KindSpheres:
		g.Ng = NormalToWorld(&inv, AffinePoint(&inv, p).Sub(geo.SphereCenter(index, prim)))
	case layout.KindSweptSpheres:
		a, b := geo.SegmentPoints(index, prim)
		g.Ng = NormalToWorld(&inv, SweptSphereNormal(AffinePoint(&inv, p), a, b, u))
		world := geo.ToWorld(inst)
		g.Fibre = AffineVector(&world, b.Sub(a))
	}
}

// HitAttributes is a triangle hit's texture coordinates and vertex
// colour (white where the mesh has none).
func HitAttributes(geo Geometry, inst, prim uint32, u, v float32) (uv UVs, color scene.Vec4) {
	mesh := geo.InstanceGeometry(inst)
	i0, i1, i2 := geo.TriangleVertices(mesh, prim)
	return triangleAttributes(geo, mesh, i0, i1, i2, u, v)
}

// triangleAttributes interpolates the UVs and the vertex colour of mesh's
// triangle of vertices i0, i1, i2 at barycentrics u, v.
func triangleAttributes(geo Geometry, mesh, i0, i1, i2 uint32, u, v float32) (uv UVs, color scene.Vec4) {
	w := 1 - u - v
	if geo.HasTexCoords(mesh, 0) {
		uv.U0, uv.V0 = texCoordAt(geo, mesh, 0, i0, i1, i2, u, v, w)
	}
	if geo.HasTexCoords(mesh, 1) {
		uv.U1, uv.V1 = texCoordAt(geo, mesh, 1, i0, i1, i2, u, v, w)
	}
	color = scene.Vec4{X: 1, Y: 1, Z: 1, W: 1}
	if geo.HasColors(mesh) {
		a, b, c := geo.VertexColor(mesh, i0), geo.VertexColor(mesh, i1), geo.VertexColor(mesh, i2)
		color = scene.Vec4{X: w*a.X + u*b.X + v*c.X, Y: w*a.Y + u*b.Y + v*c.Y, Z: w*a.Z + u*b.Z + v*c.Z, W: w*a.W + u*b.W + v*c.W}
	}
	return uv, color
}

// texCoordAt interpolates UV set set of vertices i0, i1, i2 by their
// weights w, u, v.
func texCoordAt(geo Geometry, mesh uint32, set int, i0, i1, i2 uint32, u, v, w float32) (s, t float32) {
	as, at := geo.VertexTexCoord(mesh, set, i0)
	bs, bt := geo.VertexTexCoord(mesh, set, i1)
	cs, ct := geo.VertexTexCoord(mesh, set, i2)
	return w*as + u*bs + v*cs, w*at + u*bt + v*ct
}

// xyz is a Vec4's first three components.
func xyz(v scene.Vec4) scene.Vec3 { return scene.Vec3{X: v.X, Y: v.Y, Z: v.Z} }

// AffinePoint transforms a point by a 3×4 affine m, rows first (an
// instance's ToWorld or ToObject, render.Affine).
func AffinePoint(m *[3]scene.Vec4, p scene.Vec3) scene.Vec3 {
	return scene.Vec3{
		X: m[0].X*p.X + m[0].Y*p.Y + m[0].Z*p.Z + m[0].W,
		Y: m[1].X*p.X + m[1].Y*p.Y + m[1].Z*p.Z + m[1].W,
		Z: m[2].X*p.X + m[2].Y*p.Y + m[2].Z*p.Z + m[2].W,
	}
}

// AffineVector transforms a direction by a 3×4 affine m.
func AffineVector(m *[3]scene.Vec4, v scene.Vec3) scene.Vec3 {
	return scene.Vec3{
		X: m[0].X*v.X + m[0].Y*v.Y + m[0].Z*v.Z,
		Y: m[1].X*v.X + m[1].Y*v.Y + m[1].Z*v.Z,
		Z: m[2].X*v.X + m[2].Y*v.Y + m[2].Z*v.Z,
	}
}

// NormalToWorld transforms an object-space normal by the inverse
// transpose, which the world-to-object affine inv holds (its transpose,
// read by columns), to unit length.
func NormalToWorld(inv *[3]scene.Vec4, n scene.Vec3) scene.Vec3 {
	return scene.Vec3{
		X: inv[0].X*n.X + inv[1].X*n.Y + inv[2].X*n.Z,
		Y: inv[0].Y*n.X + inv[1].Y*n.Y + inv[2].Y*n.Z,
		Z: inv[0].Z*n.X + inv[1].Z*n.Y + inv[2].Z*n.Z,
	}.Normalize()
}

// SweptSphereNormal is the outward normal at p of the round cone from a
// to b, given the hit's u: the direction from the centre of the sphere at
// u to p (object space).
func SweptSphereNormal(p, a, b scene.Vec3, u float32) scene.Vec3 {
	return p.Sub(a.Add(b.Sub(a).Scale(u))).Normalize()
}
