package scene

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
)

// maxSynthesized bounds accessors whose elements are not backed by bytes in a
// buffer (no bufferView: zeros plus sparse values), so a declared count cannot
// make the loader allocate memory the file does not pay for.
const maxSynthesized = 1 << 24

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

// elements returns, for count elements of size elem at offset in bufferView
// i, the bytes and the stride, after checking that all of them fit.
func (l *loader) elements(i, offset, count, elem int) ([]byte, int, error) {
	data, stride, err := l.view(i)
	if err != nil {
		return nil, 0, err
	}
	if stride == 0 {
		stride = elem
	}
	if stride < elem {
		return nil, 0, fmt.Errorf("bufferView %d: byteStride %d is smaller than the %d-byte element", i, stride, elem)
	}
	// Compare in int64 only after count is known to be small enough not to overflow.
	if offset < 0 || count < 0 || count > len(data) ||
		int64(offset)+int64(stride)*int64(count-1)+int64(elem) > int64(len(data)) {
		return nil, 0, fmt.Errorf("%d elements of %d bytes (stride %d) from byte %d overrun bufferView %d of %d bytes",
			count, elem, stride, offset, i, len(data))
	}
	return data[offset:], stride, nil
}

// component decodes one component at b, normalising integers when asked.
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

func indexValue(b []byte, ct gltf.ComponentType) uint32 {
	switch ct {
	case gltf.ComponentUbyte:
		return uint32(b[0])
	case gltf.ComponentUshort:
		return uint32(binary.LittleEndian.Uint16(b))
	default:
		return binary.LittleEndian.Uint32(b)
	}
}

func (l *loader) accessor(i int) (*gltf.Accessor, error) {
	if i < 0 || i >= len(l.doc.Accessors) {
		return nil, fmt.Errorf("accessor %d does not exist (%d in the file)", i, len(l.doc.Accessors))
	}
	return l.doc.Accessors[i], nil
}

// floats reads accessor i as float32 values, comps per element, and checks
// that the accessor's type has the number of components the caller expects
// (one of want).
func (l *loader) floats(i int, want ...int) ([]float32, int, error) {
	a, err := l.accessor(i)
	if err != nil {
		return nil, 0, err
	}
	comps := a.Type.Components()
	ok := false
	for _, w := range want {
		ok = ok || comps == w
	}
	if !ok || a.Type >= gltf.AccessorMat2 {
		return nil, 0, fmt.Errorf("accessor %d: type %v is not what the attribute needs", i, a.Type)
	}
	csize := a.ComponentType.ByteSize()
	var out []float32
	if a.BufferView != nil {
		data, stride, err := l.elements(*a.BufferView, a.ByteOffset, a.Count, csize*comps)
		if err != nil {
			return nil, 0, fmt.Errorf("accessor %d: %w", i, err)
		}
		out = make([]float32, a.Count*comps)
		for e := 0; e < a.Count; e++ {
			for c := 0; c < comps; c++ {
				out[e*comps+c] = component(data[e*stride+c*csize:], a.ComponentType, a.Normalized)
			}
		}
	} else {
		if a.Count > maxSynthesized {
			return nil, 0, fmt.Errorf("accessor %d: count %d without a bufferView is more than %d", i, a.Count, maxSynthesized)
		}
		out = make([]float32, a.Count*comps)
	}
	if a.Sparse != nil {
		if err := l.applySparse(i, a, out, comps); err != nil {
			return nil, 0, fmt.Errorf("accessor %d: sparse: %w", i, err)
		}
	}
	return out, comps, nil
}

func (l *loader) applySparse(i int, a *gltf.Accessor, out []float32, comps int) error {
	s := a.Sparse
	if s.Count < 1 || s.Count > a.Count {
		return fmt.Errorf("count %d must be in 1..%d", s.Count, a.Count)
	}
	ict := s.Indices.ComponentType
	if ict != gltf.ComponentUbyte && ict != gltf.ComponentUshort && ict != gltf.ComponentUint {
		return fmt.Errorf("indices have component type %v", ict)
	}
	isize := ict.ByteSize()
	idx, _, err := l.elements(s.Indices.BufferView, s.Indices.ByteOffset, s.Count, isize)
	if err != nil {
		return fmt.Errorf("indices: %w", err)
	}
	csize := a.ComponentType.ByteSize()
	vals, _, err := l.elements(s.Values.BufferView, s.Values.ByteOffset, s.Count, csize*comps)
	if err != nil {
		return fmt.Errorf("values: %w", err)
	}
	for k := 0; k < s.Count; k++ {
		// Sparse data is tightly packed whatever the view's stride says.
		e := indexValue(idx[k*isize:], ict)
		if int64(e) >= int64(a.Count) {
			return fmt.Errorf("index %d is out of range (count %d)", e, a.Count)
		}
		for c := 0; c < comps; c++ {
			out[int(e)*comps+c] = component(vals[(k*comps+c)*csize:], a.ComponentType, a.Normalized)
		}
	}
	return nil
}

// indices reads an index accessor and checks every index against vertices.
func (l *loader) indices(i, vertices int) ([]uint32, error) {
	a, err := l.accessor(i)
	if err != nil {
		return nil, err
	}
	ct := a.ComponentType
	if a.Type != gltf.AccessorScalar || (ct != gltf.ComponentUbyte && ct != gltf.ComponentUshort && ct != gltf.ComponentUint) {
		return nil, fmt.Errorf("index accessor %d is %v %v, not unsigned integer scalars", i, ct, a.Type)
	}
	var out []uint32
	if a.BufferView == nil || a.Sparse != nil {
		// Rare for indices; go through the general reader.
		f, _, err := l.floats(i, 1)
		if err != nil {
			return nil, err
		}
		out = make([]uint32, len(f))
		for k, v := range f {
			out[k] = uint32(v)
		}
	} else {
		size := ct.ByteSize()
		data, stride, err := l.elements(*a.BufferView, a.ByteOffset, a.Count, size)
		if err != nil {
			return nil, fmt.Errorf("index accessor %d: %w", i, err)
		}
		out = make([]uint32, a.Count)
		for k := range out {
			out[k] = indexValue(data[k*stride:], ct)
		}
	}
	for k, v := range out {
		if int64(v) >= int64(vertices) {
			return nil, fmt.Errorf("index accessor %d: index %d at position %d is out of range (%d vertices)", i, v, k, vertices)
		}
	}
	return out, nil
}
