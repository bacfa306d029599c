#!/usr/bin/env bash
# The web page's costs, in headless Chromium against the agent on 8 × H200
# (training) with an hour of 1 s history (`sim record` first):
#  - first render: milliseconds from the page being asked for to the
#    tiles and to the four history charts first drawn (the page writes
#    performance.now() into data-first-ms), median of RUNS cold loads;
#  - weight: bytes on the wire for the page and its files, gzip as a
#    browser asks;
#  - the agent's CPU per open page: PAGES browsers keep the page open for
#    DUR seconds; the agent's CPU time over that minute against the same
#    minute with no page open, as a percentage of one core per page.
# Goals (issue: web dashboard): first render < 300 ms, < 200 KB, < 1 % CPU
# per page with 10 pages.
#
# Also the first render of 64 GPUs (heat-map) with 24 h of 10 s history (BIG=0 skips it).
#
# Usage: bench/web_page.sh [build-dir]; env RUNS (5), PAGES (10), DUR (60), PORT, BIG (1).
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
case $b in /*) ;; *) b=$PWD/$b ;; esac
BIN=$b/gpuwatch
export GPUWATCH_SIM_LIBRARY=$b/libgpuwatch-sim.so
runs=${RUNS:-5}
pages=${PAGES:-10}
dur=${DUR:-60}
port=${PORT:-19490}
command -v chromium >/dev/null && command -v node >/dev/null || { echo "chromium and node are needed"; exit 1; }
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	# Chromium's helpers outlive the browser by a moment and still write into their profiles.
	pkill -f -- "--user-data-dir=$tmp/" 2>/dev/null || true
	wait 2>/dev/null || true
	for _ in 1 2 3 4 5; do rm -rf "$tmp" 2>/dev/null && break; sleep 0.5; done
}
trap cleanup EXIT
url="http://127.0.0.1:$port"
chrome() { # PROFILE [args]: headless Chromium, nothing but the page
	local prof=$1
	shift
	chromium --headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --disable-default-apps --user-data-dir="$tmp/$prof" \
		--disable-features=NetworkTimeServiceQuerying "$@"
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

"$BIN" --sim 8xH200:training sim record --duration 1h --interval 1s --storage.path "$tmp/data" -q
"$BIN" --sim 8xH200:training agent -a "127.0.0.1:$port" --storage.path "$tmp/data" >"$tmp/agent.log" 2>&1 &
agent=$!
pids+=("$agent")
for _ in $(seq 100); do curl -sf -o /dev/null "$url/health" && break; sleep 0.1; done
sleep 2
echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'); $(date -u +%Y-%m-%dT%H:%M:%SZ); $(git log --oneline -1 | cut -c1-60)"
echo "chromium: $(chromium --version 2>/dev/null | head -1)"

# First render, cold (a fresh profile each time: nothing cached).
# Real time, through the DevTools protocol (bench/web_render.mjs; Node's WebSocket).
tiles=() charts=()
for i in $(seq "$runs"); do
	read -r t c _ < <(node --experimental-websocket --no-warnings bench/web_render.mjs "$url/#range=3600" "$tmp/p$i")
	tiles+=("$t")
	charts+=("$c")
done
median() { printf '%s\n' "$@" | grep -E '^[0-9]+$' | sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "n/a" }'; }
echo "first render, 8 GPUs x 1 h, median of $runs cold loads: tiles $(median "${tiles[@]}") ms, charts $(median "${charts[@]}") ms (each: ${tiles[*]} / ${charts[*]})"

# First render of a big node: 64 GPUs (a heat-map) with a day of history at 10 s, the day's charts.
if [ "${BIG:-1}" = 1 ]; then
	"$BIN" --sim 64xH200:training sim record --duration 24h --interval 10s --storage.path "$tmp/big" -q
	bport=$((port + 1))
	"$BIN" --sim 64xH200:training agent -a "127.0.0.1:$bport" --storage.path "$tmp/big" >"$tmp/big.log" 2>&1 &
	big=$!
	pids+=("$big")
	for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$bport/health" && break; sleep 0.1; done
	sleep 2
	tiles=() charts=()
	for i in $(seq "$runs"); do
		read -r t c _ < <(node --experimental-websocket --no-warnings bench/web_render.mjs "http://127.0.0.1:$bport/#range=86400" "$tmp/b$i")
		tiles+=("$t")
		charts+=("$c")
	done
	echo "first render, 64 GPUs x 24 h (10 s samples), median of $runs cold loads: heat-map $(median "${tiles[@]}") ms, charts $(median "${charts[@]}") ms (each: ${tiles[*]} / ${charts[*]})"
	kill "$big"
fi

# Weight on the wire.
w=$(curl -s -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "$url/")
for f in app.js style.css uPlot.iife.min.js uPlot.min.css; do
	w=$((w + $(curl -s -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "$url/static/$f")))
done
echo "page weight (gzip): $w bytes"

# The agent's CPU: a minute alone, then a minute with PAGES pages open.
hz=$(getconf CLK_TCK)
t0=$(cpu_ticks "$agent")
sleep "$dur"
idle=$(($(cpu_ticks "$agent") - t0))
for i in $(seq "$pages"); do
	chrome "open$i" "$url/#range=3600" >/dev/null 2>&1 &
	pids+=($!)
done
sleep 10 # the pages load and settle
t0=$(cpu_ticks "$agent")
sleep "$dur"
busy=$(($(cpu_ticks "$agent") - t0))
awk -v i="$idle" -v b="$busy" -v hz="$hz" -v d="$dur" -v n="$pages" 'BEGIN {
	printf "agent CPU: %.2f %% of a core alone, %.2f %% with %d pages open: %.3f %% per page\n",
		100 * i / hz / d, 100 * b / hz / d, n, 100 * (b - i) / hz / d / n }'
