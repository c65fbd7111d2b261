package denoise

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"sertrace/denoise/unet"
)

// A Method denoises an image: the regression filter or the network. The
// network stops with ctx's error when ctx is done; the regression filter,
// seconds long, runs to its end.
type Method func(ctx context.Context, in *Image) ([]float32, error)

// Regression is the regression (or à-trous) filter with settings s, its
// regression run by reg.
func Regression(s Settings, reg Regressor) Method {
	return func(_ context.Context, in *Image) ([]float32, error) {
		in, _, err := in.Repaired()
		if err != nil {
			return nil, err
		}
		return DenoiseWith(in, s, reg)
	}
}

// Network is the learned denoiser: OIDN's networks (see denoise/unet),
// run on the light the first hit reflected when the film has the split
// (what the camera saw directly, emitters and the environment, is exact
// up to its pixel edges and is added back unfiltered: the network would
// take a pixel-sized emitter for a firefly), else on the whole beauty.
func Network(f *unet.Filter) Method {
	return func(ctx context.Context, in *Image) ([]float32, error) {
		in, _, err := in.Repaired()
		if err != nil {
			return nil, err
		}
		n := 3 * in.Width * in.Height
		if len(in.Beauty) != n {
			return nil, fmt.Errorf("denoise: a %dx%d image with %d beauty values", in.Width, in.Height, len(in.Beauty))
		}
		light, direct := in.Beauty, []float32(nil)
		if in.split() {
			if len(in.Diffuse) != n || len(in.Specular) != n {
				return nil, fmt.Errorf("denoise: the diffuse and specular light must be the image's size")
			}
			light, direct = make([]float32, n), make([]float32, n)
			for i := range light {
				light[i] = in.Diffuse[i] + in.Specular[i]
				direct[i] = in.Beauty[i] - light[i]
			}
		}
		out, err := f.Denoise(ctx, light, in.Albedo, in.Normal, in.Width, in.Height)
		if err != nil {
			return nil, err
		}
		for i := range direct {
			out[i] += direct[i]
		}
		return out, nil
	}
}

// Denoisers are the names Choose takes.
var Denoisers = []string{"auto", "network", "regression"}

// The denoiser and the network's passes where the user names none (the
// render and denoise commands' flags, a batch job).
const (
	DefaultDenoiser = "auto"
	DefaultPasses   = 1
)

// CheckChoice says whether name is a denoiser and passes a number of
// passes Choose takes.
func CheckChoice(name string, passes int) error {
	if !slices.Contains(Denoisers, name) {
		return fmt.Errorf("denoiser %q: %s", name, strings.Join(Denoisers, ", "))
	}
	return unet.CheckPasses(passes)
}

// Ready says whether the denoiser named (CheckChoice's) can run here, before
// the render it is for: for the network, whether its weights are installed.
func Ready(name string) error {
	if name == "network" {
		return weightsMissing(unet.Dir())
	}
	return nil
}

// weightsMissing is the error for the network's weights missing from dir,
// or nil.
func weightsMissing(dir string) error {
	if missing := unet.Missing(dir); missing != nil {
		return fmt.Errorf("denoiser network: %s lacks %s (sertrace weights fetch installs them)", dir, strings.Join(missing, ", "))
	}
	return nil
}

// Resolve is the denoiser "auto" stands for now: network when its weights
// are installed, else regression; other names are themselves.
func Resolve(name string) string {
	if name != "auto" {
		return name
	}
	if unet.Missing(unet.Dir()) != nil {
		return "regression"
	}
	return "network"
}

// Choose is the denoiser named: "network" (the weights in unet.Dir(),
// run passes times; an error naming the fix when they are missing),
// "regression" (on the device the render ran on, see On) or "auto" (the
// network when its weights are installed, else the regression filter,
// said through note). Damage the image it is given holds (Repaired) is
// said through note too.
func Choose(name string, passes int, backend string, device int, note func(string)) (Method, error) {
	if err := CheckChoice(name, passes); err != nil {
		return nil, err
	}
	dir := unet.Dir()
	var missing error
	if name != "regression" {
		missing = weightsMissing(dir)
	}
	switch {
	case name == "network" && missing != nil:
		return nil, missing
	case name == "auto" && missing != nil:
		note(fmt.Sprintf("denoise: no network weights in %s (sertrace weights fetch installs them): using the regression filter", dir))
		fallthrough
	case name == "regression":
		return saying(Regression(Defaults, On(backend, device, note)), note), nil
	}
	f, err := unet.LoadFilter(dir, passes)
	if err != nil {
		return nil, err
	}
	return saying(Network(f), note), nil
}

// saying is m, saying through note, a line a layer, the damage it finds
// in an image (Repaired): a film should hold none (it drops what is not
// finite), and sertrace denoise repairs and names a file's before.
func saying(m Method, note func(string)) Method {
	return func(ctx context.Context, in *Image) ([]float32, error) {
		in, damage, err := in.Repaired()
		if err != nil {
			return nil, fmt.Errorf("denoise: %w", err)
		}
		for _, d := range damage {
			note("warning: denoise: " + d.String())
		}
		return m(ctx, in)
	}
}
