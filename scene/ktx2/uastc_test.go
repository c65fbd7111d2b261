package ktx2

import (
	"encoding/hex"
	"strings"
	"testing"
)

// uastcRealBlocks are blocks from the StainedGlassLamp sample's UASTC
// textures, with the texels that the Basis Universal transcoder (the build
// in the npm package three@0.170.0) decodes them to as RGBA32, row by row.
// They cover every mode (0 to 18), two partition patterns of each
// multi-subset mode, and each colour component selector that the files use
// in the dual-plane modes. (The luminance-alpha blocks of these files all
// have one luminance but mode 15's here; TestUnpackUASTCLuminanceAlphaPlanes
// covers mode 17's planes.)
var uastcRealBlocks = []struct {
	mode   int
	block  string // 16 bytes, hex
	texels string // 16 RGBA8 texels, hex
}{
	{0, "a149b2f1f77b3d086c6675551648f659", "8080ffff8080ffff8080ffff8080ffff8181ffff807fffff8181ffff8181ffff8080ffff8386ffff7f7efeff8182ffff8080ffff7c76fdff7f7dfeff8181ffff"},
	{1, "f52236b04f70efff7f85b56505000000", "8080ffff8080ffff8080ffff8080ffff8182ffff7e7dffff8080ffff8080ffff7d7bffff7e7dffff8080ffff8080ffff7e7dffff8080ffff8080ffff8080ffff"},
	{2, "1d115bd00afd0f0fff1f34c9761c4900", "7a6af6ff7a6af6ff7777ffff8181ffff6b81fdff8181ffff8181ffff8181ffff707afbff8383ffff7e7effff8181ffff7e7effff8181ffff8181ffff8181ffff"},
	{2, "1d87575199da91b1fa5b0995ac8c4b00", "9281e2ffa572ecffb963f6ffaf6af1ff8888ddff9b7ae7ffb963f6ffaf6af1ff88ccddffa572ecffb963f6ffaf6af1ff8db9e0ffa557ecffb963f6ffaf6af1ff"},
	{3, "03256e7827eac8b5e69bb64888dd2a00", "455ce8ff2e8bd1ff75abe9ffa3a3ffff645cf0ff2e8bd1ff45b3d1ffa3a3ffff845cf8ff6383e0ff17babaff75abe9ffa35cffff9c7cf0ff45b3d1ff45b3d1ff"},
	{3, "03314e16ebc1e1bfc44bbdb6e5ea3f00", "3d7ce8ff3d7ce8ff4c83ffffa39bf8ff3583e8ff3d7ce8ff4c83ffffa3abf0ff2e8be8ff3583e8ff5494ffffa3abf0ff2e8be8ff2e8be8ff5ca3ffffa3bae8ff"},
	{4, "738354ef84fbe0be13ff4e56552b2000", "807fffff807fffff807fffff807fffff807fffff807fffff807fffff807fffff7f81ffff807fffff807fffff807fffff8484ffff8484ffff7b84ffff807fffff"},
	{4, "5303ebc68969c0b713df4f64abaa2a00", "7b75f9ff7e77fbff8179feff7e77fbff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff"},
	{5, "0b93f457f847f8ef5f92243992290100", "8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8584feff7f7fffff8080ffff8080ffff8281ffff8180ffff8080ffff8080ffff"},
	{6, "5b93049ff0fdf7215c5555555555a641", "8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff807fffff7f7fffff8180ffff8081ffff"},
	{6, "1b915456e0bfff218c59c99c89539555", "807fffff7e81ffff8081ffff807fffff8081ffff7e84ffff7e84ffff8081ffff8081ffff7e81ffff847cffff807fffff807fffff8081ffff807fffff807fffff"},
	{6, "5b13a66ef0fde7a1d816611111111111", "8384faff807fefff7c79faff807fffff807fffff7c79faff807fffff807fffff807fffff807fffff807fffff807fffff807fffff807fffff807fffff807fffff"},
	{7, "0711048bd97de73f93db4f6efd855200", "857efeff7b84f9ff8081fbff857efeff857efeff7b84f9ff7b84f9ff7b84f9ff857efeff867ff0ff8491f2ff8491f2ff857efeff867ff0ff886deeff886deeff"},
	{7, "4783cfeeb470d6bf93fb4edafeb22a00", "807dfbff918af2ff7b7becff8280eeff807dfbff8a6ef2ff7b7becff7b7becff807dfbff807dfbff8575f7ff807dfbff807dfbff807dfbff807dfbff807dfbff"},
	{8, "1710f0ff9f3ce7010000000000000000", "8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff"},
	{9, "0f81d10102aa02fe01aa40ff8987874f", "115511ff055505ff005500ff005500ff005500ff005500ff005500ff005500ff005500ff005500ff005500ff005500ff005500ff005500ff005538ff005572ff"},
	{9, "0fa5dd81bdab00ff1faa00feff7c7a75", "ab5500ff005500ff005500ff005500ffee5500ff545500ff005500ff005500ffee5500ffab5500ff005500ff005500ffe3555bffe3555bff545500ff005500ff"},
	{10, "2ad00105fcdf23225c555555559a5555", "7f80ffff7e81ffff7e81ffff7e81ffff7e81ffff7e81ffff7e81ffff7e81ffff7e81ffff7e81ffff817effff807fffff7e81ffff7e81ffff7e81ffff7e81ffff"},
	{11, "10e9a806f8fb474424265c6665566676", "7e7cffff817cffff8180ffff817cffff7c88ffff7e80ffff8180ffff8180ffff7e80ffff8180ffff8180ffff7e80ffff8180ffff8180ffff8180ffff8380ffff"},
	{11, "14e9a006f8fb47445c9999999959c899", "7e80ffff7e80ffff8180ffff8180ffff8180ffff8180ffff8180ffff8180ffff8180ffff8180ffff8180ffff7e80ffff817cffff837cffff8180ffff8180ffff"},
	{11, "10e8b009f8bfc74414121114714c4461", "8081ffff8081ffff847effff8081ffff8081ffff8081ffff7c83faff8081ffff8081ffff887cfaff7c83efff7c83faff7c83faff7c83faff8081ffff847efaff"},
	{11, "1409f9521a9a1ac70133013211119999", "363636ff363636ff4c5c61ff4c5c61ff3d4244ff363636ff454f53ff4c5c61ff3d4244ff3d4244ff3d4244ff3d4244ff3d4244d83d4244d83d4244d83d4244d8"},
	{12, "26d051037efff78320085445555554b5", "8080ffff8080ffff7f7effff8080ffff7f7fffff8080ffff7f7effff8080ffff7f7effff8080ffff8180ffff8080ffff7f7effff8080ffff7f7effff7f7effff"},
	{13, "5f03db11a01f60dffffeff3f040e0000", "8080ffff8080ffff8080ffff7e80fbff8080ffff8080ffff807dffff7e7dfbff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff"},
	{13, "1f01d2410606d41300c0ffffe6e66606", "195000ff184f00ff185000ff194f00ff185000ff184f00ff185000ff194f00ff185000ff184f00ff185000ff194f00ff185000ff194f00ff185000ff194f00ff"},
	{13, "1f01d6614000d15180dcff3f0545e50f", "014401ff014401ff014701ff014701ff014401ff014401ff014701ff014701ff014401ff014701ff014701ff014701ff014472ff014772ff014772ff014772ff"},
	{14, "6d11db11f8d717f8ffffff9f55555505", "807effff817dffff7f81ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff8080ffff"},
	{15, "05557cc70fc2ff7f02e08c6615cb590f", "3b3b3bff3b3b3bff3f3f3fff3f3f3fff262626ff292929ff303030ff343434ff161616ff1a1a1aff212121ff2d2d2dff0b0b0bff121212ff1a1a1aff262626ff"},
	{16, "1502ad98020185ff0301011cf9f3c4a0", "404040e1404040ff404040ff404040ff40404017404040e1404040ff404040ff4040400040404017404040e1404040ff40404000404040004040402f404040f6"},
	{16, "15024d90030101d80201019c8140c0c0", "404040004040400040404000404040214040400040404000404040004040403b40404000404040004040400040404067404040004040400040404000404040b6"},
	{17, "25026d0208e8000064ebffffffffff07", "40404007404040024040400040404004404040004040400040404000404040004040400040404000404040004040400040404000404040004040400040404000"},
	{18, "a9c97dd0c9ff9bb1df1c7aacb1d55a6b", "7f80ffff7e7fffff7e7fffff8494ffff7f80ffff7f81ffff7d7bffff7f82ffff7e7fffff7f80ffff7e7fffff7e7effff7f80ffff7f80ffff7f80ffff7f80ffff"},
}

func TestUnpackUASTCRealBlocks(t *testing.T) {
	seen := map[int]bool{}
	for _, c := range uastcRealBlocks {
		block, want := decodeHex16(t, c.block), decodeHex(t, c.texels)
		if mode := int(uastcModeOfCode[block[0]&0x7F]); mode != c.mode {
			t.Fatalf("block %s: mode %d, want %d", c.block, mode, c.mode)
		}
		seen[c.mode] = true
		var texels [16][4]uint8
		if err := unpackUASTC(&block, &texels); err != nil {
			t.Fatalf("mode %d block %s: %v", c.mode, c.block, err)
		}
		for i := range texels {
			if got := texels[i][:]; string(got) != string(want[4*i:4*i+4]) {
				t.Errorf("mode %d block %s: texel %d is %v, want %v", c.mode, c.block, i, got, want[4*i:4*i+4])
			}
		}
	}
	for mode := range uastcReservedMode {
		if !seen[mode] {
			t.Errorf("no real block of mode %d", mode)
		}
	}
}

// uastcBlockBits builds a block from (value, bit count) fields, least
// significant bit first, as UASTC stores them.
func uastcBlockBits(fields ...[2]uint32) (block [16]byte) {
	pos := 0
	for _, f := range fields {
		for i := range int(f[1]) {
			if f[0]>>i&1 != 0 {
				block[pos/8] |= 1 << (pos % 8)
			}
			pos++
		}
	}
	return block
}

func TestUnpackUASTCSolidColour(t *testing.T) {
	// Mode 8's code, the colour, then ETC1 hint bits (all ones: ignored).
	block := uastcBlockBits([2]uint32{0x17, 5}, [2]uint32{0x12, 8}, [2]uint32{0x34, 8},
		[2]uint32{0x56, 8}, [2]uint32{0x9A, 8}, [2]uint32{0xFFFF, 16}, [2]uint32{0xFFFF, 16})
	var texels [16][4]uint8
	if err := unpackUASTC(&block, &texels); err != nil {
		t.Fatal(err)
	}
	for i, c := range texels {
		if c != [4]uint8{0x12, 0x34, 0x56, 0x9A} {
			t.Fatalf("texel %d is %v", i, c)
		}
	}
}

func TestUnpackUASTCLuminanceAlphaPlanes(t *testing.T) {
	// Mode 17: luminance 0 to 255 weighted by plane 0, which steps along
	// each row; alpha 0 to 255 weighted by plane 1, which steps down the
	// columns. Texel 0's two weights are anchors, 1 bit each.
	fields := [][2]uint32{{0x25, 6}, {0, 23}, {0, 8}, {255, 8}, {0, 8}, {255, 8}}
	for i := range 16 {
		bits := uint32(2)
		if i == 0 {
			bits = 1
		}
		fields = append(fields, [2]uint32{uint32(i % 4), bits}, [2]uint32{uint32(i / 4), bits})
	}
	block := uastcBlockBits(fields...)
	var texels [16][4]uint8
	if err := unpackUASTC(&block, &texels); err != nil {
		t.Fatal(err)
	}
	// ASTC's 2-bit weights 0, 21, 43, 64 between 0x0000 and 0xFFFF.
	levels := [4]uint8{0, 84, 171, 255}
	for i, c := range texels {
		l, a := levels[i%4], levels[i/4]
		if c != [4]uint8{l, l, l, a} {
			t.Errorf("texel %d is %v, want %v", i, c, [4]uint8{l, l, l, a})
		}
	}
}

func TestUnpackUASTCRefusesReservedMode(t *testing.T) {
	for _, first := range []byte{0x45, 0xC5} { // mode 19's 7-bit code, with byte 0's top bit clear and set
		block := [16]byte{first}
		var texels [16][4]uint8
		err := unpackUASTC(&block, &texels)
		if err == nil || !strings.Contains(err.Error(), "reserved mode 19") {
			t.Errorf("first byte %#x: error %v, want the reserved mode 19", first, err)
		}
	}
}

func TestUnpackUASTCRefusesUnknownPattern(t *testing.T) {
	for _, c := range []struct{ code, codeLen, hintBits, patternBits, pattern uint32 }{
		{0x03, 5, 15, 4, 11}, // mode 3 has 11 patterns
		{0x03, 5, 15, 4, 15},
		{0x07, 5, 15, 5, 19}, // mode 7 has 19
		{0x1D, 5, 15, 5, 30}, // mode 2 has 30
		{0x15, 6, 23, 5, 31}, // mode 16 likewise
	} {
		block := uastcBlockBits([2]uint32{c.code, c.codeLen}, [2]uint32{0, c.hintBits}, [2]uint32{c.pattern, c.patternBits})
		var texels [16][4]uint8
		if err := unpackUASTC(&block, &texels); err == nil || !strings.Contains(err.Error(), "partition pattern") {
			t.Errorf("code %#x pattern %d: error %v, want an unknown partition pattern", c.code, c.pattern, err)
		}
	}
}

func TestUASTCModeCodes(t *testing.T) {
	// Every 7-bit prefix decodes to the mode whose code it starts with.
	for low := range 128 {
		mode := uastcModeOfCode[low]
		c := uastcModeCodes[mode]
		if low&(1<<c.len-1) != int(c.code) {
			t.Errorf("bits %07b decode to mode %d, code %#x of %d bits", low, mode, c.code, c.len)
		}
	}
	// And every mode's layout fits in a block's 128 bits (several leave
	// some unused, mode 1 as many as 28).
	for i, m := range uastcModes {
		if i == uastcSolidMode {
			continue
		}
		planes := 1
		if m.dualPlane {
			planes = 2
		}
		n := int(m.components) * 2 * int(m.subsets)
		q := uastcRanges[m.endpointRange]
		bits := int(m.codeLen) + int(m.hintBits) + int(m.patternBits) + n*int(q.bits)
		switch q.radix {
		case 3:
			bits += n/5*8 + int(uastcTritBits[n%5])
		case 5:
			bits += n/3*7 + int(uastcQuintBits[n%3])
		}
		if m.dualPlane && m.components > 2 {
			bits += 2
		}
		bits += 16*planes*int(m.weightBits) - int(m.subsets)*planes
		if bits > 128 {
			t.Errorf("mode %d lays out %d bits", i, bits)
		}
	}
}

func TestUASTCPatterns(t *testing.T) {
	for _, set := range []struct {
		name       string
		patterns   []uastcPattern
		partitions int
	}{{"2-subset", uastcPatterns2, 2}, {"3-subset", uastcPatterns3, 3}, {"mode 7", uastcPatterns2Of3, 2}} {
		seen := map[[16]uint8]bool{}
		for i, p := range set.patterns {
			var used [3]int
			for _, s := range p.subset {
				used[s]++
			}
			for s := range set.partitions {
				if used[s] == 0 {
					t.Errorf("%s pattern %d leaves subset %d empty: %v", set.name, i, s, p.subset)
				}
			}
			// One anchor per subset: its first texel.
			for s := range set.partitions {
				first := 0
				for p.subset[first] != uint8(s) {
					first++
				}
				if p.anchors&(1<<first) == 0 {
					t.Errorf("%s pattern %d: texel %d anchors subset %d but is not marked", set.name, i, first, s)
				}
			}
			if n := popcount16(p.anchors); n != set.partitions {
				t.Errorf("%s pattern %d has %d anchors", set.name, i, n)
			}
			if seen[p.subset] {
				t.Errorf("%s pattern %d repeats an earlier one", set.name, i)
			}
			seen[p.subset] = true
		}
	}
	// And each pattern as the UASTC specification lists it, row by row.
	for _, set := range []struct {
		name     string
		patterns []uastcPattern
		want     []string
	}{{"2-subset", uastcPatterns2, []string{
		"0011001100110011", "0001000100010001", "1000100010001000", "0001001100110111", "1111111011101100", "0011011101111111",
		"1110110010000000", "1111111011001000", "0000000000010011", "1100100000000000", "0000000101111111", "1111111111101000",
		"1110100000000000", "1111111100000000", "0000111111111111", "1111111111110000", "1000111011111111", "1111111101110001",
		"0111001100010000", "0011000100000000", "0000100011001110", "1111111101110011", "1000110011001110", "0011000100010000",
		"1111011101110011", "0110011001100110", "1111000000001111", "1010101010101010", "1111000011110000", "1001001101101100",
	}}, {"3-subset", uastcPatterns3, []string{
		"0000000011221122", "1111111100002222", "1111000000002222", "1111222200000000", "1120112011201120", "0112011201120112",
		"0211021102110211", "2000200021112111", "2012201220122012", "1111000022221111", "0022001100110022",
	}}, {"mode 7", uastcPatterns2Of3, []string{
		"0000111100000000", "0010001000100010", "1100110010000000", "0000000100110011", "1111111100001111", "0100010001000100",
		"0001001111111111", "0111001100110011", "1100000000111100", "0111011100000000", "0000000011101110", "1100000000001100",
		"0111001100000000", "0000000111111111", "1111111111110110", "1100110011001000", "1111111110001000", "0011011011001000",
		"1111011100000000",
	}}} {
		if len(set.patterns) != len(set.want) {
			t.Fatalf("%s: %d patterns, want %d", set.name, len(set.patterns), len(set.want))
		}
		for i, p := range set.patterns {
			var got [16]byte
			for j, s := range p.subset {
				got[j] = '0' + s
			}
			if string(got[:]) != set.want[i] {
				t.Errorf("%s pattern %d is %s, want %s", set.name, i, got, set.want[i])
			}
		}
	}
}

func popcount16(v uint16) (n int) {
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

func TestUASTCUnquantisation(t *testing.T) {
	// ASTC's colour unquantisation of the 0..11 range (2 bits and a trit),
	// in BISE value order.
	want12 := []uint8{0, 255, 69, 186, 23, 232, 92, 163, 46, 209, 116, 139}
	if got := uastcEndpointValues[7][:12]; string(got) != string(want12) {
		t.Errorf("range 0..11 unquantises to %v, want %v", got, want12)
	}
	// Plain-bit ranges replicate bits.
	if got := uastcEndpointValues[11][:4]; string(got) != string([]uint8{0, 8, 16, 24}) {
		t.Errorf("range 0..31 starts %v", got)
	}
	if got := uastcEndpointValues[11][31]; got != 255 {
		t.Errorf("range 0..31 ends at %d", got)
	}
	// ASTC's weights of 4 bits.
	want16 := []uint8{0, 4, 8, 12, 17, 21, 25, 29, 35, 39, 43, 47, 52, 56, 60, 64}
	if got := uastcWeightValues[4][:16]; string(got) != string(want16) {
		t.Errorf("4-bit weights unquantise to %v, want %v", got, want16)
	}
	// Interpolation rounds in 16 bits: (0x3F3F*32 + 0x8080*32 + 32) >> 6 is
	// 0x5FE0, top byte 0x5F; rounding in 8 bits would give 0x60.
	if got := uastcInterpolate(0x3F, 0x80, 32); got != 0x5F {
		t.Errorf("interpolating 0x3F and 0x80 at 32 gives %#x, want 0x5f", got)
	}
}

func TestUnpackUASTCAllocatesNothing(t *testing.T) {
	blocks := make([][16]byte, len(uastcRealBlocks))
	for i, c := range uastcRealBlocks {
		blocks[i] = decodeHex16(t, c.block)
	}
	var texels [16][4]uint8
	allocs := testing.AllocsPerRun(10, func() {
		for i := range blocks {
			_ = unpackUASTC(&blocks[i], &texels)
		}
	})
	if allocs != 0 {
		t.Errorf("unpackUASTC allocates %.1f times per %d blocks", allocs, len(blocks))
	}
}

func BenchmarkUnpackUASTC(b *testing.B) {
	blocks := make([][16]byte, len(uastcRealBlocks))
	for i, c := range uastcRealBlocks {
		blocks[i] = decodeHex16(b, c.block)
	}
	var texels [16][4]uint8
	for b.Loop() {
		for i := range blocks {
			if err := unpackUASTC(&blocks[i], &texels); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func decodeHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeHex16(t testing.TB, s string) (block [16]byte) {
	t.Helper()
	if copy(block[:], decodeHex(t, s)) != 16 {
		t.Fatalf("block %s is not 16 bytes", s)
	}
	return block
}
