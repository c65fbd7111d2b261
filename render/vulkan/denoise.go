package vulkan

import (
	"errors"
	"unsafe"

	"sertrace/render/layout"
)

// Denoiser runs the denoiser's regression filter (package denoise) in a
// compute shader on a Vulkan device: the O(pixels × window) part, while the
// host prepares its inputs.
type Denoiser struct {
	Device     int // −1: the first that can
	Validation bool
}

// Regress filters the illumination of a job package denoise prepared and
// returns it (RGB per pixel).
func (dn Denoiser) Regress(in *layout.DenoiseJob) ([]float32, error) {
	n := int(in.Width) * int(in.Height)
	if n == 0 || len(in.Light) != 3*n || len(in.SD) != n || len(in.Albedo) != 3*n || len(in.Normal) != 3*n ||
		len(in.Depth) != n || len(in.GradZ) != n || in.Radius < 1 {
		return nil, errors.New("vulkan denoiser: inputs of the wrong size")
	}
	d, err := openDevice(pathDenoise, dn.Device, dn.Validation)
	if err != nil {
		return nil, err
	}
	defer d.destroy()
	p := layout.DenoiseParams{DenoiseFilter: in.DenoiseFilter}
	for _, b := range []struct {
		addr *uint64
		data []float32
	}{{&p.Light, in.Light}, {&p.SD, in.SD}, {&p.Albedo, in.Albedo}, {&p.Normal, in.Normal}, {&p.Depth, in.Depth}, {&p.GradZ, in.GradZ}} {
		buf, err := d.upload(bytesOf(b.data), 0, false)
		if err != nil {
			return nil, err
		}
		*b.addr = buf.addr
	}
	res, err := d.newBuffer(uint64(12*n), 0, memReadback, false)
	if err != nil {
		return nil, err
	}
	p.Result = res.addr
	pbuf, err := d.upload(unsafe.Slice((*byte)(unsafe.Pointer(&p)), unsafe.Sizeof(p)), 0, false)
	if err != nil {
		return nil, err
	}

	// One dispatch: at 4K and a 9×9 window it is about 700 M window
	// samples, well under a second on a GPU.
	addr := pbuf.addr
	if err := d.dispatchOnce("denoise.comp", unsafe.Pointer(&addr), 8, uint32((in.Width+7)/8), uint32((in.Height+7)/8)); err != nil {
		return nil, err
	}
	if dn.Validation {
		if err := ValidationErrors(); err != nil {
			return nil, err
		}
	}
	out := make([]float32, 3*n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 12*n), res.data)
	return out, nil
}
