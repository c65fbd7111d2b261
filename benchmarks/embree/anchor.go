//go:build embree

// Package embree is the CPU traversal anchor: it traces the same rays
// through Intel Embree 3 and through sertrace's CPU BVH, one thread each, and
// reports both speeds and their ratio. It needs Debian's libembree-dev and
// the embree build tag:
//
//	go test -tags embree ./benchmarks/embree -run Anchor -v
package embree

/*
#cgo LDFLAGS: -lembree3
#include <embree3/rtcore.h>
#include <string.h>
#include <math.h>

static RTCDevice device;
static RTCScene scene;

static int build(const float* v, int nv, const unsigned* idx, int nt) {
	device = rtcNewDevice("threads=1");
	if (!device) return -1;
	scene = rtcNewScene(device);
	rtcSetSceneFlags(scene, RTC_SCENE_FLAG_ROBUST); // watertight, like sertrace's triangle test
	rtcSetSceneBuildQuality(scene, RTC_BUILD_QUALITY_HIGH); // as sertrace builds its Embree scenes
	RTCGeometry g = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_TRIANGLE);
	float* vb = (float*)rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), nv);
	unsigned* ib = (unsigned*)rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), nt);
	memcpy(vb, v, 3 * sizeof(float) * nv);
	memcpy(ib, idx, 3 * sizeof(unsigned) * nt);
	rtcCommitGeometry(g);
	rtcAttachGeometry(scene, g);
	rtcReleaseGeometry(g);
	rtcCommitScene(scene);
	return 0;
}

// trace runs n rays (origin, direction, tmax: 7 floats each); closest hits
// when occlusion is 0, any hit otherwise; returns how many hit.
static int trace(const float* rays, int n, int occlusion) {
	struct RTCIntersectContext ctx;
	rtcInitIntersectContext(&ctx);
	int hits = 0;
	for (int i = 0; i < n; i++) {
		const float* r = rays + 7 * i;
		if (occlusion) {
			struct RTCRay ray;
			ray.org_x = r[0]; ray.org_y = r[1]; ray.org_z = r[2];
			ray.dir_x = r[3]; ray.dir_y = r[4]; ray.dir_z = r[5];
			ray.tnear = 0; ray.tfar = r[6]; ray.mask = -1; ray.flags = 0; ray.time = 0;
			rtcOccluded1(scene, &ctx, &ray);
			hits += ray.tfar < 0;
		} else {
			struct RTCRayHit rh;
			rh.ray.org_x = r[0]; rh.ray.org_y = r[1]; rh.ray.org_z = r[2];
			rh.ray.dir_x = r[3]; rh.ray.dir_y = r[4]; rh.ray.dir_z = r[5];
			rh.ray.tnear = 0; rh.ray.tfar = r[6]; rh.ray.mask = -1; rh.ray.flags = 0; rh.ray.time = 0;
			rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
			rtcIntersect1(scene, &ctx, &rh);
			hits += rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
		}
	}
	return hits;
}

// trace8 runs closest-hit queries in packets of 8 neighbouring rays
// (rtcIntersect8, coherent), as sertrace traces a tile's camera rays.
static int trace8(const float* rays, int n) {
	struct RTCIntersectContext ctx;
	rtcInitIntersectContext(&ctx);
	ctx.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
	int hits = 0;
	for (int i = 0; i < n; i += 8) {
		struct RTCRayHit8 rh __attribute__((aligned(32)));
		int valid[8] __attribute__((aligned(32)));
		for (int k = 0; k < 8; k++) {
			const float* r = rays + 7 * (i + k < n ? i + k : i);
			valid[k] = i + k < n ? -1 : 0;
			rh.ray.org_x[k] = r[0]; rh.ray.org_y[k] = r[1]; rh.ray.org_z[k] = r[2];
			rh.ray.dir_x[k] = r[3]; rh.ray.dir_y[k] = r[4]; rh.ray.dir_z[k] = r[5];
			rh.ray.tnear[k] = 0; rh.ray.tfar[k] = r[6]; rh.ray.mask[k] = -1; rh.ray.flags[k] = 0; rh.ray.time[k] = 0;
			rh.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
		}
		rtcIntersect8(valid, scene, &ctx, &rh);
		for (int k = 0; k < 8; k++) {
			hits += valid[k] && rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID;
		}
	}
	return hits;
}
*/
import "C"

import (
	"errors"
	"math"
	"unsafe"

	"sertrace/render/cpu"
	"sertrace/scene"
)

// Build gives Embree the scene's one mesh.
func Build(sc *scene.Scene) error {
	m := &sc.Meshes[0]
	if C.build((*C.float)(unsafe.Pointer(&m.Positions[0])), C.int(len(m.Positions)),
		(*C.uint)(unsafe.Pointer(&m.Indices[0])), C.int(m.TriangleCount())) != 0 {
		return errors.New("embree: no device")
	}
	return nil
}

// Pack lays rays out for Embree.
func Pack(rays []cpu.Ray) []float32 {
	out := make([]float32, 0, 7*len(rays))
	for _, r := range rays {
		tmax := r.TMax
		if math.IsInf(float64(tmax), 1) {
			tmax = math.MaxFloat32
		}
		out = append(out, r.Origin.X, r.Origin.Y, r.Origin.Z, r.Dir.X, r.Dir.Y, r.Dir.Z, tmax)
	}
	return out
}

// Trace8 runs packed rays through Embree in coherent packets of 8 and
// returns how many hit.
func Trace8(packed []float32) int {
	return int(C.trace8((*C.float)(unsafe.Pointer(&packed[0])), C.int(len(packed)/7)))
}

// Trace runs packed rays through Embree and returns how many hit.
func Trace(packed []float32, occlusion bool) int {
	occ := 0
	if occlusion {
		occ = 1
	}
	return int(C.trace((*C.float)(unsafe.Pointer(&packed[0])), C.int(len(packed)/7), C.int(occ)))
}
