package cryptomatte

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestMurmur3Vectors: MurmurHash3_x86_32 against published vectors, with
// seeds other than Hash's 0 too.
func TestMurmur3Vectors(t *testing.T) {
	for _, c := range []struct {
		data string
		seed uint32
		want uint32
	}{
		// Ian Boyd's vectors, translated from SMHasher's verification
		// (https://stackoverflow.com/questions/14747343/murmurhash3-test-vectors,
		// answer 31929528; Boost.Hash2's test/murmur3_32.cpp cites them).
		{"", 0, 0},
		{"", 1, 0x514e28b7},
		{"", 0xffffffff, 0x81f16f39},
		{"\xff\xff\xff\xff", 0, 0x76293b50},
		{"\x21\x43\x65\x87", 0, 0xf55b516b},
		{"\x21\x43\x65\x87", 0x5082edee, 0x2362f9de},
		{"\x21\x43\x65", 0, 0x7e4a8634},
		{"\x21\x43", 0, 0xa0f7b07a},
		{"\x21", 0, 0x72661cf4},
		{"\x00\x00\x00\x00", 0, 0x2362f9de},
		{"\x00\x00\x00", 0, 0x85f0b427},
		{"\x00\x00", 0, 0x30f4c306},
		{"\x00", 0, 0x514e28b7},
		// The same answer's string vectors (also what Psyop's
		// nuke/pymmh3.py gives).
		{"aaaa", 0x9747b28c, 0x5a97808a},
		{"Hello, world!", 0x9747b28c, 0x24884cba},
		{"ππππππππ", 0x9747b28c, 0xd58063c1},
		{"The quick brown fox jumps over the lazy dog", 0x9747b28c, 0x2fa826cd},
		{"abc", 0, 0xb3dd93fa},
	} {
		if got := murmur3(c.data, c.seed); got != c.want {
			t.Errorf("murmur3(%q, %#x) = %#08x, want %#08x", c.data, c.seed, got, c.want)
		}
	}
}

// TestHash: the IDs of names as the Cryptomatte specification and its
// reference implementations publish them.
func TestHash(t *testing.T) {
	for _, c := range []struct {
		name string
		want uint32
	}{
		{"", 0},
		// https://geratools.com/hash-murmur3: "hello with seed 0 produces
		// 0x248bfa47".
		{"hello", 0x248bfa47},
		// Specification 1.2.0, "Example code and conversions": the
		// unsigned hashes of "torus" and "равнина" (UTF-8 bytes d1 80 d0
		// b0 ...).
		{"torus", 4053562365},
		{"равнина", 2518896926},
		// Specification 1.2.0, "Metadata" and "Manifest": the example
		// manifests {"bunny":"13851a76", "default":"42c9679f"} and
		// {"bunny_porcelain_mat":"b24b26d4"} (float bits, equal to the
		// hashes: their exponents are neither 0 nor 255).
		{"bunny", 0x13851a76},
		{"default", 0x42c9679f},
		{"bunny_porcelain_mat", 0xb24b26d4},
	} {
		if got := Hash(c.name); got != c.want {
			t.Errorf("Hash(%q) = %#08x, want %#08x", c.name, got, c.want)
		}
	}
}

// TestFloatOfNames: Float(Hash(name)) is the float32 the specification's
// and Psyop's Nuke tests publish.
func TestFloatOfNames(t *testing.T) {
	for _, c := range []struct {
		name string
		want float64 // rounded to float32 before comparing, as the sources do
	}{
		// Specification 1.2.0, "Example code and conversions".
		{"torus", -1.54943624832e+30},
		{"равнина", -1.31926312124e-25},
		// Psyop/Cryptomatte nuke/cryptomatte_utilities_tests.py,
		// CryptoHashing.mm3hash_float_values.
		{"hello", 6.0705627102400005616e-17},
		{"cube", -4.08461912519e+15},
		{"sphere", 2.79018604383e+15},
		{"plane", 3.66557617593e-11},
		{"\xd1\x80\xd0\xb0\xd0\xb2\xd0\xbd\xd0\xb8\xd0\xbd\xd0\xb0", -1.3192631212399999468e-25},
		{"m\xc3\xa4dchen", 6.2361298211599995797e+25},
	} {
		if got := Float(Hash(c.name)); got != float32(c.want) {
			t.Errorf("Float(Hash(%q)) = %.12g, want %.12g", c.name, got, float32(c.want))
		}
	}
}

// TestFloatExponent: a hash whose exponent is 0 or 255 gets exponent 1 or
// 254 (bit 23 toggled, as the specification's code does, the same as its
// text's clamping to [1, 254]), every other hash keeps its bits, and the
// result is always finite and normal.
func TestFloatExponent(t *testing.T) {
	for _, c := range []struct {
		h, want uint32
	}{
		{0x00000000, 0x00800000}, // +0: the smallest normal, 2^-126
		{0x80000000, 0x80800000}, // -0
		{0x00000001, 0x00800001}, // denormals
		{0x007fffff, 0x00ffffff},
		{0x807fffff, 0x80ffffff},
		{0x7f800000, 0x7f000000}, // +Inf: 2^127
		{0xff800000, 0xff000000}, // -Inf
		{0x7fc00000, 0x7f400000}, // quiet NaN
		{0x7fffffff, 0x7f7fffff}, // NaN: MaxFloat32
		{0xffffffff, 0xff7fffff}, // NaN: -MaxFloat32
		{0x00800000, 0x00800000}, // exponent 1 and 254 stay
		{0x7f7fffff, 0x7f7fffff},
		{0x3f800000, 0x3f800000}, // 1.0 (Psyop's Fusion tests: "3f800000" is 1.0)
		{0xbf800000, 0xbf800000}, // -1.0
		// The hash of "name75" has exponent 0, that of "name229" and
		// "name764" 255 (what the specification's Python, run with
		// Psyop's pymmh3, gives: -1.43045906498e-38, -3.16088961121e+38,
		// 1.98914093678e+38).
		{Hash("name75"), 0x809bc361},
		{Hash("name229"), 0xff6dcc85},
		{Hash("name764"), 0x7f15a576},
	} {
		got := math.Float32bits(Float(c.h))
		if got != c.want {
			t.Errorf("Float(%#08x) has bits %#08x, want %#08x", c.h, got, c.want)
		}
	}
	if h := Hash("name75"); h != 0x801bc361 {
		t.Errorf(`Hash("name75") = %#08x, want exponent 0 (0x801bc361)`, h)
	}
	if f := Float(Hash("name229")); f != float32(-3.1608896112064345e+38) {
		t.Errorf(`Float(Hash("name229")) = %g`, f)
	}

	// Every sign and exponent, with mantissas at both ends and between.
	for se := uint32(0); se < 512; se++ {
		for _, m := range []uint32{0, 1, 0x2aaaaa, 0x400000, 0x7fffff} {
			h := se<<23 | m
			f := Float(h)
			b := math.Float32bits(f)
			e := b >> 23 & 0xff
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) || e == 0 || e == 255 {
				t.Fatalf("Float(%#08x) = %g (bits %#08x): not finite and normal", h, f, b)
			}
			if orig := h >> 23 & 0xff; (orig == 0 || orig == 255) != (b != h) || b&^(1<<23) != h&^(1<<23) {
				t.Fatalf("Float(%#08x) has bits %#08x: more than the exponent's clamp changed", h, b)
			}
			// Blender reads a manifest's hex as a hash and converts it
			// again: the same float.
			if Float(b) != f {
				t.Fatalf("Float of Float(%#08x)'s bits is %g, not %g", h, Float(b), f)
			}
		}
	}
}

// TestLayerKey: the first 7 hex digits of the layer name's hash, leading
// zeros kept, as Blender's tests publish them.
func TestLayerKey(t *testing.T) {
	for _, c := range []struct{ layer, want string }{
		// blender/source/blender/blenkernel/intern/cryptomatte_test.cc
		// (meta_data_key, session_from_stamp_data).
		{"ViewLayer.CryptoMaterial", "c7dbf5e"},
		{"𝖚𝖓𝖎𝖈𝖔𝖉𝖊.CryptoMaterial", "b990b65"},
		{"viewlayername.layer1", "87f095e"},
		{"viewlayername.layer2", "c42daa7"},
		// Psyop's pymmh3: CryptoObject 3ae39a58, CryptoMaterial be359d67,
		// CryptoAsset f42029dd (the specification's example keys,
		// d593dd7 and so on, are not hashes), layer6 0e2482f3.
		{"CryptoObject", "3ae39a5"},
		{"CryptoMaterial", "be359d6"},
		{"CryptoAsset", "f42029d"},
		{"layer6", "0e2482f"},
		// An exponent of 0: the hash's digits, not the float's (809bc36).
		{"name75", "801bc36"},
	} {
		if got := LayerKey(c.layer); got != c.want {
			t.Errorf("LayerKey(%q) = %q, want %q", c.layer, got, c.want)
		}
	}
}

// TestManifest: the specification's example exactly, and names with
// quotes, backslashes, control characters and Unicode parsed back by
// encoding/json, sorted and each once.
func TestManifest(t *testing.T) {
	// Specification 1.2.0, "Manifest", without the space after the comma.
	if got, want := Manifest([]string{"default", "bunny", "default"}), `{"bunny":"13851a76","default":"42c9679f"}`; got != want {
		t.Errorf("Manifest = %s, want %s", got, want)
	}
	if got := Manifest(nil); got != "{}" {
		t.Errorf("Manifest(nil) = %s, want {}", got)
	}
	// Blender's cryptomatte_test.cc, layer_quoted: "\"Object\"" is written
	// with its quotes escaped.
	if got, want := Manifest([]string{`"Object"`}), `{"\"Object\"":"`; !strings.HasPrefix(got, want) {
		t.Errorf("Manifest = %s, want it to start %s", got, want)
	}

	names := []string{
		"torus", `say "hi"`, `back\slash`, `\"`, "tab\there", "line\nbreak", "bell\x07", "\x1f",
		"равнина", "mädchen", "𝖚𝖓𝖎𝖈𝖔𝖉𝖊", "</script>&", "\u2028", "", "del\x7f", "torus",
	}
	in := slices.Clone(names)
	m := Manifest(names)
	if !slices.Equal(names, in) {
		t.Error("Manifest changed its argument")
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(m), &got); err != nil {
		t.Fatalf("Manifest is not JSON: %v\n%s", err, m)
	}
	if len(got) != len(names)-1 {
		t.Errorf("%d names in the manifest, want %d", len(got), len(names)-1)
	}
	for _, name := range names {
		want := hex8(math.Float32bits(Float(Hash(name))))
		if got[name] != want {
			t.Errorf("manifest[%q] = %q, want %q", name, got[name], want)
		}
	}
	if strings.Contains(m, `\u003c`) || !strings.Contains(m, "</script>&") || !strings.Contains(m, "равнина") {
		t.Errorf("HTML characters or Unicode escaped: %s", m)
	}
	// Sorted by bytes, each once, read in the file's order.
	dec := json.NewDecoder(strings.NewReader(m))
	var order []string
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, k.(string))
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.IsSorted(order) || len(slices.Compact(slices.Clone(order))) != len(order) {
		t.Errorf("names not sorted or not once each: %q", order)
	}

	// A name that is not UTF-8 is written with U+FFFD, still JSON, its
	// value the ID of its own bytes.
	bad := "bad\xffname"
	var g map[string]string
	if err := json.Unmarshal([]byte(Manifest([]string{bad})), &g); err != nil {
		t.Fatal(err)
	}
	if v, ok := g["bad\uFFFDname"]; !ok || v != hex8(math.Float32bits(Float(Hash(bad)))) {
		t.Errorf("manifest of a non-UTF-8 name: %v", g)
	}
}

// TestMetadata: the four attributes under the layer's key.
func TestMetadata(t *testing.T) {
	md := Metadata("CryptoObject", []string{"default", "bunny"})
	want := []Attribute{
		{"cryptomatte/3ae39a5/name", "CryptoObject"},
		{"cryptomatte/3ae39a5/hash", "MurmurHash3_32"},
		{"cryptomatte/3ae39a5/conversion", "uint32_to_float32"},
		{"cryptomatte/3ae39a5/manifest", `{"bunny":"13851a76","default":"42c9679f"}`},
	}
	if !slices.Equal(md, want) {
		t.Errorf("Metadata =\n%q\nwant\n%q", md, want)
	}
	for _, a := range md {
		if len(a.Name) > 31 {
			t.Errorf("%s: longer than the 31 characters of older EXR readers", a.Name)
		}
	}
}

// TestChannels: two ranks a layer, an odd levels rounded up.
func TestChannels(t *testing.T) {
	for _, c := range []struct {
		levels int
		want   []string
	}{
		{0, nil},
		{-1, nil},
		{1, []string{"CryptoObject00.R", "CryptoObject00.G", "CryptoObject00.B", "CryptoObject00.A"}},
		{3, []string{
			"CryptoObject00.R", "CryptoObject00.G", "CryptoObject00.B", "CryptoObject00.A",
			"CryptoObject01.R", "CryptoObject01.G", "CryptoObject01.B", "CryptoObject01.A",
		}},
		{6, []string{
			"CryptoObject00.R", "CryptoObject00.G", "CryptoObject00.B", "CryptoObject00.A",
			"CryptoObject01.R", "CryptoObject01.G", "CryptoObject01.B", "CryptoObject01.A",
			"CryptoObject02.R", "CryptoObject02.G", "CryptoObject02.B", "CryptoObject02.A",
		}},
	} {
		if got := Channels("CryptoObject", c.levels); !slices.Equal(got, c.want) {
			t.Errorf("Channels(%d) = %q, want %q", c.levels, got, c.want)
		}
	}
	if got := Channels("X", 22); len(got) != 44 || got[40] != "X10.R" {
		t.Errorf("Channels(22) = %q", got)
	}
}

// TestRank: merging, ordering, ties, coverages and padding, table by
// table.
func TestRank(t *testing.T) {
	a, b, c, d := Hash("a"), Hash("b"), Hash("c"), Hash("d")
	lo, hi := min(a, b), max(a, b)
	F := Float
	for _, tc := range []struct {
		name    string
		entries []Entry
		total   float64
		levels  int
		want    []float32
	}{
		{"no entries", nil, 1, 6, make([]float32, 12)},
		{"one", []Entry{{a, 2}}, 2, 2, []float32{F(a), 1, 0, 0}},
		{"background", []Entry{{a, 1}}, 4, 2, []float32{F(a), 0.25, 0, 0}},
		{"merged", []Entry{{a, 0.25}, {b, 0.375}, {a, 0.25}, {c, 0.125}}, 1, 4,
			[]float32{F(a), 0.5, F(b), 0.375, F(c), 0.125, 0, 0}},
		{"tie: smaller ID first", []Entry{{hi, 0.5}, {lo, 0.5}}, 1, 2, []float32{F(lo), 0.5, F(hi), 0.5}},
		{"tie after merging", []Entry{{hi, 0.5}, {lo, 0.25}, {lo, 0.25}}, 1, 2, []float32{F(lo), 0.5, F(hi), 0.5}},
		{"odd levels: the fourth slot stays 0", []Entry{{a, 4}, {b, 3}, {c, 2}, {d, 1}}, 10, 3,
			[]float32{F(a), 0.4, F(b), 0.3, F(c), 0.2, 0, 0}},
		{"one level", []Entry{{a, 1}, {b, 3}}, 4, 1, []float32{F(b), 0.75, 0, 0}},
		{"ID 0 is the name \"\"", []Entry{{0, 1}}, 1, 2, []float32{F(0), 1, 0, 0}},
		{"no weight", []Entry{{a, 1}}, 0, 2, []float32{0, 0, 0, 0}},
		{"zero levels", []Entry{{a, 1}}, 1, 0, []float32{}},
	} {
		out := make([]float32, len(tc.want))
		for i := range out {
			out[i] = -7 // overwritten, padding too
		}
		Rank(slices.Clone(tc.entries), tc.total, tc.levels, out)
		if !slices.Equal(out, tc.want) {
			t.Errorf("%s: Rank = %v, want %v", tc.name, out, tc.want)
		}
	}
	if F(0) == 0 {
		t.Error("Float(0) is the 0.0 of an empty rank")
	}
}

// TestRankLevels6: eight IDs in six levels keep the six heaviest, in
// order; the coverages of IDs that all fit add up to 1 when total is
// their weights' sum.
func TestRankLevels6(t *testing.T) {
	var entries []Entry
	var ids []uint32
	for i := range 8 {
		id := Hash(string(rune('a' + i)))
		ids = append(ids, id)
		entries = append(entries, Entry{id, float64(i + 1)}) // h has the most
	}
	out := make([]float32, 12)
	Rank(entries, 36, 6, out)
	for r := range 6 {
		id := ids[7-r]
		if out[2*r] != Float(id) || out[2*r+1] != float32(float64(8-r)/36) {
			t.Errorf("rank %d = (%g, %g), want (%g, %g)", r, out[2*r], out[2*r+1], Float(id), float32(float64(8-r)/36))
		}
	}

	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + rng.IntN(6)
		var es []Entry
		sum := 0.0
		for i := range n {
			for range 1 + rng.IntN(3) { // an ID seen by several samples
				w := rng.Float64()
				es = append(es, Entry{uint32(i)*0x01000193 + 0x3f000000, w})
				sum += w
			}
		}
		out := make([]float32, 12)
		Rank(es, sum, 6, out)
		cov := 0.0
		for r := range 6 {
			cov += float64(out[2*r+1])
			if r > 0 && out[2*r+1] > out[2*r-1] {
				t.Fatalf("coverages out of order: %v", out)
			}
		}
		if math.Abs(cov-1) > 1e-6 {
			t.Fatalf("coverages of %d IDs add up to %g: %v", n, cov, out)
		}
	}
}

// TestRankIsAFunctionOfTheEntries: any order of the same entries ranks
// the same, bit for bit, ties and merged weights included.
func TestRankIsAFunctionOfTheEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var es []Entry
		for range 1 + rng.IntN(20) {
			// Few IDs and few weights: duplicates and ties.
			es = append(es, Entry{uint32(rng.IntN(5)), []float64{0.1, 0.2, 0.3, 1e-17}[rng.IntN(4)]})
		}
		want := make([]float32, 8)
		Rank(slices.Clone(es), 3, 4, want)
		for range 5 {
			rng.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
			got := make([]float32, 8)
			Rank(slices.Clone(es), 3, 4, got)
			if !slices.Equal(got, want) {
				t.Fatalf("%v ranks %v, another order %v", es, got, want)
			}
		}
	}
}

// TestRankWrongLength: an out of the wrong length is a panic.
func TestRankWrongLength(t *testing.T) {
	for _, c := range []struct{ levels, n int }{{6, 8}, {3, 6}, {1, 2}, {-1, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("levels %d, %d values: no panic", c.levels, c.n)
				}
			}()
			Rank([]Entry{{1, 1}}, 1, c.levels, make([]float32, c.n))
		}()
	}
}

// TestRankDoesNotAllocate: a pixel of 16 entries, duplicates included,
// ranks without allocating.
func TestRankDoesNotAllocate(t *testing.T) {
	var src [16]Entry
	for i := range src {
		src[i] = Entry{Hash(string(rune('a' + i%11))), float64(i%5) + 0.5}
	}
	var es [16]Entry
	out := make([]float32, 12)
	allocs := testing.AllocsPerRun(100, func() {
		es = src
		Rank(es[:], 40, 6, out)
	})
	if allocs != 0 {
		t.Errorf("Rank allocates %v times a pixel", allocs)
	}
}

// BenchmarkRank: a pixel of 16 entries into 6 levels.
func BenchmarkRank(b *testing.B) {
	var src [16]Entry
	for i := range src {
		src[i] = Entry{Hash(string(rune('a' + i%11))), float64(i%5) + 0.5}
	}
	var es [16]Entry
	out := make([]float32, 12)
	for b.Loop() {
		es = src
		Rank(es[:], 40, 6, out)
	}
}
