#!/usr/bin/env bash
# Remake the user guide's gallery (docs/guide.md): render gallery.yaml's jobs
# with sertrace's batch (on whatever backend `auto` picks here), copy their
# PNGs beside this script, and run the smoke bench for its chart. The glTF
# sample scenes are read from ../shared/scenes beside the clone. A rerun
# renders again only the jobs whose settings or scenes changed (the batch's
# manifests in out/gallery); --force renders them all.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=docs/gallery
if [ "${1:-}" = --force ]; then
	rm -rf out/gallery
fi
if [ ! -d ../shared/scenes ]; then
	echo "make.sh: ../shared/scenes is missing: the gallery renders its glTF sample scenes" >&2
	exit 1
fi
mkdir -p out
go build -o out/sertrace ./app
out/sertrace batch "$here/gallery.yaml"
shopt -s nullglob
# The config's jobs only (a job renamed since leaves a stale folder).
for name in $(sed -n 's/^  - name: *//p' "$here/gallery.yaml"); do
	job=out/gallery/$name/
	for png in "$job"*.png; do
		case $(basename "$png") in
		beauty.png) cp "$png" "$here/$name.png" ;;
		thumb.png | *.noisy.png) ;;
		*) cp "$png" "$here/$name.$(basename "$png")" ;;
		esac
	done
done
# The reorder benchmark's chart: the smoke suite on this machine's backends.
out/sertrace bench configs/bench-smoke.yaml --out out/gallery-bench
cp out/gallery-bench/speedup.png "$here/bench-speedup.png"
du -ch "$here"/*.png | tail -n 1
