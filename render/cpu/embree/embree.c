// The C half of package embree, compiled by cgo with the package's #cgo
// flags: Embree 3 loaded at run time (dlopen: no Embree headers or library
// needed to build), the filters Embree calls per candidate hit, and the
// loops that trace a batch of rays per call from Go. embree.h declares
// what Go calls and reads.
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

#include "embree.h"

// From Embree 3's API (rtcore_common.h, rtcore_ray.h, rtcore_geometry.h,
// rtcore_scene.h, rtcore_device.h), with RTC_MAX_INSTANCE_LEVEL_COUNT 1 as
// the released libraries are built (its handles, and the constants Go
// passes, are in embree.h).
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
const char *sertraceEmbreeLoad(const char *name, const char *config, RTCDevice *dev, long *version) {
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

// sertraceRoundCone is the signed distance from x to the round cone from
// the sphere of radius ra about the origin to the sphere of radius rb about
// ba (render/kernel's RoundConeNearest, which derives it).
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

// sertraceStrandInside is render/kernel's strandInside for segment
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
		double shift = a[i] - aq[i];
		xq[i] = x[i] + shift;
		oq[i] = o[i] + shift;
	}
	double ra = v[3], rb = v[7];
	double rq = ra > rb ? ra : rb;
	*near = 0;
	if (joint >= 0) {
		const float *j = s->vr + 4 * (size_t)joint;
		double xj[3] = {x[0] + (a[0] - j[0]), x[1] + (a[1] - j[1]), x[2] + (a[2] - j[2])};
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

// sertraceStrandCounts is render/kernel's StrandHitCounts: whether a hit at
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
	// The radii summed in float, as Go sums them.
	double tol = s->tolTravel * (sertraceMaxAbs(o) + sertraceMaxAbs(travel)) + s->tolRadius * (double)(v[3] + v[7]) +
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

// sertraceStrandCountsOf is sertraceStrandCounts for strands given one by
// one (Go's memory, for the call's length only): the rule alone, for tests
// that hold it to render/kernel's.
int sertraceStrandCountsOf(const float *vr, const unsigned *first, const unsigned char *flags, unsigned n,
		double tolTravel, double tolPosition, double tolRadius, int reach,
		unsigned p, const float org[3], const float dir[3], float t) {
	sertraceStrands s = {vr, first, flags, n, tolTravel, tolPosition, tolRadius, reach};
	return sertraceStrandCounts(&s, p, org, dir, t);
}

// sertraceStrandFilter keeps a curve hit only where the ray enters the
// surface (by Embree's normal, as enteringOnly) and only where the strand
// rule lets it count (render/kernel's StrandHitCounts says why).
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

// sertraceSetFilter gives g its filter; handle is the any-hit's Go handle,
// or the strands' sertraceStrands.
void sertraceSetFilter(RTCGeometry g, int kind, uintptr_t handle) {
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
void sertraceIntersect(RTCScene s, const sertraceRay *rays, sertraceHit *hits, unsigned char *found, int n, const unsigned char *kinds) {
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
int sertracePackets(void) { return rtc.packets; }
void sertraceSetPackets(int on) { rtc.packets = on; }

// sertraceIntersectCoherent is sertraceIntersect for rays that run side by
// side (a tile's camera rays): Embree traces them in packets of 8.
void sertraceIntersectCoherent(RTCScene s, const sertraceRay *rays, sertraceHit *hits, unsigned char *found, int n, const unsigned char *kinds) {
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

void sertraceOccluded(RTCScene s, const sertraceRay *rays, unsigned char *occluded, int n) {
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

RTCGeometry sertraceNewGeometry(RTCDevice d, int type) { return rtc.newGeometry(d, type); }
void sertraceReleaseGeometry(RTCGeometry g) { rtc.releaseGeometry(g); }
void *sertraceBuffer(RTCGeometry g, int type, int format, size_t stride, size_t count) {
	return rtc.setNewGeometryBuffer(g, type, 0, format, stride, count);
}
int sertraceError(RTCDevice d) { return rtc.getDeviceError(d); }
RTCScene sertraceNewScene(RTCDevice d, int flags) {
	RTCScene s = rtc.newScene(d);
	if (s != NULL) {
		rtc.setSceneFlags(s, flags);
		rtc.setSceneBuildQuality(s, RTC_BUILD_QUALITY_HIGH);
	}
	return s;
}
// sertraceAttach commits g and hands it to s (which holds it from then on).
void sertraceAttach(RTCScene s, RTCGeometry g, unsigned id) {
	rtc.commitGeometry(g);
	rtc.attachGeometryByID(s, g, id);
	rtc.releaseGeometry(g);
}
int sertraceAttachInstance(RTCDevice d, RTCScene s, RTCScene child, unsigned id, const float *rowMajor3x4) {
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
void sertraceCommit(RTCScene s) { rtc.commitScene(s); }
void sertraceReleaseScene(RTCScene s) { rtc.releaseScene(s); }
