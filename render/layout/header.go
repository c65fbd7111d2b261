package layout

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"sertrace/internal/goglsl"
	"sertrace/scene"
)

// Header is the GLSL declaration of every structure in Structs, the
// buffer-reference types their addresses point to, and the constants above,
// for shaders/generated/layout.glsl.
func Header() string {
	var b strings.Builder
	b.WriteString("// Generated from render/layout by `go generate ./render/layout`. Do not edit.\n")
	b.WriteString("// Needs GL_EXT_buffer_reference, GL_EXT_scalar_block_layout and\n// GL_EXT_shader_explicit_arithmetic_types_int64.\n")
	b.WriteString("#ifndef LAYOUT_GLSL\n#define LAYOUT_GLSL\n\n")
	for _, c := range constants {
		fmt.Fprintf(&b, "const %s %s = %s;\n", c.typ, c.name, c.value)
	}
	b.WriteString("\n")
	declared := false
	for _, s := range Structs {
		t := reflect.TypeOf(s)
		if !declared && len(refTags(t)) > 0 {
			// The first structure holding buffer references: declare every
			// buffer type the structures point to (those come earlier).
			writeRefs(&b)
			declared = true
		}
		fmt.Fprintf(&b, "struct %s {\n", t.Name())
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			typ, arr := glslType(f.Type)
			if ref := f.Tag.Get("ref"); ref != "" {
				typ, arr = refType(ref), ""
			}
			fmt.Fprintf(&b, "    %s %s%s;\n", typ, goglsl.LowerFirst(f.Name), arr)
		}
		b.WriteString("};\n\n")
	}
	b.WriteString("#endif\n")
	return b.String()
}

// writeRefs declares a buffer-reference type per element type that the
// structures' ref tags name, in the order they first appear.
func writeRefs(b *strings.Builder) {
	seen := map[string]bool{"accel": true} // an acceleration structure's address is a plain uint64_t
	for _, s := range Structs {
		for _, elem := range refTags(reflect.TypeOf(s)) {
			if !seen[elem] {
				seen[elem] = true
				fmt.Fprintf(b, "layout(buffer_reference, scalar, buffer_reference_align = 4) buffer %s { %s v[]; };\n", refType(elem), elem)
			}
		}
	}
	b.WriteString("\n")
}

// refTags are a structure's ref tags, in field order.
func refTags(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if ref := t.Field(i).Tag.Get("ref"); ref != "" {
			out = append(out, ref)
		}
	}
	return out
}

func refType(elem string) string {
	if elem == "accel" {
		return "uint64_t"
	}
	return strings.ToUpper(elem[:1]) + elem[1:] + "Buf"
}

func glslType(t reflect.Type) (typ, arr string) {
	switch t.Kind() {
	case reflect.Float32:
		return "float", ""
	case reflect.Uint32:
		return "uint", ""
	case reflect.Int32:
		return "int", ""
	case reflect.Uint64:
		return "uint64_t", ""
	case reflect.Struct:
		switch t {
		case reflect.TypeFor[scene.Vec2]():
			return "vec2", ""
		case reflect.TypeFor[scene.Vec3]():
			return "vec3", ""
		case reflect.TypeFor[scene.Vec4]():
			return "vec4", ""
		}
		return t.Name(), ""
	case reflect.Array:
		if t.Elem().Kind() == reflect.Float32 && t.Len() >= 2 && t.Len() <= 4 {
			return fmt.Sprintf("vec%d", t.Len()), ""
		}
		inner, innerArr := glslType(t.Elem())
		return inner, fmt.Sprintf("[%d]%s", t.Len(), innerArr)
	}
	panic("layout: no GLSL type for " + t.String())
}

type constant struct{ typ, name, value string }

func c(name string, v int) constant  { return constant{"uint", name, fmt.Sprintf("%du", v)} }
func ci(name string, v int) constant { return constant{"int", name, fmt.Sprint(v)} }

// cf is a float constant, written as the float32 Go computes with
// (the shortest decimal that reads back as it, with a point).
func cf(name string, v float64) constant {
	s := strconv.FormatFloat(float64(float32(v)), 'g', -1, 32)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return constant{"float", name, s}
}

var constants = []constant{
	c("KIND_TRIANGLES", KindTriangles), c("KIND_SPHERES", KindSpheres), c("KIND_SWEPT_SPHERES", KindSweptSpheres),
	c("HIT_KIND_SPHERE", HitKindSphere), c("HIT_KIND_SWEPT_SPHERE", HitKindSweptSphere),
	c("PROBE_RANDOM", ProbeRandom), c("PROBE_SPHERE", ProbeSphere), c("PROBE_SWEPT_SPHERE", ProbeSweptSphere),
	c("PROBE_BSDF_EVAL", ProbeBSDFEval), c("PROBE_BSDF_SAMPLE", ProbeBSDFSample), c("PROBE_VISIBLE_NORMAL", ProbeVisibleNormal),
	c("PROBE_HAIR_EVAL", ProbeHairEval), c("PROBE_HAIR_SAMPLE", ProbeHairSample), c("PROBE_CAMERA", ProbeCamera), c("PROBE_MOVED_ORIGIN", ProbeMovedOrigin), c("PROBE_HIT_COIN", ProbeHitCoin), c("PROBE_SPECTRUM", ProbeSpectrum), c("PROBE_ROUND_CONE", ProbeRoundCone),
	c("PROBE_LIGHT_SAMPLE", ProbeLightSample), c("PROBE_PDF_EMITTER", ProbePdfEmitter), c("PROBE_ENVIRONMENT", ProbeEnvironment),
	c("PROBE_IN", ProbeIn), c("PROBE_OUT", ProbeOut),
	c("HIT_TRIANGLES", int(HitTriangles)), c("HIT_TRIANGLES_MASKED", int(HitTrianglesMasked)), c("HIT_SPHERES", int(HitSpheres)),
	c("HIT_SWEPT_SPHERES", int(HitSweptSpheres)), c("HIT_HAIR", int(HitHair)), c("HIT_GROUP_COUNT", int(HitGroupCount)), c("RAY_TYPES", RayTypes),
	c("MAT_DOUBLE_SIDED", MatDoubleSided), c("MAT_VOLUME", MatVolume), c("MAT_ALPHA_MASK", MatAlphaMask),
	c("MAT_HAIR", MatHair), c("MAT_EMITS", MatEmits), c("MAT_UNLIT", MatUnlit), c("MAT_ALPHA_BLEND", MatAlphaBlend), c("INSTANCE_EXIT_HITS", InstanceExitHits),
	c("HAIR_EUMELANIN", HairEumelanin), c("HAIR_PHEOMELANIN", HairPheomelanin), c("HAIR_COLOR", HairColor), c("HAIR_SIGMA_A", HairSigmaA),
	c("HAIR_BETA_M", HairBetaM), c("HAIR_BETA_N", HairBetaN), c("HAIR_ALPHA", HairAlpha), c("HAIR_ETA", HairEta),
	c("LIGHT_TRIANGLE", LightTriangle), c("LIGHT_PUNCTUAL", LightPunctual), c("LIGHT_ENVIRONMENT", LightEnvironment), c("LIGHT_SPHERE", LightSphere),
	c("LIGHT_CHILD_LEAF", LightChildLeaf), c("LIGHT_CHILD_TWO_SIDED", LightChildTwoSided), c("LIGHT_CHILD_PLANAR", LightChildPlanar), ci("LIGHT_TREE_DEPTH", LightTreeDepth),
	c("HINT_MATERIAL", HintMaterial), c("HINT_COHERENCE", HintCoherence),
	c("FILM_BEAUTY", FilmBeauty), c("FILM_ALBEDO", FilmAlbedo), c("FILM_NORMAL", FilmNormal), c("FILM_DEPTH", FilmDepth),
	c("COUNTER_LIVE", CounterLive), c("COUNTER_NEXT", CounterNext), c("COUNTER_DISPATCH", CounterDispatch),
	c("COUNTER_TRACE", CounterTrace), c("TRACE_ROW_WIDTH", TraceRowWidth), c("COUNTER_KEYS", CounterKeys), c("WAVEFRONT_GROUP", WavefrontGroup), c("MISS_INSTANCE", MissInstance),
	c("FILM_LUM_SQ", FilmLumSq), c("FILM_COST", FilmCost), c("FILM_PATH_LENGTH", FilmPathLength), c("FILM_SHADOW_RAYS", FilmShadowRays), c("FILM_CLOCK", FilmClock), c("FILM_LAYERS", FilmLayers), c("FILM_NONE", FilmNone),
	c("FILM_DIFFUSE", FilmDiffuse), c("FILM_SPECULAR", FilmSpecular), c("FILM_DIFFUSE_ALBEDO", FilmDiffuseAlbedo),
	c("FILM_SPECULAR_ALBEDO", FilmSpecularAlbedo), c("FILM_DIFFUSE_LUM_SQ", FilmDiffuseLumSq), c("FILM_SPECULAR_LUM_SQ", FilmSpecularLumSq),
	// integrator.go's
	c("DIM_PIXEL_X", DimPixelX), c("DIM_PIXEL_Y", DimPixelY), c("DIM_LENS_U", DimLensU), c("DIM_LENS_V", DimLensV),
	c("DIM_BSDF_U", DimBSDFU), c("DIM_BSDF_V", DimBSDFV), c("DIM_LOBE", DimLobe), c("DIM_BSDF_W", DimBSDFW),
	c("DIM_LIGHT_U", DimLightU), c("DIM_LIGHT_V", DimLightV), c("DIM_LIGHT", DimLight), c("DIM_LIGHT_COIN", DimLightCoin),
	c("DIM_ROULETTE", DimRoulette), c("DIMS_PER_BOUNCE", DimsPerBounce), c("PAIRS_PER_BOUNCE", PairsPerBounce),
	c("PCG_MULTIPLIER", PCGMultiplier), c("PCG_INCREMENT", PCGIncrement),
	c("LAINE_KARRAS_0", LaineKarras0), c("LAINE_KARRAS_1", LaineKarras1), c("LAINE_KARRAS_2", LaineKarras2), c("LAINE_KARRAS_3", LaineKarras3),
	c("SHUFFLE_SALT", ShuffleSalt), c("SCRAMBLE_SALT", ScrambleSalt), c("HIT_COIN_STRIDE", HitCoinStride),
	c("SHADER_ANY", ShaderAny), c("SHADER_SURFACE", ShaderSurface), c("SHADER_HAIR", ShaderHair),
	c("EVENT_LIGHT", EventLight), c("EVENT_ROULETTE", EventRoulette), c("ROULETTE_START", RouletteStart),
	c("MAX_HINT_BITS", MaxHintBits), c("COHERENCE_BITS", CoherenceBits), c("REORDER_NONE", NoReorder),
	cf("WAVELENGTH_MIN", WavelengthMin), cf("WAVELENGTH_MAX", WavelengthMax),
	cf("SPECTRUM_RED_MU", SpectrumRedMu), cf("SPECTRUM_RED_SIGMA", SpectrumRedSigma), cf("SPECTRUM_RED_NORM", SpectrumNorm[0]),
	cf("SPECTRUM_GREEN_MU", SpectrumGreenMu), cf("SPECTRUM_GREEN_SIGMA", SpectrumGreenSigma), cf("SPECTRUM_GREEN_NORM", SpectrumNorm[1]),
	cf("SPECTRUM_BLUE_MU", SpectrumBlueMu), cf("SPECTRUM_BLUE_SIGMA", SpectrumBlueSigma), cf("SPECTRUM_BLUE_NORM", SpectrumNorm[2]),
	cf("LINE_F", LineF), cf("LINE_D", LineD), cf("LINE_C", LineC),
	cf("LUM_R", LumR), cf("LUM_G", LumG), cf("LUM_B", LumB),
	cf("ONE_BELOW_ONE", OneBelowOne), cf("COAT_F0", CoatF0), cf("SHEEN_MIN_ALPHA", SheenMinAlpha), cf("ROULETTE_FLOOR", RouletteFloor), cf("SHADOW_RAY_END", ShadowRayEnd), cf("MIN_ALPHA", MinAlpha),
	ci("ALBEDO_TABLE_SIZE", AlbedoTableSize), ci("IRID_BINS", IridBins),
	ci("ANISO_TABLE_MU", AnisoTableMu), ci("ANISO_TABLE_PHI", AnisoTablePhi), ci("ANISO_TABLE_ROUGH", AnisoTableRough),
	ci("ANISO_TABLE_STRETCH", AnisoTableStretch), ci("ANISO_TABLE_CELLS", AnisoTableCells), cf("COAT_IOR", CoatIOR),
	ci("GLASS_TABLE_MU", GlassTableMu), ci("GLASS_TABLE_ROUGH", GlassTableRough), ci("GLASS_TABLE_ETA", GlassTableEta),
	ci("GLASS_TABLE_CELLS", GlassTableCells), ci("MS_TABLE_MU", MSTableMu), ci("MS_TABLE_ROUGH", MSTableRough), ci("MS_TABLE_F0", MSTableF0), cf("GLASS_TABLE_MAX_R", GlassTableMaxR), cf("NULL_ETA", NullEta),
	ci("SHEEN_TABLE_AT", SheenTableAt), ci("IRID_BINS_AT", IridBinsAt), ci("ANISO_TABLE_AT", AnisoTableAt), ci("GLASS_TABLE_AT", GlassTableAt), ci("MS_TABLE_AT", MSTableAt),
	cf("IRID_SENS_AMP_X", IridSensAmpX), cf("IRID_SENS_AMP_Y", IridSensAmpY), cf("IRID_SENS_AMP_Z", IridSensAmpZ), cf("IRID_SENS_AMP_X2", IridSensAmpX2),
	cf("IRID_SENS_POS_X", IridSensPosX), cf("IRID_SENS_POS_Y", IridSensPosY), cf("IRID_SENS_POS_Z", IridSensPosZ), cf("IRID_SENS_POS_X2", IridSensPosX2),
	cf("IRID_SENS_VAR_X", IridSensVarX), cf("IRID_SENS_VAR_Y", IridSensVarY), cf("IRID_SENS_VAR_Z", IridSensVarZ), cf("IRID_SENS_VAR_X2", IridSensVarX2),
	cf("XYZ_TO_REC709_00", XYZToRec709[0]), cf("XYZ_TO_REC709_01", XYZToRec709[1]), cf("XYZ_TO_REC709_02", XYZToRec709[2]),
	cf("XYZ_TO_REC709_10", XYZToRec709[3]), cf("XYZ_TO_REC709_11", XYZToRec709[4]), cf("XYZ_TO_REC709_12", XYZToRec709[5]),
	cf("XYZ_TO_REC709_20", XYZToRec709[6]), cf("XYZ_TO_REC709_21", XYZToRec709[7]), cf("XYZ_TO_REC709_22", XYZToRec709[8]),
	cf("HAIR_DEFAULT_EUMELANIN", HairDefaultEumelanin), cf("HAIR_DEFAULT_BETA", HairDefaultBeta),
	cf("HAIR_DEFAULT_ALPHA", HairDefaultAlpha), cf("HAIR_DEFAULT_ETA", HairDefaultEta),
	cf("HAIR_BETA_MIN", HairBetaMin), cf("HAIR_ETA_MIN", HairEtaMin), cf("HAIR_COLOR_MIN", HairColorMin), cf("SPOT_CONE_MIN", SpotConeMin),
	cf("STRAND_TOL_TRAVEL", StrandTolTravel), cf("STRAND_TOL_POSITION", StrandTolPosition), cf("STRAND_TOL_RADIUS", StrandTolRadius), ci("STRAND_REACH", StrandReach),
	c("JOINED_PREV", int(scene.JoinedPrev)), c("JOINED_NEXT", int(scene.JoinedNext)),
	c("PUNCTUAL_POINT", PunctualPoint), c("PUNCTUAL_SPOT", PunctualSpot), c("PUNCTUAL_DIRECTIONAL", PunctualDirectional),
	c("WRAP_REPEAT", WrapRepeat), c("WRAP_CLAMP", WrapClamp), c("WRAP_MIRROR", WrapMirror),
}
