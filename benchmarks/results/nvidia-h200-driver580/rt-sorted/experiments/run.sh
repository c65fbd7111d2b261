#!/usr/bin/env bash
# (Recorded as run: from .gpu/exp, with the configs beside it and the scenes at ../../scenes; the configs here now point at the repository's scenes. next.sh is the check still to run.)
# Why were rt and ser slow in the first H200 bench of this change? GPU-only
# benches, kept devices or not, the binary before the change, and with the
# CPU cells interleaved.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
cd .gpu/exp
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,pstate --format=csv
run() { name=$1; shift; start=$SECONDS; timeout 150 "$@" --out "$OUT/$name" > "$OUT/$name.log" 2>&1; echo "== $name: exit $? in $((SECONDS - start)) s"; grep -E '^\| (cornell|hair)' "$OUT/$name/report.md" | grep vulkan | awk -F'|' '{print $2,$4,$5,$7,$8,$11,$12}'; }
run e1-kept ../sertrace bench gpu-only.yaml
SERTRACE_KEEP_DEVICE=0 run e2-not-kept ../sertrace bench gpu-only.yaml
run e3-before ../sertrace_before bench gpu-only-before.yaml
run e4-with-cpu ../sertrace bench with-cpu.yaml
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,pstate --format=csv
