// Package embree traces rays with Intel Embree 3, loaded at run time (like
// libvulkan.so.1): sertrace builds with Go and a C compiler alone, and
// renders without Embree where the library is missing. The few declarations
// it uses are written from Embree 3's API documentation (rtcore_*.h, 3.13).
//
// A Scene holds geometries (triangles, spheres, round linear curves): in
// the top level itself, in world space, when one instance places them, or
// in a scene of their own that instances place by their transforms. Rays
// are traced in streams: one call from Go per batch of rays, the loop over
// them in C (embree.c).
package embree

/*
#cgo LDFLAGS: -ldl -lm
#include <stdlib.h>
#include "embree.h"
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
// tube (render/kernel's StrandHitCounts): its tolerance, relative to
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

// StrandHitCounts is the strand rule as Curves' filter applies it (in C),
// for curves given as Curves takes them: whether a hit at distance t on
// segment p, of a ray from org along dir, counts. Tests hold it to
// render/kernel's rule; tracing does not call it.
func StrandHitCounts(verticesRadii []float32, first []uint32, flags []uint8, rule StrandRule, p int, org, dir [3]float32, t float32) bool {
	// The rule reads the chain's vertices unchecked, as Embree's buffers.
	bad := p < 0 || p >= len(first) || len(flags) != len(first)
	for i := 0; !bad && i < len(first); i++ {
		bad = int(first[i])+1 >= len(verticesRadii)/4 || flags[i]&NeighbourBefore != 0 && (i == 0 || first[i-1]+1 != first[i])
	}
	if bad {
		panic(fmt.Sprintf("embree: StrandHitCounts: segment %d of curves of %d segments, %d flags, %d vertices, not all joined as Curves takes them",
			p, len(first), len(flags), len(verticesRadii)/4))
	}
	return C.sertraceStrandCountsOf((*C.float)(unsafe.Pointer(&verticesRadii[0])), (*C.unsigned)(unsafe.Pointer(&first[0])), (*C.uchar)(unsafe.Pointer(&flags[0])), C.unsigned(len(first)),
		C.double(rule.TolTravel), C.double(rule.TolPosition), C.double(rule.TolRadius), C.int(rule.Reach),
		C.unsigned(p), (*C.float)(unsafe.Pointer(&org[0])), (*C.float)(unsafe.Pointer(&dir[0])), C.float(t)) != 0
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
