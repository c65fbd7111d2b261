package denoise_test

import (
	"context"
	"math"
	"os"
	"sertrace/render"
	"testing"

	"sertrace/denoise"
	"sertrace/render/vulkan"
)

// TestGPUMatchesCPU: the compute shader's regression filter gives the CPU's
// result on a noisy Cornell box, to float rounding (the weights' exp is
// float32 on the GPU, float64 in Go), and does filter (it is not the input).
func TestGPUMatchesCPU(t *testing.T) {
	devs, err := vulkan.Devices()
	if err != nil || len(devs) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs a Vulkan device for the GPU denoiser: %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	t.Setenv("SERTRACE_VULKAN_VALIDATION", "1")
	film := renderCornell(t, 8, 1)
	cpu, err := denoise.Film(context.Background(), film, denoise.Regression(denoise.Defaults, denoise.RegressCPU))
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := denoise.Film(context.Background(), film, denoise.Regression(denoise.Defaults, denoise.GPU(-1)))
	if err != nil {
		t.Fatal(err)
	}
	var maxDiff, changed float64
	cb, gb, nb := &cpu.Sums[render.LayerBeauty], &gpu.Sums[render.LayerBeauty], &film.Sums[render.LayerBeauty]
	for i := range cb.Len() {
		a, b := cb.Value(i)/float64(film.Samples), gb.Value(i)/float64(film.Samples)
		maxDiff = math.Max(maxDiff, math.Abs(a-b)/math.Max(1, math.Abs(a)))
		changed = math.Max(changed, math.Abs(a-nb.Value(i)/float64(film.Samples)))
	}
	t.Logf("largest relative difference %.2g; largest change by filtering %.3g", maxDiff, changed)
	if maxDiff > 1e-3 {
		t.Errorf("GPU and CPU denoised values differ by up to %.2g (relative)", maxDiff)
	}
	if changed < 1e-2 {
		t.Error("the denoiser changed nothing: the test checks nothing")
	}
}
