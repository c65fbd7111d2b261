package render

import (
	"fmt"

	"github.com/mrjoshuak/go-openexr/exr"
)

// ReadEXR reads the named channels of an EXR file (as float32, whatever
// their stored type); a channel the file lacks comes back nil.
func ReadEXR(path string, names ...string) (width, height int, channels map[string][]float32, err error) {
	f, err := exr.OpenFile(path)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("read %s: %v", path, err)
	}
	defer f.Close()
	if f.IsTiled() || f.IsDeep() {
		return 0, 0, nil, fmt.Errorf("read %s: only scanline EXR files are read", path)
	}
	h := f.Header(0)
	dw := h.DataWindow()
	width, height = int(dw.Max.X-dw.Min.X+1), int(dw.Max.Y-dw.Min.Y+1)
	if width < 1 || height < 1 || width*height > MaxFilePixels {
		return 0, 0, nil, fmt.Errorf("read %s: size %d×%d is not supported", path, width, height)
	}
	present := map[string]bool{}
	if h.Channels() == nil {
		return 0, 0, nil, fmt.Errorf("read %s: its header lists no channels: the file is damaged", path)
	}
	for i := 0; i < h.Channels().Len(); i++ {
		present[h.Channels().At(i).Name] = true
	}
	r, err := exr.NewScanlineReader(f)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("read %s: %v", path, err)
	}
	fb := exr.NewFrameBuffer()
	channels = map[string][]float32{}
	for _, n := range names {
		if !present[n] {
			continue
		}
		channels[n] = make([]float32, width*height)
		fb.Insert(n, exr.NewSliceFromFloat32(channels[n], width, height).WithOrigin(int(dw.Min.X), int(dw.Min.Y)))
	}
	r.SetFrameBuffer(fb)
	if err := r.ReadPixels(int(dw.Min.Y), int(dw.Max.Y)); err != nil {
		return 0, 0, nil, fmt.Errorf("read %s: %v", path, err)
	}
	return width, height, channels, nil
}
