#!/usr/bin/env bash
# Compiles the shaders to SPIR-V for Vulkan 1.2 with Debian's glslangValidator
# and checks each module with spirv-val. The SPIR-V is committed (spv/) and
# embedded in the binary; a test fails when it is stale. Run after editing
# a shader, the layout header (go generate ./render/layout) or the kernel
# (go generate ./render/kernel).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p spv
build() { # source output [defines...]
	local src=$1 out=$2
	shift 2
	glslangValidator --quiet --target-env vulkan1.2 -V "$@" -o "spv/$out.spv" "$src"
	spirv-val --target-env vulkan1.2 --scalar-block-layout "spv/$out.spv"
}
build raygen.rgen raygen.rgen
build raygen.rgen raygen_ser.rgen -DSER
build raygen.rgen raygen_clock.rgen -DCLOCK
build raygen.rgen raygen_ser_clock.rgen -DSER -DCLOCK
build miss.rmiss miss.rmiss
build shadow.rmiss shadow.rmiss
build surface.rchit surface.rchit -DSURFACE
build surface.rchit hair.rchit -DHAIR
build alpha.rahit alpha.rahit
build sphere.rint sphere.rint
build swept.rint swept.rint
for stage in generate scan scatter advance resolve; do
	build wave_$stage.comp wave_$stage.comp
done
build rq_trace.comp rq_trace.comp
build rq_shade.comp rq_shade.comp
build rts_trace.rgen rts_trace.rgen
# The sort's counts and scatter aggregated per subgroup (wave.glsl's
# takeCounter), where the device has subgroup ballots.
build wave_scatter.comp wave_scatter_subgroup.comp -DSUBGROUP_SORT
build rq_trace.comp rq_trace_subgroup.comp -DSUBGROUP_SORT
build rts_trace.rgen rts_trace_subgroup.rgen -DSUBGROUP_SORT
build rts_shade.rgen rts_shade.rgen
build record.rchit record.rchit
build record.rmiss record.rmiss
build denoise.comp denoise.comp
build probe.comp probe.comp
build probe_scene.comp probe_scene.comp
