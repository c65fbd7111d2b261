// Package layout holds what the Go code and the shaders share, declared
// once: the structures that the Vulkan backend writes into buffers and the
// shaders read, in the scalar block layout (every member aligned to 4
// bytes, vectors packed), which is Go's own layout for these types; and the
// integrator's constants that the CPU backend and the shaders both use
// (integrator.go). The shaders' header shaders/generated/layout.glsl is
// generated from these declarations (`go generate ./render/layout`); a
// test fails when it is stale.
package layout

import "sertrace/scene"

//go:generate go run ./gen ../../shaders/generated/layout.glsl

// Geometry kinds: scene.GeometryKind's values.
const (
	KindTriangles    = int(scene.Triangles)
	KindSpheres      = int(scene.Spheres)
	KindSweptSpheres = int(scene.SweptSpheres)
)

// Hit kinds of procedural primitives, which their intersection shaders
// report (reportIntersectionEXT's hitKind, user values below 128; Vulkan's
// triangles report 0xFE and 0xFF): the CPU emulator's HitKind has them too.
const (
	HitKindSphere      = 3 // a particle
	HitKindSweptSphere = 4 // a hair segment (a linear swept sphere)
)

// The probe shader's functions (shaders/probe.comp), each a GLSL helper the
// tests hold against its Go function, and its records' sizes in floats.
const (
	ProbeRandom = iota
	ProbeSphere
	ProbeSweptSphere
	ProbeBSDFEval
	ProbeBSDFSample
	ProbeVisibleNormal
	ProbeHairEval
	ProbeHairSample
	ProbeCamera
	ProbeMovedOrigin
	ProbeHitCoin
	ProbeSpectrum
	ProbeRoundCone
	// probe_scene.comp's, which read a render's parameter block.
	ProbeLightSample
	ProbePdfEmitter
	ProbeEnvironment
	ProbeIn  = 39
	ProbeOut = 12
)

// A texture sampler's wrap modes: scene.Wrap's values.
const (
	WrapRepeat = int(scene.WrapRepeat)
	WrapClamp  = int(scene.WrapClamp)
	WrapMirror = int(scene.WrapMirror)
)

// Punctual light kinds: scene.LightKind's values.
const (
	PunctualPoint       = int(scene.PointLight)
	PunctualSpot        = int(scene.SpotLight)
	PunctualDirectional = int(scene.DirectionalLight)
)

// HitGroup is an instance's hit group: which closest-hit, any-hit and
// intersection shaders run for its hits. The GPU pipeline's shader binding
// table (an instance's offset in it is its hit group times RayTypes) and
// the CPU emulator's are both laid out by it, so the emulator's grouping by
// shader is the GPU's (render.HitGroupOf gives an instance's).
type HitGroup uint8

const (
	HitTriangles       HitGroup = iota // the surface shader
	HitTrianglesMasked                 // and the alpha-mask any-hit shader
	HitSpheres                         // the surface shader, the sphere intersection
	HitSweptSpheres                    // the surface shader, the swept-sphere intersection
	HitHair                            // the hair shader, the swept-sphere intersection
	HitGroupCount
)

// RayTypes are the pipeline's ray types: radiance and shadow.
const RayTypes = 2

// Material flags.
const (
	MatDoubleSided = 1
	MatVolume      = 2
	MatAlphaMask   = 4
	MatHair        = 8
	MatEmits       = 16
	MatUnlit       = 32 // KHR_materials_unlit
	MatAlphaBlend  = 64 // alphaMode BLEND: stochastic transparency
	// KHR_materials_pbrSpecularGlossiness: BaseColor is the diffuse
	// colour, SpecularColor (RGB of SpecularColorTex) the reflectance at
	// normal incidence, and the roughness 1 − Glossiness (times A of
	// SpecularColorTex).
	MatSpecularGlossiness = 128
)

// Instance flags.
const (
	InstanceExitHits = 1 // render.ExitHits: its spheres report the far side to rays from inside
)

// HairParams flags: which fields a material gave.
const (
	HairEumelanin   = 1
	HairPheomelanin = 2
	HairColor       = 4
	HairBetaM       = 8
	HairBetaN       = 16
	HairAlpha       = 32
	HairEta         = 64
	HairSigmaA      = 128 // Color holds σ_a itself
)

// Light kinds of the light sampler's entries.
const (
	LightTriangle    = 0
	LightPunctual    = 1
	LightEnvironment = 2
	LightSphere      = 3
)

// The light tree's child flags (LightChild.Flags) and its depth: a light's
// trail from the root (LightEntry.Trail) holds one bit a level.
const (
	LightChildLeaf     = 1 // Next is the light's entry
	LightChildTwoSided = 2 // its lights emit from both faces
	// LightChildPlanar: its lights are one-sided and lie in the plane
	// through Center square to Axis, facing +Axis (render.LightBounds).
	LightChildPlanar = 4
	LightTreeDepth   = 32
)

// Hint flags: what the reorder hint is built from.
const (
	HintMaterial  = 1 // the hit's material, in the low bits
	HintCoherence = 2 // Falcor-style coherence bits above it
)

// Film layers, each a float a launch's sampled pixel (three for colours)
// in the accumulation buffer: their names, and the index in Params.FilmAt of
// where each starts. A render's buffer holds the layers its film holds (and
// the cost and shadow-ray counts, which the ray statistics read), in this
// order; FilmNone marks the others, which the shaders do not write.
const (
	FilmBeauty     = 0  // 3 per pixel
	FilmAlbedo     = 3  // 3
	FilmNormal     = 6  // 3
	FilmDepth      = 9  // 1
	FilmLumSq      = 10 // 1
	FilmCost       = 11 // 1
	FilmPathLength = 12 // 1
	FilmShadowRays = 13 // 1
	FilmClock      = 14 // 1: shader-clock ticks, with the clock raygen
	// The denoiser's diffuse and specular split (render.Film's).
	FilmDiffuse        = 15 // 3
	FilmSpecular       = 18 // 3
	FilmDiffuseAlbedo  = 21 // 3
	FilmSpecularAlbedo = 24 // 3
	FilmDiffuseLumSq   = 27 // 1
	FilmSpecularLumSq  = 28 // 1
	FilmLayers         = 29
	FilmNone           = 0xffffffff
)

// TextureRef is a material's texture slot.
type TextureRef struct {
	Texture   int32 // −1: none
	TexCoord  uint32
	Transform [6]float32 // KHR_texture_transform, rows of a 2×3 matrix
}

// HairParams are a hair material's parameters as given.
type HairParams struct {
	Eumelanin   float32
	Pheomelanin float32
	Color       scene.Vec3 // the fibre colour, or σ_a itself under HairSigmaA
	BetaM       float32
	BetaN       float32
	Alpha       float32
	Eta         float32
	Set         uint32 // Hair* flags
}

// Material is a glTF material with its extensions.
type Material struct {
	BaseColor           scene.Vec4
	Emissive            scene.Vec3
	Metallic            float32
	Roughness           float32
	IOR                 float32
	Specular            float32
	SpecularColor       scene.Vec3
	Transmission        float32
	AttenuationColor    scene.Vec3
	AttenuationDistance float32
	NormalScale         float32
	AlphaCutoff         float32
	Flags               uint32 // Mat* flags
	BaseColorTex        TextureRef
	MetallicRoughness   TextureRef
	NormalTex           TextureRef
	EmissiveTex         TextureRef
	TransmissionTex     TextureRef
	SpecularTex         TextureRef
	SpecularColorTex    TextureRef
	// KHR_materials_clearcoat
	Clearcoat             float32
	ClearcoatRoughness    float32
	ClearcoatNormalScale  float32
	ClearcoatTex          TextureRef // R
	ClearcoatRoughnessTex TextureRef // G
	ClearcoatNormalTex    TextureRef
	// KHR_materials_sheen
	SheenColor        scene.Vec3
	SheenRoughness    float32
	SheenColorTex     TextureRef // RGB
	SheenRoughnessTex TextureRef // A
	// KHR_materials_diffuse_transmission
	DiffuseTransmission      float32
	DiffuseTransmissionColor scene.Vec3
	DiffuseTransmissionTex   TextureRef // A
	DiffuseTransColorTex     TextureRef // RGB
	// KHR_materials_anisotropy
	AnisotropyStrength float32
	AnisotropyRotation float32
	AnisotropyTex      TextureRef // RG: direction, B: strength
	Dispersion         float32    // KHR_materials_dispersion: 20 over the Abbe number
	Glossiness         float32    // KHR_materials_pbrSpecularGlossiness (MatSpecularGlossiness)
	// KHR_materials_iridescence
	Iridescence             float32
	IridescenceIOR          float32
	IridescenceThicknessMin float32
	IridescenceThicknessMax float32
	IridescenceTex          TextureRef // R
	IridescenceThicknessTex TextureRef // G
	Hair                    HairParams
}

// Texture is an RGBA8 image in the texel buffer.
type Texture struct {
	Offset  uint32 // first texel (one uint, RGBA8) in the texel buffer
	Width   uint32
	Height  uint32
	SRGB    uint32
	Nearest uint32
	WrapS   uint32 // scene.Wrap
	WrapT   uint32
}

// Instance is a scene instance: its transforms, geometry and material.
type Instance struct {
	ToWorld    [3][4]float32 // rows of the object-to-world affine
	ToObject   [3][4]float32 // rows of its inverse
	Kind       uint32
	Geometry   uint32 // index into the meshes, sphere sets or curve sets
	Material   uint32
	FirstLight int32  // its triangle or sphere 0's light-sampler entry, or −1
	Flags      uint32 // Instance* flags
	HitGroup   uint32 // its HitGroup: the wavefronts sort by it as the pipeline's reordering does
	LightGroup uint32 // the light group its emission joins (render.LightGroups)
}

// Mesh is a triangle mesh's place in the shared vertex buffers.
type Mesh struct {
	FirstIndex    uint32 // in the index buffer; indices count from FirstVertex
	FirstVertex   uint32 // in the position buffer
	Normals       int32  // first normal, or −1
	UV0           int32  // first UV of set 0 in the UV buffer, or −1
	UV1           int32
	Colors        int32
	Tangents      int32
	TriangleCount uint32
}

// SphereSet is a particle set: centres in the point buffer, radii in the
// radius buffer.
type SphereSet struct {
	FirstPoint  uint32
	FirstRadius uint32
	Count       uint32
}

// CurveSet is a set of swept-sphere strands: control points and radii, and
// per segment its first control point and join flags.
type CurveSet struct {
	FirstPoint   uint32
	FirstRadius  uint32
	FirstSegment uint32 // in the segment buffer: (vertex, joins) pairs
	Count        uint32
}

// LightEntry is one light of the light sampler (render.LightTable).
type LightEntry struct {
	Kind     uint32
	Instance int32
	Index    int32
	Area     float32
	// Trail is the way from the light tree's root to the light's leaf: bit
	// d is the child taken at depth d (1: the second).
	Trail uint32
}

// LightColumn is a column of the light sampler's alias table: the
// probability of keeping it, the column taken otherwise, and the light
// entry it stands for (−1: the light tree, which then picks one).
type LightColumn struct {
	Prob  float32
	Alias int32
	Entry int32
}

// LightNode is an interior node of the light tree
// (render.LightTable.Tree): its two children, so that a step down reads
// one node.
type LightNode struct {
	A, B LightChild
}

// LightChild is a child of a light tree's node: what bounds the lights
// under it, from which kernel.LightImportance estimates what they give a
// point, and where it is.
type LightChild struct {
	Center scene.Vec3 // the lights' bounding sphere
	Radius float32
	Axis   scene.Vec3 // their normals' cone: its axis (unit)
	Phi    float32    // their power, the root's 1
	CosO   float32    // every normal lies within θo of Axis
	SinO   float32
	CosE   float32 // each emits within θe of its normal
	Next   uint32  // its node or, for a leaf (LightChildLeaf), its light's entry
	Flags  uint32  // LightChild*
}

// Light is a KHR_lights_punctual light.
type Light struct {
	Kind      uint32 // scene.LightKind
	Color     scene.Vec3
	Intensity float32
	Position  scene.Vec3
	Direction scene.Vec3
	Range     float32
	InnerCone float32
	OuterCone float32
	Group     uint32 // the light group its light joins (render.LightGroups)
}

// Camera is render.CameraRays' state.
type Camera struct {
	Eye      scene.Vec3
	X        scene.Vec3
	Y        scene.Vec3
	Z        scene.Vec3
	Ortho    uint32
	Sx       float32
	Sy       float32
	W        float32
	H        float32
	Aperture float32
	Focus    float32
}

// Path is the state one sample's path carries between bounces: the
// payload of the ray-tracing pipeline, an element of the ray-query
// wavefront's path buffer, and the CPU emulator's path (render/cpu's
// pathState embeds it).
type Path struct {
	Origin      scene.Vec3 // the ray to trace next
	Dir         scene.Vec3
	Throughput  scene.Vec3
	Radiance    scene.Vec3
	Albedo      scene.Vec3 // first-hit AOVs
	Normal      scene.Vec3
	Depth       float32
	Pixel       uint32
	SampleIndex uint32
	Bounce      uint32
	PrevPdf     float32
	Medium      int32 // the material whose volume the path is in, or −1
	// EtaScale undoes the 1/η² by which refraction scales radiance, for
	// Russian roulette: a path inside glass carries less radiance but as
	// much flux, and rouletting it by its radiance would make it a firefly
	// when it leaves (pbrt-v4's etaScale).
	EtaScale float32
	// Wavelength is the one wavelength (nm) the path carries since it
	// first met a dispersive interface (KHR_materials_dispersion), its
	// throughput weighted by kernel.WavelengthWeights; 0: none yet.
	Wavelength float32
	Alive      uint32
	Rays       uint32 // traced for this sample
	ShadowRays uint32 // of them
	Events     uint32 // coherence bits for the reorder hint
	// The denoiser's split of the light the first hit reflects: the diffuse
	// lobe's and the other lobes' (specular, metal, glass) light, their
	// directional albedos there, and the diffuse lobe's share (per channel)
	// of the throughput the first hit's BSDF sample carries on. The camera's
	// direct view (emission, the environment) is in neither.
	Diffuse, Specular      scene.Vec3
	DiffAlbedo, SpecAlbedo scene.Vec3
	Split                  scene.Vec3
	// FirstInstance is the instance of the first hit the camera sees
	// (after alpha and stochastic transparency) + 1, 0 where it sees none:
	// what Cryptomatte's coverage counts.
	FirstInstance uint32
}

// Hit is the wavefronts' record of what a path's ray hit.
type Hit struct {
	Instance uint32 // MissInstance: a miss
	Prim     uint32
	U, V     float32
	T        float32
	Key      uint32 // the sort key (wave.glsl's sortKey): the shader, then the reorder hint's bits
}

// MissInstance is a Hit's Instance where its ray hit nothing.
const MissInstance = 0xffffffff

// Wavefront counters, in the counter buffer: the live paths of this
// bounce, the survivors for the next, the next compute dispatch's indirect
// arguments (groups), the next ray-tracing launch's (invocations: rows of
// TraceRowWidth, as vkCmdTraceRaysIndirectKHR reads them), then per sort
// key its count and its cursor.
const (
	CounterLive     = 0
	CounterNext     = 1
	CounterDispatch = 2 // three: x, y, z
	CounterTrace    = 5 // three: width, height, depth
	CounterKeys     = 8 // KeyCount counts, then KeyCount cursors
	WavefrontGroup  = 64
	TraceRowWidth   = 1 << 12
)

// Params is everything a launch reads: the buffers' device addresses and
// the render's settings. A push constant holds its address.
type Params struct {
	TLAS           uint64 `ref:"accel"`
	Instances      uint64 `ref:"Instance"`
	Materials      uint64 `ref:"Material"`
	Meshes         uint64 `ref:"Mesh"`
	SphereSets     uint64 `ref:"SphereSet"`
	CurveSets      uint64 `ref:"CurveSet"`
	Textures       uint64 `ref:"Texture"`
	Positions      uint64 `ref:"vec3"`
	Normals        uint64 `ref:"vec3"`
	TexCoords      uint64 `ref:"vec2"`
	Colors         uint64 `ref:"vec4"`
	Tangents       uint64 `ref:"vec4"`
	Indices        uint64 `ref:"uint"`
	Points         uint64 `ref:"vec3"`
	Radii          uint64 `ref:"float"`
	Segments       uint64 `ref:"uint"`
	Texels         uint64 `ref:"uint"`
	Lights         uint64 `ref:"LightEntry"`
	LightColumns   uint64 `ref:"LightColumn"`
	LightPdf       uint64 `ref:"float"`
	LightNodes     uint64 `ref:"LightNode"`
	Punctual       uint64 `ref:"Light"`
	EnvPixels      uint64 `ref:"vec3"`
	EnvMarginal    uint64 `ref:"float"`
	EnvConditional uint64 `ref:"float"`
	FilterCDF      uint64 `ref:"float"`
	AlbedoTable    uint64 `ref:"vec2"`
	SRGBTable      uint64 `ref:"float"` // render.DecodeSRGB of every 8-bit code
	Film           uint64 `ref:"float"`
	// Paths holds each path of a launch, sample i % Samples of its
	// sampled pixel i / Samples: the wavefronts' state between bounces,
	// and on every path what wave_resolve sums into the film in sample
	// order. Hits, the queues, Sorted and Counters are the wavefronts'.
	Paths    uint64 `ref:"Path"`
	Hits     uint64 `ref:"Hit"`
	QueueA   uint64 `ref:"uint"`
	QueueB   uint64 `ref:"uint"`
	Sorted   uint64 `ref:"uint"`
	Counters uint64 `ref:"uint"`
	// GroupLight is each path's light by light group
	// (LightGroups RGB triples a path); IDs each sample's FirstInstance,
	// pixel-major (Cryptomatte).
	GroupLight uint64 `ref:"float"`
	IDs        uint64 `ref:"uint"`
	// ActivePixels lists the launch's pixels that sample (adaptive
	// sampling: those still sampling), ascending, as pixel indexes of the
	// launch's rows; ActiveCount is how many (0: no list, every pixel of
	// the rows samples).
	ActivePixels uint64 `ref:"uint"`

	Camera       Camera
	Forward      scene.Vec3
	Width        uint32
	Height       uint32 // the launch's rows: the image's, or a band's
	Y0           uint32 // the image row the launch's first row is
	FirstSample  uint32
	Samples      uint32 // per pixel in this launch
	MaxDepth     uint32
	Seed         uint32
	ReorderBits  uint32
	HintFlags    uint32
	LightCount   uint32 // light entries (0: no lights)
	ColumnCount  uint32 // the light sampler's alias columns
	NodeCount    uint32 // the light tree's nodes (0: none)
	EnvLight     int32  // the environment's light entry, or −1
	EnvColor     scene.Vec3
	EnvMap       uint32 // 1: an HDR map
	EnvWidth     uint32
	EnvHeight    uint32
	EnvRotation  float32
	EnvIntensity float32
	EnvTotal     float32
	FilterN      uint32 // 0: box
	FilterRadius float32
	PathCount    uint32 // the launch's paths: sampled pixels × samples
	// SampleBatch is how many of its paths (samples of one pixel) an
	// invocation of the rt and ser paths' raygen traces one after another:
	// 1 (a launch of pixels × samples invocations) up to Samples (one
	// invocation a pixel), a divisor of Samples.
	SampleBatch  uint32
	KeyCount     uint32 // sort keys: shaders × coherence classes × KeyMaterials
	KeyMaterials uint32 // the material hints a key tells apart: min(materials, 2^(the hint's material bits))
	SortOn       uint32 // 1: shade in sort-key order
	// LightGroups is the render's light groups (0: none); GroupsAt the
	// float in Film where group 0's layer starts (3 floats a pixel, the
	// groups one after another); EnvLightGroup the environment's group.
	LightGroups   uint32
	GroupsAt      uint32
	EnvLightGroup uint32
	IDsOn         uint32 // 1: write IDs
	ActiveCount   uint32
	// FilmAt[FilmX] is the float where layer FilmX starts in Film, or
	// FilmNone where the render's film does not hold it.
	FilmAt [FilmLayers]uint32
	Pad    uint32 // to the structure's 8-byte alignment
}

// DenoiseFilter is the regression filter's image size, window radius and
// edge-stopping weights (package denoise): what the CPU's filter reads, and
// the compute shader inside DenoiseParams.
type DenoiseFilter struct {
	Width      uint32
	Height     uint32
	Radius     int32 // the window is (2·Radius+1)² pixels
	SigmaLum   float32
	SigmaNorm  float32
	SigmaDepth float32
	SigmaAlb   float32
}

// DenoiseJob is the regression filter's input as the host holds it, per
// pixel: the demodulated illumination (RGB), the noise's standard
// deviation, the guides and the depth gradient. Package denoise prepares it
// and filters it on the CPU; the Vulkan backend uploads its buffers, whose
// addresses DenoiseParams carries.
type DenoiseJob struct {
	DenoiseFilter
	Light, SD, Albedo, Normal, Depth, GradZ []float32
}

// DenoiseParams is the denoiser's compute shader's input: a DenoiseJob's
// buffers on the device, and its filter.
type DenoiseParams struct {
	Light  uint64 `ref:"vec3"` // demodulated illumination
	SD     uint64 `ref:"float"`
	Albedo uint64 `ref:"vec3"`
	Normal uint64 `ref:"vec3"`
	Depth  uint64 `ref:"float"`
	GradZ  uint64 `ref:"float"`
	Result uint64 `ref:"vec3"`
	DenoiseFilter
	Pad uint32 // to the structure's 8-byte alignment
}

// Structs lists the structures the header declares, dependencies first.
var Structs = []any{TextureRef{}, HairParams{}, Material{}, Texture{}, Instance{}, Mesh{}, SphereSet{},
	CurveSet{}, LightEntry{}, LightColumn{}, LightChild{}, LightNode{}, Light{}, Camera{}, Path{}, Hit{}, Params{}, DenoiseFilter{}, DenoiseParams{}}
