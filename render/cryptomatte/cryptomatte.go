// Package cryptomatte is the part of Psyop's Cryptomatte (specification
// 1.2.0, github.com/Psyop/Cryptomatte, specification/
// cryptomatte_specification.pdf) that a renderer writing EXRs needs: the
// IDs of names, the float32 an ID is stored as, the header attributes and
// manifest of a Cryptomatte layer, its channel names, and the ranking of a
// pixel's IDs by coverage.
//
// A Cryptomatte layer (a "type" in the specification: CryptoObject,
// CryptoMaterial, CryptoAsset, ...) holds levels ranks per pixel in
// ceil(levels/2) RGBA EXR layers named after it, LAYER00, LAYER01, ...:
// R and B the IDs of two ranks, G and A their coverages. An ID is the
// MurmurHash3_x86_32 of a name's UTF-8 bytes, stored as a float32 with
// the same bits except where they would make a denormal, an infinity or
// a NaN. The file's header names each layer under a key of 7 hex digits
// and holds its manifest, a JSON object from names to IDs.
//
// The ID channels must be written as 32-bit floats, losslessly, as Rank
// wrote them: a decoder compares IDs bit for bit.
package cryptomatte

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

// The values of a layer's hash and conversion attributes, the only ones
// the specification has.
const (
	hashName       = "MurmurHash3_32"
	conversionName = "uint32_to_float32"
)

// Hash is MurmurHash3_32 (x86_32, seed 0) of name's UTF-8 bytes: a name's
// ID.
func Hash(name string) uint32 {
	return murmur3(name, 0)
}

// murmur3 is MurmurHash3_x86_32 of data's bytes with seed: four bytes at a
// time, little-endian, then the one to three left, then the length and
// the final mix.
func murmur3(data string, seed uint32) uint32 {
	const (
		c1 = 0xcc9e2d51
		c2 = 0x1b873593
	)
	h := seed
	n := len(data)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch n - i {
	case 3:
		k |= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		k |= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		k |= uint32(data[i])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// Float is ID h as the float32 the EXR stores: the specification's
// uint32_to_float32, the bits of h, except that an exponent of 0 (zeros
// and denormals) becomes 1 and one of 255 (infinities and NaNs) becomes
// 254, the exponent clamped to [1, 254] by toggling its lowest bit as the
// specification's code does. Every ID is a finite, normal float32, and
// Float of a Float's bits is that Float.
func Float(h uint32) float32 {
	if e := h >> 23 & 0xff; e == 0 || e == 0xff {
		h ^= 1 << 23
	}
	return math.Float32frombits(h)
}

// hex8 is v as 8 lowercase hex digits.
func hex8(v uint32) string {
	const digits = "0123456789abcdef"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return string(b[:])
}

// LayerKey is the metadata key of a Cryptomatte layer name (e.g.
// "CryptoObject"): the first 7 of the 8 hex digits of Hash(layer), the
// key the specification suggests and Blender writes. (Psyop's Nuke
// Encryptomatte takes the digits of Float(Hash(layer))'s bits, which
// differ for the 1 in 128 names whose hash has an exponent of 0 or 255;
// readers take whatever key they find.)
func LayerKey(layer string) string {
	return hex8(Hash(layer))[:7]
}

// Manifest is the specification's JSON manifest of names: an object from
// each name to the 8 lowercase hex digits of Float(Hash(name))'s bits,
// names sorted (by bytes), each once, with no spaces. A name's quotes,
// backslashes and control characters are escaped and everything else is
// written as its UTF-8 (not \u escapes, which Blender's reader does not
// undo); a byte that is not UTF-8 is written as U+FFFD, as encoding/json
// does, though the ID is still that of the name's own bytes.
func Manifest(names []string) string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range sorted {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, name)
		b.WriteString(`:"`)
		b.WriteString(hex8(math.Float32bits(Float(Hash(name)))))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// writeJSONString writes s to b as a JSON string (Manifest says which
// characters are escaped).
func writeJSONString(b *strings.Builder, s string) {
	const digits = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte(digits[c>>4])
				b.WriteByte(digits[c&0xf])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// Attribute is one EXR header string attribute.
type Attribute struct{ Name, Value string }

// Metadata is the header attributes of the Cryptomatte layer layer (e.g.
// "CryptoObject") holding names, under "cryptomatte/" + LayerKey(layer) +
// "/": name (layer), hash ("MurmurHash3_32"), conversion
// ("uint32_to_float32") and manifest (Manifest(names)), in that order.
// (Nuke shows them with an "exr/" in front, which the file does not
// have.)
func Metadata(layer string, names []string) []Attribute {
	prefix := "cryptomatte/" + LayerKey(layer) + "/"
	return []Attribute{
		{prefix + "name", layer},
		{prefix + "hash", hashName},
		{prefix + "conversion", conversionName},
		{prefix + "manifest", Manifest(names)},
	}
}

// layers is the number of RGBA EXR layers that hold levels ranks, two
// each.
func layers(levels int) int {
	if levels <= 0 {
		return 0
	}
	return (levels + 1) / 2
}

// Channels is the EXR channel names of the Cryptomatte layer layer with
// levels ranks, in Rank's order: "CryptoObject00.R", ".G", ".B", ".A",
// "CryptoObject01.R", ..., ceil(levels/2) layers of four, each holding two
// ranks (ID, coverage, ID, coverage). It is nil for no levels.
func Channels(layer string, levels int) []string {
	n := layers(levels)
	if n == 0 {
		return nil
	}
	out := make([]string, 0, 4*n)
	for i := range n {
		p := fmt.Sprintf("%s%02d.", layer, i)
		out = append(out, p+"R", p+"G", p+"B", p+"A")
	}
	return out
}

// Entry is one ID's weight in a pixel: the filter weight of the pixel's
// samples that saw the ID, times their opacity where the renderer has
// one.
type Entry struct {
	ID     uint32
	Weight float64
}

// byIDThenWeight orders entries by ID, then weight, so that the weights
// of one ID are added in an order that does not depend on the input's.
func byIDThenWeight(a, b Entry) int {
	if c := cmp.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	return cmp.Compare(a.Weight, b.Weight)
}

// byRank orders merged entries by weight, largest first, ties by ID,
// smallest first.
func byRank(a, b Entry) int {
	if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// Rank writes a pixel's ranks into out (len(out) == 4*ceil(levels/2),
// Channels' order): its entries merged by ID (the weights of an ID
// added), ordered by weight, largest first (ties: smaller ID first, so
// that out is a function of the entries alone, not of their order), each
// rank's ID as Float and its coverage as weight/total, as float32. The
// ranks past the entries, and the odd last slot of an odd levels, are 0;
// so is all of out when total is not above 0.
//
// total is the weight of all the pixel's samples, those that saw no ID
// included: a sample that hit nothing is no entry (an entry's ID 0 is the
// ID of the name "", written as Float(0), not the 0.0 of an empty rank),
// and the coverages then add up to less than 1. entries may be reordered
// and overwritten in place; Rank does not allocate.
func Rank(entries []Entry, total float64, levels int, out []float32) {
	if levels < 0 || len(out) != 4*layers(levels) {
		panic(fmt.Sprintf("cryptomatte: %d values for %d levels, not %d", len(out), levels, 4*layers(max(levels, 0))))
	}
	clear(out)
	if len(entries) == 0 || levels == 0 || !(total > 0) {
		return
	}
	slices.SortFunc(entries, byIDThenWeight)
	n := 0
	for _, e := range entries {
		if n > 0 && entries[n-1].ID == e.ID {
			entries[n-1].Weight += e.Weight
			continue
		}
		entries[n] = e
		n++
	}
	merged := entries[:n]
	slices.SortFunc(merged, byRank)
	for i, e := range merged[:min(n, levels)] {
		out[2*i] = Float(e.ID)
		out[2*i+1] = float32(e.Weight / total)
	}
}
