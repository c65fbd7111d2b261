package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"sertrace/bench"
	"sertrace/render"
	"sertrace/render/vulkan"
	"sertrace/scene"
)

func newDevicesCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List the Vulkan devices, their drivers, which render paths each can run (and why not) and which auto takes",
		Long: `List the Vulkan devices, their drivers, which render paths each can run (and
why not), and which path auto takes on each and why: the device's own
calibration where it has one, else what the project measured on its kind of
device, else the first path it offers.

--calibrate measures every path each device offers (or --device N's) on the
generated Cornell box, the median GPU time per sample of --calibrate-runs
runs after a warm-up, and keeps it beside the pipeline cache
(SERTRACE_CACHE_DIR), for the device and driver it was measured on.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if calibrate, _ := cmd.Flags().GetBool("calibrate"); calibrate {
				if err := calibrateDevices(cmd); err != nil {
					return err
				}
			}
			devs, err := vulkan.Devices()
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
				printDevice(out, d)
			}
			return nil
		},
	}
	cmd.Flags().Bool("json", false, "print the devices as JSON")
	cmd.Flags().Bool("calibrate", false, "measure each path the devices offer and keep the figures, for auto to take the fastest")
	cmd.Flags().Int("device", -1, "calibrate only this device (its index)")
	cmd.Flags().String("calibrate-res", bench.DefaultCalibration.Res, "the calibration's image size")
	cmd.Flags().Int("calibrate-spp", bench.DefaultCalibration.SPP, "the calibration's samples per pixel")
	cmd.Flags().Int("calibrate-runs", bench.DefaultCalibration.Repeats, "the calibration's timed runs per path (after one warm-up)")
	return cmd
}

func printDevice(out io.Writer, d vulkan.Device) {
	reorder := "no VK_NV_ray_tracing_invocation_reorder"
	if d.ReorderMode != nil {
		reorder = *d.ReorderMode
	}
	fmt.Fprintf(out, "%d: %s (%s, %s)\n   driver %s, Vulkan %s\n   reorder mode: %s; native spheres: %v; native swept spheres: %v; shader clock: %v; indirect trace launches: %v; sort by subgroup: %s\n",
		d.Index, d.Name, d.Type, d.VendorDevice, d.Driver, d.APIVersion, reorder, d.Spheres, d.LSS, d.ShaderClock, d.TraceRaysIndirect, cmp.Or(strings.Join(d.SubgroupSort, ", "), "none"))
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
	auto := d.Auto.Path
	if auto == "" {
		auto = "none"
	}
	fmt.Fprintf(out, "   auto: %s — %s\n", auto, d.Auto.Why)
	if d.Type == "cpu" && d.Auto.Path != "" {
		fmt.Fprintln(out, "   (a software device: --backend auto renders on the cpu instead; --backend vulkan takes this path)")
	}
}

// calibrateDevices runs devices --calibrate: every device that offers a
// render path (or --device's), measured and its calibration kept.
func calibrateDevices(cmd *cobra.Command) error {
	fl := cmd.Flags()
	index, _ := fl.GetInt("device")
	o := bench.DefaultCalibration
	o.Res, _ = fl.GetString("calibrate-res")
	o.SPP, _ = fl.GetInt("calibrate-spp")
	o.Repeats, _ = fl.GetInt("calibrate-runs")
	if _, _, err := render.ParseResolution(o.Res, scene.Camera{}); err != nil {
		return usagef("--calibrate-res: %v", err)
	}
	if o.SPP < 1 || o.Repeats < 1 {
		return usagef("--calibrate-spp and --calibrate-runs must be at least 1")
	}
	devs, err := vulkan.Devices()
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	stderr := cmd.ErrOrStderr()
	ctx := interruptsOf(cmd).stage("the calibration stops")
	done := 0
	for _, d := range devs {
		if (index >= 0 && d.Index != index) || (index < 0 && len(d.Offered()) == 0) {
			continue
		}
		cal, err := bench.Calibrate(ctx, d, o, version, func(s string) { fmt.Fprintln(stderr, s) })
		if err != nil {
			return err
		}
		file, err := vulkan.SaveCalibration(d, cal)
		if err != nil {
			return err
		}
		var figures []string
		for _, p := range vulkan.PathNames {
			if ns, ok := cal.NsPerSample[p]; ok {
				figures = append(figures, fmt.Sprintf("%s %s", p, vulkan.Nanoseconds(ns)))
			}
		}
		fmt.Fprintf(stderr, "calibrated %s, GPU time a sample: %s -> %s\n", d.Name, strings.Join(figures, ", "), file)
		done++
	}
	if done == 0 {
		if index >= 0 {
			return fmt.Errorf("calibrate: no Vulkan device %d", index)
		}
		return fmt.Errorf("calibrate: no Vulkan device runs a render path")
	}
	return nil
}
