package scene

import "slices"

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
	// Hair and Particles say what each instance of swept spheres and of
	// spheres holds: how an exporter's strands and points arrived.
	Hair      []HairSummary     `json:"hair"`
	Particles []ParticleSummary `json:"particles"`
	// Cryptomatte is the names the mattes pick (render --aov
	// cryptomatte_*); LightGroups the groups the emitters' nodes name
	// (extras.sertrace.light_group), with "unassigned" where an emitter
	// is in none (the environment's is the render's to name).
	Cryptomatte CryptomatteNames `json:"cryptomatte"`
	LightGroups []string         `json:"light_groups"`
	Warnings    []string         `json:"warnings"`
}

// CryptomatteNames are the names of a scene's instances in each
// Cryptomatte matte, each once, sorted.
type CryptomatteNames struct {
	Objects   []string `json:"objects"`
	Materials []string `json:"materials"`
	Assets    []string `json:"assets"`
}

// HairSummary is one instance of a curve set: its strands (chains of
// segments), its radii in world units, and its material's hair model
// as the material's extras give it (null: the material is not hair).
type HairSummary struct {
	Name      string  `json:"name"` // the curve set's (its glTF mesh's)
	Material  string  `json:"material"`
	Strands   int     `json:"strands"`
	Segments  int     `json:"segments"`
	RadiusMin float32 `json:"radius_min"`
	RadiusMax float32 `json:"radius_max"`
	Model     *Hair   `json:"model"`
}

// ParticleSummary is one instance of a sphere set, radii in world units.
type ParticleSummary struct {
	Name      string  `json:"name"`
	Material  string  `json:"material"`
	Spheres   int     `json:"spheres"`
	RadiusMin float32 `json:"radius_min"`
	RadiusMax float32 `json:"radius_max"`
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
		Hair:        []HairSummary{},
		Particles:   []ParticleSummary{},
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
			set := &s.SphereSets[g.Index]
			out.InstancedSpheres += len(set.Centers)
			lo, hi := radiusRange(set.Radii, in.Transform)
			out.Particles = append(out.Particles, ParticleSummary{Name: set.Name, Material: s.materialName(in.Material),
				Spheres: len(set.Centers), RadiusMin: lo, RadiusMax: hi})
		case SweptSpheres:
			set := &s.CurveSets[g.Index]
			out.InstancedSegments += len(set.Segments)
			strands := 0
			for _, j := range set.Joins {
				if j&JoinedPrev == 0 {
					strands++
				}
			}
			lo, hi := radiusRange(set.Radii, in.Transform)
			h := HairSummary{Name: set.Name, Material: s.materialName(in.Material), Strands: strands,
				Segments: len(set.Segments), RadiusMin: lo, RadiusMax: hi}
			if in.Material >= 0 && in.Material < len(s.Materials) {
				h.Model = s.Materials[in.Material].Hair
			}
			out.Hair = append(out.Hair, h)
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
	out.Cryptomatte, out.LightGroups = s.compositingNames()
	return out
}

// compositingNames are the scene's Cryptomatte names and light groups
// (Summary's).
func (s *Scene) compositingNames() (CryptomatteNames, []string) {
	var c CryptomatteNames
	for i, in := range s.Instances {
		c.Objects = append(c.Objects, s.ObjectName(i))
		c.Materials = append(c.Materials, s.MaterialName(in.Material))
		c.Assets = append(c.Assets, s.AssetName(i))
	}
	for _, names := range []*[]string{&c.Objects, &c.Materials, &c.Assets} {
		slices.Sort(*names)
		*names = slices.Compact(*names)
		if *names == nil {
			*names = []string{}
		}
	}
	groups, unassigned := s.LightGroupNames()
	if unassigned && !slices.Contains(groups, UnassignedGroup) {
		groups = append(groups, UnassignedGroup)
	}
	return c, append([]string{}, groups...)
}

// materialName is material i's name, or "" where there is none.
func (s *Scene) materialName(i int) string {
	if i < 0 || i >= len(s.Materials) {
		return ""
	}
	return s.Materials[i].Name
}

// radiusRange is the smallest and largest of radii, scaled by the mean
// of the lengths of the transform t's axes (object to world).
func radiusRange(radii []float32, t Mat4) (lo, hi float32) {
	if len(radii) == 0 {
		return 0, 0
	}
	lo, hi = radii[0], radii[0]
	for _, r := range radii[1:] {
		lo, hi = min(lo, r), max(hi, r)
	}
	scale := (t.Column(0).Length() + t.Column(1).Length() + t.Column(2).Length()) / 3
	return lo * scale, hi * scale
}
