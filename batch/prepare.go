package batch

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"sertrace/atomicfile"
	"sertrace/denoise"
	"sertrace/job"
	"sertrace/render"
	"sertrace/scene"
)

// prepared is a job made ready to render: its outputs, keys and scene path.
type prepared struct {
	job       JobConfig
	requested string // the denoiser the config asked for (auto resolves)
	outputs   []output
	scenePath string
	content   string
	key       string // the manifest's: the outputs' settings and content
	cpKey     string // the checkpoint's: the noisy film's
}

func (r *Runner) prepare(job JobConfig) (*prepared, error) {
	outputs, err := parseOutputs(job.Outputs)
	if err != nil {
		return nil, err
	}
	p := &prepared{job: job, requested: job.Denoiser, outputs: outputs, scenePath: r.Config.resolve(job.Scene)}
	// The key holds what the images depend on: auto's choice, which
	// differs with what is installed, and passes only for the network.
	if p.job.Denoise {
		if err := denoise.CheckChoice(job.Denoiser, job.DenoisePasses); err != nil {
			return nil, err
		}
		p.job.Denoiser = denoise.Resolve(job.Denoiser)
		if p.job.Denoiser != "network" {
			p.job.DenoisePasses = 1
		}
	} else {
		p.job.Denoiser, p.job.DenoisePasses = "", 1
	}
	if p.content, err = r.contentHash(p.job, p.scenePath); err != nil {
		return nil, err
	}
	p.key = jobKey(p.job, p.content)
	// A checkpoint holds the noisy film, whatever denoises it after.
	undenoised := p.job
	undenoised.Denoise, undenoised.Denoiser, undenoised.DenoisePasses = false, "", 1
	p.cpKey = jobKey(undenoised, p.content)
	return p, nil
}

// overwrites refuses a job whose files in dir (its outputs, the noisy
// images, its manifest, checkpoint and thumbnail) would be one of the
// files it reads: its scene, the files the scene names, its environment,
// the config.
func (r *Runner) overwrites(p *prepared, dir string) error {
	inputs := []string{p.scenePath, r.Config.path}
	if p.job.Env != "" {
		inputs = append(inputs, r.Config.resolve(p.job.Env))
	}
	resources, _ := scene.Resources(p.scenePath)
	for _, res := range resources {
		inputs = append(inputs, filepath.Join(filepath.Dir(p.scenePath), res))
	}
	names := []string{"manifest.json", "checkpoint.gob", "thumb.png"}
	for _, o := range p.outputs {
		names = append(names, o.name, job.NoisyPath(o.name))
	}
	for _, name := range names {
		for _, in := range inputs {
			if out := filepath.Join(dir, name); atomicfile.SameFile(out, in) {
				return fmt.Errorf("its file %s would overwrite %s, which it reads: give the job another name or output_dir", out, in)
			}
		}
	}
	return nil
}

// output is one file a job writes: which AOV, in which format.
type output struct {
	name string
	aov  render.AOV
}

func parseOutputs(names []string) ([]output, error) {
	if len(names) == 0 {
		return nil, errors.New("no outputs")
	}
	var out []output
	for _, n := range names {
		base, ext := strings.TrimSuffix(n, filepath.Ext(n)), strings.ToLower(filepath.Ext(n))
		a := render.AOV(base)
		switch {
		case ext != ".exr" && ext != ".pfm" && ext != ".png":
			return nil, fmt.Errorf("output %q: the format must be .exr, .pfm or .png", n)
		case !slices.Contains(render.AOVs, a):
			return nil, fmt.Errorf("output %q: unknown output %q (%s)", n, base, render.AOVNames(render.AOVs))
		case slices.Contains(render.CryptoAOVs, a) && ext != ".exr":
			return nil, fmt.Errorf("output %q: Cryptomatte is written as EXR layers: %s.exr", n, base)
		}
		out = append(out, output{n, a})
	}
	return out, nil
}
