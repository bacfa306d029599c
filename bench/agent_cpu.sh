#!/usr/bin/env bash
# The agent's own cost and freshness: CPU (utime + stime from /proc/PID/stat
# over the window), RSS (VmRSS at the end, VmHWM) while sampling an 8-GPU
# simulated fleet at 1 s and at 100 ms with one /metrics scrape per second,
# and the age of the newest sample at each scrape
# (scrape time - gpuwatch_last_sample_timestamp_seconds).
# The product issue asks for 5-minute windows; the default here is 60 s
# (WINDOW=300 for the full run). Installs nothing.
# Usage: bench/agent_cpu.sh [build-dir]   Env: SIM, WINDOW (s), INTERVALS ("1000 100").
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
case $b in /*) ;; *) b=$PWD/$b ;; esac # a build directory here, or anywhere
BIN=$b/gpuwatch
export GPUWATCH_SIM_LIBRARY=$b/libgpuwatch-sim.so
sim=${SIM:-8xH200:training}
window=${WINDOW:-60}
intervals=${INTERVALS:-1000 100}
tck=$(getconf CLK_TCK)
tmp=$(mktemp -d)
apid=
cleanup() { [ -n "$apid" ] && kill "$apid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
kib() { awk -v k="$2" '$1 == k":" { print $2 }' "/proc/$1/status"; }

echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'); $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "fleet: $sim; window ${window}s; one scrape per second"
for iv in $intervals; do
	port=$(free_port)
	# a fresh store each run: an old one would be loaded and measured too
	"$BIN" --sim "$sim" agent -a "127.0.0.1:$port" -c "$iv" --storage.path "$tmp/data-$iv" 2>"$tmp/agent.err" &
	apid=$!
	for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
	sleep 2 # past start-up
	c0=$(cpu_ticks "$apid")
	t0=$(date +%s.%N)
	: >"$tmp/ages"
	for _ in $(seq "$window"); do
		ts=$(date +%s.%N)
		last=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^gpuwatch_last_sample_timestamp_seconds / { print $2 }')
		# age when the answer is in hand: an upper bound (it includes the
		# transfer); the time before the request would make it negative
		# whenever a tick lands while curl starts
		done_at=$(date +%s.%N)
		awk -v a="$done_at" -v b="$last" 'BEGIN { printf "%.1f\n", (a - b) * 1000 }' >>"$tmp/ages"
		# keep a 1 s cadence regardless of how long the scrape took
		sleep "$(awk -v a="$ts" -v n="$(date +%s.%N)" 'BEGIN { s = 1 - (n - a); print (s > 0 ? s : 0) }')"
	done
	c1=$(cpu_ticks "$apid")
	t1=$(date +%s.%N)
	rss=$(kib "$apid" VmRSS)
	hwm=$(kib "$apid" VmHWM)
	kill "$apid"
	wait "$apid" 2>/dev/null || true
	apid=
	awk -v c="$((c1 - c0))" -v tck="$tck" -v t0="$t0" -v t1="$t1" -v iv="$iv" -v rss="$rss" -v hwm="$hwm" 'BEGIN {
		w = t1 - t0; cpu = c / tck;
		printf "interval %5d ms: CPU %.2f s over %.1f s = %.2f%% of one core; VmRSS %.1f MiB, VmHWM %.1f MiB\n",
			iv, cpu, w, 100 * cpu / w, rss / 1024, hwm / 1024 }'
	sort -n "$tmp/ages" | awk -v iv="$iv" '{ a[NR] = $1; s += $1 } END {
		i99 = int(NR * 0.99); if (i99 < 1) i99 = 1
		printf "interval %5d ms: sample age at scrape (ms): mean %.0f, p50 %.0f, p99 %.0f, max %.0f (%d scrapes)\n",
			iv, s / NR, a[int(NR * 0.5) + 1], a[i99], a[NR], NR }'
done
