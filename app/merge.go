package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"sertrace/render"
)

func newMergeCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merge SLICE.exr... -o OUT",
		Short: "Add the slices of a render (render --samples FIRST:COUNT) into its image",
		Long: `Add slices of one render, made with sertrace render --samples FIRST:COUNT (on
this machine or others), into the render's image. The slices must cover the
render's samples once each and come from one scene, one set of settings, one
build of sertrace and one tracer; the image is then bit for bit the one a
render in one go makes (the film's sums are exact). The output's format
follows -o's extension; --denoise and --aov work as in sertrace render.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			stderr := cmd.ErrOrStderr()
			out := v.GetString("output")
			switch strings.ToLower(filepath.Ext(out)) {
			case ".exr", ".pfm", ".png":
			default:
				return usagef("merge needs -o OUT.exr|.pfm|.png")
			}
			aovs, err := parseAOVs(v.GetString("aov"))
			if err != nil {
				return usagef("--aov: %v", err)
			}
			if v.GetBool("denoise") {
				if err := checkDenoiser(v); err != nil {
					return err
				}
			}
			film, info, err := render.MergeSlices(args)
			if err != nil {
				return err
			}
			s := info.Settings
			display := render.Display{Exposure: s.Exposure, ToneMap: s.ToneMap, HalfFloat: s.EXRPrecision == "half"}
			written, err := writeImages(stderr, v, out, film, display, aovs, "cpu", -1)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "merged %d slices of %s: %dx%d, %d spp -> %s\n", len(args), info.Scene, film.Width, film.Height, film.Samples, strings.Join(written, ", "))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringP("output", "o", "", "the image: .exr, .pfm or .png")
	f.String("aov", "", "extra outputs beside the image, as in sertrace render --aov")
	f.Bool("denoise", false, "denoise the image (the noisy one is written beside it as NAME.noisy.EXT)")
	addDenoiserFlags(f)
	return cmd
}
