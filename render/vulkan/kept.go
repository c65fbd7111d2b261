package vulkan

import (
	"os"
	"slices"
	"sync"

	vk "github.com/vulkan-go/vulkan"

	"sertrace/render"
	"sertrace/scene"
)

// What a device keeps across its renders: each path's pipelines, made on
// first use, and the last scene's buffers and acceleration structures,
// rebuilt only when a render brings another scene. A device goes back to
// the process's pool when its session closes, so that a batch's jobs and
// a benchmark's cells pay for the device and its pipelines once per
// process. The pool holds one device, and a device serves every path: the
// process never has two Vulkan devices alive at once, since on NVIDIA's
// driver (580, H200) every device alive beside the one rendering slowed
// its launches (2.7× with three: benchmarks/results/nvidia-h200-driver580).

// pipelineKey names a pipeline of the ser or rt path, timed by the shader
// clock or not.
type pipelineKey struct {
	path  string
	clock bool
}

// keptScene is a scene uploaded to a device, with its structures built.
type keptScene struct {
	sc       *scene.Scene
	envPower float32             // the light table's environment weight, which packScene reads
	sampler  render.LightSampler // and how it chooses lights
	groups   []uint32            // the light groups packed (packedGroups)
	p        *packed
	bufs     *sceneBuffers
	acc      *accel
}

// kernelKey is where d.kernels keeps a path's compute kernels: a
// wavefront's by the path, and by the form SERTRACE_WAVEFRONT asks for;
// rt and ser share their resolve.
func kernelKey(path string) string {
	if !isWavefront(path) {
		return "resolve"
	}
	if plainWavefront() {
		return path + " plain"
	}
	return path
}

// makePipelines returns the path's pipelines, made on first use: the
// ray-tracing pipeline of ser and rt (with the clock variant's raygen or
// not) and their resolve, or a wavefront's kernels. They are allocated
// before any scene: a scene kept when a new path's pipelines are made is
// dropped first, and pipelineMark moves past them.
func (d *device) makePipelines(path string, clock bool) (*pipeline, *waveKernels, error) {
	wave := isWavefront(path)
	k, p := d.kernels[kernelKey(path)], d.pipes[pipelineKey{path, clock}]
	if k != nil && (wave || p != nil) {
		return p, k, nil
	}
	d.dropScene()
	var err error
	if k == nil {
		if k, err = d.newWaveKernels(path); err != nil {
			return nil, nil, err
		}
		if d.kernels == nil {
			d.kernels = map[string]*waveKernels{}
		}
		d.kernels[kernelKey(path)] = k
	}
	if !wave && p == nil {
		if p, err = d.newPipeline(path, pathShaders(path, clock)); err != nil {
			return nil, nil, err
		}
		if d.pipes == nil {
			d.pipes = map[pipelineKey]*pipeline{}
		}
		d.pipes[pipelineKey{path, clock}] = p
	}
	d.savePipelineCache()
	d.pipelineMark = d.mark()
	return p, k, nil
}

// isWavefront says whether a path runs its paths a bounce at a time
// (rayquery, rt-sorted) rather than each through its bounces in one
// invocation (rt, ser).
func isWavefront(path string) bool { return path == PathRayQuery || path == PathRTSorted }

// sceneFor returns the device's buffers and structures of sc, uploading
// and building them unless the last render's scene was sc with the same
// environment weight, light sampler and light groups.
func (d *device) sceneFor(sc *scene.Scene, envPower float32, sampler render.LightSampler, groups *render.LightGroups) (*keptScene, error) {
	packed := packedGroups(sc, groups)
	if k := d.scene; k != nil && k.sc == sc && k.envPower == envPower && k.sampler == sampler && slices.Equal(k.groups, packed) {
		return k, nil
	}
	d.dropScene()
	k := &keptScene{sc: sc, envPower: envPower, sampler: sampler, groups: packed, p: packScene(sc, envPower, sampler, groups)}
	var err error
	if k.bufs, err = d.uploadScene(k.p); err == nil {
		k.acc, err = d.buildAccel(sc, k.p, k.bufs)
	}
	if err != nil {
		vk.DeviceWaitIdle(d.handle)
		d.release(d.pipelineMark)
		return nil, err
	}
	d.scene = k
	return k, nil
}

// dropScene destroys the kept scene's structures and frees its memory
// (the queue idle first).
func (d *device) dropScene() {
	if d.scene == nil {
		return
	}
	vk.DeviceWaitIdle(d.handle)
	d.scene.acc.destroy(d)
	d.release(d.pipelineMark)
	d.scene = nil
}

// pool holds the process's idle device, for the next render that asks for
// the same device and validation.
var pool struct {
	sync.Mutex
	idle *device
	key  poolKey
}

// poolKey is what a render asks of a device.
type poolKey struct {
	index      int
	validation bool
}

// takeDevice returns the idle device where it was made for the same request
// and runs path ("": any), or opens one; an idle device that does not
// suit is destroyed first, so that only one is ever alive.
func takeDevice(k poolKey, path string) (*device, error) {
	pool.Lock()
	d, key := pool.idle, pool.key
	pool.idle = nil
	pool.Unlock()
	if d != nil {
		if key == k && (path == "" || d.info.status[path].Available) {
			return d, nil
		}
		d.destroy()
	}
	return openDevice(path, k.index, k.validation)
}

// returnDevice keeps a device whose session ended well for the next render.
// SERTRACE_KEEP_DEVICE=0 destroys it instead, as before devices were kept
// (to measure what keeping them changes).
func returnDevice(k poolKey, d *device) {
	if os.Getenv("SERTRACE_KEEP_DEVICE") == "0" {
		d.destroy()
		return
	}
	pool.Lock()
	old := pool.idle
	pool.idle, pool.key = d, k
	pool.Unlock()
	if old != nil {
		old.destroy() // a session that ran beside this one
	}
}
