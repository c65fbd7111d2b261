package render

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/mrjoshuak/go-openexr/exr"
)

// Write saves the film in the format its extension names: .exr (linear
// float32, beauty as R, G, B and the AOVs as layers albedo.*, normal.*,
// depth.Z), .pfm (linear beauty) or .png (beauty, exposed and encoded to
// sRGB). The file is written under a temporary name and renamed, so a
// failure never leaves a truncated image where a good one was.
func Write(path string, film *Film, exposure float32) error {
	var write func(io.WriteSeeker) error
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".exr":
		write = func(w io.WriteSeeker) error { return writeEXR(w, film) }
	case ".pfm":
		write = func(w io.WriteSeeker) error { return writePFM(w, film) }
	case ".png":
		write = func(w io.WriteSeeker) error { return writePNG(w, film, exposure) }
	default:
		return fmt.Errorf("write %s: unknown image format %q (use .exr, .pfm or .png)", path, ext)
	}
	return writeFile(path, write)
}

// writeFile writes through a temporary file in the same folder and renames it.
func writeFile(path string, write func(io.WriteSeeker) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteAOV saves one AOV as a PFM (depth as a grey image), for outputs
// other than EXR, which holds them all.
func WriteAOV(path string, film *Film, a AOV) error {
	pix, n := film.Resolve(a)
	if n == 1 {
		rgb := make([]float32, 3*len(pix))
		for i, v := range pix {
			rgb[3*i], rgb[3*i+1], rgb[3*i+2] = v, v, v
		}
		pix = rgb
	}
	return writeFile(path, func(w io.WriteSeeker) error { return writePFMPixels(w, pix, film.Width, film.Height) })
}

// writePFM writes the beauty as a little-endian colour PFM (rows bottom up).
func writePFM(w io.Writer, film *Film) error {
	pix, _ := film.Resolve(AOVBeauty)
	return writePFMPixels(w, pix, film.Width, film.Height)
}

func writePFMPixels(w io.Writer, pix []float32, width, height int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "PF\n%d %d\n-1.0\n", width, height)
	row := make([]byte, 12*width)
	for y := height - 1; y >= 0; y-- {
		for i, v := range pix[3*y*width : 3*(y+1)*width] {
			binary.LittleEndian.PutUint32(row[4*i:], math.Float32bits(v))
		}
		bw.Write(row)
	}
	return bw.Flush()
}

func writeEXR(w io.WriteSeeker, film *Film) error {
	h := exr.NewScanlineHeader(film.Width, film.Height)
	h.SetCompression(exr.CompressionZIP)
	channels := exr.NewChannelList()
	fb := exr.NewFrameBuffer()
	add := func(name string, plane []float32) {
		channels.Add(exr.Channel{Name: name, Type: exr.PixelTypeFloat, XSampling: 1, YSampling: 1})
		fb.Insert(name, exr.NewSliceFromFloat32(plane, film.Width, film.Height))
	}
	planes := func(a AOV, names ...string) {
		pix, n := film.Resolve(a)
		for c, name := range names {
			plane := make([]float32, film.Width*film.Height)
			for i := range plane {
				plane[i] = pix[i*n+c]
			}
			add(name, plane)
		}
	}
	planes(AOVBeauty, "R", "G", "B")
	planes(AOVAlbedo, "albedo.R", "albedo.G", "albedo.B")
	planes(AOVNormal, "normal.X", "normal.Y", "normal.Z")
	planes(AOVDepth, "depth.Z")
	h.SetChannels(channels)
	h.Set(&exr.Attribute{Name: "sertrace:samples", Type: exr.AttrTypeString, Value: fmt.Sprint(film.Samples)})
	if film.Partial {
		h.Set(&exr.Attribute{Name: "sertrace:partial", Type: exr.AttrTypeString, Value: "true"})
	}
	sw, err := exr.NewScanlineWriter(w, h)
	if err != nil {
		return err
	}
	sw.SetFrameBuffer(fb)
	if err := sw.WritePixels(0, film.Height-1); err != nil {
		return err
	}
	return sw.Close()
}

// writePNG exposes the beauty by 2^exposure, clamps it and encodes it to
// sRGB; a partial render says so in a tEXt chunk.
func writePNG(w io.Writer, film *Film, exposure float32) error {
	pix, _ := film.Resolve(AOVBeauty)
	img := image.NewNRGBA(image.Rect(0, 0, film.Width, film.Height))
	scale := float32(math.Exp2(float64(exposure)))
	for i := 0; i < film.Width*film.Height; i++ {
		img.Pix[4*i+0] = EncodeSRGB(pix[3*i] * scale)
		img.Pix[4*i+1] = EncodeSRGB(pix[3*i+1] * scale)
		img.Pix[4*i+2] = EncodeSRGB(pix[3*i+2] * scale)
		img.Pix[4*i+3] = 255
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	data := buf.Bytes()
	if film.Partial {
		data = insertPNGText(data, "sertrace", fmt.Sprintf("partial render: %d samples per pixel", film.Samples))
	}
	_, err := w.Write(data)
	return err
}

// insertPNGText adds a tEXt chunk after IHDR (8-byte signature + 25-byte IHDR).
func insertPNGText(p []byte, key, text string) []byte {
	body := append(append([]byte("tEXt"), key...), append([]byte{0}, text...)...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(body)-4))
	chunk = append(chunk, body...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(body))
	const after = 8 + 25
	return append(append(append([]byte{}, p[:after]...), chunk...), p[after:]...)
}

// EncodeSRGB maps a linear value to an 8-bit sRGB code (clamped; NaN → 0).
func EncodeSRGB(v float32) uint8 {
	if !(v > 0) {
		return 0
	}
	if v >= 1 {
		return 255
	}
	var s float64
	if v <= 0.0031308 {
		s = 12.92 * float64(v)
	} else {
		s = 1.055*math.Pow(float64(v), 1/2.4) - 0.055
	}
	return uint8(s*255 + 0.5)
}

// DecodeSRGB maps an 8-bit sRGB code to linear.
func DecodeSRGB(c uint8) float32 { return srgbTable[c] }

var srgbTable = func() (t [256]float32) {
	for i := range t {
		s := float64(i) / 255
		if s <= 0.04045 {
			t[i] = float32(s / 12.92)
		} else {
			t[i] = float32(math.Pow((s+0.055)/1.055, 2.4))
		}
	}
	return t
}()
