#!/usr/bin/env bash
# The cost of one full sample: every field of the table read and formatted for
# every GPU of an 8-GPU simulated fleet, split into time inside NVML (here the
# simulator) and gpuwatch's own work.
#
# The split comes from callgrind instruction counts (repeatable on a noisy
# machine): "inside NVML" is the inclusive cost of the simulator's nvml*
# entry points; gpuwatch's own work is the sampling loop's inclusive cost
# minus that. The wall-clock run gives ns per value; its own-work share is
# the instruction share. Usage: bench/sample.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
export GPUWATCH_SIM_LIBRARY=$PWD/$b/libgpuwatch-sim.so
sim=${SIM:-8xH200:training}
iters=${ITERS:-50}

echo "## wall clock ($sim)"
wall=$("$b"/bench/bench_sample --sim "$sim" --iterations 2000)
echo "$wall"
"$b"/bench/bench_sample --sim "$sim" --iterations 2000 --no-format

echo "## callgrind ($sim, $iters samples)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" \
	"$b"/bench/bench_sample --sim "$sim" --iterations "$iters" >"$out/run.txt" 2>"$out/vg.txt"
values=$(awk '/valid values/ { split($0, a, "of "); split(a[2], b, " "); print b[1] }' "$out/run.txt")
callgrind_annotate --inclusive=yes --threshold=100 "$out/cg.out" 2>/dev/null >"$out/incl.txt"
total=$(awk '/bench_sample.c:main \[/ { n=$1; gsub(",", "", n); print n; exit }' "$out/incl.txt")
setup=$(awk '/:gwsim_configure \[/ { n=$1; gsub(",", "", n); print n; exit }' "$out/incl.txt")
nvml=$(awk '/libgpuwatch-sim.so\]/ && /:nvml[A-Za-z0-9_]+ \[/ { n=$1; gsub(",", "", n); s += n } END { print s }' "$out/incl.txt")
per_value_wall=$(echo "$wall" | awk '/per field value/ { for (i=1;i<=NF;i++) if ($i=="value:") { v=$(i+1); print v } }')
awk -v t="$total" -v s="$setup" -v n="$nvml" -v vals="$values" -v it="$iters" -v w="$per_value_wall" 'BEGIN {
	loop = t - s; own = loop - n; count = vals * it;
	printf "instructions per field value: %.0f total, %.0f inside NVML (simulator), %.0f gpuwatch (%.1f%%)\n",
		loop / count, n / count, own / count, 100 * own / loop;
	printf "wall: %.1f ns per field value in all; gpuwatch own work ~ %.1f ns per field value\n",
		w, w * own / loop;
}'
