package unet

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
)

// Filter is OIDN's RT filter for HDR colour with clean albedo and normal
// guides: the normal image is denoised first by its own network, then the
// colour by the large network trained on clean guides. The albedo is
// taken as rendered (antialiased over the pixel's samples): denoised by
// its network, it loses the strands of sub-pixel hair, and the colour
// network then smears them.
type Filter struct {
	normal, color *Net
	// passes is how many of the image's eight flips and transposes the
	// colour network runs on, the results averaged back (1, 2, 4 or 8):
	// the network's errors differ between them, so their mean is closer.
	passes int
}

// The weights files a Filter loads.
const (
	NormalWeights = "rt_nrm.tza"
	ColorWeights  = "rt_hdr_calb_cnrm_large.tza"
)

// LoadFilter loads the two networks from dir (see Fetch), each file
// checked against its hash.
func LoadFilter(dir string, passes int) (*Filter, error) {
	if err := CheckPasses(passes); err != nil {
		return nil, err
	}
	normal, err := loadWeights(dir, NormalWeights)
	if err != nil {
		return nil, err
	}
	color, err := loadWeights(dir, ColorWeights)
	if err != nil {
		return nil, err
	}
	if normal.in != 3 || color.in != 9 {
		return nil, fmt.Errorf("%s: the networks take %d and %d channels, want 3 and 9", dir, normal.in, color.in)
	}
	return &Filter{normal: normal, color: color, passes: passes}, nil
}

// loadWeights is the network of dir's weights file name.
func loadWeights(dir, name string) (*Net, error) {
	b, err := readWeights(dir, name)
	if err != nil {
		return nil, err
	}
	return build(filepath.Join(dir, name), b)
}

// CheckPasses says whether a Filter can run passes times.
func CheckPasses(passes int) error {
	if passes != 1 && passes != 2 && passes != 4 && passes != 8 {
		return fmt.Errorf("denoise passes %d: 1, 2, 4 or 8", passes)
	}
	return nil
}

// Denoise filters a w×h linear HDR RGB image (rows from the top) guided by
// its first-hit albedo and normal (unit length, any fixed space).
// It stops, with ctx's error, when ctx is done.
func (f *Filter) Denoise(ctx context.Context, color, albedo, normal []float32, w, h int) ([]float32, error) {
	n := 3 * w * h
	if w < 1 || h < 1 || len(color) != n || len(albedo) != n || len(normal) != n {
		return nil, fmt.Errorf("denoise: a %dx%d image with %d colour, %d albedo and %d normal values", w, h, len(color), len(albedo), len(normal))
	}
	col, alb, nrm := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range nrm {
		nrm[i] = encodeNormal(normal[i])
	}
	nrm, err := f.normal.run(ctx, w, h, 1, func(v float32) float32 { return v*2 - 1 }, nrm)
	if err != nil {
		return nil, err
	}
	scale := exposure(color, w, h)
	for i := range col {
		col[i] = float32(pu(clean(color[i])*scale) * puNorm)
		alb[i] = float32(min(clean(albedo[i]), 1))
		nrm[i] = encodeNormal(nrm[i])
	}
	return f.color.run(ctx, w, h, f.passes, func(v float32) float32 { return float32(puInverse(float64(v)/puNorm) / scale) }, col, alb, nrm)
}

// encodeNormal maps a normal's component from [−1,1] to [0,1].
func encodeNormal(v float32) float32 {
	if v != v {
		return 0.5
	}
	return min(max(v, -1), 1)*0.5 + 0.5
}

// Large images are denoised in overlapping tiles, so memory stays bounded
// (about 1.3 KB per pixel of a tile): tiles of at most tileSize pixels a
// side, each seeing tileOverlap pixels past the part of it that is kept
// (OIDN's large network sees 101 pixels around each one; beyond, a tile's
// edge changes little).
var tileSize, tileOverlap = 1024, 112

// span is one tile along an axis: the pixels fed to the network
// [in0, in1) and those of its output kept [out0, out1).
type span struct{ in0, in1, out0, out1 int }

// tiles cuts an axis of n pixels into spans.
func tiles(n int) []span {
	if n <= tileSize {
		return []span{{0, n, 0, n}}
	}
	step := tileSize - 2*tileOverlap
	var out []span
	for o := 0; o < n; o += step {
		e := min(o+step, n)
		out = append(out, span{max(o-tileOverlap, 0), min(e+tileOverlap, n), o, e})
	}
	return out
}

// run feeds the network the encoded RGB images ins (channels 3g..3g+2 from
// ins[g]), on passes flips and transposes of the image, tile by tile, and
// returns the mean of its output, decoded, per pass.
func (n *Net) run(ctx context.Context, w, h, passes int, decode func(float32) float32, ins ...[]float32) ([]float32, error) {
	if 3*len(ins) != n.in {
		return nil, fmt.Errorf("%s: the network takes %d channels, given %d", n.path, n.in, 3*len(ins))
	}
	res := make([]float32, 3*w*h)
	for k := 0; k < passes; k++ {
		t := d4{k: k, w: w, h: h}
		tw, th := t.size()
		for _, sy := range tiles(th) {
			for _, sx := range tiles(tw) {
				if err := n.tile(ctx, t, sx, sy, ins, func(i, c int, v float32) { res[3*i+c] += decode(v) / float32(passes) }); err != nil {
					return nil, err
				}
			}
		}
	}
	return res, nil
}

// tile runs the network on one tile of the image as transform t shows it,
// and hands out each kept output value with its pixel's index in the
// original image.
func (n *Net) tile(ctx context.Context, t d4, sx, sy span, ins [][]float32, out func(i, c int, v float32)) error {
	w, h := sx.in1-sx.in0, sy.in1-sy.in0
	x := newFmap(n.in, (h+15)/16*16, (w+15)/16*16) // it pools four times; the rest is zeros
	for y := 0; y < h; y++ {
		for xx := 0; xx < w; xx++ {
			i := 3 * t.source(sx.in0+xx, sy.in0+y)
			for g, img := range ins {
				for c := 0; c < 3; c++ {
					x.row(3*g+c, y)[xx] = img[i+c]
				}
			}
		}
	}
	o, err := n.forward(ctx, x)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%s: %w", n.path, err)
	}
	for c := 0; c < 3; c++ {
		for ty := sy.out0; ty < sy.out1; ty++ {
			r := o.row(c, ty-sy.in0)
			for tx := sx.out0; tx < sx.out1; tx++ {
				v := r[tx-sx.in0]
				if !(v > 0) {
					v = 0
				}
				out(t.source(tx, ty), c, v)
			}
		}
	}
	return nil
}

// d4 is one of the eight flips and transposes of a w×h image (k's bit 0
// mirrors x, bit 1 mirrors y, bit 2 transposes, applied in that order).
type d4 struct{ k, w, h int }

func (t d4) size() (int, int) {
	if t.k&4 != 0 {
		return t.h, t.w
	}
	return t.w, t.h
}

// source is the pixel index of the original image that the transformed
// image holds at (x, y).
func (t d4) source(x, y int) int {
	if t.k&4 != 0 {
		x, y = y, x
	}
	if t.k&2 != 0 {
		y = t.h - 1 - y
	}
	if t.k&1 != 0 {
		x = t.w - 1 - x
	}
	return y*t.w + x
}

// The perceptually uniform transfer function OIDN's HDR networks were
// trained on (a fit to PU encoding), normalised so 65504 maps to 1.
const (
	puA, puB, puC, puD = 1.41283765e3, 1.64593172, 4.31384981e-1, -2.94139609e-3
	puE, puF, puG      = 1.92653254e-1, 6.26026094e-3, 9.98620152e-1
	puY0, puY1         = 1.5794576e-6, 3.22087631e-2
	puX0, puX1         = 2.23151711e-3, 3.70974749e-1
)

var puNorm = 1 / pu(65504)

func pu(y float64) float64 {
	switch {
	case y <= puY0:
		return puA * y
	case y <= puY1:
		return puB*math.Pow(y, puC) + puD
	}
	return puE*math.Log(y+puF) + puG
}

func puInverse(x float64) float64 {
	switch {
	case x <= puX0:
		return x / puA
	case x <= puX1:
		return math.Pow((x-puD)/puB, 1/puC)
	}
	return math.Exp((x-puG)/puE) - puF
}

// exposure is the scale that brings an HDR image's mean log luminance to
// middle grey (0.18), over bins of at most 16×16 pixels' mean luminance;
// bins darker than 1e−8 are left out.
func exposure(color []float32, w, h int) float64 {
	const key, eps = 0.18, 1e-8
	bw, bh := (w+15)/16, (h+15)/16
	var sum float64
	count := 0
	for by := 0; by < bh; by++ {
		for bx := 0; bx < bw; bx++ {
			y0, y1, x0, x1 := by*h/bh, (by+1)*h/bh, bx*w/bw, (bx+1)*w/bw
			var l float64
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					p := color[3*(y*w+x):]
					l += 0.212671*clean(p[0]) + 0.715160*clean(p[1]) + 0.072169*clean(p[2])
				}
			}
			if l /= float64((y1 - y0) * (x1 - x0)); l > eps {
				sum += math.Log2(l)
				count++
			}
		}
	}
	if count == 0 {
		return 1
	}
	return key / math.Exp2(sum/float64(count))
}

// clean is a value the networks can take: NaN and negatives are 0, and
// +Inf the largest float32.
func clean(v float32) float64 {
	if !(v >= 0) {
		return 0
	}
	return float64(min(v, math.MaxFloat32))
}
