package unet

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrjoshuak/go-openexr/half"
)

// archive writes a tensor archive of the given tensors (names in order),
// as float16 when asHalf.
func archive(names []string, tensors map[string]tensor, asHalf bool) []byte {
	var data bytes.Buffer
	data.Write(make([]byte, 12)) // the header, written last
	offsets := map[string]uint64{}
	for _, n := range names {
		offsets[n] = uint64(data.Len())
		for _, v := range tensors[n].data {
			if asHalf {
				binary.Write(&data, binary.LittleEndian, uint16(half.FromFloat32(v)))
			} else {
				binary.Write(&data, binary.LittleEndian, v)
			}
		}
	}
	table := uint64(data.Len())
	binary.Write(&data, binary.LittleEndian, uint32(len(names)))
	for _, n := range names {
		t := tensors[n]
		binary.Write(&data, binary.LittleEndian, uint16(len(n)))
		data.WriteString(n)
		data.WriteByte(byte(len(t.dims)))
		for _, d := range t.dims {
			binary.Write(&data, binary.LittleEndian, uint32(d))
		}
		if len(t.dims) == 4 {
			data.WriteString("oihw")
		} else {
			data.WriteString(strings.Repeat("x", len(t.dims)))
		}
		if asHalf {
			data.WriteByte('h')
		} else {
			data.WriteByte('f')
		}
		binary.Write(&data, binary.LittleEndian, offsets[n])
	}
	b := data.Bytes()
	binary.LittleEndian.PutUint16(b, 0x41d7)
	b[2], b[3] = 2, 0
	binary.LittleEndian.PutUint64(b[4:], table)
	return b
}

// randomNet is a network of topology top with in input channels and
// random weights: every convolution's weight and bias tensors.
func randomNet(top topology, in int, width func(name string) int, rng *rand.Rand) ([]string, map[string]tensor) {
	var names []string
	tensors := map[string]tensor{}
	add := func(name string, out, inCh int) {
		w := make([]float32, out*inCh*9)
		for i := range w {
			w[i] = float32(rng.NormFloat64()) / float32(math.Sqrt(float64(9*inCh)))
		}
		b := make([]float32, out)
		for i := range b {
			b[i] = float32(rng.NormFloat64()) * 0.1
		}
		tensors[name+".weight"] = tensor{dims: []int{out, inCh, 3, 3}, data: w}
		tensors[name+".bias"] = tensor{dims: []int{out}, data: b}
		names = append(names, name+".weight", name+".bias")
	}
	prev := in
	var levels [4]int
	for l, level := range top.enc {
		for _, n := range level {
			add(n, width(n), prev)
			prev = width(n)
		}
		levels[l] = prev
	}
	for _, n := range top.bottleneck {
		add(n, width(n), prev)
		prev = width(n)
	}
	for l, level := range top.dec {
		if l < 3 {
			prev += levels[2-l]
		} else {
			prev += in
		}
		for k, n := range level {
			out := width(n)
			if l == 3 && k == len(level)-1 {
				out = 3
			}
			add(n, out, prev)
			prev = out
		}
	}
	return names, tensors
}

func writeArchive(t *testing.T, b []byte) string {
	p := filepath.Join(t.TempDir(), "w.tza")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestArchiveRoundTrip: float32 and float16 tensors read back as written
// (float16 to its precision), names, shapes and all.
func TestArchiveRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names, tensors := randomNet(base, 9, func(string) int { return 4 }, rng)
	for _, asHalf := range []bool{false, true} {
		got, err := parseTZA(archive(names, tensors, asHalf))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tensors) {
			t.Fatalf("%d tensors, want %d", len(got), len(tensors))
		}
		for n, want := range tensors {
			g := got[n]
			if len(g.dims) != len(want.dims) || len(g.data) != len(want.data) {
				t.Fatalf("%s: shape %v, want %v", n, g.dims, want.dims)
			}
			for i, v := range want.data {
				tol := float32(0)
				if asHalf {
					tol = 1e-3 * max(1, float32(math.Abs(float64(v))))
				}
				if d := g.data[i] - v; d > tol || d < -tol {
					t.Fatalf("%s[%d] = %v, want %v (half %v)", n, i, g.data[i], v, asHalf)
				}
			}
		}
	}
}

// TestArchiveDamage: a damaged archive is an error naming the problem,
// never a panic or a silent half-read network.
func TestArchiveDamage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	names, tensors := randomNet(base, 9, func(string) int { return 4 }, rng)
	good := archive(names, tensors, true)
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"bad magic", append([]byte{1, 2}, good[2:]...), "bad magic"},
		{"version 3", append(append([]byte{}, good[:2]...), append([]byte{3}, good[3:]...)...), "version 3"},
		{"truncated table", good[:len(good)-5], "truncated"},
		{"truncated header", good[:6], "truncated"},
		{"empty", nil, "truncated"},
	} {
		if _, err := parseTZA(c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	// Every truncation is an error, none a panic (every byte of the
	// header and the table, every 97th of the data).
	table := int(binary.LittleEndian.Uint64(good[4:]))
	for n := 0; n < len(good); n++ {
		if n > 12 && n < table && n%97 != 0 {
			continue
		}
		if _, err := parseTZA(good[:n]); err == nil {
			t.Fatalf("cut at %d of %d bytes: no error", n, len(good))
		}
	}
	// Dimensions whose product outgrows the file (each one alone would
	// not; multiplied unchecked, these four overflow) are refused.
	for _, dims := range [][]int{{1 << 16, 1 << 16, 1 << 16, 1 << 15}, {40, 40}} {
		big := map[string]tensor{"x": {dims: dims}}
		if _, err := parseTZA(archive([]string{"x"}, big, true)); err == nil || !strings.Contains(err.Error(), "more values than the file has bytes") {
			t.Errorf("dimensions %v: %v", dims, err)
		}
	}
	// A shape that does not fit the network is refused by name.
	tensors["dec_conv2a.weight"] = tensor{dims: []int{4, 5, 3, 3}, data: make([]float32, 4*5*9)}
	_, err := Load(writeArchive(t, archive(names, tensors, true)))
	if err == nil || !strings.Contains(err.Error(), "dec_conv2a takes 5 channels, the network gives it 8") {
		t.Errorf("a misfit layer: %v", err)
	}
	var fewer []string
	for _, n := range names {
		if n != "enc_conv3.bias" {
			fewer = append(fewer, n)
		}
	}
	_, err = Load(writeArchive(t, archive(fewer, tensors, true)))
	if err == nil || !strings.Contains(err.Error(), "no tensor enc_conv3.weight or enc_conv3.bias") {
		t.Errorf("a missing tensor: %v", err)
	}
}

// naiveConv is a 3×3 "same" convolution written out plainly: the
// reference the blocked one is checked against.
func naiveConv(c *conv, weight []float32, relu bool, ins ...*fmap) []float32 {
	h, w := ins[0].h, ins[0].w
	out := make([]float32, c.out*h*w)
	for o := 0; o < c.out; o++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				sum := float64(c.bias[o])
				ci := 0
				for _, m := range ins {
					for i := 0; i < m.c; i, ci = i+1, ci+1 {
						for ky := -1; ky <= 1; ky++ {
							for kx := -1; kx <= 1; kx++ {
								if y+ky < 0 || y+ky >= h || x+kx < 0 || x+kx >= w {
									continue
								}
								sum += float64(weight[((o*c.in+ci)*3+ky+1)*3+kx+1]) * float64(m.row(i, y+ky)[x+kx])
							}
						}
					}
				}
				if relu {
					sum = max(sum, 0)
				}
				out[(o*h+y)*w+x] = float32(sum)
			}
		}
	}
	return out
}

// TestConvMatchesNaive: the blocked, parallel convolution equals the plain
// one, over concatenated inputs, odd sizes and output counts that are not
// multiples of its block of four, with and without the ReLU, with the
// vector kernel (where the CPU has it) and without.
func TestConvMatchesNaive(t *testing.T) {
	for _, scalar := range []bool{false, true} {
		scalarTaps = scalar
		testConvMatchesNaive(t)
	}
	scalarTaps = false
}

func testConvMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ w, h, out int }{{1, 1, 1}, {7, 5, 3}, {8, 2, 4}, {16, 9, 5}, {33, 17, 8}, {70, 3, 6}} {
		a, b := newFmap(2, c.h, c.w), newFmap(3, c.h, c.w)
		for _, m := range []*fmap{a, b} {
			for ch := 0; ch < m.c; ch++ {
				for y := 0; y < m.h; y++ {
					for x := range m.row(ch, y) {
						m.row(ch, y)[x] = float32(rng.NormFloat64())
					}
				}
			}
		}
		weight, bias := make([]float32, c.out*5*9), make([]float32, c.out)
		for i := range weight {
			weight[i] = float32(rng.NormFloat64())
		}
		for i := range bias {
			bias[i] = float32(rng.NormFloat64())
		}
		cv := makeConv("test", c.out, 5, weight, bias)
		for _, relu := range []bool{false, true} {
			got, err := cv.apply(relu, a, b)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveConv(cv, weight, relu, a, b)
			for o := 0; o < c.out; o++ {
				for y := 0; y < c.h; y++ {
					for x, v := range got.row(o, y) {
						if d := math.Abs(float64(v - want[(o*c.h+y)*c.w+x])); d > 1e-4 {
							t.Fatalf("%dx%d out %d relu %v scalar %v: (%d,%d,%d) = %v, want %v", c.w, c.h, c.out, relu, scalarTaps, o, x, y, v, want[(o*c.h+y)*c.w+x])
						}
					}
				}
			}
			// The border stays zero: the next convolution reads it as padding.
			for i, v := range got.d {
				x, y := i%(c.w+2), i/(c.w+2)%(c.h+2)
				if (x == 0 || y == 0 || x == c.w+1 || y == c.h+1) && v != 0 {
					t.Fatalf("border value %v at %d", v, i)
				}
			}
		}
	}
	if _, err := makeConv("x", 1, 4, make([]float32, 36), make([]float32, 1)).apply(false, newFmap(3, 2, 2)); err == nil {
		t.Error("a conv given the wrong channel count ran")
	}
}

// TestPoolAndUpsample: 2×2 max pooling and nearest upsampling, by hand.
func TestPoolAndUpsample(t *testing.T) {
	m := newFmap(1, 2, 4)
	copy(m.row(0, 0), []float32{1, 5, -1, -2})
	copy(m.row(0, 1), []float32{3, 2, -4, -3})
	p := pool(m)
	if got := p.row(0, 0); got[0] != 5 || got[1] != -1 || p.w != 2 || p.h != 1 {
		t.Errorf("pool: %v (%dx%d)", got, p.w, p.h)
	}
	u := upsample(p)
	for y := 0; y < 2; y++ {
		if r := u.row(0, y); r[0] != 5 || r[1] != 5 || r[2] != -1 || r[3] != -1 {
			t.Errorf("upsample row %d: %v", y, r)
		}
	}
}

// TestTransforms: the eight flips and transposes are distinct bijections
// of the image, and 0 is the identity.
func TestTransforms(t *testing.T) {
	w, h := 5, 3
	seen := map[string]bool{}
	for k := 0; k < 8; k++ {
		tr := d4{k: k, w: w, h: h}
		tw, th := tr.size()
		hit := make([]bool, w*h)
		key := ""
		for y := 0; y < th; y++ {
			for x := 0; x < tw; x++ {
				s := tr.source(x, y)
				if hit[s] {
					t.Fatalf("transform %d maps pixel %d twice", k, s)
				}
				hit[s] = true
				key += string(rune('a' + s))
				if k == 0 && s != y*w+x {
					t.Fatalf("transform 0 moves (%d,%d)", x, y)
				}
			}
		}
		if seen[key] {
			t.Errorf("transform %d repeats another", k)
		}
		seen[key] = true
	}
}

// TestTransfer: the transfer functions invert, PU maps 65504 to 1, and
// auto-exposure brings a grey image to 0.18.
func TestTransfer(t *testing.T) {
	for _, y := range []float64{0, 1e-7, 1e-4, 0.02, 0.5, 1, 30, 1000, 65504} {
		if got := puInverse(pu(y)); math.Abs(got-y) > 1e-6*max(y, 1e-3) {
			t.Errorf("puInverse(pu(%v)) = %v", y, got)
		}
	}
	if v := pu(65504) * puNorm; math.Abs(v-1) > 1e-12 {
		t.Errorf("65504 encodes to %v", v)
	}
	img := make([]float32, 3*37*21)
	for i := range img {
		img[i] = 2.5
	}
	img[7] = float32(math.NaN())
	if s := exposure(img, 37, 21); math.Abs(s*2.5-0.18) > 1e-3 {
		t.Errorf("exposure of a 2.5 grey image: %v", s)
	}
	if s := exposure(make([]float32, 3*4*4), 4, 4); s != 1 {
		t.Errorf("exposure of a black image: %v, want 1", s)
	}
}

// copyNet is a network of topology top over 3 channels whose convolutions
// copy their input through the kernel's centre, except each decoder
// level's first, which copies the skip connection (the second half of its
// input): on values ≥ 0 it gives back its input exactly, and only if the
// layers are wired and concatenated as OIDN's are.
func copyNet(top topology) ([]string, map[string]tensor) {
	var names []string
	tensors := map[string]tensor{}
	add := func(name string, in, from int) {
		w := make([]float32, 3*in*9)
		for o := 0; o < 3; o++ {
			w[(o*in+from+o)*9+4] = 1
		}
		tensors[name+".weight"] = tensor{dims: []int{3, in, 3, 3}, data: w}
		tensors[name+".bias"] = tensor{dims: []int{3}, data: make([]float32, 3)}
		names = append(names, name+".weight", name+".bias")
	}
	for _, level := range top.enc {
		for _, n := range level {
			add(n, 3, 0)
		}
	}
	for _, n := range top.bottleneck {
		add(n, 3, 0)
	}
	for _, level := range top.dec {
		for k, n := range level {
			if k == 0 {
				add(n, 6, 3)
			} else {
				add(n, 3, 0)
			}
		}
	}
	return names, tensors
}

// TestNetworkWiring: through both topologies, on an image that is not
// square nor a multiple of 16, over all eight flips and transposes, a
// network that copies its skip connections gives back its input exactly:
// a skip concatenated first, a transpose undone wrongly or the padding
// misplaced would not.
func TestNetworkWiring(t *testing.T) {
	w, h := 21, 13
	img := make([]float32, 3*w*h)
	for i := range img {
		img[i] = float32(i%17) / 16
	}
	for _, top := range []topology{base, large} {
		names, tensors := copyNet(top)
		n, err := Load(writeArchive(t, archive(names, tensors, false)))
		if err != nil {
			t.Fatal(err)
		}
		out, err := n.run(context.Background(), w, h, 8, func(v float32) float32 { return v }, img)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range out {
			if math.Abs(float64(v-img[i])) > 1e-6 {
				t.Fatalf("%s: value %d is %v, want %v", top.enc[0][0], i, v, img[i])
			}
		}
	}
}

// TestTiles: an axis is cut into tiles of at most tileSize pixels whose
// kept parts cover it once, each seeing tileOverlap pixels past its kept
// part where the image goes on.
func TestTiles(t *testing.T) {
	for _, n := range []int{1, 1024, 1025, 3000, 5000} {
		next := 0
		for _, s := range tiles(n) {
			if s.out0 != next || s.out1 <= s.out0 || s.in1-s.in0 > tileSize {
				t.Fatalf("n %d: span %+v after %d", n, s, next)
			}
			if s.out0-s.in0 != min(tileOverlap, s.out0) || s.in1-s.out1 != min(tileOverlap, n-s.out1) {
				t.Fatalf("n %d: span %+v does not see %d pixels around", n, s, tileOverlap)
			}
			next = s.out1
		}
		if next != n {
			t.Fatalf("n %d: covered to %d", n, next)
		}
	}
}

// TestNetworkWiringTiled: the copying network gives back its input
// exactly when the image is cut into many small tiles, too.
func TestNetworkWiringTiled(t *testing.T) {
	saved, savedOverlap := tileSize, tileOverlap
	defer func() { tileSize, tileOverlap = saved, savedOverlap }()
	tileSize, tileOverlap = 48, 16
	w, h := 101, 67
	img := make([]float32, 3*w*h)
	for i := range img {
		img[i] = float32(i%23) / 22
	}
	names, tensors := copyNet(base)
	n, err := Load(writeArchive(t, archive(names, tensors, false)))
	if err != nil {
		t.Fatal(err)
	}
	if len(tiles(w)) < 3 || len(tiles(h)) < 2 {
		t.Fatalf("%d×%d tiles", len(tiles(w)), len(tiles(h)))
	}
	out, err := n.run(context.Background(), w, h, 8, func(v float32) float32 { return v }, img)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if math.Abs(float64(v-img[i])) > 1e-6 {
			t.Fatalf("value %d is %v, want %v", i, v, img[i])
		}
	}
}
