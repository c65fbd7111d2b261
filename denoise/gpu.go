package denoise

import (
	"sertrace/render/layout"
	"sertrace/render/vulkan"
)

// GPU runs the regression filter in the Vulkan backend's compute shader on
// device (−1: the first that can), with the validation layer when
// SERTRACE_VULKAN_VALIDATION asks for it.
func GPU(device int) Regressor {
	return func(j *layout.DenoiseJob) ([]float32, error) {
		return vulkan.Denoiser{Device: device, Validation: vulkan.ValidationRequested()}.Regress(j)
	}
}

// On is the regressor for a render that ran on a backend: after a Vulkan
// render, the compute shader on the device that rendered (falling back to
// the CPU, said through note, when it cannot run, and for the rest of the
// image's parts too); the CPU otherwise.
func On(backend string, device int, note func(string)) Regressor {
	if backend != "vulkan" {
		return RegressCPU
	}
	gpu := GPU(device)
	failed := false
	return func(j *layout.DenoiseJob) ([]float32, error) {
		if failed {
			return RegressCPU(j)
		}
		out, err := gpu(j)
		if err != nil {
			failed = true
			note("denoise: the GPU filter failed (" + err.Error() + "); filtering on the cpu")
			return RegressCPU(j)
		}
		return out, nil
	}
}
