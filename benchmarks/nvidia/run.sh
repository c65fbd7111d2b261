#!/usr/bin/env bash
# One call's worth of NVIDIA measurements for a session lent the GPU machine
# (../shared/GPU.md): run from the checkout's root there, with .gl/ (the
# Vulkan loader and validation layer .debs) and .gpu/sertrace (built here
# with `go build -o .gpu/sertrace ./app`) carried, and $OUT set by the tool.
#
#   run: bash benchmarks/nvidia/run.sh            (carry: .gl, .gpu)
#
# RES, SPP and BENCH override the renders' size and samples and the suite
# (RES=32x24 SPP=1 BENCH=configs/bench-smoke.yaml tries the script on
# lavapipe). It installs the loader, records the device, renders every sample scene on
# each path (stats JSON and EXRs, to compare the paths with afterwards), and
# runs configs/bench-full.yaml with the GPU backends. Everything lands in $OUT; copy what is worth keeping to
# benchmarks/results/<device>/.
set -uo pipefail
OUT=${OUT:-/tmp/sertrace-nvidia}
RES=${RES:-640x480}                    # the renders' size and samples
SPP=${SPP:-64}
BENCH=${BENCH:-configs/bench-full.yaml} # the benchmark suite
mkdir -p "$OUT"
bin=.gpu/sertrace
if [ ! -x "$bin" ]; then
	echo "no $bin: build it with go build -o .gpu/sertrace ./app and carry .gpu" >&2
	exit 1
fi
if ! ldconfig -p | grep -q libvulkan.so.1; then
	for f in .gl/*.deb; do dpkg -x "$f" /; done
	ldconfig
fi
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
	export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
{
	nvidia-smi -L
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
} > "$OUT/nvidia-smi.txt" 2>&1
"$bin" devices > "$OUT/devices.txt" 2>&1
"$bin" devices --json > "$OUT/devices.json" 2> "$OUT/devices.err"
cat "$OUT/devices.txt"

# Every sample scene on every path, with validation once (first scene) and
# without it for the timings.
for scene in cornell hair particles hairy-cornell; do
	for path in ser rt rayquery; do
		SERTRACE_VULKAN_VALIDATION=$([ "$scene" = cornell ] && echo 1 || echo 0) \
			timeout 120 "$bin" render "scenes/$scene.glb" --backend vulkan --path "$path" --res "$RES" --spp "$SPP" \
			--env-color 0.3,0.35,0.4 -o "$OUT/$scene-$path.exr" --aov cost --stats "$OUT/$scene-$path.json" \
			> "$OUT/$scene-$path.log" 2>&1
		echo "$scene $path: exit $? $(tail -1 "$OUT/$scene-$path.log")"
	done
done

# The benchmark: GPU paths and the CPU emulator's predictions, one device.
timeout 420 "$bin" bench "$BENCH" --out "$OUT/bench" > "$OUT/bench.log" 2>&1
echo "bench: exit $?"
tail -3 "$OUT/bench.log"
