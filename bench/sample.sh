#!/usr/bin/env bash
# The cost of one full sample (all fields, 8 simulated GPUs), split into the
# simulator ("inside NVML") and gpuwatch's own work by callgrind instruction
# counts, plus wall-clock figures. Usage: bench/sample.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
export GPUWATCH_SIM_LIBRARY=$PWD/$b/libgpuwatch-sim.so
sim=${SIM:-8xH200:training}

echo "## wall clock ($sim)"
"$b"/bench/bench_sample --sim "$sim" --iterations 2000
"$b"/bench/bench_sample --sim "$sim" --iterations 2000 --no-format

echo "## callgrind instruction counts ($sim, 100 samples)"
out=$(mktemp -d)
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" \
	"$b"/bench/bench_sample --sim "$sim" --iterations 100 >"$out/run.txt" 2>"$out/vg.txt"
cat "$out/run.txt"
# Self cost per function with its object file; sum by object.
callgrind_annotate --threshold=100 "$out/cg.out" 2>/dev/null |
	awk -v sim="libgpuwatch-sim.so" '
	/^ *[0-9,]+ .*\[/ {
		n = $1; gsub(",", "", n);
		obj = $0; sub(/.*\[/, "", obj); sub(/\].*/, "", obj);
		if (index(obj, sim)) s += n; else if (obj ~ /libc\.so|ld-linux|libm\.so/) l += n; else o += n;
		t += n;
	}
	END {
		printf "instructions: total %d, simulator %d (%.1f%%), gpuwatch %d (%.1f%%), libc/ld %d (%.1f%%)\n",
			t, s, 100*s/t, o, 100*o/t, l, 100*l/t;
	}'
grep -E "^sim=" "$out/run.txt" >/dev/null
rm -rf "$out"
