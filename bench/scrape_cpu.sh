#!/usr/bin/env bash
# What --scrape costs the agent: CPU (utime + stime from /proc/PID/stat over
# the window) of an agent sampling a simulated fleet, without a scrape and
# with one target scraped every second whose body holds SERIES counters
# (a made-up vLLM-like body served by python3's http.server on loopback),
# and the last scrape's own duration (gpuwatch_scrape_duration_seconds:
# fetch and parse, not the store). Installs nothing.
# Usage: bench/scrape_cpu.sh [build-dir]   Env: SIM, WINDOW (s), SERIES.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
case $b in /*) ;; *) b=$PWD/$b ;; esac
BIN=$b/gpuwatch
export GPUWATCH_SIM_LIBRARY=$b/libgpuwatch-sim.so
sim=${SIM:-8xH200:training}
window=${WINDOW:-30}
series=${SERIES:-5000}
tck=$(getconf CLK_TCK)
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

mkdir -p "$tmp/www"
python3 - "$series" >"$tmp/www/metrics" <<'PY'
import sys
n = int(sys.argv[1])
for i in range(n):
    print(f'vllm:metric_{i // 100}_total{{model_name="meta-llama/Llama-3.1-8B-Instruct",shard="{i % 100}"}} {i * 1000}')
PY
hport=$(free_port)
python3 -m http.server "$hport" --bind 127.0.0.1 --directory "$tmp/www" >/dev/null 2>&1 &
pids+=($!)
sleep 0.5

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'); $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "fleet: $sim; window ${window}s; body: $series series, $(wc -c <"$tmp/www/metrics") bytes"
for mode in none scrape; do
	port=$(free_port)
	args=()
	[ "$mode" = scrape ] && args=(--scrape "vllm=http://127.0.0.1:$hport/metrics@1s")
	"$BIN" --sim "$sim" agent -a "127.0.0.1:$port" --storage.path "$tmp/d-$mode" "${args[@]}" 2>"$tmp/agent-$mode.log" &
	apid=$!
	pids+=("$apid")
	sleep 3
	c0=$(cpu_ticks "$apid")
	sleep "$window"
	c1=$(cpu_ticks "$apid")
	pct=$(awk -v d=$((c1 - c0)) -v t="$tck" -v w="$window" 'BEGIN { printf "%.2f", 100 * d / t / w }')
	dur=$(curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^gpuwatch_scrape_duration_seconds{.*} //p')
	echo "$mode: agent CPU ${pct} % of a core${dur:+; last scrape ${dur} s}"
	kill "$apid"
	wait "$apid" 2>/dev/null || true
done
