#!/usr/bin/env bash
# The history store on a day of an 8-GPU training node (320 series at 1 s,
# generated in the simulator's shape by bench_store): ingest speed, bytes
# per sample on disk, PromQL latency over 1 h and 24 h. With promtool on the
# PATH, also bytes per sample of a Prometheus block built from the same
# samples (OMHOURS hours, default 2: one block) next to ours for those hours.
# Usage: bench/store.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
hours=${HOURS:-24}
omh=${OMHOURS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "## $(date -u +%F) $(uname -m) $(nproc) cpus: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "## gpuwatch store, $hours h"
"$b"/bench/bench_store "$work/day" --hours "$hours" | tee "$work/day.txt"
samples=$(awk '/^series/ { print $4 }' "$work/day.txt" | tr -d ,)
bytes=$(du -sb "$work/day" | cut -f1)
echo "disk: $bytes bytes, $(awk -v b="$bytes" -v n="$samples" 'BEGIN { printf "%.3f", b / n }') bytes/sample"
if command -v promtool >/dev/null; then
	echo "## versus Prometheus ($(promtool --version 2>&1 | head -1)), $omh h"
	"$b"/bench/bench_store "$work/small" --hours "$omh" --openmetrics "$work/om.txt" >"$work/small.txt"
	n2=$(awk '/^series/ { print $4 }' "$work/small.txt" | tr -d ,)
	ours=$(du -sb "$work/small" | cut -f1)
	promtool tsdb create-blocks-from openmetrics "$work/om.txt" "$work/prom" >/dev/null
	theirs=$(du -sb "$work/prom" | cut -f1)
	awk -v o="$ours" -v t="$theirs" -v n="$n2" 'BEGIN {
		printf "gpuwatch: %d bytes, %.3f bytes/sample\n", o, o / n
		printf "prometheus block: %d bytes, %.3f bytes/sample\n", t, t / n
		printf "ratio prometheus/gpuwatch: %.2f\n", t / o }'
fi
