#!/usr/bin/env bash
# For the next session lent an NVIDIA GPU: is the one kept device (every
# path on it, the only one alive) as fast as a fresh device per cell?
# From the checkout's root, with .gl and .gpu carried (benchmarks/nvidia/run.sh's head).
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
cd benchmarks/results/nvidia-h200-driver580/rt-sorted/experiments
for keep in 1 0; do
	SERTRACE_KEEP_DEVICE=$keep timeout 150 ../../../../../.gpu/sertrace bench gpu-only.yaml --out "$OUT/keep-$keep" > "$OUT/keep-$keep.log" 2>&1
	echo "== keep $keep: exit $?"
	grep -E '^\| (cornell|hair)' "$OUT/keep-$keep/report.md" | grep vulkan
done
