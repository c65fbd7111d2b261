package scene

// GenerateTangents computes per-vertex tangents from the UV0 parameterisation
// for a mesh whose normal map needs them: each triangle's UV-space tangent
// and bitangent are accumulated at its vertices, weighted by area, then made
// orthogonal to the vertex normal (Gram–Schmidt), with the bitangent's
// handedness in w. This is Lengyel's method; it agrees with MikkTSpace on
// the well-parameterised meshes that normal maps are baked on.
func GenerateTangents(m *Mesh) []Vec4 {
	n := len(m.Positions)
	tan := make([]Vec3, n)
	bit := make([]Vec3, n)
	normals := m.Normals
	if normals == nil {
		// Flat-shaded: accumulate face normals to orthogonalise against.
		normals = make([]Vec3, n)
	}
	for t := 0; t < m.TriangleCount(); t++ {
		i0, i1, i2 := m.Indices[3*t], m.Indices[3*t+1], m.Indices[3*t+2]
		e1, e2 := m.Positions[i1].Sub(m.Positions[i0]), m.Positions[i2].Sub(m.Positions[i0])
		du1, dv1 := m.UV0[i1].X-m.UV0[i0].X, m.UV0[i1].Y-m.UV0[i0].Y
		du2, dv2 := m.UV0[i2].X-m.UV0[i0].X, m.UV0[i2].Y-m.UV0[i0].Y
		det := du1*dv2 - du2*dv1
		if det == 0 {
			continue
		}
		// Weight by area: the unnormalised solution scales with 1/|det| in
		// UV and with the edge lengths in space; sign(det) keeps orientation.
		r := 1 / det
		sdir := e1.Scale(dv2 * r).Sub(e2.Scale(dv1 * r))
		tdir := e2.Scale(du1 * r).Sub(e1.Scale(du2 * r))
		area := e1.Cross(e2).Length()
		sdir, tdir = sdir.Normalize().Scale(area), tdir.Normalize().Scale(area)
		for _, i := range [3]uint32{i0, i1, i2} {
			tan[i] = tan[i].Add(sdir)
			bit[i] = bit[i].Add(tdir)
		}
		if m.Normals == nil {
			fn := e1.Cross(e2)
			for _, i := range [3]uint32{i0, i1, i2} {
				normals[i] = normals[i].Add(fn)
			}
		}
	}
	out := make([]Vec4, n)
	for i := range out {
		nv := normals[i].Normalize()
		t := tan[i].Sub(nv.Scale(nv.Dot(tan[i]))).Normalize()
		if t == (Vec3{}) {
			t = anyPerpendicular(nv)
		}
		// glTF's bitangent, cross(N, T)·w, points towards decreasing v (the
		// texture's up, since v runs down the image).
		w := float32(1)
		if nv.Cross(t).Dot(bit[i]) > 0 {
			w = -1
		}
		out[i] = Vec4{t.X, t.Y, t.Z, w}
	}
	return out
}

// anyPerpendicular returns a unit vector perpendicular to n (or X for n = 0).
func anyPerpendicular(n Vec3) Vec3 {
	if n == (Vec3{}) {
		return Vec3{1, 0, 0}
	}
	if n.X*n.X < 0.5 {
		return Vec3{1, 0, 0}.Sub(n.Scale(n.X)).Normalize()
	}
	return Vec3{0, 1, 0}.Sub(n.Scale(n.Y)).Normalize()
}
