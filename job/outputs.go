package job

import (
	"context"
	"path/filepath"
	"strings"

	"sertrace/denoise"
	"sertrace/render"
)

// Output is one file a film is written to: which AOV, where.
type Output struct {
	Path string
	AOV  render.AOV
}

// NoisyPath is where Write puts the noisy image of a beauty denoised into
// path: NAME.noisy.EXT beside it.
func NoisyPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".noisy" + ext
}

// Denoise is how a job's beauty is denoised: the denoiser's name and
// passes as the settings give them.
type Denoise struct {
	On     bool
	Name   string
	Passes int
}

// Write writes a film's outputs, as render, merge and batch jobs do: where
// d asks for the denoiser (chosen for the backend and device the film was
// rendered on: ranOn, device, −1 for any), each beauty output's noisy
// image first, beside it as NAME.noisy.EXT (so that an interrupted
// denoiser leaves it written), then the beauty denoised (denoise.Film, a
// transform of the film); the other outputs from the film as rendered. It
// returns the files written and the film the beauty was written from; a
// cancelled ctx stops the denoiser with context.Canceled, the noisy
// images written.
func Write(ctx context.Context, film *render.Film, display render.Display, outs []Output, d Denoise, ranOn string, device int, note func(string)) (written []string, final *render.Film, err error) {
	var m denoise.Method
	if d.On {
		if m, err = denoise.Choose(d.Name, d.Passes, ranOn, device, note); err != nil {
			return nil, nil, err
		}
	}
	return writeWith(ctx, film, display, outs, m)
}

// writeWith is Write with the denoiser m (nil: none).
func writeWith(ctx context.Context, film *render.Film, display render.Display, outs []Output, m denoise.Method) (written []string, final *render.Film, err error) {
	final = film
	if m != nil {
		for _, o := range outs {
			if o.AOV != render.AOVBeauty {
				continue
			}
			noisy := NoisyPath(o.Path)
			if err := render.WriteAOV(noisy, film, o.AOV, display); err != nil {
				return written, nil, err
			}
			written = append(written, noisy)
		}
		if final, err = denoise.Film(ctx, film, m); err != nil {
			if ctx.Err() != nil {
				return written, nil, context.Canceled
			}
			return written, nil, err
		}
	}
	for _, o := range outs {
		from := film
		if o.AOV == render.AOVBeauty {
			from = final
		}
		if err := render.WriteAOV(o.Path, from, o.AOV, display); err != nil {
			return written, nil, err
		}
		written = append(written, o.Path)
	}
	return written, final, nil
}
