package denoise

import (
	"fmt"
	"math"
	"strings"
)

// Damage is what Repaired found in one layer of an image: pixels holding
// values no image of that layer holds, which one pixel of would spread
// through a filter (a NaN makes its whole window NaN; a radiance of
// -1e30 or 1e38 outweighs every neighbour). They are taken as 0.
type Damage struct {
	Layer         string  // as an EXR names it: beauty, albedo, diffuse_variance, …
	Pixels, Total int     // damaged pixels, and the layer's
	X, Y          int     // the first damaged pixel, rows from the top
	Value         float32 // its first damaged value
	NotFinite     bool    // NaN or infinite values among them
	Negative      bool    // negative radiance or albedo
	TooBright     bool    // radiance above MaxRadiance
}

// MaxRadiance is the most radiance a pixel can hold: what render's film
// clamps a sample to (2^62). Above it a value was never a measurement, and
// the filters' float32 arithmetic is not far from overflowing (one pixel
// of 3e38 made every pixel of the regression filter's output infinite).
const MaxRadiance = 0x1p62

func (d Damage) String() string { return d.found() + ": taken as 0" }

// found says what was found, without what became of it.
func (d Damage) found() string {
	var what []string
	if d.NotFinite {
		what = append(what, "not finite")
	}
	if d.Negative {
		what = append(what, "negative")
	}
	if d.TooBright {
		what = append(what, fmt.Sprintf("above %.2g", float64(MaxRadiance)))
	}
	list := strings.Join(what, ", ")
	if i := strings.LastIndex(list, ", "); i >= 0 {
		list = list[:i] + " or " + list[i+2:]
	}
	switch {
	case d.Pixels == d.Total:
		return fmt.Sprintf("all %d of the %s's pixels are %s (the first at x=%d,y=%d: %g)", d.Total, d.Layer, list, d.X, d.Y, d.Value)
	case d.Pixels == 1:
		return fmt.Sprintf("1 of the %s's %d pixels is %s (at x=%d,y=%d: %g)", d.Layer, d.Total, list, d.X, d.Y, d.Value)
	}
	return fmt.Sprintf("%d of the %s's %d pixels are %s (the first at x=%d,y=%d: %g)", d.Pixels, d.Layer, d.Total, list, d.X, d.Y, d.Value)
}

// A valueRule says which values a layer may hold.
type valueRule int

const (
	finiteValues valueRule = iota // normals, depth, variances
	albedoValues                  // finite and not negative
	lightValues                   // radiance: finite, not negative, at most MaxRadiance
)

// Repaired is the image with its damaged pixels taken as 0 (every channel
// of the pixel in that layer; where the beauty's is damaged, its split's
// too, which is part of it), copied where it has any, and what was found,
// one Damage a layer; an error where no pixel of the beauty is left to
// denoise. Both denoisers run on it, so a file read from elsewhere
// (sertrace denoise) and a film are judged alike; an image it returned
// is not scanned again.
func (in *Image) Repaired() (*Image, []Damage, error) {
	if in.repaired {
		return in, nil, nil // said where it was repaired: the command's, or Choose's method
	}
	out := *in
	out.repaired = true
	n := in.Width * in.Height
	var found []Damage
	// check returns the damaged pixels of buf (channels values a pixel),
	// nil where there are none, and records them.
	check := func(name string, buf []float32, channels int, rule valueRule) []bool {
		if len(buf) != channels*n || n == 0 {
			return nil // DenoiseWith and Network refuse the sizes
		}
		var bad []bool
		d := Damage{Layer: name, Total: n}
		for p := range n {
			for _, v := range buf[channels*p : channels*(p+1)] {
				nf := math.IsNaN(float64(v)) || math.IsInf(float64(v), 0)
				neg := rule != finiteValues && v < 0
				hot := rule == lightValues && !nf && v > MaxRadiance
				if !nf && !neg && !hot {
					continue
				}
				if bad == nil {
					bad = make([]bool, n)
					d.X, d.Y, d.Value = p%in.Width, p/in.Width, v
				}
				d.NotFinite, d.Negative, d.TooBright = d.NotFinite || nf, d.Negative || neg, d.TooBright || hot
				if !bad[p] {
					bad[p] = true
					d.Pixels++
				}
			}
		}
		if bad != nil {
			found = append(found, d)
		}
		return bad
	}
	// zero takes buf's pixels marked in bad as 0, in a copy.
	zero := func(buf *[]float32, channels int, bad []bool) {
		if bad == nil || len(*buf) != channels*n {
			return
		}
		c := make([]float32, len(*buf))
		copy(c, *buf)
		for p, b := range bad {
			if b {
				clear(c[channels*p : channels*(p+1)])
			}
		}
		*buf = c
	}
	beauty := check("beauty", in.Beauty, 3, lightValues)
	if beauty != nil && found[0].Pixels == n {
		return nil, found, fmt.Errorf("%s: nothing to denoise", found[0].found())
	}
	zero(&out.Beauty, 3, beauty)
	for _, l := range []struct {
		name     string
		buf      *[]float32
		channels int
		rule     valueRule
	}{
		{"albedo", &out.Albedo, 3, albedoValues},
		{"normal", &out.Normal, 3, finiteValues},
		{"depth", &out.Depth, 1, finiteValues},
		{"variance", &out.Variance, 1, finiteValues},
		{"diffuse", &out.Diffuse, 3, lightValues},
		{"specular", &out.Specular, 3, lightValues},
		{"diffuse_albedo", &out.DiffuseAlbedo, 3, albedoValues},
		{"specular_albedo", &out.SpecularAlbedo, 3, albedoValues},
		{"diffuse_variance", &out.DiffuseVariance, 1, finiteValues},
		{"specular_variance", &out.SpecularVariance, 1, finiteValues},
	} {
		bad := check(l.name, *l.buf, l.channels, l.rule)
		if l.rule == lightValues && beauty != nil && len(*l.buf) == 3*n {
			if bad == nil {
				bad = make([]bool, n)
			}
			for p, b := range beauty {
				bad[p] = bad[p] || b
			}
		}
		zero(l.buf, l.channels, bad)
	}
	return &out, found, nil
}
