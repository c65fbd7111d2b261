package render

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"math"
)

// writePNG shows an output for display: the beauty exposed and
// tone-mapped; albedo encoded as sRGB colour; normals as 0.5 + 0.5·n; depth
// as grey up to its largest value. A partial render says so in a tEXt chunk.
func writePNG(w io.Writer, film *Film, a AOV, display Display) error {
	width, height := film.Width, film.Height
	if width*height >= largeFrame {
		defer tightGC()()
	}
	img := image.NewNRGBA(image.Rect(0, 0, width, height))
	scale := float32(math.Exp2(float64(display.Exposure)))
	rows := exrRows(width)
	var pix, buf, rgb []float32
	if a == AOVDepth {
		var far float32
		for y0 := 0; y0 < height; y0 += rows {
			buf, _ = film.resolveRowsInto(buf, a, y0, min(y0+rows, height))
			for _, v := range buf {
				far = max(far, v)
			}
		}
		scale = 1 / max(far, 1e-30)
	}
	// A block of rows at a time, resolved then encoded on every core.
	for y0 := 0; y0 < height; y0 += rows {
		y1 := min(y0+rows, height)
		pix, buf, rgb = rgbRows(film, a, y0, y1, buf, rgb)
		block := img.Pix[4*y0*width : 4*y1*width]
		parallelRanges(y1-y0, func(from, to int) {
			encodePNGPixels(block, pix, from*width, to*width, a, display, scale)
		})
	}
	var encoded bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&encoded, img); err != nil {
		return err
	}
	data := encoded.Bytes()
	if film.Partial {
		data = insertPNGText(data, "sertrace", fmt.Sprintf("partial render: %d samples per pixel", film.Samples))
	}
	_, err := w.Write(data)
	return err
}

// encodePNGPixels encodes pixels [from, to) of an output's RGB values into
// 8-bit NRGBA, as writePNG shows them.
func encodePNGPixels(out []uint8, pix []float32, from, to int, a AOV, display Display, scale float32) {
	for i := from; i < to; i++ {
		r, g, b := pix[3*i], pix[3*i+1], pix[3*i+2]
		p := out[4*i : 4*i+4]
		switch a {
		case AOVBeauty, AOVDiffuse, AOVSpecular:
			p[0], p[1], p[2] = display.encode(r*scale, g*scale, b*scale)
		case AOVAlbedo, AOVDiffuseAlbedo, AOVSpecularAlbedo:
			p[0], p[1], p[2] = EncodeSRGB(r), EncodeSRGB(g), EncodeSRGB(b)
		default: // normal, depth: data, shown linearly
			if a == AOVNormal {
				r, g, b = 0.5+0.5*r, 0.5+0.5*g, 0.5+0.5*b
			} else {
				r, g, b = r*scale, g*scale, b*scale
			}
			p[0], p[1], p[2] = uint8(min(max(r, 0), 1)*255+0.5), uint8(min(max(g, 0), 1)*255+0.5), uint8(min(max(b, 0), 1)*255+0.5)
		}
		p[3] = 255
	}
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
