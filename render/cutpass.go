package render

import (
	"fmt"
	"math/bits"
	"sync/atomic"
)

// A pass adds its samples to the film pixel by pixel as they are done, so
// that it needs no buffers the size of the image. A pass cut short (a
// cancelled render, a lost device) leaves the pixels it finished holding
// its samples: the film says which (AheadPixels) and how many more they
// hold (Ahead), every image made of it divides each pixel's sums by the
// pixel's own count (SamplesAt), a checkpoint keeps the cut, and a resumed
// render completes the cut pass on the other pixels before any other pass
// (renderPasses). Every pixel's samples are its own random streams', so
// the completed film is the one an uncut render makes, bit for bit.

// SamplesAt is how many samples pixel px (of the film's rows) holds.
func (f *Film) SamplesAt(px int) int {
	if f.Stopped(px) {
		return int(f.StoppedAt[px])
	}
	if f.Ahead > 0 && f.IsAhead(px) {
		return f.Samples + f.Ahead
	}
	return f.Samples
}

// IsAhead reports whether pixel px holds the samples of the pass in
// flight (or cut short) already. A word of bits covers pixels of other
// tiles, which workers mark meanwhile: it is read atomically.
func (f *Film) IsAhead(px int) bool {
	return f.AheadPixels != nil && atomic.LoadUint64(&f.AheadPixels[px>>6])>>(px&63)&1 != 0
}

// MarkAhead records that pixel px holds the samples of the pass in
// flight: passes call it as they add a pixel's samples, on pixels other
// goroutines may be marking at once. Outside a render's passes (no pass
// begun) it does nothing.
func (f *Film) MarkAhead(px int) {
	if f.AheadPixels != nil {
		atomic.OrUint64(&f.AheadPixels[px>>6], 1<<(px&63))
	}
}

// MarkAheadRange marks pixels [from, to) as MarkAhead does, a word at a
// time: a GPU launch's rows.
func (f *Film) MarkAheadRange(from, to int) {
	if f.AheadPixels == nil {
		return
	}
	for px := from; px < to; {
		if px&63 == 0 && to-px >= 64 {
			atomic.StoreUint64(&f.AheadPixels[px>>6], ^uint64(0))
			px += 64
			continue
		}
		f.MarkAhead(px)
		px++
	}
}

// RowsAhead reports whether every pixel of rows [y0, y1) holds the pass
// in flight (or cut short) already.
func (f *Film) RowsAhead(y0, y1 int) bool {
	if f.Ahead == 0 || f.AheadPixels == nil {
		return false
	}
	for px := y0 * f.Width; px < y1*f.Width; px++ {
		if !f.IsAhead(px) {
			return false
		}
	}
	return true
}

// SamplesHeld says how many samples the pixels hold, for messages.
func (f *Film) SamplesHeld() string {
	if f.StoppedAt != nil {
		n := f.Width * f.Height
		return fmt.Sprintf("%.1f samples per pixel on average, %d where still sampling (%.0f%% of the pixels stopped below the noise threshold)",
			f.SamplesTaken()/float64(n), f.Samples+f.Ahead*min(f.aheadCount(), 1), 100*float64(n-f.Active())/float64(n))
	}
	if !f.Cut() {
		return fmt.Sprintf("%d samples per pixel", f.Samples)
	}
	return fmt.Sprintf("%d samples per pixel, %d on %.0f%% of them: a pass cut short", f.Samples, f.Samples+f.Ahead,
		100*float64(f.aheadCount())/float64(f.Active()))
}

// Cut reports whether the film holds a pass cut short (or, during a
// pass, part of the pass): some pixels hold more samples than the others.
func (f *Film) Cut() bool { return f.Ahead > 0 && f.aheadCount() > 0 }

// aheadCount is how many pixels are ahead.
func (f *Film) aheadCount() int {
	n := 0
	for _, w := range f.AheadPixels {
		n += bits.OnesCount64(w)
	}
	return n
}

// beginPass readies the film for a pass of n samples a pixel: a new one,
// no pixel ahead yet, or the completion of the cut pass it holds, whose
// size must be n.
func (f *Film) beginPass(n int) error {
	if f.Ahead > 0 {
		if n != f.Ahead {
			return fmt.Errorf("render failed: internal error: a pass of %d samples a pixel into a film whose cut pass is of %d", n, f.Ahead)
		}
		return nil
	}
	f.Ahead = n
	f.AheadPixels = make([]uint64, (f.Width*f.Height+63)/64)
	return nil
}

// endPass counts the completed pass in flight as every pixel's.
func (f *Film) endPass() {
	f.Samples += f.Ahead
	f.Ahead, f.AheadPixels = 0, nil
}

// cutPass settles the film after a pass that stopped short: the cut is
// kept where some pixels are ahead and not all, forgotten where none is,
// and counted as complete where all (that still sample) are.
func (f *Film) cutPass() {
	switch n := f.aheadCount(); {
	case n == 0:
		f.Ahead, f.AheadPixels = 0, nil
	case n == f.Active():
		f.endPass()
	}
}

// cutWhole reports whether a film's cut is well formed (for one read back
// from a checkpoint): none, or a positive size and a bit a pixel, with
// some pixels ahead and not all.
func (f *Film) cutWhole() bool {
	if f.Ahead == 0 {
		return f.AheadPixels == nil
	}
	n := f.Width * f.Height
	if f.Ahead < 0 || len(f.AheadPixels) != (n+63)/64 {
		return false
	}
	if r := n % 64; r != 0 && f.AheadPixels[len(f.AheadPixels)-1]>>r != 0 {
		return false
	}
	ahead := f.aheadCount()
	return ahead > 0 && ahead < f.Active()
}
