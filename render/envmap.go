package render

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"sertrace/render/kernel"
	"sertrace/scene"
)

// EnvMap is an equirectangular HDR environment: radiance for every direction,
// importance-sampled by a piecewise-constant distribution over its pixels in
// proportion to luminance × sin θ. Directions map to the image as: +Y is the
// top row, −Z the middle column, u grows towards +X.
type EnvMap struct {
	Width, Height int
	Pixels        []float32 // linear RGB, rows from the top
	Rotation      float32   // about +Y, radians
	Intensity     float32

	marginal    []float32 // CDF over rows, len Height+1
	conditional []float32 // per row, CDF over columns, len Width+1 each
	total       float32   // integral of the unnormalised density over [0,1]²
}

// Limits of what an .hdr file may ask the loader to allocate.
const maxEnvPixels = 1 << 26

// LoadHDR reads a Radiance .hdr (RGBE) file, run-length encoded or flat.
func LoadHDR(path string) (*EnvMap, error) {
	data, err := os.ReadFile(path)
	if pe, ok := err.(*os.PathError); ok {
		err = pe.Err // the path is already in the message
	}
	if err != nil {
		return nil, fmt.Errorf("environment %s: %w", path, err)
	}
	env, err := DecodeHDR(data)
	if err != nil {
		return nil, fmt.Errorf("environment %s: %w", path, err)
	}
	return env, nil
}

// DecodeHDR decodes the bytes of an RGBE file.
func DecodeHDR(data []byte) (*EnvMap, error) {
	r := bufio.NewReader(bytes.NewReader(data))
	first, err := r.ReadString('\n')
	if err != nil || !(strings.HasPrefix(first, "#?RADIANCE") || strings.HasPrefix(first, "#?RGBE")) {
		return nil, errors.New("not a Radiance HDR file (no #?RADIANCE header)")
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, errors.New("the header never ends")
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if f, ok := strings.CutPrefix(line, "FORMAT="); ok && f != "32-bit_rle_rgbe" {
			return nil, fmt.Errorf("format %q is not supported (only 32-bit_rle_rgbe)", f)
		}
	}
	res, err := r.ReadString('\n')
	if err != nil {
		return nil, errors.New("no resolution line")
	}
	fields := strings.Fields(res)
	if len(fields) != 4 || fields[0] != "-Y" || fields[2] != "+X" {
		return nil, fmt.Errorf("resolution line %q is not the standard -Y H +X W", strings.TrimSpace(res))
	}
	h, err1 := strconv.Atoi(fields[1])
	w, err2 := strconv.Atoi(fields[3])
	if err1 != nil || err2 != nil || w < 1 || h < 1 || w > 1<<16 || h > 1<<16 || w*h > maxEnvPixels {
		return nil, fmt.Errorf("size %s × %s is not supported", fields[3], fields[1])
	}
	env := &EnvMap{Width: w, Height: h, Pixels: make([]float32, 3*w*h), Intensity: 1}
	scan := make([]byte, 4*w)
	for y := 0; y < h; y++ {
		if err := readScanline(r, scan, w); err != nil {
			return nil, fmt.Errorf("scanline %d: %w", y, err)
		}
		for x := 0; x < w; x++ {
			e := scan[4*x+3]
			if e == 0 {
				continue
			}
			f := float32(math.Ldexp(1, int(e)-136))
			for c := 0; c < 3; c++ {
				env.Pixels[3*(y*w+x)+c] = float32(scan[4*x+c]) * f
			}
		}
	}
	env.buildDistribution()
	return env, nil
}

// readScanline reads one scanline into RGBE quadruples: the newer run-length
// encoding (components stored apart) when it starts with 2 2, else flat.
func readScanline(r *bufio.Reader, scan []byte, w int) error {
	head, err := r.Peek(4)
	if err != nil {
		return io.ErrUnexpectedEOF
	}
	if w < 8 || w > 0x7fff || head[0] != 2 || head[1] != 2 || head[2]&0x80 != 0 {
		if _, err := io.ReadFull(r, scan); err != nil {
			return io.ErrUnexpectedEOF
		}
		return nil
	}
	if int(head[2])<<8|int(head[3]) != w {
		return errors.New("run-length scanline width does not match the image")
	}
	r.Discard(4)
	for c := 0; c < 4; c++ {
		for x := 0; x < w; {
			n, err := r.ReadByte()
			if err != nil {
				return io.ErrUnexpectedEOF
			}
			if n > 128 {
				count := int(n) - 128
				v, err := r.ReadByte()
				if err != nil {
					return io.ErrUnexpectedEOF
				}
				if x+count > w {
					return errors.New("a run overruns the scanline")
				}
				for ; count > 0; count-- {
					scan[4*x+c] = v
					x++
				}
			} else {
				count := int(n)
				if count == 0 || x+count > w {
					return errors.New("a literal run overruns the scanline")
				}
				for ; count > 0; count-- {
					v, err := r.ReadByte()
					if err != nil {
						return io.ErrUnexpectedEOF
					}
					scan[4*x+c] = v
					x++
				}
			}
		}
	}
	return nil
}

// buildDistribution makes the row and column CDFs for sampling.
func (e *EnvMap) buildDistribution() {
	w, h := e.Width, e.Height
	e.marginal = make([]float32, h+1)
	e.conditional = make([]float32, h*(w+1))
	var rowSums []float64
	for y := 0; y < h; y++ {
		sinT := math.Sin(math.Pi * (float64(y) + 0.5) / float64(h))
		cdf := e.conditional[y*(w+1) : (y+1)*(w+1)]
		var acc float64
		for x := 0; x < w; x++ {
			p := e.Pixels[3*(y*w+x):]
			acc += float64(luminance3(p[0], p[1], p[2])) * sinT / float64(w)
			cdf[x+1] = float32(acc)
		}
		rowSums = append(rowSums, acc)
	}
	var acc float64
	for y, s := range rowSums {
		acc += s / float64(h)
		e.marginal[y+1] = float32(acc)
	}
	e.total = float32(acc)
}

func luminance3(r, g, b float32) float32 { return 0.2126*r + 0.7152*g + 0.0722*b }

// The map as kernel.EnvMap reads it.
func (e *EnvMap) EnvSize() (w, h int)          { return e.Width, e.Height }
func (e *EnvMap) EnvRotation() float32         { return e.Rotation }
func (e *EnvMap) EnvIntensity() float32        { return e.Intensity }
func (e *EnvMap) EnvMarginal(i int) float32    { return e.marginal[i] }
func (e *EnvMap) EnvConditional(i int) float32 { return e.conditional[i] }
func (e *EnvMap) EnvTotal() float32            { return e.total }
func (e *EnvMap) EnvPixel(i int) scene.Vec3 {
	p := e.Pixels[3*i : 3*i+3]
	return scene.Vec3{X: p[0], Y: p[1], Z: p[2]}
}

// Direction maps image coordinates (u, v) ∈ [0, 1)² to a world direction.
func (e *EnvMap) Direction(u, v float32) scene.Vec3 { return kernel.EnvMapDirection(e, u, v) }

// Radiance is what arrives from direction d (unit).
func (e *EnvMap) Radiance(d scene.Vec3) scene.Vec3 { return kernel.EnvMapRadiance(e, d) }

// Pdf is the solid-angle density with which Sample picks direction d.
func (e *EnvMap) Pdf(d scene.Vec3) float32 { return kernel.EnvMapPdf(e, d) }

// Sample picks a direction with two numbers in [0, 1), in proportion to
// luminance × sin θ, and returns its radiance and solid-angle pdf.
func (e *EnvMap) Sample(u1, u2 float32) (d, radiance scene.Vec3, pdf float32) {
	return kernel.EnvMapSample(e, u1, u2)
}

// Power estimates the luminance the environment sends into the scene.
func (e *EnvMap) Power() float32 {
	return e.total * e.Intensity
}

// CheckSettings refuses a rotation or intensity that is not a finite number
// (and a negative intensity).
func (e *EnvMap) CheckSettings() error {
	if math.IsNaN(float64(e.Rotation)) || math.IsInf(float64(e.Rotation), 0) {
		return fmt.Errorf("environment rotation %v is not a finite angle", e.Rotation)
	}
	if !(e.Intensity >= 0) || math.IsInf(float64(e.Intensity), 0) {
		return fmt.Errorf("environment intensity %v must be finite and not negative", e.Intensity)
	}
	return nil
}

// Tables are the sampling distribution's CDFs: over rows (Height+1
// entries), then per row over its columns (Width+1 entries each), and the
// integral they were normalised by.
func (e *EnvMap) Tables() (marginal, conditional []float32, total float32) {
	return e.marginal, e.conditional, e.total
}
