package render

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

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

// Direction maps image coordinates (u, v) ∈ [0, 1)² to a world direction.
func (e *EnvMap) Direction(u, v float32) scene.Vec3 {
	phi := float64(2*math.Pi*(u-0.5)) + float64(e.Rotation)
	theta := math.Pi * float64(v)
	st := math.Sin(theta)
	return scene.Vec3{X: float32(st * math.Sin(phi)), Y: float32(math.Cos(theta)), Z: float32(-st * math.Cos(phi))}
}

// uv is the inverse of Direction.
func (e *EnvMap) uv(d scene.Vec3) (u, v float32) {
	if !d.Finite() {
		return 0, 0.5 // never index with NaN
	}
	phi := math.Atan2(float64(d.X), float64(-d.Z)) - float64(e.Rotation)
	u = float32(phi/(2*math.Pi)) + 0.5
	u -= float32(math.Floor(float64(u)))
	if !(u >= 0 && u < 1) {
		u = 0 // a NaN rotation
	}
	v = float32(math.Atan2(math.Hypot(float64(d.X), float64(d.Z)), float64(d.Y)) / math.Pi) // as the GLSL, whose acos is less precise

	return u, v
}

func (e *EnvMap) texel(u, v float32) (x, y int) {
	return min(int(u*float32(e.Width)), e.Width-1), min(int(v*float32(e.Height)), e.Height-1)
}

// Radiance is what arrives from direction d (unit).
func (e *EnvMap) Radiance(d scene.Vec3) scene.Vec3 {
	x, y := e.texel(e.uv(d))
	p := e.Pixels[3*(y*e.Width+x):]
	return scene.Vec3{X: p[0], Y: p[1], Z: p[2]}.Scale(e.Intensity)
}

// Pdf is the solid-angle density with which Sample picks direction d,
// computed from the same tables Sample walks (so a row that rounding left
// out of the marginal has density 0, as it has no samples).
func (e *EnvMap) Pdf(d scene.Vec3) float32 {
	if e.total <= 0 {
		return 0
	}
	u, v := e.uv(d)
	x, y := e.texel(u, v)
	row := e.conditional[y*(e.Width+1):]
	rowTotal := row[e.Width]
	if rowTotal <= 0 {
		return 0
	}
	pRow := (e.marginal[y+1] - e.marginal[y]) / e.total
	pCol := (row[x+1] - row[x]) / rowTotal
	pdfUV := pRow * float32(e.Height) * pCol * float32(e.Width)
	st := float32(math.Sin(math.Pi * float64(v)))
	if st <= 0 || pdfUV <= 0 {
		return 0
	}
	return pdfUV / (2 * math.Pi * math.Pi * st)
}

// Sample picks a direction with two numbers in [0, 1), in proportion to
// luminance × sin θ, and returns its radiance and solid-angle pdf.
func (e *EnvMap) Sample(u1, u2 float32) (d, radiance scene.Vec3, pdf float32) {
	if e.total <= 0 {
		return
	}
	y := sort.Search(e.Height, func(i int) bool { return e.marginal[i+1] > u1*e.total }) // row
	y = min(y, e.Height-1)
	row := e.conditional[y*(e.Width+1) : (y+1)*(e.Width+1)]
	rowTotal := row[e.Width]
	x := sort.Search(e.Width, func(i int) bool { return row[i+1] > u2*rowTotal })
	x = min(x, e.Width-1)
	// A uniform point inside the chosen pixel.
	fy := (u1*e.total - e.marginal[y]) / max(e.marginal[y+1]-e.marginal[y], 1e-30)
	fx := (u2*rowTotal - row[x]) / max(row[x+1]-row[x], 1e-30)
	u := (float32(x) + clamp01f(fx)) / float32(e.Width)
	v := (float32(y) + clamp01f(fy)) / float32(e.Height)
	d = e.Direction(u, v)
	return d, e.Radiance(d), e.Pdf(d)
}

func clamp01f(v float32) float32 { return min(max(v, 0), 0.99999) }

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
