package render

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestPNGAndPFMWrittenByBlocks: the PNG and PFM writers, which resolve a
// block of rows at a time (exrRows: 256 rows here, the last block short),
// write every pixel as the whole image resolved at once gives it: the
// beauty and normals through their encodings, the depth scaled by the
// image's farthest pixel (found over every block) and repeated in three
// channels, rows from the bottom in a PFM.
func TestPNGAndPFMWrittenByBlocks(t *testing.T) {
	const w, h = 700, 600 // three blocks of 256 rows, the last of 88
	if exrRows(w) != 256 {
		t.Fatalf("blocks of %d rows", exrRows(w))
	}
	film := NewFilmOf(w, h, BaseLayers|GuideLayers)
	film.Samples = 1
	for _, l := range []Layer{LayerBeauty, LayerNormal, LayerDepth} {
		c := FilmLayers[l].Channels
		src := make([]float32, c*w*h)
		for i := range src {
			px := i / c
			src[i] = float32(px%w)/w + float32(i%c)/4 + float32(px/w)/h*0.5
		}
		src[c*(w*(h-10)+3)] = 7 // the farthest depth, in the last block
		film.AddPass(l, src)
	}
	dir := t.TempDir()
	display := Display{ToneMap: "linear"}
	for _, a := range []AOV{AOVBeauty, AOVNormal, AOVDepth} {
		ref, n := film.Resolve(a)
		rgb := func(px, c int) float32 { return ref[n*px+min(c, n-1)] }
		scale := float32(1)
		if a == AOVDepth {
			scale = 1.0 / 7
		}
		file := filepath.Join(dir, string(a)+".png")
		if err := WriteAOV(file, film, a, display); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(file)
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		whole := make([]float32, 3*w*h)
		for i := range whole {
			whole[i] = rgb(i/3, i%3)
		}
		want := make([]uint8, 4*w*h)
		encodePNGPixels(want, whole, 0, w*h, a, display, scale)
		var got []uint8 // (opaque: the decoder's RGBA is the NRGBA written)
		switch m := img.(type) {
		case *image.RGBA:
			got = m.Pix
		case *image.NRGBA:
			got = m.Pix
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the PNG differs from the image resolved whole", a)
		}

		file = filepath.Join(dir, string(a)+".pfm")
		if err := WriteAOV(file, film, a, display); err != nil {
			t.Fatal(err)
		}
		data, _ = os.ReadFile(file)
		head := []byte("PF\n700 600\n-1.0\n")
		if !bytes.HasPrefix(data, head) || len(data) != len(head)+12*w*h {
			t.Fatalf("%s: a PFM of %d bytes starting %q", a, len(data), data[:min(len(data), 20)])
		}
		body := data[len(head):]
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				for c := 0; c < 3; c++ {
					at := 4 * (3*((h-1-y)*w+x) + c)
					if got := math.Float32frombits(binary.LittleEndian.Uint32(body[at:])); got != rgb(y*w+x, c) {
						t.Fatalf("%s: PFM pixel (%d, %d) channel %d is %v, want %v", a, x, y, c, got, rgb(y*w+x, c))
					}
				}
			}
		}
	}
}
