// Package embree traces rays with Intel Embree 3, loaded at run time (like
// libvulkan.so.1): sertrace builds with Go and a C compiler alone, and
// renders without Embree where the library is missing. The few declarations
// it uses are written from Embree 3's API documentation (rtcore_*.h, 3.13).
//
// A Scene holds geometries (triangles, spheres, round linear curves): in
// the top level itself, in world space, when one instance places them, or
// in a scene of their own that instances place by their transforms. Rays
// are traced in streams: one call from Go per batch of rays, the loop over
// them in C.
package embree

/*
#cgo LDFLAGS: -ldl -lm
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

// From Embree 3's API (rtcore_common.h, rtcore_ray.h, rtcore_geometry.h,
// rtcore_scene.h, rtcore_device.h), with RTC_MAX_INSTANCE_LEVEL_COUNT 1 as
// the released libraries are built.
typedef void *RTCDevice;
typedef void *RTCScene;
typedef void *RTCGeometry;
#define RTC_INVALID_GEOMETRY_ID ((unsigned)-1)

struct RTCRay {
	float org_x, org_y, org_z, tnear;
	float dir_x, dir_y, dir_z, time;
	float tfar;
	unsigned mask, id, flags;
} __attribute__((aligned(16)));

struct RTCHit {
	float Ng_x, Ng_y, Ng_z;
	float u, v;
	unsigned primID, geomID;
	unsigned instID[1];
};

struct RTCRayHit {
	struct RTCRay ray;
	struct RTCHit hit;
} __attribute__((aligned(16)));

// A packet of 8 rays and hits (RTCRayHit8), each field an array over the
// rays (the layout that RTCRayN and RTCHitN give filters for N = 8).
struct RTCRayHit8 {
	float org_x[8], org_y[8], org_z[8], tnear[8];
	float dir_x[8], dir_y[8], dir_z[8], time[8];
	float tfar[8];
	unsigned mask[8], id[8], flags[8];
	float Ng_x[8], Ng_y[8], Ng_z[8];
	float u[8], v[8];
	unsigned primID[8], geomID[8];
	unsigned instID[1][8];
} __attribute__((aligned(32)));

struct RTCIntersectContext {
	int flags; // RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT 0, _COHERENT 1
	void *filter;
	unsigned instID[1];
	// Read only by libraries built with EMBREE_MIN_WIDTH (Debian's is not):
	// there, 0 leaves curves their own radii.
	float minWidthDistanceFactor;
};

struct RTCFilterFunctionNArguments {
	int *valid;
	void *geometryUserPtr;
	const struct RTCIntersectContext *context;
	void *ray; // RTCRayN: struct RTCRay's fields, each an array of N
	void *hit; // RTCHitN: struct RTCHit's, likewise
	unsigned N;
};

// Field f (its index in struct RTCRay or RTCHit, counted in 4-byte words)
// of ray k of an RTCRayN or RTCHitN of N rays.
#define RAYN(p, N, f, k) (((float *)(p))[(f) * (N) + (k)])
#define HITN_UINT(p, N, f, k) (((unsigned *)(p))[(f) * (N) + (k)])
enum { RAY_ORG_X = 0, RAY_ORG_Y = 1, RAY_ORG_Z = 2, RAY_DIR_X = 4, RAY_DIR_Y = 5, RAY_DIR_Z = 6, RAY_TFAR = 8 }; // a filter sees its candidate's distance in tfar
enum { HIT_NG_X = 0, HIT_NG_Y = 1, HIT_NG_Z = 2, HIT_U = 3, HIT_V = 4, HIT_PRIM = 5, HIT_GEOM = 6, HIT_INST = 7 };

enum {
	RTC_GEOMETRY_TYPE_TRIANGLE = 0,
	RTC_GEOMETRY_TYPE_ROUND_LINEAR_CURVE = 16,
	RTC_GEOMETRY_TYPE_SPHERE_POINT = 50,
	RTC_GEOMETRY_TYPE_INSTANCE = 121,
	RTC_BUFFER_TYPE_INDEX = 0,
	RTC_BUFFER_TYPE_VERTEX = 1,
	RTC_BUFFER_TYPE_FLAGS = 32,
	RTC_FORMAT_UCHAR = 0x1001,
	RTC_FORMAT_UINT = 0x5001,
	RTC_FORMAT_UINT3 = 0x5003,
	RTC_FORMAT_FLOAT3 = 0x9003,
	RTC_FORMAT_FLOAT4 = 0x9004,
	RTC_FORMAT_FLOAT3X4_ROW_MAJOR = 0x9134,
	RTC_SCENE_FLAG_ROBUST = 1 << 2,
	RTC_BUILD_QUALITY_HIGH = 2,
	RTC_DEVICE_PROPERTY_VERSION = 0,
	RTC_DEVICE_PROPERTY_NATIVE_RAY8_SUPPORTED = 33,
	RTC_DEVICE_PROPERTY_BACKFACE_CULLING_CURVES_ENABLED = 63,
	RTC_DEVICE_PROPERTY_BACKFACE_CULLING_ENABLED = 65,
	RTC_DEVICE_PROPERTY_FILTER_FUNCTION_SUPPORTED = 66,
	RTC_DEVICE_PROPERTY_CURVE_GEOMETRY_SUPPORTED = 99,
	RTC_DEVICE_PROPERTY_POINT_GEOMETRY_SUPPORTED = 101,
};

struct sertraceRTC {
	RTCDevice (*newDevice)(const char *);
	void (*releaseDevice)(RTCDevice);
	int (*getDeviceError)(RTCDevice);
	ssize_t (*getDeviceProperty)(RTCDevice, int);
	RTCScene (*newScene)(RTCDevice);
	void (*releaseScene)(RTCScene);
	void (*setSceneFlags)(RTCScene, int);
	void (*setSceneBuildQuality)(RTCScene, int);
	void (*commitScene)(RTCScene);
	RTCGeometry (*newGeometry)(RTCDevice, int);
	void (*releaseGeometry)(RTCGeometry);
	void (*commitGeometry)(RTCGeometry);
	unsigned (*attachGeometry)(RTCScene, RTCGeometry);
	void (*attachGeometryByID)(RTCScene, RTCGeometry, unsigned);
	void *(*setNewGeometryBuffer)(RTCGeometry, int, unsigned, int, size_t, size_t);
	void (*setGeometryInstancedScene)(RTCGeometry, RTCScene);
	void (*setGeometryTransform)(RTCGeometry, unsigned, int, const float *);
	void (*setGeometryUserData)(RTCGeometry, void *);
	void (*setGeometryIntersectFilterFunction)(RTCGeometry, void *);
	void (*setGeometryOccludedFilterFunction)(RTCGeometry, void *);
	void (*intersect1)(RTCScene, struct RTCIntersectContext *, struct RTCRayHit *);
	void (*occluded1)(RTCScene, struct RTCIntersectContext *, struct RTCRay *);
	void (*intersect8)(const int *, RTCScene, struct RTCIntersectContext *, struct RTCRayHit8 *);
	int packets; // rtcIntersect8 works (a library built without packets refuses it and writes nothing)
};
static struct sertraceRTC rtc;

// sertraceEmbreeLoad loads a library and makes its device. The entry points
// go into rtc only when the device is made and has what sertrace needs: a
// library that fails leaves nothing behind (rtc is set once per process;
// Go never loads a second library).
static const char *sertraceEmbreeLoad(const char *name, const char *config, RTCDevice *dev, long *version) {
	void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		return dlerror();
	}
	struct sertraceRTC f;
#define SYM(field, sym) if ((*(void **)&f.field = dlsym(lib, sym)) == NULL) { dlclose(lib); return "the library lacks " sym; }
	SYM(newDevice, "rtcNewDevice")
	SYM(releaseDevice, "rtcReleaseDevice")
	SYM(getDeviceError, "rtcGetDeviceError")
	SYM(getDeviceProperty, "rtcGetDeviceProperty")
	SYM(newScene, "rtcNewScene")
	SYM(releaseScene, "rtcReleaseScene")
	SYM(setSceneFlags, "rtcSetSceneFlags")
	SYM(setSceneBuildQuality, "rtcSetSceneBuildQuality")
	SYM(commitScene, "rtcCommitScene")
	SYM(newGeometry, "rtcNewGeometry")
	SYM(releaseGeometry, "rtcReleaseGeometry")
	SYM(commitGeometry, "rtcCommitGeometry")
	SYM(attachGeometry, "rtcAttachGeometry")
	SYM(attachGeometryByID, "rtcAttachGeometryByID")
	SYM(setNewGeometryBuffer, "rtcSetNewGeometryBuffer")
	SYM(setGeometryInstancedScene, "rtcSetGeometryInstancedScene")
	SYM(setGeometryTransform, "rtcSetGeometryTransform")
	SYM(setGeometryUserData, "rtcSetGeometryUserData")
	SYM(setGeometryIntersectFilterFunction, "rtcSetGeometryIntersectFilterFunction")
	SYM(setGeometryOccludedFilterFunction, "rtcSetGeometryOccludedFilterFunction")
	SYM(intersect1, "rtcIntersect1")
	SYM(occluded1, "rtcOccluded1")
	SYM(intersect8, "rtcIntersect8")
#undef SYM
	RTCDevice d = f.newDevice(config);
	if (d == NULL) {
		dlclose(lib);
		return "rtcNewDevice failed (does the CPU have SSE2?)";
	}
	const char *why = NULL;
	*version = (long)f.getDeviceProperty(d, RTC_DEVICE_PROPERTY_VERSION);
	if (*version < 31300) {
		why = "too old";
	} else if (f.getDeviceProperty(d, RTC_DEVICE_PROPERTY_FILTER_FUNCTION_SUPPORTED) != 1) {
		why = "built without filter functions (alpha masks need them)";
	} else if (f.getDeviceProperty(d, RTC_DEVICE_PROPERTY_BACKFACE_CULLING_ENABLED) != 0 ||
		f.getDeviceProperty(d, RTC_DEVICE_PROPERTY_BACKFACE_CULLING_CURVES_ENABLED) != 0) {
		why = "built with back-face culling (glTF's double-sided surfaces need both sides)";
	} else if (f.getDeviceProperty(d, RTC_DEVICE_PROPERTY_CURVE_GEOMETRY_SUPPORTED) != 1 ||
		f.getDeviceProperty(d, RTC_DEVICE_PROPERTY_POINT_GEOMETRY_SUPPORTED) != 1) {
		why = "built without curves or points (hair and particles need them)";
	}
	if (why != NULL) {
		f.releaseDevice(d);
		dlclose(lib);
		return why;
	}
	f.packets = f.getDeviceProperty(d, RTC_DEVICE_PROPERTY_NATIVE_RAY8_SUPPORTED) == 1;
	rtc = f;
	*dev = d;
	return NULL;
}

// What Go and C exchange per ray and per hit.
typedef struct {
	float org[3], tnear;
	float dir[3], tfar;
} sertraceRay;

typedef struct {
	float t;
	int inst; // -1: no hit
	int prim;
	float u, v;
	unsigned char kind; // the hit kinds of Kind* below
} sertraceHit;

// The hit kinds: Go's Kind constants are these.
enum { KIND_FRONT = 1, KIND_BACK = 2, KIND_SPHERE = 3, KIND_CURVE = 4, KIND_INSTANCED_TRIANGLE = 5 };

// Any-hit decisions that Go makes (alpha masks): exported from Go.
extern int sertraceEmbreeAnyHit(uintptr_t handle, unsigned inst, unsigned prim, float u, float v, float t);

// enteringOnly rejects a hit where the ray leaves the surface (a ray that
// starts inside a sphere or round cone sees nothing of it, as native swept
// spheres report). The ray and Ng are both in the instance's space, and
// the sign of their dot product is the same in every space.
// Filters see N rays at once: 1 for single rays, 8 for packets.
static void sertraceEnteringOnly(const struct RTCFilterFunctionNArguments *args) {
	unsigned N = args->N;
	for (unsigned k = 0; k < N; k++) {
		if (args->valid[k] == 0) {
			continue;
		}
		float d = RAYN(args->hit, N, HIT_NG_X, k) * RAYN(args->ray, N, RAY_DIR_X, k) +
			RAYN(args->hit, N, HIT_NG_Y, k) * RAYN(args->ray, N, RAY_DIR_Y, k) +
			RAYN(args->hit, N, HIT_NG_Z, k) * RAYN(args->ray, N, RAY_DIR_Z, k);
		if (d > 0) {
			args->valid[k] = 0;
		}
	}
}

// A curve geometry's strands, for the strand rule: Embree's own buffers
// (vertices as centre and radius, each segment's first vertex, its
// neighbour flags) and the rule's tolerances and reach.
typedef struct {
	const float *vr;
	const unsigned *first;
	const unsigned char *flags;
	unsigned n;
	double tolTravel, tolPosition, tolRadius;
	int reach;
} sertraceStrands;

// sertraceRoundCone is the signed distance from x to the round cone from
// the sphere of radius ra about the origin to the sphere of radius rb about
// ba (render/cpu's roundConeDistance, which derives it).
static double sertraceRoundCone(const double x[3], const double ba[3], double ra, double rb) {
	double l2 = ba[0] * ba[0] + ba[1] * ba[1] + ba[2] * ba[2];
	double dr = rb - ra;
	if (l2 <= dr * dr) {
		double xb[3] = {x[0] - ba[0], x[1] - ba[1], x[2] - ba[2]};
		double da = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - ra;
		double db = sqrt(xb[0] * xb[0] + xb[1] * xb[1] + xb[2] * xb[2]) - rb;
		return da < db ? da : db;
	}
	double l = sqrt(l2);
	double y = (x[0] * ba[0] + x[1] * ba[1] + x[2] * ba[2]) / l;
	double p[3] = {x[0] - ba[0] * (y / l), x[1] - ba[1] * (y / l), x[2] - ba[2] * (y / l)};
	double h = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
	double u = (y + dr * h / sqrt(l2 - dr * dr)) / l;
	u = u < 0 ? 0 : u > 1 ? 1 : u;
	double along = y - u * l;
	return sqrt(h * h + along * along) - (ra + u * dr);
}

// sertraceStrandInside is render/cpu's strandHitCounts' inside for segment
// q, with x and o relative to the first vertex (a) of segment p, whose
// larger radius is rp: whether the hit is not on the tube's surface by q,
// and whether q can hold it at all. joint is the vertex q shares with p, or
// -1 (q is p, or further along the chain).
static int sertraceStrandInside(const sertraceStrands *s, unsigned p, unsigned q, int joint, double rp, const double a[3],
		const double x[3], const double o[3], double tol, int *near) {
	const float *v = s->vr + 4 * (size_t)s->first[q];
	double aq[3] = {v[0], v[1], v[2]};
	double bq[3] = {v[4] - aq[0], v[5] - aq[1], v[6] - aq[2]};
	double xq[3], oq[3];
	for (int i = 0; i < 3; i++) {
		xq[i] = x[i] + a[i] - aq[i];
		oq[i] = o[i] + a[i] - aq[i];
	}
	double ra = v[3], rb = v[7];
	double rq = ra > rb ? ra : rb;
	*near = 0;
	if (joint >= 0) {
		const float *j = s->vr + 4 * (size_t)joint;
		double xj[3] = {x[0] + a[0] - j[0], x[1] + a[1] - j[1], x[2] + a[2] - j[2]};
		double reach = 3 * (rp + rq) + tol;
		if (xj[0] * xj[0] + xj[1] * xj[1] + xj[2] * xj[2] > reach * reach) {
			return 0;
		}
	} else if (q != p) {
		double reach = sqrt(bq[0] * bq[0] + bq[1] * bq[1] + bq[2] * bq[2]) + rq + tol;
		if (xq[0] * xq[0] + xq[1] * xq[1] + xq[2] * xq[2] > reach * reach) {
			return 0;
		}
	}
	*near = 1;
	double dx = sertraceRoundCone(xq, bq, ra, rb);
	return dx < -tol || (dx < tol && sertraceRoundCone(oq, bq, ra, rb) < tol);
}

static double sertraceMaxAbs(const double v[3]) {
	double m = fabs(v[0]);
	m = fabs(v[1]) > m ? fabs(v[1]) : m;
	return fabs(v[2]) > m ? fabs(v[2]) : m;
}

// sertraceStrandCounts is render/cpu's strandHitCounts: whether a hit at
// distance t on segment p, of a ray from org along dir, is where the ray
// enters the smooth tube that the segment's chain draws.
static int sertraceStrandCounts(const sertraceStrands *s, unsigned p, const float org[3], const float dir[3], float t) {
	const float *v = s->vr + 4 * (size_t)s->first[p];
	double a[3] = {v[0], v[1], v[2]};
	double o[3], travel[3], x[3];
	for (int i = 0; i < 3; i++) {
		o[i] = (double)org[i] - a[i];
		travel[i] = (double)dir[i] * (double)t;
		x[i] = o[i] + travel[i];
	}
	double ox[3] = {org[0], org[1], org[2]}, xx[3] = {x[0] + a[0], x[1] + a[1], x[2] + a[2]};
	double po = sertraceMaxAbs(ox), px = sertraceMaxAbs(xx);
	double tol = s->tolTravel * (sertraceMaxAbs(o) + sertraceMaxAbs(travel)) + s->tolRadius * ((double)v[3] + (double)v[7]) +
		s->tolPosition * (po > px ? po : px);
	double rp = v[3] > v[7] ? v[3] : v[7];
	int near;
	if (sertraceStrandInside(s, p, p, -1, rp, a, x, o, tol, &near)) {
		return 0;
	}
	unsigned q = p;
	for (int k = 0; k < s->reach && (s->flags[q] & 1); k++) { // chained to the one before
		q--;
		if (sertraceStrandInside(s, p, q, k == 0 ? (int)s->first[p] : -1, rp, a, x, o, tol, &near)) {
			return 0;
		}
		if (!near) {
			break;
		}
	}
	q = p;
	for (int k = 0; k < s->reach && q + 1 < s->n && (s->flags[q + 1] & 1); k++) {
		q++;
		if (sertraceStrandInside(s, p, q, k == 0 ? (int)s->first[p] + 1 : -1, rp, a, x, o, tol, &near)) {
			return 0;
		}
		if (!near) {
			break;
		}
	}
	return 1;
}

// sertraceStrandFilter keeps a curve hit only where the ray enters the
// surface (by Embree's normal, as enteringOnly) and only where the strand
// rule lets it count (render/cpu's intersectStrandSegment says why).
static void sertraceStrandFilter(const struct RTCFilterFunctionNArguments *args) {
	sertraceEnteringOnly(args);
	const sertraceStrands *s = (const sertraceStrands *)args->geometryUserPtr;
	unsigned N = args->N;
	for (unsigned k = 0; k < N; k++) {
		if (args->valid[k] == 0) {
			continue;
		}
		float org[3] = {RAYN(args->ray, N, RAY_ORG_X, k), RAYN(args->ray, N, RAY_ORG_Y, k), RAYN(args->ray, N, RAY_ORG_Z, k)};
		float dir[3] = {RAYN(args->ray, N, RAY_DIR_X, k), RAYN(args->ray, N, RAY_DIR_Y, k), RAYN(args->ray, N, RAY_DIR_Z, k)};
		if (!sertraceStrandCounts(s, HITN_UINT(args->hit, N, HIT_PRIM, k), org, dir, RAYN(args->ray, N, RAY_TFAR, k))) {
			args->valid[k] = 0;
		}
	}
}

static void sertraceAnyHit(const struct RTCFilterFunctionNArguments *args) {
	unsigned N = args->N;
	for (unsigned k = 0; k < N; k++) {
		if (args->valid[k] == 0) {
			continue;
		}
		unsigned inst = HITN_UINT(args->hit, N, HIT_INST, k);
		if (inst == RTC_INVALID_GEOMETRY_ID) {
			inst = HITN_UINT(args->hit, N, HIT_GEOM, k);
		}
		if (!sertraceEmbreeAnyHit((uintptr_t)args->geometryUserPtr, inst, HITN_UINT(args->hit, N, HIT_PRIM, k),
				RAYN(args->hit, N, HIT_U, k), RAYN(args->hit, N, HIT_V, k), RAYN(args->ray, N, RAY_TFAR, k))) {
			args->valid[k] = 0;
		}
	}
}

enum { FILTER_ENTERING_ONLY = 1, FILTER_ANY_HIT = 2, FILTER_STRANDS = 3 };

// sertraceSetFilter gives g its filter; handle is the any-hit's Go handle,
// or the strands' sertraceStrands.
static void sertraceSetFilter(RTCGeometry g, int kind, uintptr_t handle) {
	void *f = kind == FILTER_ENTERING_ONLY ? (void *)sertraceEnteringOnly : kind == FILTER_STRANDS ? (void *)sertraceStrandFilter : (void *)sertraceAnyHit;
	if (kind != FILTER_ENTERING_ONLY) {
		rtc.setGeometryUserData(g, (void *)handle);
	}
	rtc.setGeometryIntersectFilterFunction(g, f);
	rtc.setGeometryOccludedFilterFunction(g, f);
}

static void sertraceInitContext(struct RTCIntersectContext *c) {
	c->flags = 0;
	c->filter = NULL;
	c->instID[0] = RTC_INVALID_GEOMETRY_ID;
	c->minWidthDistanceFactor = 0;
}

// sertraceStore writes a ray's hit (or its miss) as Go reads it and says
// whether there was one. kinds[id] says what instance id holds:
// KIND_FRONT for triangles in the top level (their side is decided here by
// the normal), KIND_INSTANCED_TRIANGLE for an instance's (Embree 3 gives
// their normal in object space: the caller decides), KIND_SPHERE or
// KIND_CURVE.
static inline unsigned char sertraceStore(sertraceHit *h, const sertraceRay *r, const unsigned char *kinds, float tfar,
		float ngx, float ngy, float ngz, float u, float v, unsigned prim, unsigned geom, unsigned instID) {
	if (geom == RTC_INVALID_GEOMETRY_ID) {
		h->t = r->tfar; h->inst = -1; h->prim = 0; h->u = 0; h->v = 0; h->kind = 0;
		return 0;
	}
	// A geometry placed in the top level itself reports no instance: its
	// ID is the instance's.
	unsigned inst = instID != RTC_INVALID_GEOMETRY_ID ? instID : geom;
	h->t = tfar; h->inst = (int)inst; h->prim = (int)prim;
	h->u = u; h->v = v;
	unsigned char kind = kinds[inst];
	switch (kind) {
	case KIND_FRONT:
		if (ngx * r->dir[0] + ngy * r->dir[1] + ngz * r->dir[2] > 0) {
			kind = KIND_BACK;
		}
		break;
	case KIND_SPHERE:
		h->u = 0; h->v = 0;
		break;
	case KIND_CURVE:
		h->u = h->u < 0 ? 0 : h->u > 1 ? 1 : h->u;
		h->v = 0;
		break;
	}
	h->kind = kind;
	return 1;
}

// sertraceIntersect traces n rays one by one (rtcIntersect1, the fastest
// for incoherent rays), each hit stored by sertraceStore.
static void sertraceIntersect(RTCScene s, const sertraceRay *rays, sertraceHit *hits, unsigned char *found, int n, const unsigned char *kinds) {
	struct RTCIntersectContext ctx;
	sertraceInitContext(&ctx);
	struct RTCRayHit rh;
	for (int i = 0; i < n; i++) {
		const sertraceRay *r = &rays[i];
		rh.ray.org_x = r->org[0]; rh.ray.org_y = r->org[1]; rh.ray.org_z = r->org[2];
		rh.ray.dir_x = r->dir[0]; rh.ray.dir_y = r->dir[1]; rh.ray.dir_z = r->dir[2];
		rh.ray.tnear = r->tnear; rh.ray.tfar = r->tfar;
		rh.ray.time = 0; rh.ray.mask = -1; rh.ray.id = 0; rh.ray.flags = 0;
		rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
		rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
		rtc.intersect1(s, &ctx, &rh);
		found[i] = sertraceStore(&hits[i], r, kinds, rh.ray.tfar, rh.hit.Ng_x, rh.hit.Ng_y, rh.hit.Ng_z,
			rh.hit.u, rh.hit.v, rh.hit.primID, rh.hit.geomID, rh.hit.instID[0]);
	}
}

// Whether coherent rays go in packets (where the library traces them so).
static int sertracePackets(void) { return rtc.packets; }
static void sertraceSetPackets(int on) { rtc.packets = on; }

// sertraceIntersectCoherent is sertraceIntersect for rays that run side by
// side (a tile's camera rays): Embree traces them in packets of 8.
static void sertraceIntersectCoherent(RTCScene s, const sertraceRay *rays, sertraceHit *hits, unsigned char *found, int n, const unsigned char *kinds) {
	if (!rtc.packets) {
		sertraceIntersect(s, rays, hits, found, n, kinds);
		return;
	}
	struct RTCIntersectContext ctx;
	sertraceInitContext(&ctx);
	ctx.flags = 1; // RTC_INTERSECT_CONTEXT_FLAG_COHERENT
	struct RTCRayHit8 p;
	int valid[8] __attribute__((aligned(32)));
	for (int i = 0; i < n; i += 8) {
		int m = n - i < 8 ? n - i : 8;
		for (int k = 0; k < 8; k++) {
			const sertraceRay *r = &rays[i + (k < m ? k : 0)];
			valid[k] = k < m ? -1 : 0;
			p.org_x[k] = r->org[0]; p.org_y[k] = r->org[1]; p.org_z[k] = r->org[2];
			p.dir_x[k] = r->dir[0]; p.dir_y[k] = r->dir[1]; p.dir_z[k] = r->dir[2];
			p.tnear[k] = r->tnear; p.tfar[k] = r->tfar;
			p.time[k] = 0; p.mask[k] = -1; p.id[k] = 0; p.flags[k] = 0;
			p.geomID[k] = RTC_INVALID_GEOMETRY_ID;
			p.instID[0][k] = RTC_INVALID_GEOMETRY_ID;
		}
		rtc.intersect8(valid, s, &ctx, &p);
		for (int k = 0; k < m; k++) {
			found[i + k] = sertraceStore(&hits[i + k], &rays[i + k], kinds, p.tfar[k], p.Ng_x[k], p.Ng_y[k], p.Ng_z[k],
				p.u[k], p.v[k], p.primID[k], p.geomID[k], p.instID[0][k]);
		}
	}
}

static void sertraceOccluded(RTCScene s, const sertraceRay *rays, unsigned char *occluded, int n) {
	struct RTCIntersectContext ctx;
	sertraceInitContext(&ctx);
	struct RTCRay ray;
	for (int i = 0; i < n; i++) {
		const sertraceRay *r = &rays[i];
		ray.org_x = r->org[0]; ray.org_y = r->org[1]; ray.org_z = r->org[2];
		ray.dir_x = r->dir[0]; ray.dir_y = r->dir[1]; ray.dir_z = r->dir[2];
		ray.tnear = r->tnear; ray.tfar = r->tfar;
		ray.time = 0; ray.mask = -1; ray.id = 0; ray.flags = 0;
		rtc.occluded1(s, &ctx, &ray);
		occluded[i] = ray.tfar < 0; // Embree sets tfar to -inf on a hit
	}
}

static RTCGeometry sertraceNewGeometry(RTCDevice d, int type) { return rtc.newGeometry(d, type); }
static void sertraceReleaseGeometry(RTCGeometry g) { rtc.releaseGeometry(g); }
static void *sertraceBuffer(RTCGeometry g, int type, int format, size_t stride, size_t count) {
	return rtc.setNewGeometryBuffer(g, type, 0, format, stride, count);
}
static int sertraceError(RTCDevice d) { return rtc.getDeviceError(d); }
static RTCScene sertraceNewScene(RTCDevice d, int flags) {
	RTCScene s = rtc.newScene(d);
	if (s != NULL) {
		rtc.setSceneFlags(s, flags);
		rtc.setSceneBuildQuality(s, RTC_BUILD_QUALITY_HIGH);
	}
	return s;
}
// sertraceAttach commits g and hands it to s (which holds it from then on).
static void sertraceAttach(RTCScene s, RTCGeometry g, unsigned id) {
	rtc.commitGeometry(g);
	rtc.attachGeometryByID(s, g, id);
	rtc.releaseGeometry(g);
}
static int sertraceAttachInstance(RTCDevice d, RTCScene s, RTCScene child, unsigned id, const float *rowMajor3x4) {
	RTCGeometry g = rtc.newGeometry(d, RTC_GEOMETRY_TYPE_INSTANCE);
	if (g == NULL) {
		return 0;
	}
	rtc.setGeometryInstancedScene(g, child);
	rtc.setGeometryTransform(g, 0, RTC_FORMAT_FLOAT3X4_ROW_MAJOR, rowMajor3x4);
	rtc.commitGeometry(g);
	rtc.attachGeometryByID(s, g, id);
	rtc.releaseGeometry(g);
	return 1;
}
static void sertraceCommit(RTCScene s) { rtc.commitScene(s); }
static void sertraceReleaseScene(RTCScene s) { rtc.releaseScene(s); }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/cgo"
	"strings"
	"sync"
	"unsafe"
)

// Library names tried in order; SERTRACE_EMBREE names another file, or
// "off" to act as if none loads (the fallback's tests).
var libraryNames = []string{"libembree3.so.3", "libembree3.so"}

// Device is a loaded Embree library and the device made from it.
type Device struct {
	dev     C.RTCDevice
	Version string // e.g. "3.13.5"
	Library string // the file loaded
}

// Packets reports whether the library traces packets of 8 rays (built
// with them, for a CPU that has them); without, coherent rays go one by
// one like the rest.
func (d *Device) Packets() bool { return C.sertracePackets() != 0 }

// setPackets turns the packets off or back on (tests: the fallback).
func setPackets(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.sertraceSetPackets(v)
}

type opened struct {
	d   *Device
	err error
}

var (
	openMu sync.Mutex
	loaded = map[string]opened{} // by SERTRACE_EMBREE's value
	device *Device               // the one library loaded in this process
)

// Open loads Embree once per process (per value of SERTRACE_EMBREE); later
// calls return the same device or the same reason it could not be loaded.
// One library is loaded at most: once one has, a value naming another is
// refused.
func Open() (*Device, error) {
	openMu.Lock()
	defer openMu.Unlock()
	key := os.Getenv("SERTRACE_EMBREE")
	o, ok := loaded[key]
	if !ok {
		o.d, o.err = open(key)
		loaded[key] = o
	}
	return o.d, o.err
}

func open(override string) (*Device, error) {
	names := libraryNames
	if override != "" {
		if override == "off" {
			return nil, errors.New("SERTRACE_EMBREE=off turns Embree off")
		}
		names = []string{override}
	}
	if device != nil {
		for _, name := range names {
			if name == device.Library {
				return device, nil
			}
		}
		return nil, fmt.Errorf("Embree is already loaded from %s in this process; %s is not loaded beside it", device.Library, strings.Join(names, ", "))
	}
	var reasons []string
	for _, name := range names {
		cname := C.CString(name)
		config := C.CString(fmt.Sprintf("threads=%d", runtime.GOMAXPROCS(0)))
		var dev C.RTCDevice
		var v C.long
		msg := C.sertraceEmbreeLoad(cname, config, &dev, &v)
		C.free(unsafe.Pointer(cname))
		C.free(unsafe.Pointer(config))
		version := fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
		if msg != nil {
			why := C.GoString(msg)
			if v != 0 {
				why = fmt.Sprintf("Embree %s is %s", version, why)
			}
			reasons = append(reasons, name+": "+why)
			continue
		}
		device = &Device{dev: dev, Version: version, Library: name}
		return device, nil
	}
	return nil, fmt.Errorf("Embree 3.13 or newer could not be loaded (Debian: apt-get install libembree3-3): %s", strings.Join(reasons, "; "))
}

// Ray is a ray as Embree reads it: origin, the distance where it starts,
// direction (not necessarily unit: distances are in its units), and the
// distance where it ends.
type Ray struct {
	Org   [3]float32
	TNear float32
	Dir   [3]float32
	TFar  float32
}

// Hit is what a ray hit: Inst is −1 for a miss (T is then the ray's TFar);
// U and V are the triangle's barycentrics of its vertices 1 and 2, or the
// curve's parameter along its segment (U, in [0, 1]); Kind is one of the
// Kind constants.
type Hit struct {
	T          float32
	Inst, Prim int32
	U, V       float32
	Kind       uint8
}

// Hit kinds, as SetKinds gives them per instance and hits report them.
const (
	KindFront             = C.KIND_FRONT // a triangle's counter-clockwise face (in the top level, decided by its normal)
	KindBack              = C.KIND_BACK
	KindSphere            = C.KIND_SPHERE
	KindCurve             = C.KIND_CURVE
	KindInstancedTriangle = C.KIND_INSTANCED_TRIANGLE // a triangle of an instance: Embree 3 gives its normal in object space, so the side is the caller's to decide
)

var (
	_ [unsafe.Sizeof(Ray{}) - unsafe.Sizeof(C.sertraceRay{})]struct{}
	_ [unsafe.Sizeof(C.sertraceRay{}) - unsafe.Sizeof(Ray{})]struct{}
	_ [unsafe.Sizeof(Hit{}) - unsafe.Sizeof(C.sertraceHit{})]struct{}
	_ [unsafe.Sizeof(C.sertraceHit{}) - unsafe.Sizeof(Hit{})]struct{}
)

// Scene is a committed top-level scene of instances, and the geometry
// scenes they place.
type Scene struct {
	d        *Device
	top      C.RTCScene
	children []C.RTCScene
	handles  []cgo.Handle
	kinds    unsafe.Pointer   // C memory: per instance ID, a Kind
	owned    []unsafe.Pointer // C memory the filters read, freed with the scene
}

// Geometry is one geometry's scene, to be placed by instances; the zero
// Geometry is an empty one, which Place leaves out.
type Geometry struct{ s C.RTCScene }

// Build makes a scene: fill gives it its geometry (Triangles, Spheres,
// Curves, Place) and its instances' kinds (SetKinds), then the top level is
// built. It all happens on one OS thread: Embree keeps its error codes per
// thread.
func (d *Device) Build(fill func(*Scene) error) (*Scene, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.sertraceError(d.dev) // clear what an earlier call left
	top := C.sertraceNewScene(d.dev, C.RTC_SCENE_FLAG_ROBUST)
	if top == nil {
		return nil, d.err("rtcNewScene")
	}
	s := &Scene{d: d, top: top}
	err := fill(s)
	if err == nil && s.kinds == nil {
		err = errors.New("embree: SetKinds was not called")
	}
	if err == nil {
		C.sertraceCommit(s.top)
		if e := C.sertraceError(d.dev); e != 0 {
			err = fmt.Errorf("embree: building the scene failed: %s", errorName(e))
		}
	}
	if err != nil {
		s.Release()
		return nil, err
	}
	return s, nil
}

// errorName is an RTCError's meaning.
func errorName(code C.int) string {
	names := [...]string{1: "unknown error", 2: "invalid argument", 3: "invalid operation", 4: "out of memory", 5: "unsupported CPU", 6: "cancelled"}
	if code > 0 && int(code) < len(names) {
		return names[code]
	}
	return fmt.Sprintf("error %d", int(code))
}

func (d *Device) err(what string) error {
	return fmt.Errorf("embree: %s failed: %s", what, errorName(C.sertraceError(d.dev)))
}

// AnyHit decides, for an alpha-tested geometry, whether a candidate hit on
// an instance, at distance t along the ray, counts.
type AnyHit func(inst, prim uint32, u, v, t float32) bool

// Target is where a geometry goes: a scene of its own, for instances to place, or
// the top level itself as instance id (a geometry placed once, its
// vertices already in world space: no instance to traverse).
type Target struct {
	top bool
	id  uint32
}

// Own is a geometry's own scene; Top(id) the top level as instance id.
var Own = Target{}

func Top(id uint32) Target { return Target{top: true, id: id} }

func (s *Scene) newGeometry(kind C.int) (C.RTCGeometry, error) {
	g := C.sertraceNewGeometry(s.d.dev, kind)
	if g == nil {
		return nil, s.d.err("rtcNewGeometry")
	}
	return g, nil
}

// attach puts a finished geometry where it goes: in the top level, or in a
// scene of its own, committed, for Place.
func (s *Scene) attach(g C.RTCGeometry, to Target) (Geometry, error) {
	if to.top {
		C.sertraceAttach(s.top, g, C.unsigned(to.id))
		return Geometry{}, nil
	}
	child := C.sertraceNewScene(s.d.dev, C.RTC_SCENE_FLAG_ROBUST)
	if child == nil {
		err := s.d.err("rtcNewScene")
		C.sertraceReleaseGeometry(g)
		return Geometry{}, err
	}
	s.children = append(s.children, child)
	C.sertraceAttach(child, g, 0)
	C.sertraceCommit(child)
	if e := C.sertraceError(s.d.dev); e != 0 {
		return Geometry{}, fmt.Errorf("embree: building a geometry failed: %s", errorName(e))
	}
	return Geometry{child}, nil
}

// upload copies data into a new buffer of g: count items of stride bytes.
func (s *Scene) upload(g C.RTCGeometry, kind, format C.int, stride, count int, data []byte) error {
	_, err := s.uploadAt(g, kind, format, stride, count, data)
	return err
}

// uploadAt is upload, and says where the buffer is (Embree's memory, the
// geometry's for as long as it lives).
func (s *Scene) uploadAt(g C.RTCGeometry, kind, format C.int, stride, count int, data []byte) (unsafe.Pointer, error) {
	if len(data) != stride*count {
		return nil, fmt.Errorf("embree: a buffer of %d bytes for %d items of %d bytes", len(data), count, stride)
	}
	p := C.sertraceBuffer(g, kind, format, C.size_t(stride), C.size_t(count))
	if p == nil {
		return nil, s.d.err("rtcSetNewGeometryBuffer")
	}
	copy(unsafe.Slice((*byte)(p), len(data)), data)
	return p, nil
}

// finish attaches g where it goes, or releases it after an error.
func (s *Scene) finish(g C.RTCGeometry, to Target, err error) (Geometry, error) {
	if err != nil {
		C.sertraceReleaseGeometry(g)
		return Geometry{}, err
	}
	return s.attach(g, to)
}

func bytesOf[T float32 | uint32 | uint8](v []T) []byte {
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(zero)))
}

// Triangles makes a triangle mesh: positions xyz, three indices a
// triangle, each less than the positions' count. anyHit, if not nil,
// decides every candidate hit. A mesh without triangles makes nothing.
func (s *Scene) Triangles(to Target, positions []float32, indices []uint32, anyHit AnyHit) (Geometry, error) {
	if len(indices) < 3 {
		return Geometry{}, nil
	}
	g, err := s.newGeometry(C.RTC_GEOMETRY_TYPE_TRIANGLE)
	if err != nil {
		return Geometry{}, err
	}
	err = s.upload(g, C.RTC_BUFFER_TYPE_VERTEX, C.RTC_FORMAT_FLOAT3, 12, len(positions)/3, bytesOf(positions))
	if err == nil {
		err = s.upload(g, C.RTC_BUFFER_TYPE_INDEX, C.RTC_FORMAT_UINT3, 12, len(indices)/3, bytesOf(indices))
	}
	if err == nil && anyHit != nil {
		h := cgo.NewHandle(anyHit)
		s.handles = append(s.handles, h)
		C.sertraceSetFilter(g, C.FILTER_ANY_HIT, C.uintptr_t(h))
	}
	return s.finish(g, to, err)
}

// Spheres makes spheres: centre and radius, four floats each. With
// exitHits false a ray that starts inside a sphere does not hit it. No
// spheres make nothing.
func (s *Scene) Spheres(to Target, centersRadii []float32, exitHits bool) (Geometry, error) {
	if len(centersRadii) < 4 {
		return Geometry{}, nil
	}
	g, err := s.newGeometry(C.RTC_GEOMETRY_TYPE_SPHERE_POINT)
	if err != nil {
		return Geometry{}, err
	}
	err = s.upload(g, C.RTC_BUFFER_TYPE_VERTEX, C.RTC_FORMAT_FLOAT4, 16, len(centersRadii)/4, bytesOf(centersRadii))
	if err == nil && !exitHits {
		C.sertraceSetFilter(g, C.FILTER_ENTERING_ONLY, 0)
	}
	return s.finish(g, to, err)
}

// Curve flags (RTC_CURVE_FLAG_NEIGHBOR_*): a segment from vertex first
// continues a neighbour from vertex first−1 (Before) or is continued by one
// to vertex first+2 (After), and Embree renders it to attach to that
// neighbour at their joint. Embree reads the neighbour's vertex: it must
// exist.
const (
	NeighbourBefore = 1 << 0
	NeighbourAfter  = 1 << 1
)

// StrandRule is the rule that makes a chain of curve segments one smooth
// tube (render/cpu's intersectStrandSegment): its tolerance, relative to
// the distances a hit is computed over, to its coordinates and to the
// segment's radii, and at
// most how many chained segments either side of a hit it looks at.
type StrandRule struct {
	TolTravel, TolPosition, TolRadius float64
	Reach                             int
}

// Curves makes round linear curves (swept spheres): vertices as centre and
// radius, four floats each; a segment from vertex first[i] to first[i]+1,
// with its neighbour flags (a neighbour's vertex must exist). A hit counts
// where the ray enters the tube that a chain of segments draws, by rule: a
// ray that starts inside hits nothing of it. No segments make nothing.
func (s *Scene) Curves(to Target, verticesRadii []float32, first []uint32, flags []uint8, rule StrandRule) (Geometry, error) {
	if len(first) == 0 {
		return Geometry{}, nil
	}
	if len(flags) != len(first) {
		return Geometry{}, fmt.Errorf("embree: %d curve flags for %d segments", len(flags), len(first))
	}
	g, err := s.newGeometry(C.RTC_GEOMETRY_TYPE_ROUND_LINEAR_CURVE)
	if err != nil {
		return Geometry{}, err
	}
	strands := (*C.sertraceStrands)(C.calloc(1, C.size_t(unsafe.Sizeof(C.sertraceStrands{}))))
	s.owned = append(s.owned, unsafe.Pointer(strands))
	var vr, fi, fl unsafe.Pointer
	vr, err = s.uploadAt(g, C.RTC_BUFFER_TYPE_VERTEX, C.RTC_FORMAT_FLOAT4, 16, len(verticesRadii)/4, bytesOf(verticesRadii))
	if err == nil {
		fi, err = s.uploadAt(g, C.RTC_BUFFER_TYPE_INDEX, C.RTC_FORMAT_UINT, 4, len(first), bytesOf(first))
	}
	if err == nil {
		fl, err = s.uploadAt(g, C.RTC_BUFFER_TYPE_FLAGS, C.RTC_FORMAT_UCHAR, 1, len(flags), bytesOf(flags))
	}
	if err == nil {
		*strands = C.sertraceStrands{vr: (*C.float)(vr), first: (*C.unsigned)(fi), flags: (*C.uchar)(fl), n: C.unsigned(len(first)),
			tolTravel: C.double(rule.TolTravel), tolPosition: C.double(rule.TolPosition), tolRadius: C.double(rule.TolRadius), reach: C.int(rule.Reach)}
		C.sertraceSetFilter(g, C.FILTER_STRANDS, C.uintptr_t(uintptr(unsafe.Pointer(strands))))
	}
	return s.finish(g, to, err)
}

// Place places a geometry made in its own scene as instance id (which hits
// report) with an object-to-world transform: a 3×4 matrix, rows first. An
// empty geometry is left out.
func (s *Scene) Place(g Geometry, id uint32, objectToWorld [12]float32) error {
	if g.s == nil {
		return nil
	}
	if C.sertraceAttachInstance(s.d.dev, s.top, g.s, C.unsigned(id), (*C.float)(unsafe.Pointer(&objectToWorld[0]))) == 0 {
		return s.d.err("rtcNewGeometry (an instance)")
	}
	return nil
}

// Release frees the scene.
func (s *Scene) Release() {
	for _, c := range s.children {
		C.sertraceReleaseScene(c)
	}
	if s.top != nil {
		C.sertraceReleaseScene(s.top)
	}
	for _, h := range s.handles {
		h.Delete()
	}
	if s.kinds != nil {
		C.free(s.kinds)
	}
	for _, p := range s.owned {
		C.free(p)
	}
	s.children, s.handles, s.top, s.kinds, s.owned = nil, nil, nil, nil, nil
}

// SetKinds says per instance ID what it holds (Kind constants): hits
// report it, triangles with their side.
func (s *Scene) SetKinds(kinds []uint8) {
	if s.kinds != nil {
		C.free(s.kinds)
	}
	s.kinds = C.malloc(C.size_t(max(len(kinds), 1)))
	copy(unsafe.Slice((*uint8)(s.kinds), len(kinds)), kinds)
}

// Intersect finds every ray's closest hit, in one call. Coherent rays (a
// tile's camera rays, neighbours side by side) are traced in packets of 8,
// the rest one by one; the hits are the same.
func (s *Scene) Intersect(rays []Ray, hits []Hit, found []bool, coherent bool) {
	if len(rays) == 0 {
		return
	}
	_, _ = hits[len(rays)-1], found[len(rays)-1]
	r, h, f, n := (*C.sertraceRay)(unsafe.Pointer(&rays[0])), (*C.sertraceHit)(unsafe.Pointer(&hits[0])), (*C.uchar)(unsafe.Pointer(&found[0])), C.int(len(rays))
	if coherent {
		C.sertraceIntersectCoherent(s.top, r, h, f, n, (*C.uchar)(s.kinds))
	} else {
		C.sertraceIntersect(s.top, r, h, f, n, (*C.uchar)(s.kinds))
	}
}

// Occluded says for every ray whether anything blocks it, in one call.
func (s *Scene) Occluded(rays []Ray, occluded []bool) {
	if len(rays) == 0 {
		return
	}
	_ = occluded[len(rays)-1]
	C.sertraceOccluded(s.top, (*C.sertraceRay)(unsafe.Pointer(&rays[0])), (*C.uchar)(unsafe.Pointer(&occluded[0])), C.int(len(rays)))
}
