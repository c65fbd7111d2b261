package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sertrace/render"
)

func blenderVersion(blender string) (string, error) {
	out, err := exec.Command(blender, "-b", "--factory-startup", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v (Debian: apt-get install blender python3-numpy)", blender, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Blender ") {
			return strings.TrimSpace(line), nil
		}
	}
	return "", fmt.Errorf("%s --version printed no version", blender)
}

// run is what one renderer's process did.
type run struct {
	Seconds      float64 // sertrace: BVH build and render; Cycles: its render operator
	WriteSeconds float64 // writing the image after it
	Wall         float64 // the whole process, start to exit
	PeakRSS      uint64  // the process's largest resident set, bytes
	OwnPeak      float64 // Cycles' own report of its peak memory, MB (0: none)
	Tracer       string  // sertrace's CPU tracer
	Samples      float64 // pixel samples per second of Seconds
	MeanSPP      float64 // sertrace's samples a pixel, on average (adaptive: fewer than its spp)
}

// runMeasured runs cmd and fills r's wall time and peak resident set.
func runMeasured(cmd *exec.Cmd, r *run) ([]byte, error) {
	start := time.Now()
	out, err := cmd.CombinedOutput()
	r.Wall = time.Since(start).Seconds()
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.PeakRSS = uint64(ru.Maxrss) << 10 // Linux gives kB
		}
	}
	return out, err
}

// runSertrace renders with sertrace's CPU backend, with the AOVs aovs
// names (comma-separated; an EXR holds them as layers, the heatmaps come
// beside it).
func runSertrace(bin, gltfPath, exr string, s settings, aovs string) (run, error) {
	var r run
	stats := strings.TrimSuffix(exr, ".exr") + ".json"
	// GOMAXPROCS bounds Embree's build threads too, not only the render's.
	cmd := exec.Command(bin, "render", gltfPath, "--backend", "cpu", "--res", fmt.Sprintf("%dx%d", s.Width, s.Height),
		"--spp", strconv.Itoa(s.SPP), "--max-depth", strconv.Itoa(s.MaxDepth), "--filter", "box",
		"--threads", strconv.Itoa(s.Threads), "--env-color", fmt.Sprintf("%g,%g,%g", s.Env[0], s.Env[1], s.Env[2]),
		"--accel", s.Accel, "--camera", cameraName, "--aov", aovs, "-o", exr, "--stats", stats)
	if s.Threshold > 0 {
		cmd.Args = append(cmd.Args, "--noise-threshold", strconv.FormatFloat(s.Threshold, 'g', -1, 64))
	}
	if s.Seed != 0 {
		cmd.Args = append(cmd.Args, "--seed", strconv.Itoa(s.Seed))
	}
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", s.Threads))
	if out, err := runMeasured(cmd, &r); err != nil {
		return r, fmt.Errorf("sertrace render %s: %v\n%s", gltfPath, err, out)
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		return r, err
	}
	var st render.Stats
	if err := json.Unmarshal(data, &st); err != nil {
		return r, fmt.Errorf("%s: %v", stats, err)
	}
	r.Seconds, r.WriteSeconds, r.Tracer = st.BuildSeconds+st.RenderSeconds, st.WriteSeconds, st.Accel
	spp := float64(s.SPP)
	if st.Adaptive != nil {
		spp = st.Adaptive.MeanSamples
	}
	r.Samples, r.MeanSPP = float64(s.Width*s.Height)*spp/r.Seconds, spp
	return r, nil
}

var (
	renderSeconds = regexp.MustCompile(`(?m)^render_seconds ([0-9.]+)$`)
	saveSeconds   = regexp.MustCompile(`(?m)^save_seconds ([0-9.]+)$`)
	cyclesPeak    = regexp.MustCompile(`Peak:? ?([0-9.]+)M`)
)

func runCycles(blender, gltfPath, exr string, s settings) (run, error) {
	var r run
	script, err := scriptPath()
	if err != nil {
		return r, err
	}
	args := []string{"-b", "--factory-startup", "--python-exit-code", "1", "-P", script, "--",
		gltfPath, exr, strconv.Itoa(s.Width * s.cyclesScale()), strconv.Itoa(s.Height * s.cyclesScale()), strconv.Itoa(s.CyclesSPP),
		strconv.Itoa(s.MaxDepth), strconv.Itoa(s.Threads), "--camera", cameraName, "--env", fmt.Sprintf("%g,%g,%g", s.Env[0], s.Env[1], s.Env[2])}
	if s.Diffuse {
		args = append(args, "--diffuse")
	}
	if s.Multiscatter {
		args = append(args, "--multiscatter")
	}
	if s.NoTerminatorOffset {
		args = append(args, "--no-terminator-offset")
	}
	if s.TwoSidedEmission {
		args = append(args, "--two-sided-emission")
	}
	if s.HairBlack {
		args = append(args, "--hair-black")
	}
	if s.HairTubes {
		args = append(args, "--hair-tubes")
	}
	if s.Seed != 0 {
		args = append(args, "--seed", strconv.Itoa(s.Seed))
	}
	if s.CyclesAdaptive > 0 {
		args = append(args, "--adaptive", strconv.FormatFloat(s.CyclesAdaptive, 'g', -1, 64))
	}
	out, err := runMeasured(exec.Command(blender, args...), &r)
	if err != nil {
		return r, fmt.Errorf("blender (Cycles) %s: %v\n%s", gltfPath, err, tail(out))
	}
	m := renderSeconds.FindSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("blender (Cycles) %s printed no render time\n%s", gltfPath, tail(out))
	}
	r.Seconds, _ = strconv.ParseFloat(string(m[1]), 64)
	if m := saveSeconds.FindSubmatch(out); m != nil {
		r.WriteSeconds, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	for _, m := range cyclesPeak.FindAllSubmatch(out, -1) {
		if v, err := strconv.ParseFloat(string(m[1]), 64); err == nil {
			r.OwnPeak = max(r.OwnPeak, v)
		}
	}
	r.Samples = float64(s.Width*s.Height*s.CyclesSPP) / r.Seconds
	return r, nil
}

func tail(b []byte) []byte {
	if len(b) > 4000 {
		return b[len(b)-4000:]
	}
	return b
}

// scriptPath finds cycles.py beside this file's package in the module.
func scriptPath() (string, error) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "sertrace/benchmarks/cycles").Output()
	if err != nil {
		return "", fmt.Errorf("go list sertrace/benchmarks/cycles: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "cycles.py"), nil
}
