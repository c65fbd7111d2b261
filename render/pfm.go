package render

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// writePFM writes an AOV as a PFM (three channels, rows from the bottom),
// resolved a block of rows at a time: no image-sized copy of the film.
// Its buffers are reused block to block: it makes no garbage to collect.
func writePFM(w io.Writer, film *Film, a AOV) error {
	width, height := film.Width, film.Height
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "PF\n%d %d\n-1.0\n", width, height)
	row := make([]byte, 12*width)
	rows := exrRows(width)
	var pix, buf, rgb []float32
	for y1 := height; y1 > 0; y1 -= rows {
		y0 := max(0, y1-rows)
		pix, buf, rgb = rgbRows(film, a, y0, y1, buf, rgb)
		for y := y1 - 1; y >= y0; y-- {
			for i, v := range pix[3*(y-y0)*width : 3*(y-y0+1)*width] {
				binary.LittleEndian.PutUint32(row[4*i:], math.Float32bits(v))
			}
			bw.Write(row)
		}
	}
	return bw.Flush()
}
