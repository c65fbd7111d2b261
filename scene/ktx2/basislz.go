package ktx2

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// BasisLZ's supercompression global data: a header, one image description
// per image (level 0's first), then the endpoint codebook, the selector
// codebook and the slices' Huffman tables (the KTX 2.0 specification's
// BasisLZ appendix).
type basisLZ struct {
	endpoints []etc1sEndpoint
	selectors [][4]uint8 // a row a byte, the left texel's 2 bits lowest
	// The slices' Huffman tables.
	endpointPred, endpointDelta, selector, selectorRun *huffman
	historySize                                        int
}

// etc1sEndpoint is a block's base colour (5 bits a channel) and intensity
// table.
type etc1sEndpoint struct {
	r, g, b, inten uint8
}

const (
	sgdHeaderBytes = 20
	imageDescBytes = 20
	pFrameFlag     = 2
)

func decodeBasisLZ(h *header, img *Image) error {
	g := h.sgd
	if len(g) < sgdHeaderBytes+imageDescBytes {
		return fmt.Errorf("KTX2 BasisLZ global data of %d bytes is too short", len(g))
	}
	endpointCount := int(binary.LittleEndian.Uint16(g[0:]))
	selectorCount := int(binary.LittleEndian.Uint16(g[2:]))
	sizes := [3]uint64{uint64(binary.LittleEndian.Uint32(g[4:])), uint64(binary.LittleEndian.Uint32(g[8:])), uint64(binary.LittleEndian.Uint32(g[12:]))}
	images := uint64(max(h.levels, 1))
	off := uint64(sgdHeaderBytes) + images*imageDescBytes
	if off+sizes[0]+sizes[1]+sizes[2] > uint64(len(g)) {
		return fmt.Errorf("KTX2 BasisLZ global data's sections overrun its %d bytes", len(g))
	}
	if endpointCount == 0 || selectorCount == 0 {
		return fmt.Errorf("KTX2 BasisLZ codebooks are empty (%d endpoints, %d selectors)", endpointCount, selectorCount)
	}
	var sections [3][]byte
	for i, n := range sizes {
		sections[i] = g[off : off+n]
		off += n
	}
	var b basisLZ
	if err := b.readEndpoints(sections[0], endpointCount); err != nil {
		return fmt.Errorf("KTX2 BasisLZ endpoint codebook: %w", err)
	}
	if err := b.readSelectors(sections[1], selectorCount); err != nil {
		return fmt.Errorf("KTX2 BasisLZ selector codebook: %w", err)
	}
	if err := b.readTables(sections[2]); err != nil {
		return fmt.Errorf("KTX2 BasisLZ slice tables: %w", err)
	}

	desc := g[sgdHeaderBytes:]
	u32 := func(i int) uint32 { return binary.LittleEndian.Uint32(desc[4*i:]) }
	if u32(0)&pFrameFlag != 0 {
		return errors.New("KTX2 BasisLZ level 0 is a P-frame (an animation's later frame), which needs the frame before it")
	}
	slice := func(name string, o, n uint32) ([]byte, error) {
		if uint64(o)+uint64(n) > uint64(len(h.level0)) {
			return nil, fmt.Errorf("KTX2 BasisLZ %s slice (%d bytes at %d) overruns level 0's %d bytes", name, n, o, len(h.level0))
		}
		return h.level0[o : o+n], nil
	}
	rgb, err := slice("RGB", u32(1), u32(2))
	if err != nil {
		return err
	}
	if err := b.decodeSlice(rgb, img, false); err != nil {
		return fmt.Errorf("KTX2 BasisLZ RGB slice: %w", err)
	}
	if !h.alpha {
		for i := 3; i < len(img.Pixels); i += 4 {
			img.Pixels[i] = 255
		}
		return nil
	}
	if u32(4) == 0 {
		return errors.New("KTX2 BasisLZ texture has an alpha channel but no alpha slice")
	}
	alpha, err := slice("alpha", u32(3), u32(4))
	if err != nil {
		return err
	}
	if err := b.decodeSlice(alpha, img, true); err != nil {
		return fmt.Errorf("KTX2 BasisLZ alpha slice: %w", err)
	}
	return nil
}

// readEndpoints decodes the endpoint codebook: intensities and colours,
// each a Huffman-coded difference from the previous endpoint's.
func (b *basisLZ) readEndpoints(data []byte, count int) error {
	r := &bitReader{data: data}
	var colorDelta [3]*huffman
	for i := range colorDelta {
		var err error
		if colorDelta[i], err = r.readHuffman(); err != nil {
			return fmt.Errorf("colour table %d: %w", i, err)
		}
	}
	intenDelta, err := r.readHuffman()
	if err != nil {
		return fmt.Errorf("intensity table: %w", err)
	}
	grey := r.bits(1) == 1
	// The table for a channel's difference depends on its previous value.
	tableFor := func(prev uint8) *huffman {
		switch {
		case prev < 10:
			return colorDelta[0]
		case prev < 22:
			return colorDelta[1]
		}
		return colorDelta[2]
	}
	channel := func(prev uint8) (uint8, error) {
		d := r.decode(tableFor(prev))
		if d < 0 {
			return 0, errors.New("colour difference is not a code of its table")
		}
		return uint8((int(prev) + d) & 31), nil
	}
	b.endpoints = make([]etc1sEndpoint, count)
	prev := etc1sEndpoint{r: 16, g: 16, b: 16}
	for i := range b.endpoints {
		d := r.decode(intenDelta)
		if d < 0 {
			return errors.New("intensity difference is not a code of its table")
		}
		e := etc1sEndpoint{inten: uint8((int(prev.inten) + d) & 7)}
		if e.r, err = channel(prev.r); err != nil {
			return err
		}
		if grey {
			e.g, e.b = e.r, e.r
		} else {
			if e.g, err = channel(prev.g); err != nil {
				return err
			}
			if e.b, err = channel(prev.b); err != nil {
				return err
			}
		}
		if r.overrun {
			return fmt.Errorf("cut short at endpoint %d of %d", i, count)
		}
		b.endpoints[i], prev = e, e
	}
	return nil
}

// readSelectors decodes the selector codebook: raw, or the first raw and
// each next one's rows as Huffman-coded XORs with the previous one's.
func (b *basisLZ) readSelectors(data []byte, count int) error {
	r := &bitReader{data: data}
	if r.bits(2) != 0 {
		return errors.New("uses the retired global selector codebook")
	}
	raw := r.bits(1) == 1
	var delta *huffman
	if !raw {
		var err error
		if delta, err = r.readHuffman(); err != nil {
			return fmt.Errorf("difference table: %w", err)
		}
	}
	b.selectors = make([][4]uint8, count)
	for i := range b.selectors {
		for row := range 4 {
			if raw || i == 0 {
				b.selectors[i][row] = uint8(r.bits(8))
				continue
			}
			d := r.decode(delta)
			if d < 0 || d > 255 {
				return errors.New("row difference is not a code of its table")
			}
			b.selectors[i][row] = uint8(d) ^ b.selectors[i-1][row]
		}
		if r.overrun {
			return fmt.Errorf("cut short at selector %d of %d", i, count)
		}
	}
	return nil
}

func (b *basisLZ) readTables(data []byte) error {
	r := &bitReader{data: data}
	for i, t := range []**huffman{&b.endpointPred, &b.endpointDelta, &b.selector, &b.selectorRun} {
		var err error
		if *t, err = r.readHuffman(); err != nil {
			return fmt.Errorf("table %d: %w", i, err)
		}
	}
	b.historySize = int(r.bits(13))
	if r.overrun {
		return errors.New("cut short")
	}
	return nil
}

// Constants of the slice's coding.
const (
	endpointPredRepeat    = 4 * 4 * 4 * 4 // the symbol that repeats the last prediction symbol
	endpointPredMinRepeat = 3
	selectorRunThreshold  = 3
	selectorRunLong       = 63 // the run symbol that sends a longer run as a VLC
)

// moveToFront is BasisLZ's approximate move-to-front list of recently
// used selectors.
type moveToFront struct {
	values []int
	rover  int
}

func (m *moveToFront) add(v int) {
	m.values[m.rover] = v
	if m.rover++; m.rover == len(m.values) {
		m.rover = len(m.values) / 2
	}
}

func (m *moveToFront) use(i int) {
	if i > 0 {
		m.values[i/2], m.values[i] = m.values[i], m.values[i/2]
	}
}

// decodeSlice decodes a slice's blocks in raster order, each an endpoint
// and a selector index, and writes their texels: colour, or into alpha
// from the green channel for the alpha slice.
func (b *basisLZ) decodeSlice(data []byte, img *Image, alpha bool) error {
	r := &bitReader{data: data}
	bw, bh := (img.Width+3)/4, (img.Height+3)/4
	endpointCount, selectorCount := len(b.endpoints), len(b.selectors)
	historyRunSymbol := selectorCount + b.historySize
	history := moveToFront{values: make([]int, b.historySize), rover: b.historySize / 2}
	// The endpoint indices of this row and the one above, and the
	// prediction bits an even row leaves for the odd row below it.
	var rows [2][]int
	rows[0], rows[1] = make([]int, bw), make([]int, bw)
	predBits := make([]int, (bw+1)/2)
	var texels [16][4]uint8
	selectorRun, predRun, lastPredSym, prevEndpoint, curPred := 0, 0, 0, 0, 0
	for by := range bh {
		cur, above := rows[by&1], rows[by&1^1]
		for bx := range bw {
			if bx&1 == 0 {
				if by&1 == 0 {
					switch {
					case predRun > 0:
						predRun--
						curPred = lastPredSym
					default:
						sym := r.decode(b.endpointPred)
						switch {
						case sym < 0 || sym > endpointPredRepeat:
							return fmt.Errorf("block (%d, %d): invalid endpoint prediction code", bx, by)
						case sym == endpointPredRepeat:
							predRun = int(r.vlc(5)) + endpointPredMinRepeat - 1
							curPred = lastPredSym
						default:
							curPred, lastPredSym = sym, sym
						}
					}
					predBits[bx>>1] = curPred >> 4
				} else {
					curPred = predBits[bx>>1]
				}
			}
			endpoint := 0
			switch pred := curPred & 3; pred {
			case 0: // the left block's
				if bx == 0 {
					return fmt.Errorf("block (%d, %d): predicted from the left of the slice", bx, by)
				}
				endpoint = prevEndpoint
			case 1: // the block above's
				if by == 0 {
					return fmt.Errorf("block (%d, %d): predicted from above the slice", bx, by)
				}
				endpoint = above[bx]
			case 2: // the upper left block's
				if bx == 0 || by == 0 {
					return fmt.Errorf("block (%d, %d): predicted from the upper left, outside the slice", bx, by)
				}
				endpoint = above[bx-1]
			default: // a difference from the last one used
				d := r.decode(b.endpointDelta)
				if d < 0 {
					return fmt.Errorf("block (%d, %d): invalid endpoint difference code", bx, by)
				}
				if endpoint = d + prevEndpoint; endpoint >= endpointCount {
					endpoint -= endpointCount
				}
			}
			curPred >>= 2
			if endpoint >= endpointCount {
				return fmt.Errorf("block (%d, %d): endpoint %d of %d", bx, by, endpoint, endpointCount)
			}
			cur[bx], prevEndpoint = endpoint, endpoint

			var sym int
			if selectorRun > 0 {
				selectorRun--
				sym = selectorCount
			} else {
				sym = r.decode(b.selector)
				if sym == historyRunSymbol {
					run := r.decode(b.selectorRun)
					switch {
					case run < 0:
						return fmt.Errorf("block (%d, %d): invalid selector run code", bx, by)
					case run == selectorRunLong:
						selectorRun = int(r.vlc(8)) + selectorRunThreshold
					default:
						selectorRun = run + selectorRunThreshold
					}
					sym = selectorCount
					selectorRun--
				}
			}
			var selector int
			switch {
			case sym < 0 || sym > historyRunSymbol:
				return fmt.Errorf("block (%d, %d): invalid selector code", bx, by)
			case sym >= selectorCount:
				i := sym - selectorCount
				if i >= b.historySize {
					return fmt.Errorf("block (%d, %d): selector history entry %d of %d", bx, by, i, b.historySize)
				}
				selector = history.values[i]
				history.use(i)
			default:
				selector = sym
				if b.historySize > 0 {
					history.add(selector)
				}
			}
			if selector >= selectorCount {
				return fmt.Errorf("block (%d, %d): selector %d of %d", bx, by, selector, selectorCount)
			}
			b.endpoints[endpoint].texels(&b.selectors[selector], &texels)
			if alpha {
				img.putBlock(bx, by, &texels, 1, 3, 1) // green into alpha
			} else {
				img.putBlock(bx, by, &texels, 0, 0, 3)
			}
		}
		if r.overrun {
			return fmt.Errorf("cut short in block row %d of %d", by, bh)
		}
	}
	return nil
}

// etc1Intensities are ETC1's modifier tables (the Khronos Data Format
// specification): the small and large modifier of each.
var etc1Intensities = [8][2]int{{2, 8}, {5, 17}, {9, 29}, {13, 42}, {18, 60}, {24, 80}, {33, 106}, {47, 183}}

// texels decodes an ETC1S block: one base colour for the whole block,
// expanded from 5 bits, plus the modifier its selector picks (0: −large,
// 1: −small, 2: +small, 3: +large), clamped to 0..255.
func (e etc1sEndpoint) texels(sel *[4]uint8, out *[16][4]uint8) {
	small, large := etc1Intensities[e.inten][0], etc1Intensities[e.inten][1]
	mods := [4]int{-large, -small, small, large}
	base := [3]int{int(e.r<<3 | e.r>>2), int(e.g<<3 | e.g>>2), int(e.b<<3 | e.b>>2)}
	var colors [4][4]uint8
	for s, m := range mods {
		for c := range 3 {
			colors[s][c] = uint8(min(max(base[c]+m, 0), 255))
		}
		colors[s][3] = 255
	}
	for y := range 4 {
		row := sel[y]
		for x := range 4 {
			out[4*y+x] = colors[row>>(2*x)&3]
		}
	}
}
