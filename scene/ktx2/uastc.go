package ktx2

import (
	"encoding/binary"
	"fmt"
)

// UASTC LDR 4×4 (Basis Universal's UASTC texture specification) is a subset
// of 4×4 LDR ASTC with a simpler 128-bit layout. Bits are read from the
// least significant bit of byte 0 on, in this order:
//
//   - the mode, a prefix code of 2 to 7 bits;
//   - hint bits for transcoding to BC1/ETC1/ETC2, which don't change the
//     texels and are skipped;
//   - the partition pattern index (multi-subset modes only);
//   - the dual plane's colour component selector (modes 6, 11 and 13);
//   - the endpoints, bounded-integer-sequence coded: first all the packed
//     trit or quint groups, then each value's plain bits;
//   - the 16 (or 2×16 for dual plane) weights, raster order, plain bits;
//     the first texel of each subset has one bit less, its top bit being 0.
//
// Mode 8 is a solid colour: 8-bit R, G, B and A follow the mode code.
// The texels are ASTC's: endpoints and weights unquantised as ASTC does,
// and interpolated as ASTC does into a UNORM16 value whose top 8 bits are
// the texel, which is what the Basis Universal transcoder outputs as RGBA32.
// Unlike ASTC there is no blue contraction: UASTC endpoints are used as they
// are (the transcoder to ASTC swaps them where ASTC would contract).

// uastcMode is the layout of one UASTC mode.
type uastcMode struct {
	codeLen       uint8          // bits of the mode's prefix code
	hintBits      uint8          // transcoding hints, skipped
	subsets       uint8          // 1, 2 or 3
	patternBits   uint8          // bits of the partition pattern index (subsets > 1)
	patterns      []uastcPattern // the mode's partition patterns (subsets > 1)
	components    uint8          // 2: luminance and alpha, 3: RGB, 4: RGBA
	endpointRange uint8          // ASTC quantisation range of the endpoints (index into uastcRanges)
	weightBits    uint8          // weights are plain bits, 1 to 5 of them
	dualPlane     bool           // a second weight plane for one component
}

// uastcSolidMode is the solid colour mode, which has no endpoints or
// weights; uastcReservedMode is the code kept for future expansion.
const (
	uastcSolidMode    = 8
	uastcReservedMode = 19
)

// uastcModes is the UASTC specification's mode table. Mode 8 only has its
// code length filled in.
var uastcModes = [...]uastcMode{
	0:  {codeLen: 4, hintBits: 15, subsets: 1, components: 3, endpointRange: 19, weightBits: 4},
	1:  {codeLen: 6, hintBits: 15, subsets: 1, components: 3, endpointRange: 20, weightBits: 2},
	2:  {codeLen: 5, hintBits: 15, subsets: 2, patternBits: 5, patterns: uastcPatterns2, components: 3, endpointRange: 8, weightBits: 3},
	3:  {codeLen: 5, hintBits: 15, subsets: 3, patternBits: 4, patterns: uastcPatterns3, components: 3, endpointRange: 7, weightBits: 2},
	4:  {codeLen: 5, hintBits: 15, subsets: 2, patternBits: 5, patterns: uastcPatterns2, components: 3, endpointRange: 12, weightBits: 2},
	5:  {codeLen: 5, hintBits: 15, subsets: 1, components: 3, endpointRange: 20, weightBits: 3},
	6:  {codeLen: 5, hintBits: 15, subsets: 1, components: 3, endpointRange: 18, weightBits: 2, dualPlane: true},
	7:  {codeLen: 5, hintBits: 15, subsets: 2, patternBits: 5, patterns: uastcPatterns2Of3, components: 3, endpointRange: 12, weightBits: 2},
	8:  {codeLen: 5},
	9:  {codeLen: 5, hintBits: 23, subsets: 2, patternBits: 5, patterns: uastcPatterns2, components: 4, endpointRange: 8, weightBits: 2},
	10: {codeLen: 3, hintBits: 17, subsets: 1, components: 4, endpointRange: 13, weightBits: 4},
	11: {codeLen: 2, hintBits: 17, subsets: 1, components: 4, endpointRange: 13, weightBits: 2, dualPlane: true},
	12: {codeLen: 3, hintBits: 17, subsets: 1, components: 4, endpointRange: 19, weightBits: 3},
	13: {codeLen: 5, hintBits: 23, subsets: 1, components: 4, endpointRange: 20, weightBits: 1, dualPlane: true},
	14: {codeLen: 5, hintBits: 23, subsets: 1, components: 4, endpointRange: 20, weightBits: 2},
	15: {codeLen: 7, hintBits: 23, subsets: 1, components: 2, endpointRange: 20, weightBits: 4},
	16: {codeLen: 6, hintBits: 23, subsets: 2, patternBits: 5, patterns: uastcPatterns2, components: 2, endpointRange: 20, weightBits: 2},
	17: {codeLen: 6, hintBits: 23, subsets: 1, components: 2, endpointRange: 20, weightBits: 2, dualPlane: true},
	18: {codeLen: 4, hintBits: 15, subsets: 1, components: 3, endpointRange: 11, weightBits: 5},
}

// uastcModeCodes are the modes' prefix codes, read least significant bit
// first; the last is the reserved mode 19.
var uastcModeCodes = [uastcReservedMode + 1]struct{ code, len uint8 }{
	{0x01, 4}, {0x35, 6}, {0x1D, 5}, {0x03, 5}, {0x13, 5}, {0x0B, 5}, {0x1B, 5},
	{0x07, 5}, {0x17, 5}, {0x0F, 5}, {0x02, 3}, {0x00, 2}, {0x06, 3}, {0x1F, 5},
	{0x0D, 5}, {0x05, 7}, {0x15, 6}, {0x25, 6}, {0x09, 4}, {0x45, 7},
}

// uastcModeOfCode maps a block's low 7 bits to its mode: the codes are
// prefix free, so every completion of a code maps to that code's mode.
var uastcModeOfCode = func() (modes [128]uint8) {
	for mode, c := range uastcModeCodes {
		for rest := 0; rest < 128>>c.len; rest++ {
			modes[int(c.code)|rest<<c.len] = uint8(mode)
		}
	}
	return modes
}()

// uastcPattern is a partition pattern: each texel's subset, and a mask of
// the anchor texels (each subset's first texel in raster order), whose
// weights are stored with one bit less.
type uastcPattern struct {
	subset  [16]uint8
	anchors uint16
}

// The UASTC partition patterns are those ASTC patterns that BC7 shares,
// named by their ASTC partition seeds (UASTC specification's tables):
// 2-subset patterns for modes 2, 4, 9 and 16; 3-subset patterns for mode 3;
// and for mode 7 the 2-subset patterns that match a BC7 3-subset pattern.
var (
	uastcPatterns2 = astcPatterns(2, []uint16{
		28, 20, 16, 29, 91, 9, 107, 72, 149, 204, 50, 114, 496, 17, 78, 39,
		252, 828, 43, 156, 116, 210, 476, 273, 684, 359, 246, 195, 694, 524,
	})
	uastcPatterns3 = astcPatterns(3, []uint16{
		260, 74, 32, 156, 183, 15, 745, 0, 335, 902, 254,
	})
	uastcPatterns2Of3 = astcPatterns(2, []uint16{
		36, 48, 61, 137, 161, 183, 226, 281, 302, 307, 479, 495, 593, 594, 605,
		799, 812, 988, 993,
	})
	// uastcOneSubset is the pattern of the single-subset modes.
	uastcOneSubset = uastcPattern{anchors: 1}
)

// astcPatterns computes the 4×4 patterns of the given ASTC partition seeds.
func astcPatterns(partitions int, seeds []uint16) []uastcPattern {
	patterns := make([]uastcPattern, len(seeds))
	for i, seed := range seeds {
		p := &patterns[i]
		var seen uint8
		for t := range 16 {
			s := astcPartition(int(seed), t&3, t>>2, partitions)
			p.subset[t] = uint8(s)
			if seen&(1<<s) == 0 {
				seen |= 1 << s
				p.anchors |= 1 << t
			}
		}
	}
	return patterns
}

// astcPartition is ASTC's partition function for a texel (x, y) of a 2D
// block of fewer than 31 texels.
func astcPartition(seed, x, y, partitions int) int {
	// Small blocks use doubled coordinates.
	x <<= 1
	y <<= 1
	seed += (partitions - 1) * 1024
	rnum := astcHash52(uint32(seed))
	var s [12]uint32
	for i := range 8 {
		s[i] = rnum >> (4 * i) & 0xF
	}
	s[8] = rnum >> 18 & 0xF
	s[9] = rnum >> 22 & 0xF
	s[10] = rnum >> 26 & 0xF
	s[11] = (rnum>>30 | rnum<<2) & 0xF
	for i := range s {
		s[i] *= s[i]
	}
	var sh1, sh2 uint32
	if seed&1 != 0 {
		sh1, sh2 = 4, 5
		if seed&2 == 0 {
			sh1 = 5
		}
		if partitions == 3 {
			sh2 = 6
		}
	} else {
		sh1, sh2 = 5, 4
		if partitions == 3 {
			sh1 = 6
		}
		if seed&2 == 0 {
			sh2 = 5
		}
	}
	// The z seeds (8..11) drop out: z is 0 in 2D.
	ux, uy := uint32(x), uint32(y)
	a := ((s[0]>>sh1)*ux + (s[1]>>sh2)*uy + rnum>>14) & 0x3F
	b := ((s[2]>>sh1)*ux + (s[3]>>sh2)*uy + rnum>>10) & 0x3F
	c := ((s[4]>>sh1)*ux + (s[5]>>sh2)*uy + rnum>>6) & 0x3F
	if partitions < 3 {
		c = 0
	}
	// d is always 0 (at most 3 partitions here).
	switch {
	case a >= b && a >= c:
		return 0
	case b >= c:
		return 1
	}
	return 2
}

// astcHash52 is the integer hash of ASTC's partition function.
func astcHash52(p uint32) uint32 {
	p ^= p >> 15
	p -= p << 17
	p += p << 7
	p += p << 4
	p ^= p >> 5
	p += p << 16
	p ^= p >> 7
	p ^= p >> 3
	p ^= p << 6
	p ^= p >> 17
	return p
}

// uastcRanges are ASTC's quantisation ranges as plain bits times an
// optional trit (radix 3) or quint (radix 5): range i has
// radix<<bits levels.
var uastcRanges = [21]struct{ bits, radix uint8 }{
	{1, 1}, {0, 3}, {2, 1}, {0, 5}, {1, 3}, {3, 1}, {1, 5}, {2, 3}, {4, 1}, {2, 5}, {3, 3},
	{5, 1}, {3, 5}, {4, 3}, {6, 1}, {4, 5}, {5, 3}, {7, 1}, {5, 5}, {6, 3}, {8, 1},
}

// uastcEndpointValues maps a range and a BISE value (trit or quint above
// the plain bits) to its 8-bit endpoint, ASTC's colour unquantisation.
// The ranges 0..2 and 0..4, a trit or quint alone, are no colour endpoint
// ranges in ASTC and stay empty.
var uastcEndpointValues = func() (table [len(uastcRanges)][256]uint8) {
	for r, q := range uastcRanges {
		if q.bits == 0 {
			continue
		}
		for v := range int(q.radix) << q.bits {
			table[r][v] = astcUnquantiseEndpoint(v, int(q.bits), int(q.radix))
		}
	}
	return table
}()

// astcUnquantiseEndpoint is ASTC's colour endpoint unquantisation.
func astcUnquantiseEndpoint(v, bits, radix int) uint8 {
	low := v & (1<<bits - 1)
	if radix == 1 {
		return uint8(replicateBits(low, bits, 8))
	}
	// The trit or quint D scales by C; the plain bits above the lowest give
	// B; the lowest bit, as A, mirrors the result.
	d := v >> bits
	var a int
	if low&1 != 0 {
		a = 0x1FF
	}
	x := low >> 1 // the bits b, c, d, ... of the specification
	var b, c int
	switch {
	case radix == 3 && bits == 1:
		b, c = 0, 204
	case radix == 3 && bits == 2:
		b, c = x*0x116, 93 // b000b0bb0
	case radix == 3 && bits == 3:
		b, c = x<<7|x<<2|x, 44 // cb000cbcb
	case radix == 3 && bits == 4:
		b, c = x<<6|x, 22 // dcb000dcb
	case radix == 3 && bits == 5:
		b, c = x<<5|x>>2, 11 // edcb000ed
	case radix == 3 && bits == 6:
		b, c = x<<4|x>>4, 5 // fedcb000f
	case radix == 5 && bits == 1:
		b, c = 0, 113
	case radix == 5 && bits == 2:
		b, c = x*0x10C, 54 // b0000bb00
	case radix == 5 && bits == 3:
		b, c = x<<7|x<<1|x>>1, 26 // cb0000cbc
	case radix == 5 && bits == 4:
		b, c = x<<6|x>>1, 13 // dcb0000dc
	case radix == 5 && bits == 5:
		b, c = x<<5|x>>3, 6 // edcb0000e
	default: // no plain bit: not an endpoint range
		return 0
	}
	t := (d*c + b) ^ a
	return uint8(a&0x80 | t>>2)
}

// replicateBits widens an n-bit value to `to` bits by repeating its bits.
func replicateBits(v, n, to int) int {
	if n == 0 {
		return 0
	}
	out := 0
	for have := 0; have < to; have += n {
		out = out<<n | v
	}
	return out >> ((to+n-1)/n*n - to)
}

// uastcWeightValues maps a number of weight bits and a weight to its
// 0..64 value, ASTC's weight unquantisation for plain-bit ranges.
var uastcWeightValues = func() (table [6][32]uint8) {
	for bits := 1; bits <= 5; bits++ {
		for v := range 1 << bits {
			w := replicateBits(v, bits, 6)
			if w > 32 {
				w++ // 0..63 stretched to 0..64
			}
			table[bits][v] = uint8(w)
		}
	}
	return table
}()

// uastcTritBits and uastcQuintBits are the bits of a BISE group holding
// 1 to 5 trits, or 1 to 3 quints: UASTC packs a group as one base-3 or
// base-5 number, first value least significant.
var (
	uastcTritBits  = [6]uint8{0, 2, 4, 5, 7, 8}
	uastcQuintBits = [4]uint8{0, 3, 5, 7}
)

// uastcBits reads a block's bits from the least significant bit of byte 0.
type uastcBits struct {
	lo, hi uint64
	pos    uint
}

// read returns the next n (at most 8) bits.
func (r *uastcBits) read(n uint8) uint32 {
	var v uint64
	if r.pos >= 64 {
		v = r.hi >> (r.pos - 64)
	} else {
		v = r.lo>>r.pos | r.hi<<(64-r.pos)
	}
	r.pos += uint(n)
	return uint32(v) & (1<<n - 1)
}

// readEndpoints reads len(out) BISE-coded endpoints of the given range and
// unquantises them.
func (r *uastcBits) readEndpoints(out []uint8, rangeIndex uint8) {
	q := uastcRanges[rangeIndex]
	unquantised := &uastcEndpointValues[rangeIndex]
	if q.radix == 1 {
		for i := range out {
			out[i] = unquantised[r.read(q.bits)]
		}
		return
	}
	// All the packed trit or quint groups come first.
	groupSize := 5
	if q.radix == 5 {
		groupSize = 3
	}
	var groups [6]uint32 // 18 values at most: 4 trit or 6 quint groups
	for g := 0; g*groupSize < len(out); g++ {
		n := min(len(out)-g*groupSize, groupSize)
		bits := uastcTritBits[n]
		if q.radix == 5 {
			bits = uastcQuintBits[n]
		}
		groups[g] = r.read(bits)
	}
	for i := range out {
		g := &groups[i/groupSize]
		tq := *g % uint32(q.radix)
		*g /= uint32(q.radix)
		out[i] = unquantised[tq<<q.bits|r.read(q.bits)]
	}
}

// uastcInterpolate is ASTC's LDR interpolation of two 8-bit endpoints by a
// 0..64 weight: the endpoints widened to 16 bits by replication, the result
// the top 8 bits of the UNORM16 value.
func uastcInterpolate(e0, e1, w uint8) uint8 {
	c0, c1, wt := uint32(e0)*0x101, uint32(e1)*0x101, uint32(w)
	return uint8((c0*(64-wt) + c1*wt + 32) >> 6 >> 8)
}

// unpackUASTC decodes one 16-byte UASTC LDR block into 16 RGBA8 texels, row by row.
func unpackUASTC(block *[16]byte, texels *[16][4]uint8) error {
	modeIndex := int(uastcModeOfCode[block[0]&0x7F])
	if modeIndex == uastcReservedMode {
		return fmt.Errorf("UASTC block has the reserved mode %d", modeIndex)
	}
	mode := &uastcModes[modeIndex]
	r := uastcBits{
		lo:  binary.LittleEndian.Uint64(block[:8]),
		hi:  binary.LittleEndian.Uint64(block[8:]),
		pos: uint(mode.codeLen),
	}
	if modeIndex == uastcSolidMode {
		var c [4]uint8
		for i := range c {
			c[i] = uint8(r.read(8))
		}
		for t := range texels {
			texels[t] = c
		}
		return nil
	}
	r.pos += uint(mode.hintBits)

	pattern := &uastcOneSubset
	if mode.subsets > 1 {
		index := int(r.read(mode.patternBits))
		if index >= len(mode.patterns) {
			return fmt.Errorf("UASTC block of mode %d has partition pattern %d of %d", modeIndex, index, len(mode.patterns))
		}
		pattern = &mode.patterns[index]
	}
	// The component that takes the second plane's weights; none is 4.
	planes, secondPlane := 1, 4
	if mode.dualPlane {
		planes, secondPlane = 2, 3 // luminance-alpha mode 17: always alpha
		if mode.components > 2 {
			secondPlane = int(r.read(2))
		}
	}

	// Endpoints: per subset, per component, low then high.
	comps := int(mode.components)
	var endpoints [18]uint8
	r.readEndpoints(endpoints[:comps*2*int(mode.subsets)], mode.endpointRange)

	// Weights: per texel, per plane.
	var weights [32]uint8
	values := &uastcWeightValues[mode.weightBits]
	for t := range 16 {
		bits := mode.weightBits
		if pattern.anchors&(1<<t) != 0 {
			bits--
		}
		for p := range planes {
			weights[t*planes+p] = values[r.read(bits)]
		}
	}

	for t := range texels {
		e := endpoints[int(pattern.subset[t])*comps*2:]
		w0, w1 := weights[t*planes], weights[t*planes+planes-1]
		texel := &texels[t]
		if comps == 2 { // luminance then alpha
			l := uastcInterpolate(e[0], e[1], w0)
			wa := w0
			if secondPlane == 3 {
				wa = w1
			}
			*texel = [4]uint8{l, l, l, uastcInterpolate(e[2], e[3], wa)}
			continue
		}
		texel[3] = 0xFF
		for c := range comps {
			w := w0
			if c == secondPlane {
				w = w1
			}
			texel[c] = uastcInterpolate(e[2*c], e[2*c+1], w)
		}
	}
	return nil
}
