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
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("merge needs the slices: sertrace merge SLICE.exr... -o OUT")
			}
			return nil
		},
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
			// Nothing the merge writes may be one of its slices, or another
			// of its outputs.
			inputs := []file{{"--config", v.ConfigFileUsed()}}
			for _, in := range args {
				inputs = append(inputs, file{"one of the slices", in})
			}
			if err := checkOutputs(imageFiles(out, aovs, v.GetBool("denoise")), inputs); err != nil {
				return err
			}
			if v.GetBool("denoise") {
				if err := checkDenoiser(v); err != nil {
					return err
				}
			}
			budget := v.GetString("memory-budget")
			if budget != "" {
				if _, err := render.ParseBytes(budget); err != nil {
					return usagef("--memory-budget: %v", err)
				}
			}
			// The merged film holds every layer, and one slice more is read
			// into it at a time: refuse a merge past the budget before either.
			first, err := render.ReadSliceInfo(args[0])
			if err != nil {
				return err
			}
			if _, err := render.CheckMergeMemory(first.Width, first.Height, len(args), len(first.Groups), v.GetBool("denoise"), budget); err != nil {
				return fmt.Errorf("merging %s: %v", args[0], err)
			}
			// Slices rendered with light groups merge into a PNG or PFM of
			// the beauty: the groups were not asked of the merge.
			if err := render.CheckLayerOutputs(out, aovs, false); err != nil {
				return usagef("%v", err)
			}
			film, info, err := render.MergeSlices(args)
			if err != nil {
				return err
			}
			s := info.Settings
			display := render.Display{Exposure: s.Exposure, ToneMap: s.ToneMap, HalfFloat: s.EXRPrecision == "half"}
			done := interruptsOf(cmd).write(out)
			written, err := writeImages(stderr, v, out, film, display, aovs, "cpu", -1)
			done()
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
	f.String("memory-budget", "", "refuse a merge that would need more memory than this (8G, 512M; default: the cgroup's limit, the address-space limit or the machine's memory)")
	f.Bool("denoise", false, "denoise the image (the noisy one is written beside it as NAME.noisy.EXT)")
	addDenoiserFlags(f)
	return cmd
}
