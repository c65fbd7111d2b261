package furnace

import (
	"testing"

	"sertrace/scene"
)

// TestMeshesAreClosedAndOutward: every edge of the furnace meshes is shared
// by two triangles that run it in opposite directions, and every triangle
// faces away from the centre (the glass cases need the front face outside).
func TestMeshesAreClosedAndOutward(t *testing.T) {
	for _, m := range []scene.Mesh{sphereMesh(1, 8, 12), boxMesh(0.5)} {
		edges := map[[2]uint32]int{}
		for tri := 0; tri < m.TriangleCount(); tri++ {
			idx := m.Indices[3*tri : 3*tri+3]
			p0, p1, p2 := m.Positions[idx[0]], m.Positions[idx[1]], m.Positions[idx[2]]
			if n := p1.Sub(p0).Cross(p2.Sub(p0)); n.Dot(p0.Add(p1).Add(p2)) <= 0 {
				t.Errorf("%s: triangle %d faces inwards", m.Name, tri)
			}
			for k := 0; k < 3; k++ {
				edges[[2]uint32{idx[k], idx[(k+1)%3]}]++
			}
		}
		for e, count := range edges {
			if count != 1 || edges[[2]uint32{e[1], e[0]}] != 1 {
				t.Fatalf("%s: edge %v is used %d times, its reverse %d", m.Name, e, count, edges[[2]uint32{e[1], e[0]}])
			}
		}
	}
}
