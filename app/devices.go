package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"sertrace/render"
	"sertrace/render/vulkan"
)

func newDevicesCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List the Vulkan devices, their drivers, and which render paths each can run (and why not)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			devs, err := vulkan.Devices()
			out := cmd.OutOrStdout()
			if v.GetBool("json") {
				if err != nil {
					devs = []vulkan.Device{}
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if e := enc.Encode(devs); e != nil {
					return e
				}
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "sertrace: %v; only the cpu backend can render\n", err)
				}
				return nil
			}
			if err != nil {
				fmt.Fprintf(out, "no Vulkan: %v; only the cpu backend can render\n", err)
				return nil
			}
			if len(devs) == 0 {
				fmt.Fprintln(out, "the Vulkan loader lists no devices; only the cpu backend can render")
			}
			for _, d := range devs {
				reorder := "no VK_NV_ray_tracing_invocation_reorder"
				if d.ReorderMode != nil {
					reorder = *d.ReorderMode
				}
				fmt.Fprintf(out, "%d: %s (%s)\n   driver %s, Vulkan %s\n   reorder mode: %s; native spheres: %v; native swept spheres: %v; shader clock: %v\n",
					d.Index, d.Name, d.Type, d.Driver, d.APIVersion, reorder, d.Spheres, d.LSS, d.ShaderClock)
				budget := "no VK_EXT_memory_budget: a render's launches take up to three quarters of each heap"
				if d.MemoryBudget {
					budget = "VK_EXT_memory_budget says what is left"
				}
				fmt.Fprintf(out, "   device-local memory: %s (%s)\n", render.GiB(d.DeviceLocal), budget)
				if len(d.Extensions) > 0 {
					fmt.Fprintf(out, "   ray-tracing extensions: %s\n", strings.Join(d.Extensions, " "))
				}
				for _, p := range vulkan.PathNames {
					st := d.Paths[p]
					if st.Available {
						fmt.Fprintf(out, "   %-9s available\n", p)
					} else {
						fmt.Fprintf(out, "   %-9s not available: %s\n", p, st.Reason)
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().Bool("json", false, "print the devices as JSON")
	return cmd
}
