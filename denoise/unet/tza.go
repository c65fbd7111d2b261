package unet

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mrjoshuak/go-openexr/half"
)

// tensor is one named array of a weights file, as float32.
type tensor struct {
	dims []int
	data []float32
}

// parseTZA reads a tensor archive, Open Image Denoise's weights format:
// a little-endian header (magic 0x41D7, version 2.x, the table's offset),
// then per tensor its name, dimensions, layout ("x" or "oihw"), element
// type ('f' float32, 'h' float16) and the offset of its data.
func parseTZA(b []byte) (map[string]tensor, error) {
	r := &reader{b: b}
	if magic := r.u16(); r.err != nil {
		return nil, r.err
	} else if magic != 0x41d7 {
		return nil, fmt.Errorf("not a tensor archive (bad magic)")
	}
	if major := r.u8(); r.err == nil && major != 2 {
		return nil, fmt.Errorf("tensor archive version %d, want 2", major)
	}
	r.u8()
	r.at(r.u64())
	n := int(r.u32())
	out := map[string]tensor{}
	for k := 0; k < n && r.err == nil; k++ {
		name := string(r.bytes(int(r.u16())))
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("tensor %q twice", name)
		}
		nd := int(r.u8())
		dims := make([]int, nd)
		count := 1
		for i := range dims {
			dims[i] = int(r.u32())
			if r.err != nil {
				return nil, r.err
			}
			// No tensor holds more values than the file has bytes.
			if dims[i] <= 0 {
				return nil, fmt.Errorf("tensor %q: dimension %d is %d", name, i, dims[i])
			}
			if dims[i] > len(b)/count {
				return nil, fmt.Errorf("tensor %q: dimensions %v hold more values than the file has bytes", name, dims[:i+1])
			}
			count *= dims[i]
		}
		layout := string(r.bytes(nd))
		if r.err != nil {
			return nil, r.err
		}
		if layout != "x" && layout != "oihw" {
			return nil, fmt.Errorf("tensor %q: layout %q, want x or oihw", name, layout)
		}
		kind := r.u8()
		off := r.u64()
		if r.err != nil {
			break
		}
		size := 4
		if kind == 'h' {
			size = 2
		} else if kind != 'f' {
			return nil, fmt.Errorf("tensor %q: element type %q, want f or h", name, kind)
		}
		if off > uint64(len(b)) || uint64(len(b))-off < uint64(count*size) {
			return nil, fmt.Errorf("tensor %q: data runs past the end of the file", name)
		}
		data := make([]float32, count)
		raw := b[off:]
		for i := range data {
			if kind == 'h' {
				data[i] = half.Half(binary.LittleEndian.Uint16(raw[2*i:])).Float32()
			} else {
				data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		}
		out[name] = tensor{dims: dims, data: data}
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// reader reads little-endian fields, remembering the first overrun.
type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || r.pos+n > len(r.b) {
		if r.err == nil {
			r.err = fmt.Errorf("truncated tensor archive")
		}
		return make([]byte, max(n, 0))
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s
}

func (r *reader) at(off uint64) {
	if off > uint64(len(r.b)) {
		r.err = fmt.Errorf("truncated tensor archive")
		return
	}
	r.pos = int(off)
}

func (r *reader) u8() uint8   { return r.bytes(1)[0] }
func (r *reader) u16() uint16 { return binary.LittleEndian.Uint16(r.bytes(2)) }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.bytes(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.bytes(8)) }
