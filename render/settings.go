package render

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"sertrace/render/layout"
	"sertrace/scene"
)

// Settings are a render's settings as a user gives them: the render
// command's flags and a batch job's keys (named alike, with underscores).
// Options turns them into what a backend takes, in one place for both.
type Settings struct {
	Variant        string  `mapstructure:"variant" json:"variant,omitempty"` // KHR_materials_variants: the materials of this variant
	Camera         string  `mapstructure:"camera" json:"camera,omitempty"`
	Res            string  `mapstructure:"res" json:"res,omitempty"`
	SPP            int     `mapstructure:"spp" json:"spp,omitempty"`
	Samples        string  `mapstructure:"samples" json:"samples,omitempty"` // FIRST:COUNT of the spp: a slice (ParseSamples)
	MaxDepth       int     `mapstructure:"max_depth" json:"max_depth,omitempty"`
	Seed           uint32  `mapstructure:"seed" json:"seed,omitempty"`
	Backend        string  `mapstructure:"backend" json:"backend,omitempty"`
	Path           string  `mapstructure:"path" json:"path,omitempty"`                 // the Vulkan backend's path: ser, rt, rayquery, rt-sorted (or empty: the best)
	Reorder        string  `mapstructure:"reorder" json:"reorder,omitempty"`           // ParseReorder's schemes
	ReorderHint    bool    `mapstructure:"reorder_hint" json:"reorder_hint,omitempty"` // coherence bits in the material hint
	Env            string  `mapstructure:"env" json:"env,omitempty"`
	EnvColor       string  `mapstructure:"env_color" json:"env_color,omitempty"`
	EnvRotation    float32 `mapstructure:"env_rotation" json:"env_rotation,omitempty"` // degrees
	EnvIntensity   float32 `mapstructure:"env_intensity" json:"env_intensity,omitempty"`
	Exposure       float32 `mapstructure:"exposure" json:"exposure,omitempty"`
	ToneMap        string  `mapstructure:"tonemap" json:"tonemap,omitempty"`
	Filter         string  `mapstructure:"filter" json:"filter,omitempty"`
	ApertureRadius float32 `mapstructure:"aperture_radius" json:"aperture_radius,omitempty"` // −1: the camera's own
	FocusDistance  float32 `mapstructure:"focus_distance" json:"focus_distance,omitempty"`   // −1: the camera's own
	Threads        int     `mapstructure:"threads" json:"threads,omitempty"`
	Accel          string  `mapstructure:"accel" json:"accel,omitempty"`                 // the CPU backend's tracer: auto, embree or bvh
	LightSampler   string  `mapstructure:"light_sampler" json:"light_sampler,omitempty"` // ParseLightSampler's: tree (empty) or power
	TimeBudget     float64 `mapstructure:"time_budget" json:"time_budget,omitempty"`     // seconds; spp then caps it
	EXRPrecision   string  `mapstructure:"exr_precision" json:"exr_precision,omitempty"` // float or half
	MemoryBudget   string  `mapstructure:"memory_budget" json:"memory_budget,omitempty"` // ParseBytes; "": the machine's, cgroup's or address-space limit
	// LightGroups writes the beauty by light group (LightGroups), the
	// environment's in EnvLightGroup ("": unassigned).
	LightGroups   bool   `mapstructure:"light_groups" json:"light_groups,omitempty"`
	EnvLightGroup string `mapstructure:"env_light_group" json:"env_light_group,omitempty"`
	// CryptomatteLevels is the ranks each Cryptomatte matte keeps a pixel
	// (0: DefaultCryptomatteLevels, so that a job's key is what it was).
	CryptomatteLevels int `mapstructure:"cryptomatte_levels" json:"cryptomatte_levels,omitempty"`
	// NoiseThreshold samples adaptively (Adaptive): a pixel stops once its
	// estimated error is below it (0: off), after MinSPP samples (0:
	// AutoMinSPP); SPP is then the most a pixel takes.
	NoiseThreshold float32 `mapstructure:"noise_threshold" json:"noise_threshold,omitempty"`
	MinSPP         int     `mapstructure:"min_spp" json:"min_spp,omitempty"`
}

// EachSetting calls f with every setting's key (a batch job's; the render
// command's flag is it with - for _) and its field in s, which f may set.
func EachSetting(s *Settings, f func(key string, field reflect.Value)) {
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		f(v.Type().Field(i).Tag.Get("mapstructure"), v.Field(i))
	}
}

// DefaultSettings are what a render gets where the user says nothing: the
// render command's flag defaults and a batch job's, declared once here.
// Reorder stays empty: it means "material", the flag's default.
func DefaultSettings() Settings {
	return Settings{
		Camera: "0", SPP: 64, MaxDepth: 8, Backend: "auto", Accel: "auto",
		EnvColor: "0,0,0", EnvIntensity: 1, ToneMap: "linear", Filter: "box",
		ApertureRadius: -1, FocusDistance: -1, // the camera's own
		EXRPrecision: "float",
	}
}

// Canonical is s with each setting said in its one form, so that a render
// asked for alike by the command line and a batch job has one key (its
// bands, slices and manifest): cryptomatte_levels 6, the default, as 0.
func (s Settings) Canonical() Settings {
	if s.CryptomatteLevels == DefaultCryptomatteLevels {
		s.CryptomatteLevels = 0
	}
	if s.LightSampler == "tree" {
		s.LightSampler = ""
	}
	return s
}

// SettingError is a setting whose value cannot be used; Key is its name
// with underscores, for the caller to show as a flag or a config key.
type SettingError struct {
	Key string
	Err error
}

func (e *SettingError) Error() string { return e.Key + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

func bad(key string, format string, args ...any) error {
	return &SettingError{Key: key, Err: fmt.Errorf(format, args...)}
}

// Check refuses values that are wrong whatever the scene: what can be said
// before loading it.
func (s *Settings) Check() error {
	switch s.Backend {
	case "auto", "cpu", "", "vulkan":
	default:
		return bad("backend", "unknown backend %q (auto, cpu or vulkan)", s.Backend)
	}
	if err := CheckAccel(s.Accel); err != nil {
		return bad("accel", "%v", err)
	}
	if _, err := ParseLightSampler(s.LightSampler); err != nil {
		return &SettingError{"light_sampler", err}
	}
	switch s.Path {
	case "", "ser", "rt", "rayquery", "rt-sorted":
		if s.Path != "" && s.Backend == "cpu" {
			return bad("path", "%q is a path of the vulkan backend, not of cpu", s.Path)
		}
	default:
		return bad("path", "unknown path %q (ser, rt, rayquery or rt-sorted)", s.Path)
	}
	if _, err := ParseReorder(s.Reorder); err != nil {
		return &SettingError{"reorder", err}
	}
	if _, err := ParseColor(s.EnvColor); err != nil {
		return &SettingError{"env_color", err}
	}
	if err := CheckToneMap(s.ToneMap); err != nil {
		return &SettingError{"tonemap", err}
	}
	if _, err := NewPixelFilter(s.Filter); err != nil {
		return &SettingError{"filter", err}
	}
	if s.EXRPrecision != "float" && s.EXRPrecision != "half" && s.EXRPrecision != "" {
		return bad("exr_precision", "%q: float or half", s.EXRPrecision)
	}
	if _, _, err := ParseSamples(s.Samples); err != nil {
		return &SettingError{"samples", err}
	}
	if s.MemoryBudget != "" {
		if _, err := ParseBytes(s.MemoryBudget); err != nil {
			return &SettingError{"memory_budget", err}
		}
	}
	if s.TimeBudget < 0 || math.IsNaN(s.TimeBudget) || math.IsInf(s.TimeBudget, 0) {
		return bad("time_budget", "%v must be finite seconds, not negative", s.TimeBudget)
	}
	if e := float64(s.Exposure); math.IsNaN(e) || math.IsInf(e, 0) {
		return bad("exposure", "%v must be a finite number of stops", s.Exposure)
	}
	// The lens: −1 keeps the camera's own, anything else is the value.
	if r := s.ApertureRadius; r != -1 && !(r >= 0 && !math.IsInf(float64(r), 0)) {
		return bad("aperture_radius", "%v must be 0 (a pinhole) or more, or -1 for the camera's own", r)
	}
	if f := s.FocusDistance; f != -1 && !(f >= 0 && !math.IsInf(float64(f), 0)) {
		return bad("focus_distance", "%v must be a finite distance, not negative, or -1 for the camera's own", f)
	}
	env := EnvMap{Rotation: s.EnvRotation, Intensity: s.EnvIntensity}
	if err := env.CheckSettings(); err != nil {
		return &SettingError{"env", err}
	}
	if s.CryptomatteLevels < 0 || s.CryptomatteLevels > MaxCryptomatteLevels {
		return bad("cryptomatte_levels", "%d: a matte keeps 1 to %d ranks a pixel (0: %d)", s.CryptomatteLevels, MaxCryptomatteLevels, DefaultCryptomatteLevels)
	}
	if err := (Adaptive{Threshold: s.NoiseThreshold}).Check(0); err != nil {
		return &SettingError{"noise_threshold", err}
	}
	if err := (Adaptive{Threshold: s.NoiseThreshold, MinSPP: s.MinSPP}).Check(0); err != nil {
		return &SettingError{"min_spp", err}
	}
	if s.NoiseThreshold > 0 && s.Samples != "" {
		return bad("noise_threshold", "a slice of samples (%s) %s", s.Samples, AdaptiveSliceRefusal)
	}
	if s.EnvLightGroup != "" && !s.LightGroups {
		return bad("env_light_group", "names the environment's light group, but light groups are off (--light-groups)")
	}
	return nil
}

// Options resolves the settings against a scene: the camera by name or
// index (its lens overridden where the settings say), the resolution, the
// environment map (read through resolve, which maps the setting's path to a
// file). The camera in sc is changed in place.
func (s *Settings) Options(sc *scene.Scene, resolve func(string) string) (Options, Display, error) {
	display := Display{Exposure: s.Exposure, ToneMap: s.ToneMap, HalfFloat: s.EXRPrecision == "half"}
	if err := s.Check(); err != nil {
		return Options{}, display, err
	}
	camera, err := sc.FindCamera(s.Camera)
	if err != nil {
		return Options{}, display, fmt.Errorf("%s: %w", sc.Source, err)
	}
	cam := &sc.Cameras[camera]
	if s.ApertureRadius >= 0 {
		cam.ApertureRadius = s.ApertureRadius
	}
	if s.FocusDistance >= 0 {
		cam.FocusDistance = s.FocusDistance
	}
	if cam.ApertureRadius > 0 && !(cam.FocusDistance > 0) {
		return Options{}, display, bad("focus_distance", "camera %q has an aperture but no focus distance", cam.Name)
	}
	w, h, err := ParseResolution(s.Res, *cam)
	if err != nil {
		return Options{}, display, &SettingError{"res", err}
	}
	env, _ := ParseColor(s.EnvColor)
	filter, _ := NewPixelFilter(s.Filter)
	opts := Options{Width: w, Height: h, SPP: s.SPP, MaxDepth: s.MaxDepth, Seed: s.Seed, Camera: camera,
		EnvColor: env, Threads: s.Threads, Accel: s.Accel, Filter: filter, TimeBudget: time.Duration(s.TimeBudget * float64(time.Second))}
	opts.Reorder, _ = ParseReorder(s.Reorder)
	opts.LightSampler, _ = ParseLightSampler(s.LightSampler)
	opts.Adaptive = Adaptive{Threshold: s.NoiseThreshold, MinSPP: s.MinSPP}
	if err := opts.Adaptive.Check(opts.SPP); err != nil {
		return opts, display, &SettingError{"noise_threshold", err}
	}
	opts.First, opts.Count, _ = ParseSamples(s.Samples)
	if opts.Count > 0 && opts.First+opts.Count > opts.SPP {
		return opts, display, bad("samples", "%s goes past the %d samples per pixel (--spp)", s.Samples, opts.SPP)
	}
	if opts.Count > 0 && opts.TimeBudget > 0 {
		return opts, display, bad("samples", "a slice takes all its samples: it has no time budget")
	}
	if s.ReorderHint && opts.Reorder.Mode == ReorderMaterial {
		opts.Reorder.Mode = ReorderCoherence
	}
	if s.Env != "" {
		if opts.EnvMap, err = LoadHDR(resolve(s.Env)); err != nil {
			return opts, display, err
		}
		opts.EnvMap.Rotation = s.EnvRotation * math.Pi / 180
		opts.EnvMap.Intensity = s.EnvIntensity
	}
	if s.LightGroups {
		if opts.LightGroups, err = NewLightGroups(sc, s.EnvLightGroup, opts.EnvMap != nil || env != [3]float32{}); err != nil {
			return opts, display, &SettingError{"light_groups", err}
		}
	}
	opts.Cryptomatte = CryptomatteOf(sc, s.CryptomatteLevels)
	if err := opts.Validate(sc); err != nil {
		return opts, display, &SettingError{"settings", err}
	}
	return opts, display, nil
}

// ParseSamples reads a slice of samples, FIRST:COUNT: samples [FIRST,
// FIRST+COUNT) of each pixel. "" is the whole render (count 0).
func ParseSamples(s string) (first, count int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, ":")
	first, err1 := strconv.Atoi(a)
	count, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || first < 0 || count < 1 || first > MaxSPP || count > MaxSPP {
		return 0, 0, fmt.Errorf("%q: want FIRST:COUNT, the first sample (from 0) and how many, as 16:16", s)
	}
	return first, count, nil
}

// ParseReorder reads a reordering scheme: "" or "material" (by shader, then
// the material hint's 16 bits), "material:BITS", "coherence[:BITS]" (the
// material with coherence bits above it), "shader" (by shader only),
// "none" or "off" (launch order), and "sort", the ray-query path's name for
// sorting by material. BITS is at most layout.MaxHintBits, what NVIDIA's
// reorderThreadNV honours. A scheme has one value: all the bits is Bits 0,
// however it was written, so that "material", "material:16" and "sort"
// are the zero Reorder.
func ParseReorder(s string) (Reorder, error) {
	bitsOf := func(spec string, least int) (int, error) {
		bits, err := strconv.Atoi(spec)
		if err != nil || bits < least || bits > layout.MaxHintBits {
			return 0, fmt.Errorf("%q: BITS must be in %d..%d", s, least, layout.MaxHintBits)
		}
		if bits == layout.MaxHintBits {
			return 0, nil // all of them, as Reorder's zero Bits says
		}
		return bits, nil
	}
	switch {
	case s == "" || s == "material" || s == "sort":
		return Reorder{}, nil
	case s == "none" || s == "off":
		return Reorder{Mode: ReorderNone}, nil
	case s == "shader":
		return Reorder{Mode: ReorderShader}, nil
	case s == "coherence":
		return Reorder{Mode: ReorderCoherence}, nil
	case strings.HasPrefix(s, "coherence:"):
		bits, err := bitsOf(strings.TrimPrefix(s, "coherence:"), layout.CoherenceBits+1)
		return Reorder{Mode: ReorderCoherence, Bits: bits}, err
	case strings.HasPrefix(s, "material:"):
		bits, err := bitsOf(strings.TrimPrefix(s, "material:"), 1)
		return Reorder{Mode: ReorderMaterial, Bits: bits}, err
	}
	return Reorder{}, fmt.Errorf("unknown reorder scheme %q (material[:BITS], coherence[:BITS], shader, none; sort or off on the ray-query path)", s)
}
