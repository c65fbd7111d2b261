package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"sertrace/denoise"
	"sertrace/render"
)

func newDenoiseCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "denoise IN.exr -o OUT",
		Short: "Denoise a rendered EXR with its albedo, normal and depth guides",
		Long: `Denoise a rendered EXR. The guides come from the file's own layers (albedo.*,
normal.*, depth.Z, variance.Y, as sertrace writes them) or from --albedo,
--normal and --depth files (their R, G, B or Z channels). When the file has
the renderer's diffuse and specular split (diffuse.*, specular.*,
diffuse_albedo.*, specular_albedo.*), the regression filter filters each part
on its own, and the network what the first hit reflected (what the camera saw
directly is kept). The output's format follows -o's extension.`,
		Args: exactArgs("IN.exr"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := v.GetString("output")
			if out == "" {
				return usagef("denoise needs -o OUT.exr|.pfm|.png")
			}
			b := v.GetString("backend")
			if b != "cpu" && b != "vulkan" {
				return usagef("--backend %q: cpu or vulkan", b)
			}
			// Nothing the denoiser reads may be what it writes: the input
			// (a slice's sums and header) would be gone.
			inputs := []file{{"the input", args[0]}, {"--albedo", v.GetString("albedo")}, {"--normal", v.GetString("normal")}, {"--depth", v.GetString("depth")}, {"--config", v.ConfigFileUsed()}}
			if err := checkOutputs([]file{{"-o", out}}, inputs); err != nil {
				return err
			}
			if err := checkDenoiser(v); err != nil {
				return err
			}
			img, warnings, err := readDenoiseInput(args[0], v.GetString("albedo"), v.GetString("normal"), v.GetString("depth"))
			if err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
			}
			method, err := denoise.Choose(v.GetString("denoiser"), v.GetInt("denoise-passes"), b, -1, func(line string) { fmt.Fprintln(cmd.ErrOrStderr(), line) })
			if err != nil {
				return err
			}
			pix, err := method(context.Background(), img) // an interrupt ends the command: nothing is written
			if err != nil {
				return err
			}
			film := render.NewFilmOf(img.Width, img.Height, render.GuideLayers)
			film.Samples = 1
			for i, p := range pix {
				film.Sums[render.LayerBeauty].Set(i, float64(p))
				film.Sums[render.LayerAlbedo].Set(i, float64(img.Albedo[i]))
				film.Sums[render.LayerNormal].Set(i, float64(img.Normal[i]))
			}
			for i, d := range img.Depth {
				film.Sums[render.LayerDepth].Set(i, float64(d))
			}
			done := interruptsOf(cmd).write(out)
			defer done()
			if err := render.Write(out, film, render.Display{}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "denoised %s -> %s\n", args[0], out)
			return nil
		},
	}
	cmd.Flags().StringP("output", "o", "", "the denoised image: .exr, .pfm or .png")
	cmd.Flags().String("albedo", "", "EXR whose R, G, B are the albedo (default: the input's albedo layer)")
	cmd.Flags().String("normal", "", "EXR whose R, G, B are the normals (default: the input's normal layer)")
	cmd.Flags().String("depth", "", "EXR whose Z (or R) is the depth (default: the input's depth layer)")
	cmd.Flags().String("backend", "cpu", "where the regression filter runs: cpu, or vulkan (a compute shader; the cpu, said on stderr, when it cannot run)")
	addDenoiserFlags(cmd.Flags())
	return cmd
}

// readDenoiseInput gathers the beauty and the guides; guides that are
// nowhere to be found become neutral (albedo 1, one normal, one depth),
// and pixels no denoiser can weigh (NaN, negative radiance: Repaired) 0,
// each said in a warning naming the file. A beauty with no pixel left
// is refused.
func readDenoiseInput(in, albedoPath, normalPath, depthPath string) (img *denoise.Image, warnings []string, err error) {
	w, h, ch, err := render.ReadEXR(in, "R", "G", "B", "albedo.R", "albedo.G", "albedo.B",
		"normal.X", "normal.Y", "normal.Z", "depth.Z", "variance.Y",
		"diffuse.R", "diffuse.G", "diffuse.B", "specular.R", "specular.G", "specular.B",
		"diffuse_albedo.R", "diffuse_albedo.G", "diffuse_albedo.B", "specular_albedo.R", "specular_albedo.G", "specular_albedo.B",
		"diffuse_variance.Y", "specular_variance.Y")
	if err != nil {
		return nil, nil, err
	}
	if ch["R"] == nil || ch["G"] == nil || ch["B"] == nil {
		return nil, nil, fmt.Errorf("read %s: no R, G, B channels", in)
	}
	n := w * h
	img = &denoise.Image{Width: w, Height: h, Beauty: interleave(n, ch["R"], ch["G"], ch["B"]),
		Albedo: interleave(n, ch["albedo.R"], ch["albedo.G"], ch["albedo.B"]),
		Normal: interleave(n, ch["normal.X"], ch["normal.Y"], ch["normal.Z"]), Depth: ch["depth.Z"], Variance: ch["variance.Y"]}
	// The diffuse and specular split, when the file has all of it.
	rgb := func(layer string) []float32 { return interleave(n, ch[layer+".R"], ch[layer+".G"], ch[layer+".B"]) }
	if d, s, da, sa := rgb("diffuse"), rgb("specular"), rgb("diffuse_albedo"), rgb("specular_albedo"); d != nil && s != nil && da != nil && sa != nil {
		img.Diffuse, img.Specular, img.DiffuseAlbedo, img.SpecularAlbedo = d, s, da, sa
		img.DiffuseVariance, img.SpecularVariance = ch["diffuse_variance.Y"], ch["specular_variance.Y"]
	}
	guide := func(path string, names ...string) ([]float32, error) {
		gw, gh, g, err := render.ReadEXR(path, names...)
		if err != nil {
			return nil, err
		}
		if gw != w || gh != h {
			return nil, fmt.Errorf("%s is %d×%d, %s is %d×%d", path, gw, gh, in, w, h)
		}
		if len(names) == 1 {
			return g[names[0]], nil
		}
		return interleave(n, g[names[0]], g[names[1]], g[names[2]]), nil
	}
	if albedoPath != "" {
		if img.Albedo, err = guide(albedoPath, "R", "G", "B"); err != nil {
			return nil, nil, err
		}
	}
	if normalPath != "" {
		if img.Normal, err = guide(normalPath, "R", "G", "B"); err != nil {
			return nil, nil, err
		}
	}
	if depthPath != "" {
		if img.Depth, err = guide(depthPath, "Z"); err != nil {
			return nil, nil, err
		}
		if img.Depth == nil {
			img.Depth, _ = guide(depthPath, "R")
		}
	}
	var missing []string
	if img.Albedo == nil {
		img.Albedo = fill(3*n, 1)
		missing = append(missing, "albedo")
	}
	if img.Normal == nil {
		missing = append(missing, "normal")
		img.Normal = make([]float32, 3*n)
		for i := 2; i < 3*n; i += 3 {
			img.Normal[i] = 1
		}
	}
	if img.Depth == nil {
		img.Depth = fill(n, 1)
		missing = append(missing, "depth")
	}
	for _, m := range missing {
		warnings = append(warnings, fmt.Sprintf("%s has no %s guide (give --%s): it is taken as neutral, and edges there blur", in, m, m))
	}
	img, damage, err := img.Repaired()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", in, err)
	}
	from := map[string]string{"albedo": albedoPath, "normal": normalPath, "depth": depthPath}
	for _, d := range damage {
		file := in
		if from[d.Layer] != "" {
			file = from[d.Layer]
		}
		warnings = append(warnings, fmt.Sprintf("%s: %v", file, d))
	}
	return img, warnings, nil // a missing variance is estimated from the beauty
}

func interleave(n int, r, g, b []float32) []float32 {
	if r == nil || g == nil || b == nil {
		return nil
	}
	out := make([]float32, 3*n)
	for i := 0; i < n; i++ {
		out[3*i], out[3*i+1], out[3*i+2] = r[i], g[i], b[i]
	}
	return out
}

func fill(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// addDenoiserFlags adds the flags that choose the denoiser.
func addDenoiserFlags(f *pflag.FlagSet) {
	f.String("denoiser", denoise.DefaultDenoiser, "network (OIDN's networks; sertrace weights fetch installs them), regression, or auto (the network when installed)")
	f.Int("denoise-passes", denoise.DefaultPasses, "the network runs on 1, 2, 4 or 8 flips and transposes of the image and averages them (closer, slower)")
}

// checkDenoiser refuses, before any work, a denoiser that is none or a
// pass count it does not take (bad usage) and the network without its
// weights (an error naming the fix).
func checkDenoiser(v *viper.Viper) error {
	name, passes := v.GetString("denoiser"), v.GetInt("denoise-passes")
	if err := denoise.CheckChoice(name, passes); err != nil {
		return usagef("%v", err)
	}
	return denoise.Ready(name)
}
