package layout

// The integrator's constants that the CPU's Go and the GPU's GLSL both
// use, declared here once; the generator writes them into the shaders'
// header (header.go's constants).

// Dimensions of the random stream used at each bounce, in pairs (0 and 1,
// 2 and 3, …) that are stratified together.
const (
	DimPixelX = iota // camera: where in the pixel (through the pixel filter)
	DimPixelY
	DimLensU // camera: where on the lens
	DimLensV
	DimBSDFU // BSDF: the direction
	DimBSDFV
	DimLobe  // which lobe
	DimBSDFW // the hair BSDF's azimuth
	DimLightU
	DimLightV
	DimLight     // next-event estimation: which alias-table column
	DimLightCoin // and whether to keep it or take its alias (24 bits each, so that tables of a million lights stay exact)
	DimRoulette
	DimsPerBounce
)

// The pairs of dimensions that Random2 draws together.
const (
	PairPixel      = DimPixelX / 2 // DimPixelX, DimPixelY
	PairLens       = DimLensU / 2  // DimLensU, DimLensV
	PairBSDF       = DimBSDFU / 2  // DimBSDFU, DimBSDFV
	PairLobe       = DimLobe / 2   // DimLobe, DimBSDFW
	PairLightPoint = DimLightU / 2 // DimLightU, DimLightV
	PairLightPick  = DimLight / 2  // DimLight, DimLightCoin
)

// The shader a hit runs (kernel.ClosestHit's shader), by what the pipeline
// knows of its surface: any, or, where its hit group says which, a glTF
// surface or a hair strand, so that the GPU's shader of one leaves the
// other BSDF out.
const (
	ShaderAny     = 0
	ShaderSurface = 1
	ShaderHair    = 2
)

// HitCoinStride spreads instances apart in HitCoin's hash of (instance,
// primitive): a prime, so that neighbouring instances' primitives differ.
const HitCoinStride = 0x9e3779b1

// SheenMinAlpha bounds the Charlie sheen's α = roughness² from below (its
// exponent 1/α stays finite).
const SheenMinAlpha = 0.007

// OneBelowOne is the largest float32 below 1: a random number reused for a
// second choice stays in [0, 1).
const OneBelowOne = 0x1.fffffep-1

// CoatIOR is KHR_materials_clearcoat's index of refraction, and CoatF0 its
// reflectance at normal incidence (0.04); CoatIOR is also the medium
// above a thin film under a coat.
const (
	CoatIOR = 1.5
	CoatF0  = ((CoatIOR - 1) / (CoatIOR + 1)) * ((CoatIOR - 1) / (CoatIOR + 1))
)

// PairsPerBounce is the number of pairs of dimensions at a bounce.
const PairsPerBounce = (DimsPerBounce + 1) / 2

// The random streams' hash constants (render/kernel/random.go, which the
// GPU runs translated): pcg4d's linear congruential step (Jarzynski and
// Olano), the Laine–Karras permutation's multipliers (Burley), and the
// salts that make a pixel's shuffle and scramble keys two different hashes.
const (
	PCGMultiplier = 1664525
	PCGIncrement  = 1013904223
	LaineKarras0  = 0x6c50b47c
	LaineKarras1  = 0xb82f1e52
	LaineKarras2  = 0xc7afe638
	LaineKarras3  = 0x8d22f6e6
	ShuffleSalt   = 0x9e3779b9
	ScrambleSalt  = 0x85ebca6b
)

// Path events at a path's last vertex, for the reorder hint's coherence
// bits: it sampled a light, it survived Russian roulette.
const (
	EventLight    = 1
	EventRoulette = 2
)

// Russian roulette: from RouletteStart on, a path ends with probability
// 1 − its throughput's largest channel, at least RouletteFloor.
const (
	RouletteStart = 3
	RouletteFloor = 0.05
)

// ShadowRayEnd is how far along the way to its light point a shadow ray
// looks, short of the light's own surface.
const ShadowRayEnd = 1 - 1e-4

// MinAlpha keeps a roughness-0 surface a very sharp lobe rather than a
// delta, so one code path (and MIS) serves every roughness.
const MinAlpha = 1e-3

// AlbedoTableSize is each side of the specular albedo table
// (kernel.SpecularAlbedoTable), over √cos θ and √α.
const AlbedoTableSize = 32

// The anisotropic specular layer's albedo table (kernel.AnisoAlbedoTable):
// its cells over √μ, μ = cos θo (AnisoTableMu), the
// azimuth of wo from the anisotropy's direction (AnisoTablePhi, 0 to π/2),
// √α across the direction (AnisoTableRough) and the stretch along it,
// (αx − α)/(1 − α) = strength² (AnisoTableStretch).
const (
	AnisoTableMu      = 32
	AnisoTablePhi     = 12
	AnisoTableRough   = 32
	AnisoTableStretch = 12
	AnisoTableCells   = AnisoTableMu * AnisoTablePhi * AnisoTableRough * AnisoTableStretch
)

// The rough glass interface's albedo table (kernel.GlassAlbedoTable): the
// energy it reflects and transmits by single scattering, light entering
// (the cell's first value) and leaving (its second), over √μ, μ = cos θo
// (GlassTableMu), √α (GlassTableRough) and ∛(r/GlassTableMaxR), r =
// |η − 1|/(η + 1) (GlassTableEta: indices from 1 to 3, and their
// inverses; the albedo changes fastest near 1, where the rows crowd).
const (
	GlassTableMu    = 32
	GlassTableRough = 32
	GlassTableEta   = 16
	GlassTableMaxR  = 0.5
	GlassTableCells = GlassTableMu * GlassTableRough * GlassTableEta
)

// The multiple-scattering Fresnel table (kernel.MultipleScatteringTable):
// F_ms over √μ, μ = cos θo (MSTableMu), √α (MSTableRough) and F0 from 0
// to 1 (MSTableF0).
const (
	MSTableMu    = 16
	MSTableRough = 16
	MSTableF0    = 9
	MSTableCells = MSTableMu * MSTableRough * MSTableF0
)

// Where each albedo table begins in the buffer the GPU reads them from
// (kernel.AlbedoTables), in pairs of float32: the specular table, the
// sheen's, the film's bins, the anisotropic table, the glass's (two pairs
// a cell) and the multiple-scattering table; AlbedoTablesLen pairs in all.
const (
	SheenTableAt    = AlbedoTableSize * AlbedoTableSize
	IridBinsAt      = 2 * AlbedoTableSize * AlbedoTableSize
	AnisoTableAt    = IridBinsAt + AlbedoTableSize*AlbedoTableSize*IridBins
	GlassTableAt    = AnisoTableAt + AnisoTableCells
	MSTableAt       = GlassTableAt + 2*GlassTableCells
	AlbedoTablesLen = MSTableAt + MSTableCells
)

// NullEta is how close to 1 a glass's relative index may come before its
// interface is taken as a sheet, which bends nothing: Walter et al.'s half
// vector, normalize(η·wi + wo), cancels to nothing at η = 1, and such glass
// rendered black.
const NullEta = 1e-3

// The hair model's defaults, for what a hair material leaves out: brown
// hair.
const (
	HairDefaultEumelanin = 1.3
	HairDefaultBeta      = 0.3
	HairDefaultAlpha     = 2 // degrees: the cuticle's tilt
	HairDefaultEta       = 1.55
)

// The hair model's bounds on what a material gives: the roughnesses β_m
// and β_n at least HairBetaMin (and at most 1), an index of refraction of
// at least HairEtaMin (above the air's), and a colour's channels at least
// HairColorMin where their logarithm gives the absorption.
const (
	HairBetaMin  = 0.01
	HairEtaMin   = 1.0001
	HairColorMin = 1e-4
)

// The strand rule, which makes a chain of swept spheres one smooth tube
// (render/cpu's intersectStrandSegment, Embree's filter, the GLSL
// intersection): its tolerance, relative to the distances the ray's origin
// and hit are computed over, to their coordinates (a tracer's rounding of
// a hit grows with them) and to the segment's radii, and at most how many
// chained segments either side of a hit it looks at.
const (
	StrandTolTravel   = 1.0 / (1 << 15)
	StrandTolPosition = 1.0 / (1 << 22)
	StrandTolRadius   = 1.0 / (1 << 16)
	StrandReach       = 64
)

// SpotConeMin is the least cos(inner) − cos(outer) that a spot light's
// smooth falloff divides by: equal cone angles make a hard edge, not a
// division by zero.
const SpotConeMin = 1e-4

// The reorder hint (reorderThreadNV's, and the emulator's Reorder): the
// number of its low bits that reorder, at most MaxHintBits (NVIDIA honours
// no more, so the emulator's statistics model what a GPU does with it), and
// NoReorder, the raygen's marker for launch order. With the coherence
// scheme, CoherenceBits of them, above the material's, say the path ends
// here (a miss), it survived roulette and it sampled a light.
const (
	MaxHintBits   = 16
	CoherenceBits = 3
	NoReorder     = 0xffffffff
)
