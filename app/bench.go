package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"sertrace/bench"
	"sertrace/render"
	"sertrace/render/vulkan"
)

func newBenchCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench [CONFIG.yaml] [--out DIR]",
		Short: "Measure how much reordering speeds rendering up, per scene and scheme",
		Long: `Render each scene of a suite (default configs/bench-smoke.yaml) with each
reordering scheme (none, shader, material:BITS): warm-up runs, then timed runs
interleaved across schemes; report median, min and max time, samples and rays
per second, the speedup over no reordering, and the speedup the emulator's
SIMT counts predict for a GPU. Writes results.json, results.csv, report.md,
speedup.png and per-pixel cost heatmaps to --out.`,
		Args: maxArgs("CONFIG.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "configs/bench-smoke.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			accel := v.GetString("accel")
			if err := render.CheckAccel(accel); err != nil {
				return usagef("--accel: %v", err)
			}
			cfg, err := bench.LoadConfig(path)
			if err != nil {
				return err
			}
			if accel != "" {
				cfg.Accel = accel
			}
			ctx := interruptsOf(cmd).stage("the benchmark stops")
			stderr := cmd.ErrOrStderr()
			res, err := bench.Run(ctx, cfg, version, func(s string) { fmt.Fprintln(stderr, s) })
			if err != nil {
				return err
			}
			out := v.GetString("out")
			done := interruptsOf(cmd).write(out)
			defer done()
			if err := bench.Write(out, res); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "bench %s: %d cells on %s -> %s\n", path, len(res.Cells), res.Device.Name, filepath.Join(out, "report.md"))
			// What it timed of two paths or more is the GPU's calibration:
			// auto takes the fastest from now on (devices says so).
			if cal := res.Calibration(); cal != nil {
				if file, err := vulkan.SaveCalibration(*res.GPUDevice(), cal); err != nil {
					fmt.Fprintf(stderr, "sertrace: the calibration of %s not kept: %v\n", res.GPU.Name, err)
				} else {
					fmt.Fprintf(stderr, "calibration of %s -> %s\n", res.GPU.Name, file)
				}
			}
			return nil
		},
	}
	cmd.Flags().String("out", "bench-results", "folder for results.json, results.csv, report.md and the charts")
	cmd.Flags().String("accel", "", "the cpu backend's tracer: auto, embree or bvh (default: the config's accel, else auto)")
	return cmd
}
