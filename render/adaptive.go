package render

import (
	"fmt"
	"math"
)

// Adaptive sampling (--noise-threshold). A render with a threshold
// checks its pixels at fixed sample counts (Adaptive.CheckAt: the
// minimum, then every Step samples): a pixel whose estimated error
// (PixelError) is below the threshold, and whose neighbours' are too,
// stops there and takes no more samples (Film.Stopped). The check reads
// the film's exact sums alone, at counts the settings fix, so the pixels
// that stop, and the image, are a pure function of the scene, the
// settings and the seed: the same whatever the threads, the passes' sizes
// (a backend's MaxPass), the bands or a resumption from a checkpoint.
//
// A stopped pixel stays stopped (its samples are [0, n), as a pixel of a
// fixed render's), and the film divides its sums by its own count
// (Film.SamplesAt). A slice of samples (--samples) cannot know which pixels
// the samples before it stopped: adaptive renders are whole renders.

// Adaptive is a render's adaptive sampling.
type Adaptive struct {
	// Threshold is the error at which a pixel stops (0: off, every pixel
	// takes all the samples).
	Threshold float32
	// MinSPP is the samples every pixel takes before any may stop (0:
	// automatic, AutoMinSPP).
	MinSPP int
}

// On reports whether the render samples adaptively.
func (a Adaptive) On() bool { return a.Threshold > 0 }

// AutoMinSPP is the samples every pixel takes, before any may stop, at a
// threshold where the user gives no minimum: more for a lower threshold,
// as Cycles guesses it (threshold 0.1: 32, 0.01: 64, 0.001: 128).
func AutoMinSPP(threshold float32) int {
	if !(threshold > 0) {
		return 0
	}
	return max(4, int(min(math.Ceil(16/math.Pow(float64(threshold), 0.3)), MaxSPP)))
}

// Min is the samples every pixel of a render of spp samples takes.
func (a Adaptive) Min(spp int) int {
	m := a.MinSPP
	if m <= 0 {
		m = AutoMinSPP(a.Threshold)
	}
	return min(m, spp)
}

// Step is the samples between two checks after the first: a quarter of
// the minimum, a power of two, at least 4.
func (a Adaptive) Step(spp int) int {
	step := 4
	for step < a.Min(spp)/4 {
		step *= 2
	}
	return step
}

// NextCheck is the sample count at which the pixels still sampling are
// checked next, after s samples (s itself where it is a check): passes
// end there, whatever their sizes.
func (a Adaptive) NextCheck(s, spp int) int {
	m := a.Min(spp)
	if s <= m {
		return m
	}
	step := a.Step(spp)
	return m + (s-m+step-1)/step*step
}

// CheckAt reports whether pixels are checked after s samples.
func (a Adaptive) CheckAt(s, spp int) bool {
	return a.On() && s > 0 && s < spp && a.NextCheck(s, spp) == s
}

// Check validates the settings of adaptive sampling for a render of spp
// samples (0: whatever the spp, the settings alone).
func (a Adaptive) Check(spp int) error {
	switch {
	case !(a.Threshold >= 0):
		return fmt.Errorf("noise threshold %v must be 0 (off) or a positive error, as 0.01", a.Threshold)
	case a.Threshold > MaxNoiseThreshold:
		return fmt.Errorf("noise threshold %v is over %g", a.Threshold, MaxNoiseThreshold)
	case a.MinSPP < 0 || a.MinSPP > MaxSPP:
		return fmt.Errorf("min spp %d is outside 0 (automatic)..%d", a.MinSPP, MaxSPP)
	case a.MinSPP > 0 && !a.On():
		return fmt.Errorf("min spp %d is the samples before a pixel may stop: it needs a noise threshold", a.MinSPP)
	}
	if m := a.MinSPP; a.On() && spp > 0 {
		if m == 0 {
			m = AutoMinSPP(a.Threshold)
		}
		if m >= spp {
			return fmt.Errorf("noise threshold %v: pixels are first checked after %d samples (the min spp), and the spp is %d: none could stop; raise the spp (the most a pixel takes, as 4096) or lower the min spp", a.Threshold, m, spp)
		}
	}
	return nil
}

// MaxNoiseThreshold is the largest noise threshold.
const MaxNoiseThreshold = 1e6

// AdaptiveSliceRefusal says why a slice of samples is not sampled
// adaptively, for the flag's, the batch key's and Validate's refusals.
const AdaptiveSliceRefusal = "cannot be sampled adaptively: which pixels stop depends on the samples of every slice before it; render the frame whole, or its slices with a fixed spp and no noise threshold"

// lumVariance is the sample variance of n samples (at least 2) whose
// luminances sum to sum and whose squares sum to sq, and their mean.
func lumVariance(sum, sq float64, n int) (variance, mean float64) {
	fn := float64(n)
	mean = sum / fn
	return max(sq/fn-mean*mean, 0) * fn / (fn - 1), mean
}

// NeighbourRows is the height of the strips of rows, from the image's top,
// within which a pixel's neighbours keep it sampling: a band's rows are a
// multiple of it (RenderBands), so that a band's pixels stop as the whole
// image's do.
const NeighbourRows = 16

// PixelError is the estimated error of a pixel's mean after n samples
// whose luminances sum to sum and whose squares sum to sq: the standard
// error of the mean luminance over the square root of the mean (Dammertz
// et al. 2010, as Cycles' threshold reads it, with the film's exact
// variance in place of a half buffer's difference), which weighs the
// noise as the eye does a linear image. Below two samples it is infinite.
func PixelError(sum, sq float64, n int) float64 {
	if n < 2 {
		return math.Inf(1)
	}
	variance, mean := lumVariance(sum, sq, n)
	return math.Sqrt(variance/float64(n)) / (1e-4 + math.Sqrt(max(mean, 0)))
}

// Stopped reports whether pixel px (of the film's rows) takes no more
// samples.
func (f *Film) Stopped(px int) bool { return f.StoppedAt != nil && f.StoppedAt[px] != 0 }

// Active is how many pixels still take samples.
func (f *Film) Active() int {
	n := f.Width * f.Height
	for _, s := range f.StoppedAt {
		if s != 0 {
			n--
		}
	}
	return n
}

// SamplesTaken is the samples the film's pixels hold, together.
func (f *Film) SamplesTaken() float64 {
	n := float64(f.Width * f.Height)
	if f.StoppedAt == nil && !f.Cut() {
		return float64(f.Samples) * n
	}
	total := 0.0
	for px := range f.Width * f.Height {
		total += float64(f.SamplesAt(px))
	}
	return total
}

// pixelError is pixel px's PixelError.
func (f *Film) pixelError(px int) float64 {
	return PixelError(f.Sums[LayerBeauty].luminance(px), f.Sums[LayerLumSq].Value(px), f.Samples)
}

// Converge stops the pixels still sampling whose error, and every
// neighbour's (the 3×3 pixels about it, within its strip of NeighbourRows
// rows) that is still sampling, is below threshold: they hold the film's
// Samples. Every pixel holds Samples (no pass in flight). It returns how
// many pixels stopped and a forecast of the samples the others will take
// yet, of at most spp a pixel (the time left's): a pixel's error falls
// as 1/√n, so one of error e after n samples reaches the threshold T
// after n·(e/T)², and it samples until its neighbours' do too.
func (f *Film) Converge(threshold float32, spp int) (stopped int, left float64) {
	w, h := f.Width, f.Height
	if f.StoppedAt == nil {
		f.StoppedAt = make([]uint32, w*h)
	}
	// Pass 1: the samples each pixel still sampling needs (at most spp;
	// noisy where more than it has). Pass 2: a pixel stops where no pixel
	// about it is noisy, and samples as long as the neediest.
	n := float64(f.Samples)
	need := make([]float32, w*h)
	for px := range need {
		if f.Stopped(px) {
			continue
		}
		switch e := f.pixelError(px) / float64(threshold); {
		case e < 1:
			need[px] = float32(n * e * e) // clean: no more
		case n*e*e < float64(spp):
			need[px] = float32(max(n*e*e, n+1))
		default: // infinite and NaN errors too
			need[px] = float32(spp)
		}
	}
	for y := range h {
		strip := (f.Y0 + y) / NeighbourRows
		for x := range w {
			px := y*w + x
			if f.Stopped(px) {
				continue
			}
			most := float32(0)
			for yy := max(y-1, 0); yy <= min(y+1, h-1); yy++ {
				if (f.Y0+yy)/NeighbourRows != strip {
					continue
				}
				for xx := max(x-1, 0); xx <= min(x+1, w-1); xx++ {
					most = max(most, need[yy*w+xx])
				}
			}
			if most > float32(n) {
				left += float64(min(most, float32(spp))) - n
				continue
			}
			f.StoppedAt[px] = uint32(f.Samples)
			stopped++
		}
	}
	return stopped, left
}

// stoppedWhole reports whether a film's stopped pixels are well formed
// (for one read back from a checkpoint): none, or a count a pixel, each 0
// (sampling) or a count of samples the film's pixels passed, and no pass
// cut short holding stopped pixels.
func (f *Film) stoppedWhole() bool {
	if f.StoppedAt == nil {
		return true
	}
	if len(f.StoppedAt) != f.Width*f.Height || f.First != 0 {
		return false
	}
	for px, s := range f.StoppedAt {
		if int64(s) > int64(f.Samples) || (s != 0 && f.IsAhead(px)) {
			return false
		}
	}
	return true
}

// luminance is pixel px's luminance of an RGB layer's sums.
func (s *LayerSums) luminance(px int) float64 {
	return 0.2126*s.Value(3*px) + 0.7152*s.Value(3*px+1) + 0.0722*s.Value(3*px+2)
}
