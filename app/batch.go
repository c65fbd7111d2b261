package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"sertrace/batch"
)

func newBatchCommand(_ *viper.Viper) *cobra.Command {
	return &cobra.Command{
		Use:   "batch CONFIG.yaml",
		Short: "Render every job of a YAML config, skipping finished ones and resuming interrupted ones",
		Long: `Render every job of a batch config (see configs/batch-example.yaml): output_dir,
defaults, and jobs, each with a name, a scene, outputs and any render setting
under its flag's name (spp, res, max_depth, seed, camera, backend, env,
env_color, env_rotation, env_intensity, exposure, tonemap, filter,
aperture_radius, focus_distance, threads). Outputs go to output_dir/NAME/.
A job whose outputs match its settings and scene (manifest.json) is skipped;
Ctrl-C writes a checkpoint that the next run continues from. summary.json and
summary.html (a contact sheet) are written at the end; the exit status is 1 if
any job failed.`,
		Args: exactArgs("CONFIG.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := batch.Load(args[0])
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			stderr := cmd.ErrOrStderr()
			bar := newProgressBar(stderr)
			var jobIndex, jobCount int
			r := &batch.Runner{
				Config: cfg,
				Log:    stderr,
				Job: func(name string, i, n int) {
					bar.finish()
					jobIndex, jobCount = i, n
					bar = newProgressBar(stderr)
					bar.label = fmt.Sprintf("job %d/%d %s", i+1, n, name)
				},
				Tick: func(done float64) { bar.update((float64(jobIndex) + done) / float64(jobCount)) },
			}
			sum, err := r.Run(ctx)
			bar.finish()
			if sum == nil {
				return err
			}
			out := filepath.Join(filepath.Dir(args[0]), cfg.OutputDir)
			if filepath.IsAbs(cfg.OutputDir) {
				out = cfg.OutputDir
			}
			fmt.Fprintf(stderr, "batch %s: %d jobs, %d failed; summary in %s\n", args[0], len(sum.Jobs), sum.Failed(), filepath.Join(out, "summary.html"))
			if errors.Is(err, batch.ErrInterrupted) {
				return fmt.Errorf("batch %s: interrupted: a checkpoint was written; run it again to continue", args[0])
			}
			if err != nil {
				return fmt.Errorf("batch %s: %w", args[0], err)
			}
			if n := sum.Failed(); n > 0 {
				return fmt.Errorf("batch %s: %d of %d jobs failed (see summary.json)", args[0], n, len(sum.Jobs))
			}
			return nil
		},
	}
}
