#!/usr/bin/env bash
# One call's worth of NVIDIA measurements for a session lent the GPU machine
# (../shared/GPU.md), run from the checkout's root there, with $OUT set by
# the tool and these carried (all ignored by git):
#
#   .gl/                 .debs: libvulkan1 vulkan-validationlayers libglvnd0 libglx0
#                        libegl1 libgl1 libopengl0 libgles2
#   .gpu/sertrace        go build -ldflags "-s -w" -o .gpu/sertrace ./app
#   .gpu/vulkan.test     go test -c -tags long -ldflags "-s -w" -o .gpu/vulkan.test ./render/vulkan
#                        (only for TESTS_S > 0)
#   .gpu/shared-scenes/  the shared scenes TestSharedMaterialScenesMatchCPU reads (tests only)
#
#   run: bash benchmarks/nvidia/run.sh            (carry: .gl, .gpu; timeout_s 600)
#
# In order, each step under its own time limit and all of them under
# TOTAL_S (default 420 s: the whole fits one call and a GPU session's
# minutes, with time left to rerun a step):
#
#   1. the machine, and the devices as the driver reports them, with the
#      path auto takes and why (devices.txt, devices.json);
#   2. devices --calibrate (CAL_S, 80 s): every path on the Cornell box,
#      which also builds each path's pipeline once into sertrace's cache
#      for the steps after it (calibrate.log, devices-calibrated.txt);
#   3. the kept-device check (KEPT_S, 70 s): cornell and hair on rt and
#      rt-sorted, with one device kept across every cell (the default) and
#      with a fresh device per cell (SERTRACE_KEEP_DEVICE=0), and each
#      cell's ratio (kept-kept/, kept-fresh/, kept.txt);
#   4. every sample scene on every path the device offers at 320x240
#      (SMALL_S, 60 s; the validation layer on: a message fails the render)
#      and at 1920x1080 (LARGE_S, 110 s; the layer off), each its own
#      process, with the GPU time per sample per pixel from --stats
#      (renders/, renders.txt);
#   5. the launches as the device runs them against their plain form, on
#      cornell and hairy-cornell sorted by material:16 (WAVE_S, 50 s;
#      wave-now/, wave-plain/, wave.txt): rt and ser a sample batch an
#      invocation (automatic: launches of about a million invocations)
#      against SERTRACE_RT_BATCH=pixel (one invocation a pixel); the
#      wavefronts (rt-sorted launched over the live paths, the sort's
#      atomics one a key a subgroup holds) against SERTRACE_WAVEFRONT=plain
#      (launches over every path slot, an atomic a path). bench adds the
#      unsorted cells: rayquery's is the same code in both runs, the
#      control for what drifts between them (on this shared 2-core
#      machine's lavapipe, 0.73-0.87: nothing to read there);
#   6. the reorder matrix on the GPU paths alone, in fewer rounds (MATRIX_S,
#      50 s; matrix/, matrix.yaml): the emulator's predictions need no GPU
#      and are in every earlier run;
#   7. devices again (devices-after.txt: the bench keeps its own calibration).
#
# Optional, off by default since they do not fit beside the above: CACHE=1,
# the pipeline builds cold, from sertrace's cache alone and warm per path
# (cache.txt; about 70 s); TESTS_S=200, the Vulkan backend's tests against
# the CPU (vulkan-tests.log; TESTS_RUN picks some).
#
# Everything lands in $OUT/results.tgz, one folder named for the GPU and
# its driver (nvidia-h200-driver580: `tar xzf results.tgz -C
# benchmarks/results`), packed again after each step, and summary.txt
# beside it. Sizes: SIZES ("320x240 1920x1080"; the first is the one with
# the validation layer), SPP (16), CAL_RES/CAL_SPP/CAL_RUNS (320x240, 4, 3),
# MATRIX_RES/MATRIX_SPP/MATRIX_REPEATS (320x240, 8, 3), KEPT_REPEATS (3),
# SCENES. On lavapipe, end to end in about four minutes:
#   SIZES="32x24 64x48" SPP=1 CAL_RES=16x12 CAL_SPP=1 CAL_RUNS=1 \
#   MATRIX_RES=16x12 MATRIX_SPP=1 MATRIX_REPEATS=1 KEPT_REPEATS=1 bash benchmarks/nvidia/run.sh
# (223 s there at 6657a2d, every step within its limit).
set -uo pipefail
shopt -s nullglob
OUT=${OUT:-/tmp/sertrace-nvidia}
TOTAL_S=${TOTAL_S:-420}
SIZES=${SIZES:-320x240 1920x1080}
SPP=${SPP:-16}
SCENES=${SCENES:-cornell hair particles hairy-cornell}
PATHS="ser rt rt-sorted rayquery"
CAL_S=${CAL_S:-80} CAL_RES=${CAL_RES:-320x240} CAL_SPP=${CAL_SPP:-4} CAL_RUNS=${CAL_RUNS:-3}
KEPT_S=${KEPT_S:-70} KEPT_REPEATS=${KEPT_REPEATS:-3}
SMALL_S=${SMALL_S:-60} LARGE_S=${LARGE_S:-110}
WAVE_S=${WAVE_S:-50}
MATRIX_S=${MATRIX_S:-50} MATRIX_RES=${MATRIX_RES:-320x240} MATRIX_SPP=${MATRIX_SPP:-8} MATRIX_REPEATS=${MATRIX_REPEATS:-3}
TESTS_S=${TESTS_S:-0}
mkdir -p "$OUT"
bin=$PWD/.gpu/sertrace
if [ ! -x "$bin" ]; then
	echo "no $bin: build it (see the head of this script) and carry .gpu" >&2
	exit 1
fi
# The loader and GLVND's dispatch libraries: NVIDIA's Vulkan driver lives in
# libGLX_nvidia, which returns no vkCreateInstance without libGLdispatch.
if [ -d .gl ] && [ "$(id -u)" = 0 ]; then
	for f in .gl/*.deb; do dpkg -x "$f" /; done
	ldconfig
fi
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
	export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi

# The results' folder: the GPU and its driver's major version, as the
# earlier runs' folders are named (nvidia-h200-driver580), or the first
# Vulkan device's name elsewhere (lavapipe).
name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 |
	awk -F', ' '{n=tolower($1); sub(/^nvidia /, "", n); split(n, w, " "); split($2, v, "."); if ($2 != "") print "nvidia-" w[1] "-driver" v[1]}')
if [ -z "$name" ]; then
	name=$("$bin" devices 2>/dev/null | awk 'NR==1{sub(/^[0-9]+: /, ""); sub(/ \(.*/, ""); print tolower($0)}' | tr -c 'a-z0-9\n' '-')
fi
name=${RESULTS_NAME:-${name:-unknown-gpu}}
top=$(mktemp -d)
R=$top/$name
mkdir -p "$R"
export SERTRACE_CACHE_DIR=$R/cache # calibrations and pipelines: this run's alone
# pack writes the archive beside and renames it, so that a call killed while
# packing keeps the last whole one; the pipeline cache (megabytes) stays out.
pack() { tar czf "$OUT/.results.tgz" --exclude=cache/pipelines -C "$top" "$name" && mv "$OUT/.results.tgz" "$OUT/results.tgz"; }
failed=0 # the steps that failed, counted
# step NAME LIMIT: starts a step; its limit is LIMIT or what TOTAL_S leaves,
# and a step with under 10 s left is skipped (1: skip it).
step() {
	local left=$((TOTAL_S - SECONDS))
	limit=$(($2 < left ? $2 : left))
	stepstart=$SECONDS
	if [ "$limit" -lt 10 ]; then
		echo "== $1: skipped, $left s of TOTAL_S=$TOTAL_S left" | tee -a "$R/steps.txt"
		return 1
	fi
	echo "== $1 (limit $limit s, at $SECONDS s)"
}
done_step() { echo "$1: $((SECONDS - stepstart)) s (limit $limit s)" | tee -a "$R/steps.txt"; }
# left_of DEADLINE: seconds until DEADLINE (of $SECONDS), at least 0.
left_of() { local l=$(($1 - SECONDS)); echo $((l > 0 ? l : 0)); }
# bench_pair NAME A LABEL_A B LABEL_B: within the step's limit, benches
# $R/NAME.yaml with the environment A ("VAR=VALUE ...", no spaces in a
# value; half what is left; into $R/NAME-LABEL_A/), then with B (the
# rest; $R/NAME-LABEL_B/), and writes each cell's medians and their ratio
# LABEL_B/LABEL_A ($R/NAME.txt).
bench_pair() {
	local name=$1 deadline=$((SECONDS + limit)) l rc
	local -a envs=("$2" "$4") labels=("$3" "$5")
	for i in 0 1; do
		l=$(left_of "$deadline")
		[ "$i" = 1 ] || l=$((l / 2))
		# shellcheck disable=SC2086 # the assignments are words
		env ${envs[$i]} timeout "$l" "$bin" bench "$R/$name.yaml" --out "$R/$name-${labels[$i]}" > "$R/$name-${labels[$i]}.log" 2>&1
		rc=$?
		[ "$rc" = 0 ] || failed=$((failed + 1))
		echo "$name, ${envs[$i]}: exit $rc"
	done
	local fa=$R/$name-${labels[0]}/results.csv fb=$R/$name-${labels[1]}/results.csv
	[ -f "$fa" ] && [ -f "$fb" ] || return 0
	awk -F, -v a="${labels[0]}" -v b="${labels[1]}" 'FNR==1 {next} FNR==NR {k[$1" "$3" "$4]=$6; next} ($1" "$3" "$4) in k && k[$1" "$3" "$4] > 0 {
		printf "%-18s %-10s %-12s %s %8.3f ms  %s %8.3f ms  %s/%s %.3f\n", $1, $3, $4, a, k[$1" "$3" "$4], b, $6, b, a, $6/k[$1" "$3" "$4]}' \
		"$fa" "$fb" | tee "$R/$name.txt"
}
# field NAME FILE: a number field of a stats JSON.
field() { grep -o "\"$1\": [0-9.e+-]*" "$2" 2>/dev/null | head -1 | awk '{print $2}'; }

{
	date -u
	nvidia-smi -L
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit --format=csv
	nproc
	grep -m1 'model name' /proc/cpuinfo
	"$bin" --version 2>/dev/null || true
	git log -1 --format='commit %H %s' 2>/dev/null || true
} > "$R/machine.txt" 2>&1
cat "$R/machine.txt"
"$bin" devices 2>&1 | tee "$R/devices.txt"
"$bin" devices --json > "$R/devices.json" 2> "$R/devices.err"
# offered PATH: whether the first device that runs a path offers PATH.
offered() { awk -v p="\"$1\": {" 'index($0, p) {getline; if ($0 ~ /"available": true/) found=1} END {exit !found}' "$R/devices.json"; }
pack

if step calibrate "$CAL_S"; then
	timeout "$limit" "$bin" devices --calibrate --calibrate-res "$CAL_RES" --calibrate-spp "$CAL_SPP" --calibrate-runs "$CAL_RUNS" \
		> "$R/devices-calibrated.txt" 2> "$R/calibrate.log"
	rc=$?
	[ "$rc" = 0 ] || failed=$((failed + 1))
	echo "calibrate: exit $rc"
	grep -E '^calibrated|auto:' "$R/calibrate.log" "$R/devices-calibrated.txt"
	cp "$SERTRACE_CACHE_DIR"/calibration/*.json "$R/" 2>/dev/null
	done_step calibrate
	pack
fi

# The GPU paths the device offers, for the matrices.
backends="" kept_backends=""
for p in rt ser rt-sorted; do offered "$p" && backends="$backends${backends:+, }\"vulkan:$p\""; done
for p in rt rt-sorted; do offered "$p" && kept_backends="$kept_backends${kept_backends:+, }\"vulkan:$p\""; done
scenes_yaml=""
for s in $SCENES; do scenes_yaml="$scenes_yaml${scenes_yaml:+, }$PWD/scenes/$s.glb"; done

if step kept "$KEPT_S"; then
	cat > "$R/kept.yaml" <<-EOF
		# Is one kept device as fast as a fresh device per cell? run.sh's step 3.
		scenes: [$PWD/scenes/cornell.glb, $PWD/scenes/hair.glb]
		res: $MATRIX_RES
		spp: $MATRIX_SPP
		max_depth: 8
		warmup: 1
		repeats: $KEPT_REPEATS
		reorder: [none]
		backends: [$kept_backends]
	EOF
	bench_pair kept SERTRACE_KEEP_DEVICE=1 kept SERTRACE_KEEP_DEVICE=0 fresh
	done_step kept
	pack
fi

# Every sample scene on every path the device offers, each render its own
# process: GPU time (timestamp queries around the launches) per sample per
# pixel, and the build (device, structures, pipeline from the cache).
first=1
printf '%-14s %-10s %-10s %4s %6s %10s %12s %8s\n' scene path size spp exit gpu_s ns/sample build_s > "$R/renders.txt"
mkdir -p "$R/renders"
for size in $SIZES; do
	if [ "$first" = 1 ]; then lim=$SMALL_S; val=1; else lim=$LARGE_S; val=0; fi
	first=0
	step "renders $size" "$lim" || continue
	deadline=$((SECONDS + limit))
	w=${size%x*} h=${size#*x}
	for scene in $SCENES; do
		for path in $PATHS; do
			offered "$path" || continue
			l=$(left_of "$deadline")
			[ "$l" -ge 3 ] || { echo "$scene $path $size: skipped, the step's limit reached" | tee -a "$R/renders.txt"; continue; }
			f=$R/renders/$scene-$path-$size
			SERTRACE_VULKAN_VALIDATION=$val timeout "$((l < 60 ? l : 60))" "$bin" render "scenes/$scene.glb" --backend vulkan --path "$path" \
				--res "$size" --spp "$SPP" --env-color 0.3,0.35,0.4 -o "$f.png" --stats "$f.json" > "$f.log" 2>&1
			rc=$?
			# a render the step's limit cut is no failure; one past its own 60 s is
			if [ "$rc" = 124 ] && [ "$l" -lt 60 ]; then rc=cut; elif [ "$rc" != 0 ]; then failed=$((failed + 1)); fi
			gpu=$(field gpu_seconds "$f.json") build=$(field build_seconds "$f.json")
			figures=$(awk -v g="${gpu:-0}" -v b="${build:-0}" -v n="$((w * h * SPP))" \
				'BEGIN {if (g > 0) printf "%10.4f %12.2f %8.2f", g, g * 1e9 / n, b; else printf "%10s %12s %8s", "-", "-", "-"}')
			printf '%-14s %-10s %-10s %4s %6s %s\n' "$scene" "$path" "$size" "$SPP" "$rc" "$figures" | tee -a "$R/renders.txt"
			[ "$rc" = 0 ] || [ "$rc" = cut ] || tail -2 "$f.log"
		done
	done
	# The large PNGs are megabytes: the stats and logs say what they hold.
	[ "$val" = 1 ] || rm -f "$R"/renders/*-"$size".png
	done_step "renders $size"
	pack
done

# The launches as the device runs them against their plain form.
wave_backends=""
for p in rt ser rt-sorted rayquery; do offered "$p" && wave_backends="$wave_backends${wave_backends:+, }\"vulkan:$p\""; done
if [ -n "$wave_backends" ] && step launches "$WAVE_S"; then
	cat > "$R/wave.yaml" <<-EOF
		# The paths' launches and sort against their plain form: run.sh's step 5.
		scenes: [$PWD/scenes/cornell.glb, $PWD/scenes/hairy-cornell.glb]
		res: $MATRIX_RES
		spp: $MATRIX_SPP
		max_depth: 8
		warmup: 1
		repeats: $KEPT_REPEATS
		reorder: ["material:16"]
		backends: [$wave_backends]
	EOF
	bench_pair wave "SERTRACE_WAVEFRONT= SERTRACE_RT_BATCH=" now "SERTRACE_WAVEFRONT=plain SERTRACE_RT_BATCH=pixel" plain
	done_step launches
	pack
fi

if step matrix "$MATRIX_S"; then
	cat > "$R/matrix.yaml" <<-EOF
		# The reorder matrix in one GPU call's worth of time: run.sh's step 6.
		scenes: [$scenes_yaml]
		res: $MATRIX_RES
		spp: $MATRIX_SPP
		max_depth: 8
		warmup: 1
		repeats: $MATRIX_REPEATS
		reorder: [none, shader, "material:8", "material:16", "coherence:16"]
		backends: [$backends]
	EOF
	timeout "$limit" "$bin" bench "$R/matrix.yaml" --out "$R/matrix" > "$R/matrix.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] || failed=$((failed + 1))
	echo "matrix: exit $rc"
	tail -3 "$R/matrix.log"
	[ -f "$R/matrix/report.md" ] && head -40 "$R/matrix/report.md"
	done_step matrix
	pack
fi

"$bin" devices > "$R/devices-after.txt" 2>&1
grep 'auto:' "$R/devices-after.txt"

# Optional: the pipeline builds per path, cold, from sertrace's cache
# alone and warm, each render its own process (NVIDIA's driver keeps its
# own disk cache: __GL_SHADER_DISK_CACHE=0 turns it off).
if [ "${CACHE:-0}" != 0 ] && step cache 90; then
	deadline=$((SECONDS + limit))
	for path in rt ser rt-sorted; do
		offered "$path" || continue
		export SERTRACE_CACHE_DIR=$R/cache-$path
		for state in cold sertrace-cache warm; do
			l=$(left_of "$deadline")
			[ "$l" -ge 5 ] || break
			dc=0
			[ "$state" = warm ] && dc=1
			__GL_SHADER_DISK_CACHE=$dc timeout "$l" "$bin" render scenes/cornell.glb --backend vulkan --path "$path" --res 64x48 --spp 1 \
				-o "$R/cache-$path-$state.png" --stats "$R/cache-$path-$state.json" > "$R/cache-$path-$state.log" 2>&1
			echo "$path $state: exit $? build $(field build_seconds "$R/cache-$path-$state.json") s"
		done
		rm -rf "$SERTRACE_CACHE_DIR"
	done 2>&1 | tee "$R/cache.txt"
	export SERTRACE_CACHE_DIR=$R/cache
	done_step cache
	pack
fi

# Optional: the Vulkan backend's tests, every path the device offers
# against the CPU, the layer off (Debian's is older than the driver).
if [ -x .gpu/vulkan.test ] && [ "$TESTS_S" != 0 ] && step tests "$TESTS_S"; then
	if [ -d .gpu/shared-scenes ] && [ ! -e ../shared/scenes ] && mkdir -p ../shared 2>/dev/null; then
		ln -sfn "$PWD/.gpu/shared-scenes" ../shared/scenes # -f: a dangling link left before
	fi
	(cd render/vulkan && SERTRACE_VULKAN_VALIDATION=0 timeout "$limit" ../../.gpu/vulkan.test -test.v \
		-test.run "${TESTS_RUN:-.}" -test.timeout "$((limit - 5))s") > "$R/vulkan-tests.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] || failed=$((failed + 1))
	echo "vulkan tests: exit $rc"
	cp "$R/vulkan-tests.log" "$OUT/"
	grep -E '^(--- |ok|FAIL|PASS|panic)|^    --- FAIL' "$R/vulkan-tests.log" | head -80
	done_step tests
	pack
fi

{
	echo "$name: $SECONDS s in all, $failed steps or renders failed"
	cat "$R/steps.txt"
	echo
	(cd "$R" && grep 'auto:' devices.txt devices-calibrated.txt devices-after.txt 2>/dev/null)
	echo
	cat "$R/renders.txt"
	echo
	cat "$R/kept.txt" 2>/dev/null
	echo
	cat "$R/wave.txt" 2>/dev/null
} > "$R/summary.txt"
pack
cp "$R/summary.txt" "$OUT/"
cat "$R/summary.txt"
ls -la "$OUT"
exit $((failed > 0))
