package ktx2

import (
	"errors"
	"fmt"
)

// bitReader reads a BasisLZ bit stream: bits fill each byte from its least
// significant end. Reading past the end yields zeros and marks the stream
// overrun, which the decoder checks once per row or table.
type bitReader struct {
	data    []byte
	pos     int // in bits
	overrun bool
}

// peek returns the next 25 or more bits without consuming them.
func (r *bitReader) peek() uint32 {
	i := r.pos >> 3
	var v uint32
	if i+4 <= len(r.data) {
		v = uint32(r.data[i]) | uint32(r.data[i+1])<<8 | uint32(r.data[i+2])<<16 | uint32(r.data[i+3])<<24
	} else {
		for k := 0; k < 4 && i+k < len(r.data); k++ {
			v |= uint32(r.data[i+k]) << (8 * k)
		}
	}
	return v >> (r.pos & 7)
}

func (r *bitReader) skip(n int) {
	r.pos += n
	if r.pos > 8*len(r.data) {
		r.overrun = true
	}
}

// bits reads n ≤ 24 bits, the first read the least significant.
func (r *bitReader) bits(n int) uint32 {
	v := r.peek() & (1<<n - 1)
	r.skip(n)
	return v
}

// vlc reads BasisLZ's variable-length integers: chunks of chunk bits whose
// top bit says another chunk follows.
func (r *bitReader) vlc(chunk int) uint32 {
	var v uint32
	for shift := 0; shift < 32; shift += chunk - 1 {
		s := r.bits(chunk)
		v |= (s & (1<<(chunk-1) - 1)) << shift
		if s&(1<<(chunk-1)) == 0 {
			break
		}
	}
	return v
}

// maxCodeBits is the longest Huffman code BasisLZ sends.
const maxCodeBits = 16

// huffman is a canonical Huffman code (RFC 1951's assignment) decoded by one
// table look-up of its longest code's length: an entry is the symbol and
// its code length, or zero where no code begins.
type huffman struct {
	bits    int
	entries []uint32
	symbols int
}

// newHuffman builds the decoder of code lengths; an over-subscribed set is
// refused, an incomplete one (a single symbol, say) allowed.
func newHuffman(lengths []uint8) (*huffman, error) {
	var count [maxCodeBits + 1]int
	longest := 0
	for _, l := range lengths {
		if l > maxCodeBits {
			return nil, fmt.Errorf("Huffman code length %d is over %d", l, maxCodeBits)
		}
		count[l]++
		longest = max(longest, int(l))
	}
	count[0] = 0
	var next [maxCodeBits + 2]uint32
	code, room := uint32(0), 1
	for l := 1; l <= maxCodeBits; l++ {
		code = (code + uint32(count[l-1])) << 1
		next[l] = code
		room = room<<1 - count[l]
		if room < 0 {
			return nil, errors.New("Huffman code lengths are over-subscribed")
		}
	}
	h := &huffman{bits: longest, entries: make([]uint32, 1<<longest), symbols: len(lengths)}
	for sym, l := range lengths {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		// The stream sends a code's most significant bit first.
		var rev uint32
		for i := 0; i < int(l); i++ {
			rev |= (c >> i & 1) << (int(l) - 1 - i)
		}
		for j := rev; j < uint32(len(h.entries)); j += 1 << l {
			h.entries[j] = uint32(sym)<<5 | uint32(l)
		}
	}
	return h, nil
}

// decode reads one symbol; -1 where the bits begin no code.
func (r *bitReader) decode(h *huffman) int {
	if h.bits == 0 {
		return -1
	}
	e := h.entries[r.peek()&(1<<h.bits-1)]
	if e == 0 {
		return -1
	}
	r.skip(int(e & 31))
	return int(e >> 5)
}

// codeLengthOrder is the order in which a table's code-length code sizes
// are sent.
var codeLengthOrder = [21]uint8{17, 18, 19, 20, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15, 16}

// readHuffman reads a compressed Huffman table: the code lengths, themselves
// Huffman and run-length coded as Deflate's are.
func (r *bitReader) readHuffman() (*huffman, error) {
	used := int(r.bits(14))
	if used == 0 {
		return nil, errors.New("Huffman table has no symbols")
	}
	n := int(r.bits(5))
	if n < 1 || n > len(codeLengthOrder) {
		return nil, fmt.Errorf("Huffman table sends %d code-length codes, not 1..21", n)
	}
	var sizes [21]uint8
	for i := range n {
		sizes[codeLengthOrder[i]] = uint8(r.bits(3))
	}
	lengthCode, err := newHuffman(sizes[:])
	if err != nil {
		return nil, fmt.Errorf("Huffman table's code-length code: %w", err)
	}
	lengths := make([]uint8, used)
	for i := 0; i < used; {
		sym := r.decode(lengthCode)
		if r.overrun {
			return nil, errors.New("Huffman table is cut short")
		}
		run, value := 1, uint8(0)
		switch {
		case sym < 0:
			return nil, errors.New("Huffman table's code lengths hold an invalid code")
		case sym <= 16:
			value = uint8(sym)
		case sym == 17:
			run = 3 + int(r.bits(3))
		case sym == 18:
			run = 11 + int(r.bits(7))
		default: // 19, 20: repeat the previous length
			if i == 0 || lengths[i-1] == 0 {
				return nil, errors.New("Huffman table repeats a code length that is not there")
			}
			value = lengths[i-1]
			if sym == 19 {
				run = 3 + int(r.bits(2))
			} else {
				run = 7 + int(r.bits(7))
			}
		}
		if i+run > used {
			return nil, fmt.Errorf("Huffman table's code lengths run past its %d symbols", used)
		}
		for k := range run {
			lengths[i+k] = value
		}
		i += run
	}
	return newHuffman(lengths)
}
