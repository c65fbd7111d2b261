package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"sertrace/scene"
)

func newInspectCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "inspect SCENE",
		Short: "Say what the loader finds in a glTF scene: counts, materials, lights, cameras, warnings",
		Args:  exactArgs("SCENE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := scene.Load(args[0])
			if err != nil {
				return err
			}
			sum := sc.Summarize()
			if v.GetBool("json") {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
			printSummary(cmd.OutOrStdout(), sum)
			return nil
		},
	}
	cmd.Flags().Bool("json", false, "print the summary as JSON")
	return cmd
}

func printSummary(w io.Writer, s scene.Summary) {
	fmt.Fprintf(w, "%s\n", s.Source)
	fmt.Fprintf(w, "  meshes      %d (%d triangles; %d as instanced)\n", s.Meshes, s.Triangles, s.InstancedTriangles)
	fmt.Fprintf(w, "  spheres     %d in %d sets (%d as instanced)\n", s.Spheres, s.SphereSets, s.InstancedSpheres)
	fmt.Fprintf(w, "  hair        %d swept-sphere segments in %d sets (%d as instanced)\n", s.LSSSegments, s.CurveSets, s.InstancedSegments)
	fmt.Fprintf(w, "  instances   %d\n", s.Instances)
	fmt.Fprintf(w, "  materials   %d (%d emissive, %d hair)\n", s.Materials, s.EmissiveMaterials, s.HairMaterials)
	fmt.Fprintf(w, "  textures    %d\n", s.Textures)
	fmt.Fprintf(w, "  lights      %d punctual\n", s.Lights)
	if s.DefaultCamera {
		fmt.Fprintf(w, "  cameras     none in the file: a framing camera is used\n")
	} else {
		fmt.Fprintf(w, "  cameras     %d %q\n", s.Cameras, s.CameraNames)
	}
	fmt.Fprintf(w, "  bounds      %v .. %v\n", s.Bounds.Min, s.Bounds.Max)
	if len(s.Cryptomatte.Objects) > 0 {
		fmt.Fprintf(w, "  objects     %q (cryptomatte_object)\n", s.Cryptomatte.Objects)
		fmt.Fprintf(w, "  assets      %q (cryptomatte_asset)\n", s.Cryptomatte.Assets)
	}
	if len(s.LightGroups) > 0 {
		fmt.Fprintf(w, "  groups      %q (render --light-groups)\n", s.LightGroups)
	}
	if len(s.Variants) > 0 {
		fmt.Fprintf(w, "  variants    %q (render --variant NAME)\n", s.Variants)
	}
	for _, warn := range s.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
}
