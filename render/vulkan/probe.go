package vulkan

import (
	"errors"
	"unsafe"

	"sertrace/render"
	"sertrace/render/kernel"
	"sertrace/render/layout"
	"sertrace/scene"
)

// pathProbe is the probe shader: not a render path, but gated and created
// like one.
const pathProbe = "probe"

// Probe runs one GLSL helper of the probe shader (shaders/probe.comp:
// layout.ProbeRandom, ProbeSphere, …) on a device (−1: the first that can)
// for each record of layout.ProbeIn floats in in, and returns a record of
// layout.ProbeOut floats for each: what the tests hold against the helper's
// Go function.
func Probe(index int, fn int, in []float32) ([]float32, error) {
	return runProbe(index, "probe.comp", fn, in, func(d *device) (uint64, error) {
		table := kernel.AlbedoTables(true, true, true, true)
		buf, err := d.upload(unsafe.Slice((*byte)(unsafe.Pointer(&table[0])), 8*len(table)), 0, false)
		if err != nil {
			return 0, err
		}
		return buf.addr, nil
	})
}

// ProbeScene runs one GLSL helper of the scene probe shader
// (shaders/probe_scene.comp: layout.ProbeLightSample, ProbePdfEmitter,
// ProbeEnvironment) with the parameter block a render of sc with opts
// would have (its buffers, light table and environment, without
// acceleration structures or film), as Probe does.
func ProbeScene(index int, sc *scene.Scene, opts render.Options, fn int, in []float32) ([]float32, error) {
	return runProbe(index, "probe_scene.comp", fn, in, func(d *device) (uint64, error) {
		r := &renderer{d: d, opts: opts}
		r.p = packScene(sc, render.EnvironmentPower(opts.EnvMap, scene.V3(opts.EnvColor)), opts.LightSampler, opts.LightGroups)
		var err error
		if r.bufs, err = d.uploadScene(r.p); err != nil {
			return 0, err
		}
		if err := r.setParams(sc); err != nil {
			return 0, err
		}
		params, err := d.upload(unsafe.Slice((*byte)(unsafe.Pointer(&r.params)), unsafe.Sizeof(r.params)), 0, false)
		if err != nil {
			return 0, err
		}
		return params.addr, nil
	})
}

// runProbe runs a probe shader, whose push constant is the address that
// first makes on the device (its tables, or a render's parameter block),
// the records in and out, the helper and their count.
func runProbe(index int, module string, fn int, in []float32, first func(d *device) (uint64, error)) ([]float32, error) {
	n := len(in) / layout.ProbeIn
	if n == 0 || len(in) != n*layout.ProbeIn {
		return nil, errors.New("vulkan probe: the input is not whole records")
	}
	d, err := openDevice(pathProbe, index, false)
	if err != nil {
		return nil, err
	}
	defer d.destroy()
	addr, err := first(d)
	if err != nil {
		return nil, err
	}
	inBuf, err := d.upload(bytesOf(in), 0, false)
	if err != nil {
		return nil, err
	}
	out, err := d.newBuffer(uint64(4*layout.ProbeOut*n), 0, memReadback, false)
	if err != nil {
		return nil, err
	}
	push := struct {
		first, in, out uint64
		fn, n          uint32
	}{addr, inBuf.addr, out.addr, uint32(fn), uint32(n)}
	if err := d.dispatchOnce(module, unsafe.Pointer(&push), int(unsafe.Sizeof(push)), uint32((n+63)/64), 1); err != nil {
		return nil, err
	}
	res := make([]float32, layout.ProbeOut*n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&res[0])), 4*len(res)), out.data)
	return res, nil
}
