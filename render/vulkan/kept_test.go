package vulkan

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"sertrace/internal/longtest"
	"sertrace/render"
	"sertrace/scene"
)

// idleDevice is the pool's idle device, or nil.
func idleDevice() *device {
	pool.Lock()
	defer pool.Unlock()
	return pool.idle
}

// TestDeviceKeptAcrossRenders: a render gives its device back to the pool;
// the next render gets it with its pipelines, whatever its path, and with
// the scene's structures where the scene is the same; each render frees
// what it allocated (the device holds as many buffers after as before);
// the images are the same to the bit as on a fresh device; and one device
// serves every path, never two alive at once.
func TestDeviceKeptAcrossRenders(t *testing.T) {
	dev := deviceFor(t, PathRTSorted)
	cornell, err := scene.Load("../../scenes/cornell.glb")
	if err != nil {
		t.Fatal(err)
	}
	hair, err := scene.Load("../../scenes/hair.glb")
	if err != nil {
		t.Fatal(err)
	}
	if d := idleDevice(); d != nil { // another test's
		pool.Lock()
		pool.idle = nil
		pool.Unlock()
		d.destroy()
	}
	// Uploads through staging buffers, as on a GPU whose device memory the
	// host cannot map: their temporary blocks come and go between marks.
	stagingUploads = true
	defer func() { stagingUploads = false }()
	opts := render.Options{Width: 16, Height: 12, SPP: 2, MaxDepth: 4, EnvColor: [3]float32{0.3, 0.35, 0.4}}
	renderWith := func(path string, sc *scene.Scene) *render.Film {
		t.Helper()
		film := render.NewFilm(opts.Width, opts.Height)
		b := Backend{Path: path, Device: dev.Index, Validation: true}
		if _, err := render.Render(context.Background(), b, sc, opts, film, nil); err != nil {
			t.Fatal(err)
		}
		return film
	}
	first := renderWith(PathRTSorted, cornell)
	d := idleDevice()
	if d == nil || d.kernels[kernelKey(PathRTSorted)] == nil || d.scene == nil || d.scene.sc != cornell {
		t.Fatalf("the device was not kept with its kernels and scene: %+v", d)
	}
	kernels, acc, buffers, blocks := d.kernels[kernelKey(PathRTSorted)], d.scene.acc, len(d.buffers), len(d.blocks)
	again := renderWith(PathRTSorted, cornell)
	if idleDevice() != d || d.kernels[kernelKey(PathRTSorted)] != kernels || d.scene.acc != acc {
		t.Fatal("the second render of the scene did not reuse the device, its kernels and the scene's structures")
	}
	if len(d.buffers) != buffers || len(d.blocks) != blocks {
		t.Fatalf("the device holds %d buffers in %d blocks after a render, %d in %d before", len(d.buffers), len(d.blocks), buffers, blocks)
	}
	renderWith(PathRTSorted, hair)
	if d.scene.sc != hair || d.kernels[kernelKey(PathRTSorted)] != kernels {
		t.Fatal("another scene did not replace the kept one, or the kernels were rebuilt")
	}
	onRT := renderWith(PathRT, cornell)
	if idleDevice() != d || d.pipes[pipelineKey{PathRT, false}] == nil || d.kernels[kernelKey(PathRTSorted)] != kernels {
		t.Fatal("the rt path did not run on the kept device beside rt-sorted's kernels")
	}
	afterRT := renderWith(PathRTSorted, cornell)
	fb, ab, rb := first.Floats(render.LayerBeauty), again.Floats(render.LayerBeauty), afterRT.Floats(render.LayerBeauty)
	for i := range fb {
		if ab[i] != fb[i] || rb[i] != fb[i] {
			t.Fatalf("beauty[%d]: %v on a fresh device, %v and %v on the kept one", i, fb[i], ab[i], rb[i])
		}
	}
	if m, _ := filmMean(first); !(m > 0) {
		t.Fatalf("image mean %v: the test checks nothing", m)
	}
	if m, _ := filmMean(onRT); !(m > 0) {
		t.Fatalf("rt's image mean %v", m)
	}
}

func filmMean(f *render.Film) (float64, int) {
	var sum float64
	b := f.Floats(render.LayerBeauty)
	for _, v := range b {
		sum += v
	}
	return sum / float64(len(b)), len(b)
}

// TestPipelineCachePersists: a device saves what the driver compiled for
// its pipelines under SERTRACE_CACHE_DIR, the next device of the process or
// of another starts from it, and a corrupt or foreign file is discarded
// with a note, the pipelines built from scratch and the file written anew.
func TestPipelineCachePersists(t *testing.T) {
	longtest.Skip(t)
	dev := deviceFor(t, PathRT)
	t.Setenv("SERTRACE_CACHE_DIR", t.TempDir())
	var notes []string
	defer func(n func(string)) { Note = n }(Note)
	Note = func(s string) { notes = append(notes, s) }
	build := func() *device {
		t.Helper()
		d, err := openDevice(PathRT, dev.Index, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := d.makePipelines(PathRT, false); err != nil {
			d.destroy()
			t.Fatal(err)
		}
		return d
	}
	d := build()
	file, id := d.cacheFile, d.cacheIdentity()
	d.destroy()
	data, err := readPipelineCache(file, id)
	if err != nil || len(data) < 32 {
		t.Fatalf("the saved cache %s: %d bytes, %v", file, len(data), err)
	}
	d = build()
	if d.cacheLoaded != len(data) {
		t.Errorf("the next device began with %d bytes of the cache's %d", d.cacheLoaded, len(data))
	}
	d.destroy()

	whole, _ := os.ReadFile(file)
	for _, c := range []struct {
		name, says string
		edit       func([]byte) []byte
	}{
		{"a flipped byte", "checksum", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }},
		{"a truncated copy", "checksum", func(b []byte) []byte { return b[:len(b)-5] }},
		{"not a cache", "not a sertrace pipeline cache", func([]byte) []byte { return []byte("hello") }},
		{"another device's", "made for device", func(b []byte) []byte {
			data := b[len(pipelineCacheMagic)+32:]
			binary.LittleEndian.PutUint32(data[12:], id.device+1)
			return append([]byte(pipelineCacheMagic), sealCache(data)...)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			notes = nil
			os.WriteFile(file, c.edit(append([]byte(nil), whole...)), 0o644)
			d := build()
			defer d.destroy()
			if d.cacheLoaded != 0 || len(notes) != 1 || !strings.Contains(notes[0], c.says) || !strings.Contains(notes[0], file) {
				t.Fatalf("began with %d bytes; notes %q, want one naming the file and saying %q", d.cacheLoaded, notes, c.says)
			}
			if _, err := readPipelineCache(file, id); err != nil {
				t.Fatalf("the cache was not written anew: %v", err)
			}
		})
	}
}

// sealCache is a cache file's checksum and data.
func sealCache(data []byte) []byte {
	sum := sha256.Sum256(data)
	return append(sum[:], data...)
}
