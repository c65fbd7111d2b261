package vulkan

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"sertrace/atomicfile"
	"sertrace/shaders"
)

// The persistent pipeline cache: what the driver compiled for a device's
// pipelines, saved after they are made and given back to the driver when
// the next process makes them, so that only the first process on a machine
// pays a cold pipeline build (12–13 s on NVIDIA's driver with its own disk
// cache empty). One file per device, driver and shader build, under the
// user's cache folder (SERTRACE_CACHE_DIR overrides it;
// SERTRACE_PIPELINE_CACHE=0 turns the cache off). A file is never trusted
// blindly: a checksum over the driver's data, and the data's own header
// (vendor, device, the driver's cache UUID), must match, or the file is
// discarded with a note and the pipelines are built from scratch.

// pipelineCacheMagic opens every cache file; the SHA-256 of the rest
// follows it, then the driver's data.
const pipelineCacheMagic = "sertrace pipeline cache 1\n"

// Note says something the user should know but that does not fail a
// render (a discarded cache); the app prints it.
var Note = func(msg string) { fmt.Fprintln(os.Stderr, "sertrace: "+msg) }

// cacheIdentity is what a driver's cache data must belong to.
type cacheIdentity struct {
	vendor, device, driver uint32
	uuid                   [16]byte
}

func (d *device) cacheIdentity() cacheIdentity { return d.info.id }

// pipelineCachePath is the device's cache file, or "" with the cache off
// or no cache folder.
func pipelineCachePath(id cacheIdentity) string {
	if v := os.Getenv("SERTRACE_PIPELINE_CACHE"); v == "0" || v == "off" {
		return ""
	}
	dir := cacheDir()
	if dir == "" {
		return ""
	}
	key := sha256.Sum256(fmt.Appendf(nil, "%08x %08x %08x %x %s", id.vendor, id.device, id.driver, id.uuid, shaders.BuildID()))
	return filepath.Join(dir, "pipelines", fmt.Sprintf("%x.bin", key[:8]))
}

// cacheDir is sertrace's folder of what it keeps between processes
// (pipelines, calibrations): SERTRACE_CACHE_DIR, else sertrace under the
// user's cache folder; "" without one.
func cacheDir() string {
	if dir := os.Getenv("SERTRACE_CACHE_DIR"); dir != "" {
		return dir
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "sertrace")
}

// checkCacheData says why a driver's cache data (VkPipelineCacheHeaderVersionOne
// and what follows) does not belong to id, or nil.
func checkCacheData(data []byte, id cacheIdentity) error {
	if len(data) < 32 {
		return fmt.Errorf("its data is %d bytes, shorter than a header", len(data))
	}
	size, version := binary.LittleEndian.Uint32(data[0:]), binary.LittleEndian.Uint32(data[4:])
	vendor, device := binary.LittleEndian.Uint32(data[8:]), binary.LittleEndian.Uint32(data[12:])
	switch {
	case size < 32 || int(size) > len(data) || version != 1:
		return fmt.Errorf("its header (%d bytes, version %d) is not a Vulkan pipeline cache's", size, version)
	case vendor != id.vendor || device != id.device:
		return fmt.Errorf("it was made for device %04x:%04x, not %04x:%04x", vendor, device, id.vendor, id.device)
	case !bytes.Equal(data[16:32], id.uuid[:]):
		return errors.New("it was made by another driver build (pipelineCacheUUID differs)")
	}
	return nil
}

// readPipelineCache reads a cache file's driver data for id; a missing file
// is no data and no error.
func readPipelineCache(path string, id cacheIdentity) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	n := len(pipelineCacheMagic)
	if len(b) < n+sha256.Size || string(b[:n]) != pipelineCacheMagic {
		return nil, errors.New("it is not a sertrace pipeline cache")
	}
	sum, data := b[n:n+sha256.Size], b[n+sha256.Size:]
	if got := sha256.Sum256(data); !bytes.Equal(got[:], sum) {
		return nil, errors.New("its checksum does not match (a corrupt or truncated file)")
	}
	if err := checkCacheData(data, id); err != nil {
		return nil, err
	}
	return data, nil
}

// openPipelineCache creates the device's VkPipelineCache, seeded from its
// file where that is whole and this device's; a file that is not is
// discarded with a note.
func (d *device) openPipelineCache() error {
	id := d.cacheIdentity()
	d.cacheFile = pipelineCachePath(id)
	var data []byte
	if d.cacheFile != "" {
		var err error
		if data, err = readPipelineCache(d.cacheFile, id); err != nil {
			Note(fmt.Sprintf("discarding the pipeline cache %s: %v", d.cacheFile, err))
			os.Remove(d.cacheFile)
			data = nil
		}
	}
	var a arena // the data in C memory for the call
	defer a.free()
	info := vk.PipelineCacheCreateInfo{SType: vk.StructureTypePipelineCacheCreateInfo}
	if len(data) > 0 {
		c := sliceIn[byte](&a, len(data))
		copy(c, data)
		info.InitialDataSize, info.PInitialData = uint(len(data)), unsafe.Pointer(&c[0])
		d.cacheLoaded = len(data)
	}
	var cache vk.PipelineCache
	if err := result("vkCreatePipelineCache", uint64(uint32(vk.CreatePipelineCache(d.handle, &info, nil, &cache)))); err != nil {
		return err
	}
	d.pipelineCache = cache
	return nil
}

// savePipelineCache writes what the driver's cache holds now to the
// device's cache file; a cache that cannot be written is a note, never an
// error.
func (d *device) savePipelineCache() {
	if d.pipelineCache == nil || d.cacheFile == "" {
		return
	}
	var size uint
	if vk.GetPipelineCacheData(d.handle, d.pipelineCache, &size, nil) != vk.Success || size == 0 {
		return
	}
	var a arena
	defer a.free()
	c := sliceIn[byte](&a, int(size))
	if vk.GetPipelineCacheData(d.handle, d.pipelineCache, &size, unsafe.Pointer(&c[0])) != vk.Success {
		return
	}
	data := bytes.Clone(c[:size])
	if d.cacheLoaded == len(data) {
		return // nothing new (the driver's data for the same pipelines)
	}
	sum := sha256.Sum256(data)
	out := append(append([]byte(pipelineCacheMagic), sum[:]...), data...)
	if err := os.MkdirAll(filepath.Dir(d.cacheFile), 0o755); err == nil {
		err = atomicfile.WriteBytes(d.cacheFile, out)
		if err != nil {
			Note(fmt.Sprintf("pipeline cache not saved: %v", err))
		}
	} else {
		Note(fmt.Sprintf("pipeline cache not saved: %v", err))
	}
}
