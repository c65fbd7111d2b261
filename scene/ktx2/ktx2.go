// Package ktx2 decodes KTX 2.0 textures (KHR_texture_basisu's container) to
// RGBA8: Basis Universal's BasisLZ/ETC1S and UASTC, each as its
// specification defines it (the KTX 2.0 specification with its BasisLZ
// appendix, the UASTC specification), and plain 8-bit formats; level data
// may be Zstandard or zlib supercompressed. Only level 0 of a 2D texture is
// decoded: a path tracer filters the full-resolution image itself.
package ktx2

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// identifier opens every KTX 2.0 file.
var identifier = [12]byte{0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, '\r', '\n', 0x1A, '\n'}

// Is says whether data starts as a KTX 2.0 file does.
func Is(data []byte) bool {
	return len(data) >= len(identifier) && bytes.Equal(data[:len(identifier)], identifier[:])
}

// Supercompression schemes (the KTX 2.0 specification's table).
const (
	schemeNone     = 0
	schemeBasisLZ  = 1
	schemeZstd     = 2
	schemeZlib     = 3
	headerBytes    = 80
	levelIndexSize = 24
)

// The largest texture Decode allocates for (256 MiB as RGBA8), so that a
// header alone cannot make it allocate without bound.
const (
	maxSide   = 1 << 16
	maxPixels = 1 << 26
)

// Data Format Descriptor colour models of Basis Universal's formats.
const (
	modelETC1S = 163
	modelUASTC = 166
)

// The plain formats sertrace reads: 8 bits a channel, UNORM or SRGB.
var plainFormats = map[uint32]struct {
	channels int
	bgr      bool
}{
	9: {1, false}, 15: {1, false}, // R8
	16: {2, false}, 22: {2, false}, // R8G8
	23: {3, false}, 29: {3, false}, // R8G8B8
	30: {3, true}, 36: {3, true}, // B8G8R8
	37: {4, false}, 43: {4, false}, // R8G8B8A8
	44: {4, true}, 50: {4, true}, // B8G8R8A8
}

// Image is a decoded texture: RGBA8, not premultiplied, rows top first.
type Image struct {
	Width, Height int
	Pixels        []uint8
}

// header is what the decoder reads of a KTX 2.0 file.
type header struct {
	vkFormat, typeSize                 uint32
	width, height, depth, layers, face uint32
	levels, scheme                     uint32
	dfd, kvd                           []byte
	sgd                                []byte
	level0                             []byte
	level0Uncompressed                 uint64
	model                              uint8
	alpha                              bool // an ETC1S texture has an alpha slice
	flipY                              bool // KTXorientation says rows go up
}

// DecodeConfig reads the header only: the size of level 0.
func DecodeConfig(data []byte) (width, height int, err error) {
	h, err := parseHeader(data)
	if err != nil {
		return 0, 0, err
	}
	return int(h.width), int(h.height), nil
}

// Decode decodes level 0 to RGBA8.
func Decode(data []byte) (*Image, error) {
	h, err := parseHeader(data)
	if err != nil {
		return nil, err
	}
	img := &Image{Width: int(h.width), Height: int(h.height)}
	img.Pixels = make([]uint8, 4*img.Width*img.Height)
	switch {
	case h.scheme == schemeBasisLZ:
		err = decodeBasisLZ(h, img)
	case h.model == modelUASTC:
		err = decodeUASTC(h, img)
	default:
		err = decodePlain(h, img)
	}
	if err != nil {
		return nil, err
	}
	if h.flipY {
		row := 4 * img.Width
		tmp := make([]uint8, row)
		for y := 0; y < img.Height/2; y++ {
			a, b := img.Pixels[y*row:(y+1)*row], img.Pixels[(img.Height-1-y)*row:(img.Height-y)*row]
			copy(tmp, a)
			copy(a, b)
			copy(b, tmp)
		}
	}
	return img, nil
}

func parseHeader(data []byte) (*header, error) {
	if !Is(data) {
		return nil, errors.New("not a KTX 2.0 file (no KTX 2.0 identifier)")
	}
	if len(data) < headerBytes+levelIndexSize {
		return nil, fmt.Errorf("KTX2 file of %d bytes is shorter than its header", len(data))
	}
	u32 := func(off int) uint32 { return binary.LittleEndian.Uint32(data[off:]) }
	u64 := func(off int) uint64 { return binary.LittleEndian.Uint64(data[off:]) }
	h := &header{
		vkFormat: u32(12), typeSize: u32(16), width: u32(20), height: u32(24), depth: u32(28),
		layers: u32(32), face: u32(36), levels: u32(40), scheme: u32(44),
	}
	switch {
	case h.width == 0 || h.height == 0:
		return nil, fmt.Errorf("KTX2 texture of %d×%d texels is not a 2D image", h.width, h.height)
	case h.depth > 1:
		return nil, fmt.Errorf("KTX2 texture is 3D (depth %d); glTF textures are 2D", h.depth)
	case h.layers > 1:
		return nil, fmt.Errorf("KTX2 texture is an array of %d layers; glTF textures are 2D", h.layers)
	case h.face != 1:
		return nil, fmt.Errorf("KTX2 texture has %d faces (a cube map has 6); glTF textures are 2D with 1", h.face)
	case h.width > maxSide || h.height > maxSide || uint64(h.width)*uint64(h.height) > maxPixels:
		return nil, fmt.Errorf("KTX2 texture of %d×%d texels is larger than %d per side or %d in all", h.width, h.height, maxSide, maxPixels)
	}
	levels := max(h.levels, 1) // 0: the reader is asked to make the mipmaps; level 0 is there
	if uint64(levels)*levelIndexSize > uint64(len(data)-headerBytes) {
		return nil, fmt.Errorf("KTX2 level index of %d levels overruns the file of %d bytes", levels, len(data))
	}
	section := func(name string, off, n uint64) ([]byte, error) {
		if off > uint64(len(data)) || n > uint64(len(data))-off {
			return nil, fmt.Errorf("KTX2 %s (%d bytes at %d) overruns the file of %d bytes", name, n, off, len(data))
		}
		return data[off : off+n], nil
	}
	var err error
	if h.dfd, err = section("data format descriptor", uint64(u32(48)), uint64(u32(52))); err != nil {
		return nil, err
	}
	if h.kvd, err = section("key/value data", uint64(u32(56)), uint64(u32(60))); err != nil {
		return nil, err
	}
	if h.sgd, err = section("supercompression global data", u64(64), u64(72)); err != nil {
		return nil, err
	}
	if h.level0, err = section("level 0", u64(80), u64(88)); err != nil {
		return nil, err
	}
	h.level0Uncompressed = u64(96)
	if err := h.readDFD(); err != nil {
		return nil, err
	}
	h.flipY = orientationUp(h.kvd)
	switch h.scheme {
	case schemeBasisLZ:
		if h.model != modelETC1S {
			return nil, fmt.Errorf("KTX2 BasisLZ texture's colour model is %d, not ETC1S (%d)", h.model, modelETC1S)
		}
	case schemeNone, schemeZstd, schemeZlib:
		if h.model == modelETC1S {
			return nil, errors.New("KTX2 ETC1S texture is not BasisLZ supercompressed")
		}
	default:
		return nil, fmt.Errorf("KTX2 supercompression scheme %d is none of BasisLZ, Zstandard and zlib", h.scheme)
	}
	if h.scheme != schemeBasisLZ && h.model != modelUASTC {
		if _, ok := plainFormats[h.vkFormat]; !ok {
			return nil, fmt.Errorf("KTX2 vkFormat %d is not one sertrace decodes (Basis Universal ETC1S or UASTC, or 8-bit R, RG, RGB, RGBA)", h.vkFormat)
		}
	} else if h.vkFormat != 0 {
		return nil, fmt.Errorf("KTX2 Basis Universal texture has vkFormat %d, not VK_FORMAT_UNDEFINED", h.vkFormat)
	}
	return h, nil
}

// readDFD reads the basic data format descriptor's colour model, transfer
// function and whether a sample is alpha.
func (h *header) readDFD() error {
	d := h.dfd
	// dfdTotalSize, then one block: vendor/type, version/size, model/primaries/transfer/flags, ...
	if len(d) < 4+24 {
		return fmt.Errorf("KTX2 data format descriptor of %d bytes is too short", len(d))
	}
	blockSize := int(binary.LittleEndian.Uint32(d[8:]) >> 16)
	if blockSize < 24 || 4+blockSize > len(d) {
		return fmt.Errorf("KTX2 data format descriptor block of %d bytes does not fit its %d", blockSize, len(d)-4)
	}
	h.model = d[12]
	for s := 4 + 24; s+16 <= 4+blockSize; s += 16 {
		// A sample's channel is the low 4 bits of its first word's top byte:
		// ETC1S's AAA (15) is the alpha slice.
		if h.model == modelETC1S && d[s+3]&0x0f == 15 {
			h.alpha = true
		}
	}
	return nil
}

// orientationUp says whether KTXorientation's second letter is u: rows
// stored bottom first (the default, rd, is top first, as glTF's images).
func orientationUp(kvd []byte) bool {
	for len(kvd) >= 4 {
		n := int(binary.LittleEndian.Uint32(kvd))
		if n > len(kvd)-4 {
			return false
		}
		kv := kvd[4 : 4+n]
		if k, v, ok := bytes.Cut(kv, []byte{0}); ok && string(k) == "KTXorientation" {
			return len(v) >= 2 && v[1] == 'u'
		}
		kvd = kvd[min(len(kvd), 4+(n+3)&^3):]
	}
	return false
}

// inflate undoes the level's Zstandard or zlib supercompression; the
// result must have exactly want bytes, which bounds what a hostile stream
// can make it allocate.
func (h *header) inflate(want uint64) ([]byte, error) {
	switch h.scheme {
	case schemeNone:
		if uint64(len(h.level0)) != want {
			return nil, fmt.Errorf("KTX2 level 0 has %d bytes, not the %d its size needs", len(h.level0), want)
		}
		return h.level0, nil
	case schemeZstd:
		// The frame's window may be larger than its content: allow 64 MiB
		// or what the level needs, whichever is more.
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(max(want+1, 64<<20)))
		if err != nil {
			return nil, fmt.Errorf("KTX2 Zstandard: %v", err)
		}
		defer dec.Close()
		out, err := dec.DecodeAll(h.level0, make([]byte, 0, want))
		if err != nil {
			return nil, fmt.Errorf("KTX2 level 0 does not decompress (Zstandard): %v", err)
		}
		if uint64(len(out)) != want {
			return nil, fmt.Errorf("KTX2 level 0 decompresses to %d bytes, not the %d its size needs", len(out), want)
		}
		return out, nil
	case schemeZlib:
		zr, err := zlib.NewReader(bytes.NewReader(h.level0))
		if err != nil {
			return nil, fmt.Errorf("KTX2 level 0 does not decompress (zlib): %v", err)
		}
		out, err := io.ReadAll(io.LimitReader(zr, int64(want)+1))
		if err != nil {
			return nil, fmt.Errorf("KTX2 level 0 does not decompress (zlib): %v", err)
		}
		if uint64(len(out)) != want {
			return nil, fmt.Errorf("KTX2 level 0 decompresses to %d bytes, not the %d its size needs", len(out), want)
		}
		return out, nil
	}
	return nil, fmt.Errorf("KTX2 supercompression scheme %d", h.scheme)
}

// decodePlain reads an uncompressed 8-bit format; a missing channel reads
// as a GPU samples it: colour 0, alpha 1.
func decodePlain(h *header, img *Image) error {
	f := plainFormats[h.vkFormat]
	src, err := h.inflate(uint64(img.Width) * uint64(img.Height) * uint64(f.channels))
	if err != nil {
		return err
	}
	for i := range img.Width * img.Height {
		p, q := src[i*f.channels:(i+1)*f.channels], img.Pixels[4*i:4*i+4]
		q[3] = 255
		copy(q, p)
		if f.bgr {
			q[0], q[2] = q[2], q[0]
		}
	}
	return nil
}

// decodeUASTC unpacks level 0's 4×4 UASTC blocks.
func decodeUASTC(h *header, img *Image) error {
	bw, bh := (img.Width+3)/4, (img.Height+3)/4
	src, err := h.inflate(uint64(bw) * uint64(bh) * 16)
	if err != nil {
		return err
	}
	var texels [16][4]uint8
	for by := range bh {
		for bx := range bw {
			off := 16 * (by*bw + bx)
			if err := unpackUASTC((*[16]byte)(src[off:off+16]), &texels); err != nil {
				return fmt.Errorf("KTX2 UASTC block (%d, %d): %w", bx, by, err)
			}
			img.putBlock(bx, by, &texels, 0, 0, 4)
		}
	}
	return nil
}

// putBlock writes n channels of a block's texels, from channel from on,
// into the pixels' channels from to on, where the texels lie inside the
// image.
func (img *Image) putBlock(bx, by int, texels *[16][4]uint8, from, to, n int) {
	for y := range 4 {
		py := 4*by + y
		if py >= img.Height {
			return
		}
		for x := range 4 {
			px := 4*bx + x
			if px >= img.Width {
				break
			}
			copy(img.Pixels[4*(py*img.Width+px)+to:], texels[4*y+x][from:from+n])
		}
	}
}
