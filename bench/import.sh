#!/usr/bin/env bash
# `gpuwatch import` of large nvidia-smi logs (8 H200s at 1 s, written by
# tests/tools/smi_log_gen in nvidia-smi's --format=csv shape): wall time,
# MiB/s, samples/s and peak RSS for each size, the store's size, and a check
# that every row is in the store. Memory should not grow with the size.
# Usage: bench/import.sh [build-dir] [MiB ...]   (default: 100 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
shift || true
sizes=(100 1024)
[ $# -eq 0 ] || sizes=("$@")
[ -x /usr/bin/time ] || { echo "bench/import.sh needs GNU time (/usr/bin/time)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "## $(date -u +%F) $(uname -m) $(nproc) cpus: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
printf '| log | rows | samples | wall | MiB/s | samples/s | peak RSS | store |\n|---|---|---|---|---|---|---|---|\n'
for mb in "${sizes[@]}"; do
	log=$work/gpu_$mb.csv
	"$b"/tests/smi_log_gen $((mb << 20)) 8 >"$log" 2>"$work/gen"
	rows=$(awk '{ print $4 }' "$work/gen")
	last=$(awk '{ print $10 }' "$work/gen")
	seconds=$(awk '{ print $2 }' "$work/gen")
	cat "$log" >/dev/null # in the page cache, as for every size
	TZ=UTC /usr/bin/time -v "$b"/gpuwatch import --storage.path "$work/d$mb" "$log" >"$work/out" 2>"$work/err"
	grep -q "gpu_$mb.csv: [0-9]* lines, $rows rows" "$work/out" || { cat "$work/out"; exit 1; }
	samples=$(awk '{ print $6 }' "$work/out")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$work/err")
	rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/err")
	bytes=$(stat -c %s "$log")
	store=$(du -sb "$work/d$mb" | cut -f1)
	t=$(awk -v ms="$last" 'BEGIN { printf "%.3f", ms / 1000 + 1 }')
	got=$("$b"/gpuwatch query --storage.path "$work/d$mb" --time "$t" \
		"sum(count_over_time(DCGM_FI_DEV_POWER_USAGE[$((seconds + 2))s]))" | sed -n 's/.* => \([^ ]*\) @.*/\1/p')
	[ "$got" = "$rows" ] || { echo "store holds $got power samples, want $rows"; exit 1; }
	awk -v mb="$mb" -v rows="$rows" -v n="$samples" -v w="$wall" -v rss="$rss" -v by="$bytes" -v st="$store" 'BEGIN {
		printf "| %d MiB | %d | %d | %.1f s | %.1f | %.2f M | %.1f MiB | %.1f MiB (%.2f B/sample) |\n",
			mb, rows, n, w, by / 1048576 / w, n / w / 1e6, rss / 1024, st / 1048576, st / n }'
	grep -c 'MiB/s)$' "$work/err" | sed 's/^/progress lines: /' >&2
	rm -rf "$log" "$work/d$mb"
done
