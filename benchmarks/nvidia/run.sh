#!/usr/bin/env bash
# One call's worth of NVIDIA measurements for a session lent the GPU machine
# (../shared/GPU.md), run from the checkout's root there, with $OUT set by
# the tool and these carried (all ignored by git):
#
#   .gl/                 .debs: libvulkan1 vulkan-validationlayers libglvnd0 libglx0
#                        libegl1 libgl1 libopengl0 libgles2
#   .gpu/sertrace        go build -ldflags "-s -w" -o .gpu/sertrace ./app
#   .gpu/vulkan.test     go test -c -tags long -ldflags "-s -w" -o .gpu/vulkan.test ./render/vulkan
#   .gpu/shared-scenes/  the shared scenes TestSharedMaterialScenesMatchCPU reads
#
#   run: bash benchmarks/nvidia/run.sh            (carry: .gl, .gpu)
#
# In order, each step under its own time limit so that the whole fits one
# call: the device as the driver reports it; the pipeline builds, cold (the
# driver's disk cache off, sertrace's pipeline cache empty), from
# sertrace's cache alone, and warm (cache.txt); every sample scene on every
# path with the validation layer (PNG and stats: GPU time per sample); the
# Vulkan backend's tests (every path against the CPU backend, without the
# layer, whose Debian version is older than the driver; TESTS_RUN picks
# some); and the benchmark (BENCH, default configs/bench-full.yaml).
# Everything lands in $OUT/results.tgz, packed again after each step, and
# the tests' log beside it. RES, SPP, BENCH, TESTS_S and BENCH_S override
# the sizes and limits (RES=32x24 SPP=1 BENCH=configs/bench-smoke.yaml tries
# it on lavapipe; CACHE=0, RENDERS=0, TESTS_S=0 or BENCH_S=0 leaves that
# step out).
set -uo pipefail
shopt -s nullglob
OUT=${OUT:-/tmp/sertrace-nvidia}
RES=${RES:-640x480}
SPP=${SPP:-16}
BENCH=${BENCH:-configs/bench-full.yaml}
TESTS_S=${TESTS_S:-200}
BENCH_S=${BENCH_S:-250}
R=$(mktemp -d)
mkdir -p "$OUT"
# pack writes the archive beside and renames it, so that a call killed while
# packing keeps the last whole one.
pack() { tar czf "$OUT/.results.tgz" -C "$R" . && mv "$OUT/.results.tgz" "$OUT/results.tgz"; }
failed=0 # the steps that failed, counted
bin=$PWD/.gpu/sertrace
if [ ! -x "$bin" ]; then
	echo "no $bin: build it (see the head of this script) and carry .gpu" >&2
	exit 1
fi
# The loader and GLVND's dispatch libraries: NVIDIA's Vulkan driver lives in
# libGLX_nvidia, which returns no vkCreateInstance without libGLdispatch.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
	export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
{
	date -u
	nvidia-smi -L
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit --format=csv
	nproc
	grep -m1 'model name' /proc/cpuinfo
} > "$R/machine.txt" 2>&1
cat "$R/machine.txt"
"$bin" devices 2>&1 | tee "$R/devices.txt"
"$bin" devices --json > "$R/devices.json" 2> "$R/devices.err"
pack

# Pipeline builds per path: each render its own process, its build time
# (device, structures, pipeline) from --stats. NVIDIA's driver keeps its
# own disk cache (__GL_SHADER_DISK_CACHE=0 turns it off); sertrace's cache
# lives in SERTRACE_CACHE_DIR.
if [ "${CACHE:-1}" != 0 ]; then
	export SERTRACE_CACHE_DIR=$R/pipeline-cache
	for path in rt ser rt-sorted; do
		rm -rf "$SERTRACE_CACHE_DIR"
		for state in cold sertrace-cache; do
			__GL_SHADER_DISK_CACHE=0 timeout 60 "$bin" render scenes/cornell.glb --backend vulkan --path "$path" --res 64x48 --spp 1 \
				-o "$R/cache-$path-$state.png" --stats "$R/cache-$path-$state.json" > "$R/cache-$path-$state.log" 2>&1
			echo "$path $state: exit $? $(grep -o '"build_seconds": [0-9.e+-]*' "$R/cache-$path-$state.json" 2>/dev/null)"
		done
		timeout 60 "$bin" render scenes/cornell.glb --backend vulkan --path "$path" --res 64x48 --spp 1 -o "$R/cache-$path-warm.png" > /dev/null 2>&1
		timeout 60 "$bin" render scenes/cornell.glb --backend vulkan --path "$path" --res 64x48 --spp 1 \
			-o "$R/cache-$path-warm.png" --stats "$R/cache-$path-warm.json" > "$R/cache-$path-warm.log" 2>&1
		echo "$path driver-and-sertrace-caches-warm: exit $? $(grep -o '"build_seconds": [0-9.e+-]*' "$R/cache-$path-warm.json" 2>/dev/null)"
	done 2>&1 | tee "$R/cache.txt"
	ls -la "$SERTRACE_CACHE_DIR"/pipelines >> "$R/cache.txt" 2>&1
	unset SERTRACE_CACHE_DIR
	pack
fi

# Every sample scene on every path, with the validation layer (a message
# fails the render and is printed).
[ "${RENDERS:-1}" = 0 ] || for scene in cornell hair particles hairy-cornell; do
	for path in ser rt rt-sorted rayquery; do
		SERTRACE_VULKAN_VALIDATION=1 timeout 60 "$bin" render "scenes/$scene.glb" --backend vulkan --path "$path" \
			--res "$RES" --spp "$SPP" --env-color 0.3,0.35,0.4 -o "$R/$scene-$path.png" --stats "$R/$scene-$path.json" \
			> "$R/$scene-$path.log" 2>&1
		rc=$?
		[ "$rc" = 0 ] || [ "$path" = rayquery ] || failed=$((failed + 1)) # a device may lack ray queries
		echo "$scene $path: exit $rc $(tail -c 300 "$R/$scene-$path.log" | tail -1)"
	done
done
pack

# The Vulkan backend's tests, every path the device offers against the CPU.
if [ -x .gpu/vulkan.test ] && [ "$TESTS_S" != 0 ]; then
	[ "$TESTS_S" -gt 10 ] || TESTS_S=10
	if [ -d .gpu/shared-scenes ] && [ ! -e ../shared/scenes ] && mkdir -p ../shared 2>/dev/null; then
		ln -sfn "$PWD/.gpu/shared-scenes" ../shared/scenes # -f: a dangling link left before
	fi
	(cd render/vulkan && SERTRACE_VULKAN_VALIDATION=0 timeout "$TESTS_S" ../../.gpu/vulkan.test -test.v \
		-test.run "${TESTS_RUN:-.}" -test.timeout "$((TESTS_S - 5))s") > "$R/vulkan-tests.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] || failed=$((failed + 1))
	echo "vulkan tests: exit $rc"
	cp "$R/vulkan-tests.log" "$OUT/"
	grep -E '^(--- |ok|FAIL|PASS|panic)|^    --- FAIL' "$R/vulkan-tests.log" | head -80
	pack
fi

# The benchmark: the GPU paths and the CPU emulator's predictions
# (BENCH_S=0 leaves it for another call).
if [ "$BENCH_S" = 0 ]; then
	echo "$failed steps failed"
	exit $((failed > 0))
fi
timeout "$BENCH_S" "$bin" bench "$BENCH" --out "$R/bench" > "$R/bench.log" 2>&1
rc=$?
[ "$rc" = 0 ] || failed=$((failed + 1))
echo "bench: exit $rc"
tail -5 "$R/bench.log"
[ -f "$R/bench/report.md" ] && cat "$R/bench/report.md" | head -60
pack
ls -la "$OUT"
echo "$failed steps failed"
exit $((failed > 0))
