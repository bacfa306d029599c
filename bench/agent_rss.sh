#!/usr/bin/env bash
# The agent's resident memory against the length of the history it keeps:
# 8 × H200 (training), sampling at 1 s and at 100 ms, over an empty store
# and over stores holding 6 h and a day of 1 s history (written by `sim
# record` first), each for DUR seconds with a scrape every second and four
# one-hour dashboard range queries every 5 s. Prints VmRSS every 10 s and
# each run's maximum and last value (the issue's goal: 16 MB whatever the
# history's length, flat).
#
# Usage: bench/agent_rss.sh [build-dir]; env DUR (default 120), STORES
# ("0 6h 1d"), INTERVALS ("1000 100", ms), PORT.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
case $b in /*) ;; *) b=$PWD/$b ;; esac
BIN=$b/gpuwatch
export GPUWATCH_SIM_LIBRARY=$b/libgpuwatch-sim.so
dur=${DUR:-120}
port=${PORT:-19470}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
url="http://127.0.0.1:$port"
echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'); $(date -u +%Y-%m-%dT%H:%M:%SZ); $(git log --oneline -1 | cut -c1-60)"
printf "%-6s %-6s %10s %10s %10s\n" store every "store MB" "max RSS" "last RSS"
for store in ${STORES:-0 6h 1d}; do
	dir=$tmp/store-$store
	if [ "$store" != 0 ]; then
		"$BIN" --sim 8xH200:training sim record --duration "$store" --interval 1s --storage.path "$dir" >/dev/null 2>&1
	fi
	for every in ${INTERVALS:-1000 100}; do
		rm -rf "$tmp/run"
		[ "$store" != 0 ] && cp -r "$dir" "$tmp/run"
		"$BIN" --sim 8xH200:training agent -a "127.0.0.1:$port" -c "$every" --storage.path "$tmp/run" \
			>"$tmp/agent.log" 2>&1 &
		agent=$!
		pids+=("$agent")
		for _ in $(seq 100); do curl -sf -o /dev/null "$url/health" && break; sleep 0.1; done
		mb=$(du -sm "$tmp/run" | cut -f1)
		(while kill -0 "$agent" 2>/dev/null; do curl -s --compressed -o /dev/null "$url/metrics"; sleep 1; done) &
		pids+=($!)
		(while kill -0 "$agent" 2>/dev/null; do
			end=$(date +%s)
			for q in DCGM_FI_DEV_GPU_UTIL DCGM_FI_DEV_FB_USED DCGM_FI_DEV_GPU_TEMP DCGM_FI_DEV_POWER_USAGE; do
				curl -s -o /dev/null "$url/api/v1/query_range" --data-urlencode "query=$q" \
					-d start=$((end - 3600)) -d end="$end" -d step=12
			done
			sleep 5
		done) &
		pids+=($!)
		max=0 last=0 curve=""
		for ((t = 0; t < dur; t += 10)); do
			sleep 10
			last=$(awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$agent/status")
			curve="$curve $last"
			max=$(awk -v a="$max" -v b="$last" 'BEGIN { print (b > a ? b : a) }')
		done
		printf "%-6s %-6s %10s %10s %10s   (every 10 s:%s)\n" "$store" "$every" "$mb" "$max" "$last" "$curve"
		kill "$agent"
		wait "$agent" 2>/dev/null || true
	done
done
