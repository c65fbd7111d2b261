package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"sertrace/atomicfile"
	"sertrace/job"
	"sertrace/render"
	"sertrace/scene"
)

func newRenderCommand(v *viper.Viper) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "render SCENE",
		Short: "Render a glTF scene to an EXR, PFM or PNG image",
		Long: `Render a glTF scene. The output format follows the extension of -o: .exr and
.pfm hold linear radiance (EXR with the albedo, normal and depth AOVs as
layers), .png a tone-mapped sRGB image. Ctrl-C stops the render and writes
what has been accumulated, marked as partial.`,
		Args: exactArgs("SCENE"),
		RunE: func(cmd *cobra.Command, args []string) error { return runRender(cmd, v, args[0]) },
	}
	// The defaults are render.DefaultSettings', which batch jobs get too.
	d := render.DefaultSettings()
	f := cmd.Flags()
	f.StringP("output", "o", "", "image to write: .exr, .pfm or .png (default: the scene's name with .png)")
	f.String("backend", d.Backend, "auto, cpu or vulkan (auto picks the best Vulkan device and path, else the cpu)")
	f.String("path", d.Path, "the vulkan backend's path: ser, rt, rayquery or rt-sorted (default: the best the device runs)")
	// "material" is the scheme DefaultSettings' empty Reorder stands for.
	f.String("reorder", "material", "reordering before shading: material[:BITS], coherence[:BITS] (BITS up to 16), shader or none (sort, off: material, none); the cpu emulator and the ser path reorder threads, the rt-sorted and rayquery wavefronts sort hits by the same keys, the rt path never reorders")
	f.Bool("reorder-hint", d.ReorderHint, "add coherence bits (path ends, roulette survived, light sampled) above the material in the reorder hint (turns --reorder material into coherence)")
	f.Int("spp", d.SPP, "samples per pixel (with --noise-threshold: the most a pixel takes)")
	f.Float32("noise-threshold", d.NoiseThreshold, "sample adaptively: a pixel stops once its estimated error (standard error over the square root of its luminance) is below this, as 0.01 (0: off, every pixel takes --spp)")
	f.Int("min-spp", d.MinSPP, "with --noise-threshold, the samples every pixel takes before it may stop (0: 16/threshold^0.3, at least 4: 64 at 0.01)")
	f.String("samples", d.Samples, "render only samples FIRST:COUNT of the --spp, as a slice (.exr) that sertrace merge adds to the others")
	f.String("res", d.Res, "resolution WxH (default: 800 wide, the camera's aspect ratio or 4:3)")
	f.Int("max-depth", d.MaxDepth, "maximum path length in bounces (1: direct light only)")
	f.Uint32("seed", d.Seed, "selects the random streams")
	f.String("camera", d.Camera, "camera by name or index")
	f.String("variant", d.Variant, "render the materials of this KHR_materials_variants variant (sertrace inspect lists them)")
	f.String("env-color", d.EnvColor, "constant environment radiance R,G,B (or one value)")
	f.String("env", d.Env, "equirectangular Radiance .hdr environment (replaces --env-color)")
	f.Float32("env-rotation", d.EnvRotation, "turn the --env map about +Y, in degrees")
	f.Float32("env-intensity", d.EnvIntensity, "scale the --env map's radiance")
	f.String("aov", "", "extra outputs beside the beauty: albedo, normal, depth, diffuse, specular, diffuse_albedo, specular_albedo (PFM), variance, cost, path_length, simt, samples (heatmap PNG), cryptomatte_object, cryptomatte_material, cryptomatte_asset (Cryptomatte layers of the EXR); in an EXR all are layers")
	f.Bool("light-groups", d.LightGroups, "write the beauty by light group (a node's extras.sertrace.light_group; the rest: unassigned) as layers lightgroup.NAME.R/G/B of the EXR, adding up to the beauty")
	f.String("env-light-group", d.EnvLightGroup, "the environment's light group with --light-groups (default: unassigned)")
	f.Int("cryptomatte-levels", render.DefaultCryptomatteLevels, "ranks (IDs with their coverage) each Cryptomatte matte keeps a pixel")
	f.Float32("exposure", d.Exposure, "exposure in stops for PNG output")
	f.String("filter", d.Filter, "pixel filter: box, gaussian or blackman-harris")
	f.String("tonemap", d.ToneMap, "tone curve for PNG output: linear, filmic, aces or agx")
	f.Float32("aperture-radius", d.ApertureRadius, "thin-lens radius in metres, overriding the camera's extras (0: pinhole; -1, the default: the camera's own)")
	f.Float32("focus-distance", d.FocusDistance, "distance in focus in metres, overriding the camera's extras (-1, the default: the camera's own)")
	f.Int("threads", d.Threads, "CPU threads (0: all)")
	f.String("memory-budget", d.MemoryBudget, "refuse a render that would need more memory than this (8G, 512M; default: the cgroup's limit, the address-space limit or the machine's memory)")
	f.String("light-sampler", "tree", "how next-event estimation chooses a light: tree (a light tree, by each light's estimated contribution at the shading point; infinite lights by power against it) or power (by estimated power alone)")
	f.String("accel", d.Accel, "the cpu backend's tracer: embree (Intel Embree 3, loaded at run time), bvh (sertrace's own) or auto (Embree where it loads)")
	f.String("stats", "", "write the render's statistics to this JSON file")
	f.String("cpuprofile", "", "write a CPU profile of the render (go tool pprof) to this file")
	f.Float64("time-budget", d.TimeBudget, "stop after this many seconds (at a pass boundary), before --spp if need be")
	f.Bool("exr-half", d.EXRPrecision == "half", "store EXR channels as half floats")
	f.Bool("denoise", false, "denoise the beauty (the noisy one is written beside it as NAME.noisy.EXT)")
	f.String("progress", "auto", "how progress is told: auto (a bar on a terminal, else a line every 10 s on stderr) or json (JSON lines on stdout: progress, pass, preview, done, error; see the guide)")
	f.String("preview", "", "write the image rendered so far to this .exr, .pfm or .png after a pass, at most every --preview-every seconds")
	f.Float64("preview-every", 2, "seconds at least between two --preview writes")
	addDenoiserFlags(f)
	return cmd
}

// settingsOf reads the render settings from their flags (each setting's
// key with - for _; exr_precision is --exr-half).
func settingsOf(v *viper.Viper) render.Settings {
	var s render.Settings
	render.EachSetting(&s, func(key string, field reflect.Value) {
		flag := strings.ReplaceAll(key, "_", "-")
		switch field.Kind() {
		case reflect.String:
			field.SetString(v.GetString(flag))
		case reflect.Int:
			field.SetInt(int64(v.GetInt(flag)))
		case reflect.Uint32:
			field.SetUint(uint64(v.GetUint32(flag)))
		case reflect.Float32, reflect.Float64:
			field.SetFloat(v.GetFloat64(flag))
		case reflect.Bool:
			field.SetBool(v.GetBool(flag))
		default:
			panic("settingsOf: no flag reader for setting " + key) // TestEveryFlagReachesTheSettings
		}
	})
	s.EXRPrecision = "float"
	if v.GetBool("exr-half") {
		s.EXRPrecision = "half"
	}
	return s.Canonical() // as a batch job's: one render, one key
}

func runRender(cmd *cobra.Command, v *viper.Viper, scenePath string) (err error) {
	stderr := cmd.ErrOrStderr()
	intr := interruptsOf(cmd)
	var bar *progressBar // once the render runs, lines are written above it
	switch mode := v.GetString("progress"); mode {
	case "auto":
	case "json":
		// Its lines start now: an error loading the scene is one of them.
		bar = newJSONProgress(cmd.OutOrStdout(), stderr, v.GetInt("spp"))
		defer func() { bar.failed(err) }()
	default:
		return usagef("--progress %q: want %s", mode, strings.Join(progressModes, " or "))
	}
	newBar := func() *progressBar {
		if bar != nil && bar.json != nil {
			bar.begin()
			return bar
		}
		return newProgressBar(stderr)
	}
	out := v.GetString("output")
	if out == "" {
		out = strings.TrimSuffix(filepath.Base(scenePath), filepath.Ext(scenePath)) + ".png"
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".exr", ".pfm", ".png":
	default:
		return usagef("output %q: the extension must be .exr, .pfm or .png", out)
	}
	preview, previewEvery := v.GetString("preview"), time.Duration(v.GetFloat64("preview-every")*float64(time.Second))
	switch ext := strings.ToLower(filepath.Ext(preview)); {
	case preview == "":
	case ext != ".exr" && ext != ".pfm" && ext != ".png":
		return usagef("--preview %q: the extension must be .exr, .pfm or .png", preview)
	case !(previewEvery >= 0):
		return usagef("--preview-every %v: want seconds, 0 or more", v.GetFloat64("preview-every"))
	}
	settings := settingsOf(v)
	// Values that are wrong whatever the scene are bad usage, said before loading it.
	if err := settings.Check(); err != nil {
		return settingError(err)
	}
	aovs, err := parseAOVs(v.GetString("aov"))
	if err != nil {
		return usagef("--aov: %v", err)
	}
	denoised := v.GetBool("denoise")
	if err := render.CheckLayerOutputs(out, aovs, settings.LightGroups); err != nil {
		return usagef("%v", err)
	}
	if settings.Samples != "" {
		switch {
		case strings.ToLower(filepath.Ext(out)) != ".exr":
			return usagef("--samples: a slice is written as an EXR (-o NAME.exr), which sertrace merge reads")
		case denoised:
			return usagef("--samples: a slice is not denoised; denoise the merged image (sertrace merge --denoise)")
		case len(aovs) > 0:
			return usagef("--samples: a slice holds every AOV; ask the merge for them (sertrace merge --aov)")
		}
	}
	// Nothing the render writes may be what it reads, or write over another
	// of its outputs; and each must have a folder to go to.
	outputs := append(imageFiles(out, aovs, denoised), file{"--stats", v.GetString("stats")}, file{"--cpuprofile", v.GetString("cpuprofile")}, file{"--preview", preview})
	if err := checkOutputs(outputs, renderInputs(v, scenePath, settings)); err != nil {
		return err
	}
	if denoised {
		if err := checkDenoiser(v); err != nil {
			return err // before the render, not after it
		}
	}
	if path := v.GetString("cpuprofile"); path != "" {
		stop, err := startCPUProfile(path, stderr)
		if err != nil {
			return err
		}
		defer stop()
	}
	note := func(line string) {
		if bar != nil {
			bar.println(line)
			return
		}
		fmt.Fprintln(stderr, line)
	}
	j, err := job.Prepare(job.Spec{Scene: scenePath, Settings: settings, AOVs: aovs, Note: note})
	if err != nil {
		return settingError(err)
	}
	ctx := intr.stage("the render stops at the end of its pass, and what it rendered is written")
	if settings.Samples != "" {
		// An interrupted slice is written with the passes it completed,
		// to be completed by a slice of the samples after them: a cut pass
		// adds nothing.
		j.Options.WholePasses = true
	}
	if preview != "" || bar != nil {
		if err := followPasses(j, preview, previewEvery, bar, note); err != nil {
			return err
		}
	}
	opts, display := j.Options, j.Display
	w, h := opts.Width, opts.Height

	layers, err := j.Layers(aovs, denoised, settings.MemoryBudget)
	var overBudget *render.MemoryError
	var stats *render.Stats
	var renderErr error
	var written []string
	switch {
	case errors.As(err, &overBudget):
		// Too large for one film: rendered in bands streamed into the EXR,
		// where nothing needs the whole film.
		why := "does not fit the memory budget in one film"
		var rows int
		if layers, rows, err = j.Plan(out, aovs, denoised, settings.MemoryBudget, err); err != nil {
			return fmt.Errorf("%s: %w", scenePath, err)
		}
		note(fmt.Sprintf("%dx%d %s: rendering it in bands of %d rows, each written to %s as it is done", w, h, why, rows, out))
		if preview != "" {
			note(fmt.Sprintf("--preview %s: a render in bands has no image so far to write; each band is in %s as it is done", preview, out))
		}
		j.Options.AfterPass = nil // bands have no passes of the whole image
		bar = newBar()
		var done int
		stats, renderErr, done, err = j.Bands(ctx, out, layers, rows, bar.update, intr.write)
		bar.finish()
		if err != nil {
			return err
		}
		if stats.Partial {
			if err := writeStats(intr, v.GetString("stats"), stats); err != nil {
				return err
			}
			what := "interrupted"
			if renderErr != nil && !errors.Is(renderErr, context.Canceled) {
				what = renderErr.Error()
			}
			kept := "no band was finished: the first band's passes done, the rest black"
			if done > 0 {
				kept = fmt.Sprintf("rows 0..%d of %d, the bands rendered whole, then the passes done of the band cut short, the rest black", done-1, h)
			}
			bar.event(jsonLine{Event: "done", Files: []string{out}, Partial: true})
			return fmt.Errorf("%s: wrote a partial image to %s, marked partial: %s; run the same render again to continue it", what, out, kept)
		}
		written = []string{out}
	case err != nil:
		return fmt.Errorf("%s: %w", scenePath, err)
	default:
		film := j.Options.NewFilm(w, h, layers)
		bar = newBar()
		stats, renderErr = j.Render(ctx, film, bar.update)
		bar.finish()
		if stats == nil {
			return renderErr
		}
		// A failure that ends a render after some passes (a lost device) keeps
		// them: they are written, marked partial, and the error is still reported.
		if renderErr != nil && !errors.Is(renderErr, context.Canceled) && film.Samples == 0 {
			return renderErr
		}
		if film.Samples == 0 {
			return fmt.Errorf("interrupted before the first pass finished: nothing written")
		}
		if settings.Samples != "" {
			defer intr.write(out)()
			return writeSlice(stderr, scenePath, out, settings, opts, display, film, stats, renderErr)
		}
		// The images are written whole, denoised where asked: an interrupt
		// now says so, the next one aborts.
		done := intr.write(out)
		writeStart := time.Now()
		written, err = writeImages(stderr, v, out, film, display, aovs, stats.Backend, stats.DeviceIndex)
		done()
		if err != nil {
			return err
		}
		stats.WriteSeconds = time.Since(writeStart).Seconds()
	}
	if err := writeStats(intr, v.GetString("stats"), stats); err != nil {
		return err
	}
	on := fmt.Sprintf("%s (%d threads", stats.Backend, stats.Threads)
	if stats.Accel != "" {
		on = fmt.Sprintf("%s (%s, %d threads", stats.Backend, stats.Accel, stats.Threads)
	}
	if stats.Device != "" {
		on = fmt.Sprintf("%s, path %s (%s", stats.Device, stats.Path, stats.Backend)
	}
	bar.event(jsonLine{Event: "done", Files: written, Partial: stats.Partial || renderErr != nil})
	spp := fmt.Sprintf("%d spp", stats.SamplesPerPixel)
	if a := stats.Adaptive; a != nil {
		spp = fmt.Sprintf("%.1f spp on average (at most %d; %.0f%% of the pixels stopped below noise threshold %g)",
			a.MeanSamples, a.MaxSamples, 100*float64(a.Stopped)/float64(max(a.Pixels, 1)), a.Threshold)
	}
	fmt.Fprintf(stderr, "rendered %s: %dx%d, %s, depth %d, in %.2f s on %s, build %.2f s): %.3g samples/s, %.3g rays/s -> %s\n",
		scenePath, w, h, spp, opts.MaxDepth, stats.RenderSeconds, on, stats.BuildSeconds,
		stats.SamplesPerSec, stats.RaysPerSec, strings.Join(written, ", "))
	if renderErr != nil && !errors.Is(renderErr, context.Canceled) {
		return fmt.Errorf("%w; the %d samples per pixel before it were written to %s, marked partial", renderErr, stats.SamplesPerPixel, out)
	}
	if stats.Partial {
		return fmt.Errorf("interrupted: wrote a partial image (%d of %d samples per pixel) to %s", stats.SamplesPerPixel, opts.SPP, out)
	}
	return nil
}

// followPasses has the job's render, after each pass but its last, tell
// the pass to bar (the JSON lines, or nil) and write the image so far to
// preview (if any, at most every so often). It refuses a preview of an
// image larger than sertrace writes a pass's film of (a checkpoint's
// limit).
func followPasses(j *job.Job, preview string, every time.Duration, bar *progressBar, note func(string)) error {
	if w, h := j.Options.Width, j.Options.Height; w*h > render.MaxFilePixels {
		if preview != "" {
			return usagef("--preview: a %dx%d image is larger than the %d pixels an image so far is written for", w, h, render.MaxFilePixels)
		}
		return nil // JSON lines without passes
	}
	display := j.Display
	var last time.Time
	j.Options.AfterPass = func(film *render.Film) {
		bar.pass(film.Samples)
		if preview == "" || time.Since(last) < every {
			return
		}
		last = time.Now()
		if err := render.WriteAOV(preview, film, render.AOVBeauty, display); err != nil {
			note(fmt.Sprintf("--preview: %v", err))
			return
		}
		s := float64(film.Samples)
		bar.event(jsonLine{Event: "preview", Path: preview, Samples: &s})
	}
	return nil
}

// writeStats writes a render's statistics to path (--stats), if any.
func writeStats(intr *interrupts, path string, stats *render.Stats) error {
	if path == "" {
		return nil
	}
	defer intr.write(path)()
	return atomicfile.WriteJSON(path, stats)
}

// imageFiles are the images a render or a merge writes to out: out, the
// noisy one beside it where denoised, and the AOVs that are files of
// their own (imageOutputs).
func imageFiles(out string, aovs []render.AOV, denoised bool) []file {
	var files []file
	for _, o := range imageOutputs(out, aovs) {
		what := "-o"
		if o.AOV != render.AOVBeauty {
			what = "--aov " + string(o.AOV)
		}
		files = append(files, file{what, o.Path})
	}
	if denoised {
		files = append(files, file{"the noisy image of -o", job.NoisyPath(out)})
	}
	return files
}

// imageOutputs are the files a film is written to at out: the beauty (an
// EXR with its AOVs as layers), and beside it each AOV that is not a layer
// (a PFM, or a heatmap's PNG).
func imageOutputs(out string, aovs []render.AOV) []job.Output {
	outs := []job.Output{{Path: out, AOV: render.AOVBeauty}}
	exr := strings.EqualFold(filepath.Ext(out), ".exr")
	for _, a := range aovs {
		ext := ".pfm"
		if slices.Contains(render.Heatmaps, a) {
			ext = ".png" // a heatmap with its legend
		} else if exr {
			continue // a layer of the EXR
		}
		outs = append(outs, job.Output{Path: strings.TrimSuffix(out, filepath.Ext(out)) + "." + string(a) + ext, AOV: a})
	}
	return outs
}

// renderInputs are the files a render reads: the scene, the buffers and
// images it names, the environment map and the config file.
func renderInputs(v *viper.Viper, scenePath string, s render.Settings) []file {
	inputs := []file{{"the scene", scenePath}, {"--env", s.Env}, {"--config", v.ConfigFileUsed()}}
	resources, _ := scene.Resources(scenePath) // a scene that does not read fails when it loads
	for _, r := range resources {
		inputs = append(inputs, file{"the scene's file", filepath.Join(filepath.Dir(scenePath), r)})
	}
	return inputs
}

// startCPUProfile profiles the process into path, written whole (or not
// at all) when stop is called.
func startCPUProfile(path string, stderr io.Writer) (stop func(), err error) {
	t, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(t); err != nil {
		t.Discard()
		return nil, fmt.Errorf("--cpuprofile: %v", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := t.Commit(); err != nil {
			fmt.Fprintf(stderr, "%s: --cpuprofile: %v\n", programName, err)
		}
	}, nil
}

// settingError shows a bad setting as the flag it came from (exit status 2);
// other errors stay failures (exit status 1).
func settingError(err error) error {
	var se *render.SettingError
	if !errors.As(err, &se) {
		return err
	}
	if se.Key == "settings" {
		return usagef("%v", se.Err)
	}
	return usagef("--%s: %v", strings.ReplaceAll(se.Key, "_", "-"), se.Err)
}

func parseAOVs(s string) ([]render.AOV, error) {
	var out []render.AOV
	for _, name := range strings.Split(s, ",") {
		a := render.AOV(strings.TrimSpace(name))
		switch {
		case a == "":
		case a != render.AOVBeauty && slices.Contains(render.AOVs, a):
			out = append(out, a)
		default:
			return nil, fmt.Errorf("unknown AOV %q (%s)", name, render.AOVNames(render.AOVs[1:])) // AOVs[0] is the beauty
		}
	}
	return out, nil
}

// writeSlice writes a slice render's film (what it holds, if it was
// stopped early) for sertrace merge.
func writeSlice(stderr io.Writer, scenePath, out string, settings render.Settings, opts render.Options, display render.Display, film *render.Film, stats *render.Stats, renderErr error) error {
	var env []string
	if settings.Env != "" {
		env = append(env, settings.Env)
	}
	content, err := scene.ContentHash(scenePath, env...)
	if err != nil {
		return err
	}
	info := render.SliceInfo{Scene: scenePath, Content: content, Build: render.BuildID(), Tracer: render.Tracer(stats), Settings: settings, SPP: opts.SPP}
	if err := render.WriteSlice(out, film, info, display); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "rendered %s: samples %d:%d of %d, %dx%d, in %.2f s on %s -> %s\n",
		scenePath, film.First, film.Samples, opts.SPP, opts.Width, opts.Height, stats.RenderSeconds, info.Tracer, out)
	if renderErr != nil && !errors.Is(renderErr, context.Canceled) {
		return fmt.Errorf("%w; samples %d:%d, the ones before it, were written to %s", renderErr, film.First, film.Samples, out)
	}
	if film.Partial {
		return fmt.Errorf("interrupted: wrote samples %d:%d of the slice %d:%d to %s; render samples %d:%d to complete it", film.First, film.Samples, opts.First, opts.Count, out, film.First+film.Samples, opts.First+opts.Count-film.First-film.Samples)
	}
	return nil
}

// writeImages writes a film as render and merge do: the image at out (and
// the noisy one beside it, where --denoise asks, denoised on the backend
// and device the render ran on) and the --aov outputs beside it. It
// returns the files written.
func writeImages(stderr io.Writer, v *viper.Viper, out string, film *render.Film, display render.Display, aovs []render.AOV, ranOn string, device int) ([]string, error) {
	d := job.Denoise{On: v.GetBool("denoise"), Name: v.GetString("denoiser"), Passes: v.GetInt("denoise-passes")}
	film.Keep(render.LayersFor(aovs, d.On)) // a merge's film holds every layer; its image what is asked
	if film.Coverage != nil {
		film.Coverage.Mattes = nil // the mattes asked for (a merge's film holds the slices')
		for _, a := range aovs {
			if slices.Contains(render.CryptoAOVs, a) {
				film.Coverage.Mattes = append(film.Coverage.Mattes, a)
			}
		}
	}
	written, _, err := job.Write(context.Background(), film, display, imageOutputs(out, aovs), d, ranOn, device, func(line string) { fmt.Fprintln(stderr, line) })
	return written, err
}
