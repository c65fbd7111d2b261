// What package embree's Go and C (embree.c) share: the Embree handles and
// constants Go passes, the layouts of what they exchange, and the functions
// Go calls (each described where embree.c defines it).
#ifndef SERTRACE_EMBREE_H
#define SERTRACE_EMBREE_H

#include <stddef.h>
#include <stdint.h>

// From Embree 3's API (rtcore_common.h, rtcore_device.h, rtcore_scene.h,
// rtcore_geometry.h, rtcore_buffer.h).
typedef void *RTCDevice;
typedef void *RTCScene;
typedef void *RTCGeometry;

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
};

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

// The filters sertraceSetFilter gives a geometry.
enum { FILTER_ENTERING_ONLY = 1, FILTER_ANY_HIT = 2, FILTER_STRANDS = 3 };

// Loading the library and making its device.
const char *sertraceEmbreeLoad(const char *name, const char *config, RTCDevice *dev, long *version);
int sertraceError(RTCDevice d);
int sertracePackets(void);
void sertraceSetPackets(int on);

// Building scenes.
RTCScene sertraceNewScene(RTCDevice d, int flags);
RTCGeometry sertraceNewGeometry(RTCDevice d, int type);
void sertraceReleaseGeometry(RTCGeometry g);
void *sertraceBuffer(RTCGeometry g, int type, int format, size_t stride, size_t count);
void sertraceSetFilter(RTCGeometry g, int kind, uintptr_t handle);
void sertraceAttach(RTCScene s, RTCGeometry g, unsigned id);
int sertraceAttachInstance(RTCDevice d, RTCScene s, RTCScene child, unsigned id, const float *rowMajor3x4);
void sertraceCommit(RTCScene s);
void sertraceReleaseScene(RTCScene s);

// Tracing a batch of rays in one call.
void sertraceIntersect(RTCScene s, const sertraceRay *rays, sertraceHit *hits, unsigned char *found, int n, const unsigned char *kinds);
void sertraceIntersectCoherent(RTCScene s, const sertraceRay *rays, sertraceHit *hits, unsigned char *found, int n, const unsigned char *kinds);
void sertraceOccluded(RTCScene s, const sertraceRay *rays, unsigned char *occluded, int n);

// The strand rule alone, for tests that hold it to render/kernel's.
int sertraceStrandCountsOf(const float *vr, const unsigned *first, const unsigned char *flags, unsigned n,
		double tolTravel, double tolPosition, double tolRadius, int reach,
		unsigned p, const float org[3], const float dir[3], float t);

#endif
