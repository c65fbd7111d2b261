package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"sertrace/scene"
)

func newGenCommand(v *viper.Viper) *cobra.Command {
	var kinds strings.Builder
	for _, name := range scene.GeneratorNames() {
		fmt.Fprintf(&kinds, "  %-14s %s\n", name, scene.Generators[name].About)
	}
	cmd := &cobra.Command{
		Use:   "gen KIND -o FILE.glb",
		Short: "Write a generated scene (" + strings.Join(scene.GeneratorNames(), ", ") + ")",
		Long:  "Write a generated scene as a GLB file. The kinds:\n" + kinds.String(),
		Args:  exactArgs("KIND"),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, ok := scene.Generators[args[0]]
			if !ok {
				return usagef("unknown scene kind %q (one of: %s)", args[0], strings.Join(scene.GeneratorNames(), ", "))
			}
			out := v.GetString("output")
			if out == "" {
				return usagef("gen needs -o FILE.glb")
			}
			if !strings.HasSuffix(strings.ToLower(out), ".glb") {
				return usagef("gen writes GLB files: %q should end in .glb", out)
			}
			if err := scene.WriteGLB(g.Build(), out); err != nil {
				return fmt.Errorf("gen %s: %w", args[0], err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringP("output", "o", "", "the GLB file to write")
	return cmd
}
