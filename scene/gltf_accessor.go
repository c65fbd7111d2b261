package scene

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/qmuntal/gltf"
)

// view returns the bytes of bufferView i and its stride (0 when unset).
func (l *loader) view(i int) ([]byte, int, error) {
	if i < 0 || i >= len(l.doc.BufferViews) {
		return nil, 0, fmt.Errorf("bufferView %d does not exist (%d in the file)", i, len(l.doc.BufferViews))
	}
	v := l.doc.BufferViews[i]
	if v.Buffer < 0 || v.Buffer >= len(l.buffers) {
		return nil, 0, fmt.Errorf("bufferView %d: buffer %d does not exist", i, v.Buffer)
	}
	buf := l.buffers[v.Buffer]
	if v.ByteOffset < 0 || v.ByteLength < 1 || v.ByteOffset > len(buf) || v.ByteLength > len(buf)-v.ByteOffset {
		return nil, 0, fmt.Errorf("bufferView %d: bytes %d..%d overrun buffer %d of %d bytes",
			i, v.ByteOffset, int64(v.ByteOffset)+int64(v.ByteLength), v.Buffer, len(buf))
	}
	if v.ByteStride != 0 && (v.ByteStride < 4 || v.ByteStride > 252 || v.ByteStride%4 != 0) {
		return nil, 0, fmt.Errorf("bufferView %d: byteStride %d is not a multiple of 4 in 4..252", i, v.ByteStride)
	}
	return buf[v.ByteOffset : v.ByteOffset+v.ByteLength], v.ByteStride, nil
}

// elements returns, for count elements of size elem from byte offset of
// bufferView i, the bytes from the first element on and the stride, after
// checking that all of them fit. Sparse data is tightly packed whatever the
// view says (packed true).
func (l *loader) elements(i, offset, count, elem int, packed bool) ([]byte, int, error) {
	data, stride, err := l.view(i)
	if err != nil {
		return nil, 0, err
	}
	if stride == 0 || packed {
		stride = elem
	}
	if stride < elem {
		return nil, 0, fmt.Errorf("bufferView %d: byteStride %d is smaller than the %d-byte element", i, stride, elem)
	}
	// count is checked against the data before it is multiplied, so nothing overflows.
	if offset < 0 || offset > len(data) || count < 0 || count > len(data) ||
		(count > 0 && stride*(count-1)+elem > len(data)-offset) {
		return nil, 0, fmt.Errorf("%d elements of %d bytes (stride %d) from byte %d overrun bufferView %d of %d bytes",
			count, elem, stride, offset, i, len(data))
	}
	return data[offset:], stride, nil
}

// component decodes one component at b, normalising integers when asked
// (glTF: signed values map to max(c / (2^(n−1) − 1), −1)).
func component(b []byte, ct gltf.ComponentType, normalized bool) float32 {
	switch ct {
	case gltf.ComponentFloat:
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	case gltf.ComponentByte:
		v := float32(int8(b[0]))
		if normalized {
			return max(v/127, -1)
		}
		return v
	case gltf.ComponentUbyte:
		if normalized {
			return float32(b[0]) / 255
		}
		return float32(b[0])
	case gltf.ComponentShort:
		v := float32(int16(binary.LittleEndian.Uint16(b)))
		if normalized {
			return max(v/32767, -1)
		}
		return v
	case gltf.ComponentUshort:
		v := float32(binary.LittleEndian.Uint16(b))
		if normalized {
			return v / 65535
		}
		return v
	default: // ComponentUint
		v := float32(binary.LittleEndian.Uint32(b))
		if normalized {
			return v / 4294967295
		}
		return v
	}
}

// unsigned decodes one unsigned integer component exactly.
func unsigned(b []byte, ct gltf.ComponentType) uint32 {
	switch ct {
	case gltf.ComponentUbyte:
		return uint32(b[0])
	case gltf.ComponentUshort:
		return uint32(binary.LittleEndian.Uint16(b))
	default:
		return binary.LittleEndian.Uint32(b)
	}
}

func isUnsigned(ct gltf.ComponentType) bool {
	return ct == gltf.ComponentUbyte || ct == gltf.ComponentUshort || ct == gltf.ComponentUint
}

// read decodes accessor i, after checking that its type has one of the
// component counts the caller accepts: set(e, c, b) receives the bytes of
// component c of element e, from the bufferView (or nothing: zeros) and then
// from the sparse values. Every element it will allocate for is charged to
// the loader's budget first.
func (l *loader) read(i int, want []int, alloc func(count, comps int), set func(e, c int, b []byte)) (*gltf.Accessor, error) {
	if i < 0 || i >= len(l.doc.Accessors) {
		return nil, fmt.Errorf("accessor %d does not exist (%d in the file)", i, len(l.doc.Accessors))
	}
	a := l.doc.Accessors[i]
	comps := a.Type.Components()
	if a.Type >= gltf.AccessorMat2 || !slices.Contains(want, comps) {
		return nil, fmt.Errorf("accessor %d: type %v is not what the attribute needs", i, a.Type)
	}
	csize := a.ComponentType.ByteSize()
	var data []byte
	stride := 0
	if a.BufferView != nil {
		var err error
		if data, stride, err = l.elements(*a.BufferView, a.ByteOffset, a.Count, csize*comps, false); err != nil {
			return nil, fmt.Errorf("accessor %d: %w", i, err)
		}
	}
	if err := l.charge(int64(a.Count)*int64(comps)*4, fmt.Sprintf("accessor %d", i)); err != nil {
		return nil, err
	}
	alloc(a.Count, comps)
	if data != nil {
		for e := 0; e < a.Count; e++ {
			for c := 0; c < comps; c++ {
				set(e, c, data[e*stride+c*csize:])
			}
		}
	}
	if s := a.Sparse; s != nil {
		if err := l.sparse(a, comps, set); err != nil {
			return nil, fmt.Errorf("accessor %d: sparse: %w", i, err)
		}
	}
	return a, nil
}

func (l *loader) sparse(a *gltf.Accessor, comps int, set func(e, c int, b []byte)) error {
	s := a.Sparse
	if s.Count < 1 || s.Count > a.Count {
		return fmt.Errorf("count %d must be in 1..%d", s.Count, a.Count)
	}
	ict := s.Indices.ComponentType
	if !isUnsigned(ict) {
		return fmt.Errorf("indices have component type %v", ict)
	}
	isize, csize := ict.ByteSize(), a.ComponentType.ByteSize()
	idx, _, err := l.elements(s.Indices.BufferView, s.Indices.ByteOffset, s.Count, isize, true)
	if err != nil {
		return fmt.Errorf("indices: %w", err)
	}
	vals, _, err := l.elements(s.Values.BufferView, s.Values.ByteOffset, s.Count, csize*comps, true)
	if err != nil {
		return fmt.Errorf("values: %w", err)
	}
	for k := 0; k < s.Count; k++ {
		e := unsigned(idx[k*isize:], ict)
		if int64(e) >= int64(a.Count) {
			return fmt.Errorf("index %d is out of range (count %d)", e, a.Count)
		}
		for c := 0; c < comps; c++ {
			set(int(e), c, vals[(k*comps+c)*csize:])
		}
	}
	return nil
}

// floats reads accessor i as float32 values, comps per element, comps one
// of want.
func (l *loader) floats(i int, want ...int) ([]float32, int, error) {
	var out []float32
	var ct gltf.ComponentType
	var normalized bool
	var comps int
	a, err := l.read(i, want,
		func(count, c int) {
			a := l.doc.Accessors[i]
			ct, normalized, comps = a.ComponentType, a.Normalized, c
			out = make([]float32, count*c)
		},
		func(e, c int, b []byte) { out[e*comps+c] = component(b, ct, normalized) })
	if err != nil {
		return nil, 0, err
	}
	return out, a.Type.Components(), nil
}

// indices reads an index accessor exactly (sparse included) and checks
// every index against the vertex count.
func (l *loader) indices(i, vertices int) ([]uint32, error) {
	if i >= 0 && i < len(l.doc.Accessors) {
		if ct := l.doc.Accessors[i].ComponentType; !isUnsigned(ct) {
			return nil, fmt.Errorf("index accessor %d has component type %v, not an unsigned integer", i, ct)
		}
	}
	var out []uint32
	var ct gltf.ComponentType
	if _, err := l.read(i, []int{1},
		func(count, _ int) { ct, out = l.doc.Accessors[i].ComponentType, make([]uint32, count) },
		func(e, _ int, b []byte) { out[e] = unsigned(b, ct) }); err != nil {
		return nil, fmt.Errorf("indices: %w", err)
	}
	for k, v := range out {
		if int64(v) >= int64(vertices) {
			return nil, fmt.Errorf("index accessor %d: index %d at position %d is out of range (%d vertices)", i, v, k, vertices)
		}
	}
	return out, nil
}
