// Generated from render/layout by `go generate ./render/layout`. Do not edit.
// Needs GL_EXT_buffer_reference, GL_EXT_scalar_block_layout and
// GL_EXT_shader_explicit_arithmetic_types_int64.
#ifndef LAYOUT_GLSL
#define LAYOUT_GLSL

const uint KIND_TRIANGLES = 0u;
const uint KIND_SPHERES = 1u;
const uint KIND_SWEPT_SPHERES = 2u;
const uint HIT_KIND_SPHERE = 3u;
const uint HIT_KIND_SWEPT_SPHERE = 4u;
const uint PROBE_RANDOM = 0u;
const uint PROBE_SPHERE = 1u;
const uint PROBE_SWEPT_SPHERE = 2u;
const uint PROBE_BSDF_EVAL = 3u;
const uint PROBE_BSDF_SAMPLE = 4u;
const uint PROBE_VISIBLE_NORMAL = 5u;
const uint PROBE_HAIR_EVAL = 6u;
const uint PROBE_HAIR_SAMPLE = 7u;
const uint PROBE_CAMERA = 8u;
const uint PROBE_MOVED_ORIGIN = 9u;
const uint PROBE_HIT_COIN = 10u;
const uint PROBE_LIGHT_SAMPLE = 11u;
const uint PROBE_PDF_EMITTER = 12u;
const uint PROBE_ENVIRONMENT = 13u;
const uint PROBE_IN = 36u;
const uint PROBE_OUT = 12u;
const uint HIT_TRIANGLES = 0u;
const uint HIT_TRIANGLES_MASKED = 1u;
const uint HIT_SPHERES = 2u;
const uint HIT_SWEPT_SPHERES = 3u;
const uint HIT_HAIR = 4u;
const uint RAY_TYPES = 2u;
const uint MAT_DOUBLE_SIDED = 1u;
const uint MAT_VOLUME = 2u;
const uint MAT_ALPHA_MASK = 4u;
const uint MAT_HAIR = 8u;
const uint MAT_EMITS = 16u;
const uint MAT_UNLIT = 32u;
const uint MAT_ALPHA_BLEND = 64u;
const uint INSTANCE_EXIT_HITS = 1u;
const uint HAIR_EUMELANIN = 1u;
const uint HAIR_PHEOMELANIN = 2u;
const uint HAIR_COLOR = 4u;
const uint HAIR_BETA_M = 8u;
const uint HAIR_BETA_N = 16u;
const uint HAIR_ALPHA = 32u;
const uint HAIR_ETA = 64u;
const uint LIGHT_TRIANGLE = 0u;
const uint LIGHT_PUNCTUAL = 1u;
const uint LIGHT_ENVIRONMENT = 2u;
const uint LIGHT_SPHERE = 3u;
const uint HINT_MATERIAL = 1u;
const uint HINT_COHERENCE = 2u;
const uint FILM_BEAUTY = 0u;
const uint FILM_ALBEDO = 3u;
const uint FILM_NORMAL = 6u;
const uint FILM_DEPTH = 9u;
const uint COUNTER_LIVE = 0u;
const uint COUNTER_NEXT = 1u;
const uint COUNTER_DISPATCH = 2u;
const uint COUNTER_KEYS = 5u;
const uint WAVEFRONT_GROUP = 64u;
const uint MISS_INSTANCE = 4294967295u;
const uint FILM_LUM_SQ = 10u;
const uint FILM_COST = 11u;
const uint FILM_PATH_LENGTH = 12u;
const uint FILM_SHADOW_RAYS = 13u;
const uint FILM_CLOCK = 14u;
const uint FILM_LAYERS = 29u;
const uint FILM_DIFFUSE = 15u;
const uint FILM_SPECULAR = 18u;
const uint FILM_DIFFUSE_ALBEDO = 21u;
const uint FILM_SPECULAR_ALBEDO = 24u;
const uint FILM_DIFFUSE_LUM_SQ = 27u;
const uint FILM_SPECULAR_LUM_SQ = 28u;
const uint DIM_PIXEL_X = 0u;
const uint DIM_PIXEL_Y = 1u;
const uint DIM_LENS_U = 2u;
const uint DIM_LENS_V = 3u;
const uint DIM_BSDF_U = 4u;
const uint DIM_BSDF_V = 5u;
const uint DIM_LOBE = 6u;
const uint DIM_BSDF_W = 7u;
const uint DIM_LIGHT_U = 8u;
const uint DIM_LIGHT_V = 9u;
const uint DIM_LIGHT = 10u;
const uint DIM_LIGHT_COIN = 11u;
const uint DIM_ROULETTE = 12u;
const uint DIMS_PER_BOUNCE = 13u;
const uint PAIRS_PER_BOUNCE = 7u;
const uint PCG_MULTIPLIER = 1664525u;
const uint PCG_INCREMENT = 1013904223u;
const uint LAINE_KARRAS_0 = 1817228412u;
const uint LAINE_KARRAS_1 = 3090095698u;
const uint LAINE_KARRAS_2 = 3350193720u;
const uint LAINE_KARRAS_3 = 2367878886u;
const uint SHUFFLE_SALT = 2654435769u;
const uint SCRAMBLE_SALT = 2246822507u;
const uint HIT_COIN_STRIDE = 2654435761u;
const uint EVENT_LIGHT = 1u;
const uint EVENT_ROULETTE = 2u;
const uint ROULETTE_START = 3u;
const uint MAX_HINT_BITS = 16u;
const uint COHERENCE_BITS = 3u;
const uint REORDER_NONE = 4294967295u;
const float COAT_F0 = 0.04;
const float SHEEN_MIN_ALPHA = 0.007;
const float ROULETTE_FLOOR = 0.05;
const float SHADOW_RAY_END = 0.9999;
const float MIN_ALPHA = 0.001;
const int ALBEDO_TABLE_SIZE = 32;
const float HAIR_DEFAULT_EUMELANIN = 1.3;
const float HAIR_DEFAULT_BETA = 0.3;
const float HAIR_DEFAULT_ALPHA = 2.0;
const float HAIR_DEFAULT_ETA = 1.55;
const float HAIR_BETA_MIN = 0.01;
const float HAIR_ETA_MIN = 1.0001;
const float HAIR_COLOR_MIN = 0.0001;
const float SPOT_CONE_MIN = 0.0001;
const uint PUNCTUAL_POINT = 0u;
const uint PUNCTUAL_SPOT = 1u;
const uint PUNCTUAL_DIRECTIONAL = 2u;

struct TextureRef {
    int texture;
    uint texCoord;
    float transform[6];
};

struct HairParams {
    float eumelanin;
    float pheomelanin;
    vec3 color;
    float betaM;
    float betaN;
    float alpha;
    float eta;
    uint set;
};

struct Material {
    vec4 baseColor;
    vec3 emissive;
    float metallic;
    float roughness;
    float ior;
    float specular;
    vec3 specularColor;
    float transmission;
    vec3 attenuationColor;
    float attenuationDistance;
    float normalScale;
    float alphaCutoff;
    uint flags;
    TextureRef baseColorTex;
    TextureRef metallicRoughness;
    TextureRef normalTex;
    TextureRef emissiveTex;
    TextureRef transmissionTex;
    TextureRef specularTex;
    TextureRef specularColorTex;
    float clearcoat;
    float clearcoatRoughness;
    float clearcoatNormalScale;
    TextureRef clearcoatTex;
    TextureRef clearcoatRoughnessTex;
    TextureRef clearcoatNormalTex;
    vec3 sheenColor;
    float sheenRoughness;
    TextureRef sheenColorTex;
    TextureRef sheenRoughnessTex;
    float diffuseTransmission;
    vec3 diffuseTransmissionColor;
    TextureRef diffuseTransmissionTex;
    TextureRef diffuseTransColorTex;
    float anisotropyStrength;
    float anisotropyRotation;
    TextureRef anisotropyTex;
    HairParams hair;
};

struct Texture {
    uint offset;
    uint width;
    uint height;
    uint srgb;
    uint nearest;
    uint wrapS;
    uint wrapT;
};

struct Instance {
    vec4 toWorld[3];
    vec4 toObject[3];
    uint kind;
    uint geometry;
    uint material;
    int firstLight;
    uint flags;
};

struct Mesh {
    uint firstIndex;
    uint firstVertex;
    int normals;
    int uv0;
    int uv1;
    int colors;
    int tangents;
    uint triangleCount;
};

struct SphereSet {
    uint firstPoint;
    uint firstRadius;
    uint count;
};

struct CurveSet {
    uint firstPoint;
    uint firstRadius;
    uint firstSegment;
    uint count;
};

struct LightEntry {
    uint kind;
    int instance;
    int index;
    float area;
};

struct Light {
    uint kind;
    vec3 color;
    float intensity;
    vec3 position;
    vec3 direction;
    float range;
    float innerCone;
    float outerCone;
};

struct Camera {
    vec3 eye;
    vec3 x;
    vec3 y;
    vec3 z;
    uint ortho;
    float sx;
    float sy;
    float w;
    float h;
    float aperture;
    float focus;
};

struct Path {
    vec3 origin;
    vec3 dir;
    vec3 throughput;
    vec3 radiance;
    vec3 albedo;
    vec3 normal;
    float depth;
    uint pixel;
    uint sampleIndex;
    uint bounce;
    float prevPdf;
    int medium;
    float etaScale;
    uint alive;
    uint rays;
    uint shadowRays;
    uint events;
    vec3 diffuse;
    vec3 specular;
    vec3 diffAlbedo;
    vec3 specAlbedo;
    vec3 split;
};

struct Hit {
    uint instance;
    uint prim;
    float u;
    float v;
    float t;
    uint key;
};

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer InstanceBuf { Instance v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer MaterialBuf { Material v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer MeshBuf { Mesh v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer SphereSetBuf { SphereSet v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer CurveSetBuf { CurveSet v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer TextureBuf { Texture v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Vec3Buf { vec3 v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Vec2Buf { vec2 v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Vec4Buf { vec4 v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer UintBuf { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer FloatBuf { float v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer LightEntryBuf { LightEntry v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer LightBuf { Light v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer PathBuf { Path v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer HitBuf { Hit v[]; };

struct Params {
    uint64_t tlas;
    InstanceBuf instances;
    MaterialBuf materials;
    MeshBuf meshes;
    SphereSetBuf sphereSets;
    CurveSetBuf curveSets;
    TextureBuf textures;
    Vec3Buf positions;
    Vec3Buf normals;
    Vec2Buf texCoords;
    Vec4Buf colors;
    Vec4Buf tangents;
    UintBuf indices;
    Vec3Buf points;
    FloatBuf radii;
    UintBuf segments;
    UintBuf texels;
    LightEntryBuf lights;
    FloatBuf lightProb;
    UintBuf lightAlias;
    FloatBuf lightPdf;
    LightBuf punctual;
    Vec3Buf envPixels;
    FloatBuf envMarginal;
    FloatBuf envConditional;
    FloatBuf filterCDF;
    Vec2Buf albedoTable;
    FloatBuf srgbTable;
    FloatBuf film;
    PathBuf paths;
    HitBuf hits;
    UintBuf queueA;
    UintBuf queueB;
    UintBuf sorted;
    UintBuf counters;
    Camera camera;
    vec3 forward;
    uint width;
    uint height;
    uint firstSample;
    uint samples;
    uint maxDepth;
    uint seed;
    uint reorderBits;
    uint hintFlags;
    uint lightCount;
    int envLight;
    vec3 envColor;
    uint envMap;
    uint envWidth;
    uint envHeight;
    float envRotation;
    float envIntensity;
    float envTotal;
    uint filterN;
    float filterRadius;
    uint pathCount;
    uint keyCount;
    uint sortOn;
};

struct DenoiseParams {
    Vec3Buf light;
    FloatBuf sd;
    Vec3Buf albedo;
    Vec3Buf normal;
    FloatBuf depth;
    FloatBuf gradZ;
    Vec3Buf result;
    uint width;
    uint height;
    int radius;
    float sigmaLum;
    float sigmaNorm;
    float sigmaDepth;
    float sigmaAlb;
    uint pad;
};

#endif
