package scene

// Summary is what `sertrace inspect` reports: counts, bounds and warnings.
type Summary struct {
	Source             string   `json:"source"`
	Meshes             int      `json:"meshes"`              // triangle geometries (one per distinct glTF primitive)
	Triangles          int      `json:"triangles"`           // in the meshes, each counted once
	InstancedTriangles int      `json:"instanced_triangles"` // as rendered
	SphereSets         int      `json:"sphere_sets"`
	Spheres            int      `json:"spheres"`
	InstancedSpheres   int      `json:"instanced_spheres"`
	CurveSets          int      `json:"curve_sets"`
	LSSSegments        int      `json:"lss_segments"`
	InstancedSegments  int      `json:"instanced_lss_segments"`
	Instances          int      `json:"instances"`
	Materials          int      `json:"materials"`
	EmissiveMaterials  int      `json:"emissive_materials"`
	HairMaterials      int      `json:"hair_materials"`
	Textures           int      `json:"textures"`
	Lights             int      `json:"lights"` // KHR_lights_punctual lights placed by nodes
	Cameras            int      `json:"cameras"`
	CameraNames        []string `json:"camera_names"`
	DefaultCamera      bool     `json:"default_camera"` // the loader made one: the file has none
	Bounds             Bounds   `json:"bounds"`
	Variants           []string `json:"variants"` // KHR_materials_variants, for --variant
	Warnings           []string `json:"warnings"`
}

// Summarize counts what the scene holds.
func (s *Scene) Summarize() Summary {
	out := Summary{
		Source:      s.Source,
		Meshes:      len(s.Meshes),
		SphereSets:  len(s.SphereSets),
		CurveSets:   len(s.CurveSets),
		Instances:   len(s.Instances),
		Materials:   len(s.Materials),
		Textures:    len(s.Textures),
		Lights:      len(s.Lights),
		Bounds:      s.Bounds,
		Variants:    append([]string{}, s.Variants...),
		Warnings:    append([]string{}, s.Warnings...),
		CameraNames: []string{},
	}
	for i := range s.Meshes {
		out.Triangles += s.Meshes[i].TriangleCount()
	}
	for i := range s.SphereSets {
		out.Spheres += len(s.SphereSets[i].Centers)
	}
	for i := range s.CurveSets {
		out.LSSSegments += len(s.CurveSets[i].Segments)
	}
	for _, in := range s.Instances {
		switch g := in.Geometry; g.Kind {
		case Triangles:
			out.InstancedTriangles += s.Meshes[g.Index].TriangleCount()
		case Spheres:
			out.InstancedSpheres += len(s.SphereSets[g.Index].Centers)
		case SweptSpheres:
			out.InstancedSegments += len(s.CurveSets[g.Index].Segments)
		}
	}
	for i := range s.Materials {
		if s.Materials[i].Emits() {
			out.EmissiveMaterials++
		}
		if s.Materials[i].Hair != nil {
			out.HairMaterials++
		}
	}
	for _, c := range s.Cameras {
		if c.Generated {
			out.DefaultCamera = true
			continue
		}
		out.Cameras++
		out.CameraNames = append(out.CameraNames, c.Name)
	}
	if out.Bounds.Empty() {
		out.Bounds = Bounds{}
	}
	return out
}
