package unet

import (
	"fmt"
	"runtime"
	"sync"
)

// fmap is a feature map: c channels of h×w values, each channel stored
// with a one-pixel border of zeros so 3×3 convolutions read it unchecked.
type fmap struct {
	c, h, w int
	d       []float32
}

func newFmap(c, h, w int) *fmap {
	return &fmap{c: c, h: h, w: w, d: make([]float32, c*(h+2)*(w+2))}
}

// row is channel ch's row y (0-based, inside the border), w values.
func (m *fmap) row(ch, y int) []float32 {
	s := (ch*(m.h+2)+y+1)*(m.w+2) + 1
	return m.d[s : s+m.w]
}

// conv is a 3×3 convolution with "same" zero padding and a bias per
// output channel.
type conv struct {
	name    string
	out, in int
	bias    []float32
	// packed holds the weights in the order block reads them: per block
	// of four output channels, per input channel and kernel row, the four
	// channels' three taps (zero past out).
	packed []float32
}

// makeConv is the convolution of out·in·3·3 weights (OIHW).
func makeConv(name string, out, in int, weight, bias []float32) *conv {
	c := &conv{name: name, out: out, in: in, bias: bias}
	blocks := (out + 3) / 4
	c.packed = make([]float32, blocks*in*3*12)
	for o := 0; o < out; o++ {
		for i := 0; i < in; i++ {
			for ky := 0; ky < 3; ky++ {
				copy(c.packed[((o/4*in+i)*3+ky)*12+3*(o%4):][:3], weight[(o*in+i)*9+ky*3:])
			}
		}
	}
	return c
}

func newConv(t map[string]tensor, name string) (*conv, error) {
	w, okW := t[name+".weight"]
	b, okB := t[name+".bias"]
	if !okW || !okB {
		return nil, fmt.Errorf("no tensor %s.weight or %s.bias", name, name)
	}
	if len(w.dims) != 4 || w.dims[2] != 3 || w.dims[3] != 3 {
		return nil, fmt.Errorf("%s.weight has shape %v, want [out in 3 3]", name, w.dims)
	}
	if len(b.dims) != 1 || b.dims[0] != w.dims[0] {
		return nil, fmt.Errorf("%s.bias has shape %v, want [%d]", name, b.dims, w.dims[0])
	}
	return makeConv(name, w.dims[0], w.dims[1], w.data, b.data), nil
}

// apply convolves the channels of ins, taken in order as one tensor (a
// concatenation), into a new map, with a ReLU after when relu is set.
func (c *conv) apply(relu bool, ins ...*fmap) (*fmap, error) {
	h, w := ins[0].h, ins[0].w
	channels := 0
	for _, m := range ins {
		if m.h != h || m.w != w {
			return nil, fmt.Errorf("%s: inputs of %dx%d and %dx%d", c.name, ins[0].w, ins[0].h, m.w, m.h)
		}
		channels += m.c
	}
	if channels != c.in {
		return nil, fmt.Errorf("%s takes %d channels, given %d", c.name, c.in, channels)
	}
	out := newFmap(c.out, h, w)
	// Work items are a block of 4 output channels over a band of rows:
	// each input value loaded feeds four accumulators.
	const block, band = 4, 8
	type item struct{ o, y int }
	jobs := make(chan item)
	var wg sync.WaitGroup
	for k := 0; k < runtime.GOMAXPROCS(0); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range jobs {
				c.block(out, ins, it.o, min(it.o+block, c.out), it.y, min(it.y+band, h), relu)
			}
		}()
	}
	for o := 0; o < c.out; o += block {
		for y := 0; y < h; y += band {
			jobs <- item{o, y}
		}
	}
	close(jobs)
	wg.Wait()
	return out, nil
}

// scalarTaps turns the vector kernel off (for tests: both paths must agree).
var scalarTaps = false

// block computes output channels o0..o1 (at most 4) over rows y0..y1.
func (c *conv) block(out *fmap, ins []*fmap, o0, o1, y0, y1 int, relu bool) {
	w := out.w
	stride := w + 2
	var acc [4][]float32
	n := o1 - o0
	var spare []float32 // the accumulator of channels past o1, discarded
	if n < 4 {
		spare = make([]float32, w)
	}
	for y := y0; y < y1; y++ {
		for k := 0; k < 4; k++ {
			if k < n {
				acc[k] = out.row(o0+k, y)
				for x := range acc[k] {
					acc[k][x] = c.bias[o0+k]
				}
			} else {
				acc[k] = spare
			}
		}
		a0, a1, a2, a3 := acc[0][:w], acc[1][:w], acc[2][:w], acc[3][:w]
		ci := 0
		for _, m := range ins {
			for i := 0; i < m.c; i, ci = i+1, ci+1 {
				for ky := 0; ky < 3; ky++ {
					// The padded row y+ky−1 of channel i, border included.
					s := (i*(m.h+2) + y + ky) * stride
					src := m.d[s : s+stride]
					wt := (*[12]float32)(c.packed[((o0/4*c.in+ci)*3+ky)*12:])
					// Three taps at a time: each accumulator is read and
					// written once per row of the kernel; eight pixels at
					// a time where the CPU has AVX2.
					done := 0
					if useTaps && !scalarTaps && w >= 8 {
						done = w &^ 7
						taps3x4(&a0[0], &a1[0], &a2[0], &a3[0], &src[0], wt, done)
					}
					w00, w01, w02 := wt[0], wt[1], wt[2]
					w10, w11, w12 := wt[3], wt[4], wt[5]
					w20, w21, w22 := wt[6], wt[7], wt[8]
					w30, w31, w32 := wt[9], wt[10], wt[11]
					s0, s1, s2 := src[done:w], src[done+1:w+1], src[done+2:w+2]
					b0, b1, b2, b3 := a0[done:], a1[done:], a2[done:], a3[done:]
					for x := range s0 {
						v0, v1, v2 := s0[x], s1[x], s2[x]
						b0[x] += w00*v0 + w01*v1 + w02*v2
						b1[x] += w10*v0 + w11*v1 + w12*v2
						b2[x] += w20*v0 + w21*v1 + w22*v2
						b3[x] += w30*v0 + w31*v1 + w32*v2
					}
				}
			}
		}
		if relu {
			for k := 0; k < n; k++ {
				for x, v := range acc[k] {
					acc[k][x] = max(v, 0)
				}
			}
		}
	}
}

// pool is 2×2 max pooling with stride 2 (h and w even).
func pool(m *fmap) *fmap {
	out := newFmap(m.c, m.h/2, m.w/2)
	for ch := 0; ch < m.c; ch++ {
		for y := 0; y < out.h; y++ {
			r0, r1, o := m.row(ch, 2*y), m.row(ch, 2*y+1), out.row(ch, y)
			for x := range o {
				o[x] = max(r0[2*x], r0[2*x+1], r1[2*x], r1[2*x+1])
			}
		}
	}
	return out
}

// upsample doubles a map's size, nearest neighbour.
func upsample(m *fmap) *fmap {
	out := newFmap(m.c, 2*m.h, 2*m.w)
	for ch := 0; ch < m.c; ch++ {
		for y := 0; y < out.h; y++ {
			r, o := m.row(ch, y/2), out.row(ch, y)
			for x := range o {
				o[x] = r[x/2]
			}
		}
	}
	return out
}
