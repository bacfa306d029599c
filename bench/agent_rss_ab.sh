#!/usr/bin/env bash
# Two builds' agents side by side: 8 × H200 (training) at 1 s, each on its
# own copy of the same store, each scraped every second (gzip) and asked
# four one-hour range queries every 5 s; VmRSS of both every 30 s. Side by
# side, so a busy machine weighs on both alike.
#
# Usage: bench/agent_rss_ab.sh OLD_BUILD_DIR NEW_BUILD_DIR [STORE_DIR]
#   env DUR (seconds, default 660), PORT (default 19481; +1 for the new).
#   Without STORE_DIR a day of 1 s history is recorded first (about a minute).
set -euo pipefail
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
dur=${DUR:-660} port=${PORT:-19481}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
store=${3:-$tmp/store}
[ -n "${3:-}" ] || GPUWATCH_SIM_LIBRARY=$new/libgpuwatch-sim.so "$new/gpuwatch" --sim 8xH200:training \
	sim record -q --duration 1d --interval 1s --storage.path "$store" 2>/dev/null
cp -r "$store" "$tmp/s-old"
cp -r "$store" "$tmp/s-new"
start() { # BUILD PORT STORE
	GPUWATCH_SIM_LIBRARY=$1/libgpuwatch-sim.so "$1/gpuwatch" --sim 8xH200:training agent -a "127.0.0.1:$2" \
		--storage.path "$3" >"$3.log" 2>&1 &
	pids+=($!)
}
start "$old" "$port" "$tmp/s-old"
po=${pids[-1]}
start "$new" $((port + 1)) "$tmp/s-new"
pn=${pids[-1]}
sleep 3
load() { while kill -0 "$1" 2>/dev/null; do curl -s --compressed -o /dev/null "127.0.0.1:$2/metrics"; sleep 1; done; }
queries() {
	while kill -0 "$1" 2>/dev/null; do
		e=$(date +%s)
		for q in DCGM_FI_DEV_GPU_UTIL DCGM_FI_DEV_FB_USED DCGM_FI_DEV_GPU_TEMP DCGM_FI_DEV_POWER_USAGE; do
			curl -s -o /dev/null "127.0.0.1:$2/api/v1/query_range" --data-urlencode "query=$q" \
				-d start=$((e - 3600)) -d end="$e" -d step=12
		done
		sleep 5
	done
}
for a in "$po $port" "$pn $((port + 1))"; do
	# shellcheck disable=SC2086
	load $a &
	pids+=($!)
	# shellcheck disable=SC2086
	queries $a &
	pids+=($!)
done
rss() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
echo "machine: $(nproc) CPUs; $(date -u +%Y-%m-%dT%H:%M:%SZ); old $old, new $new"
echo "t_s old_MiB new_MiB"
for ((t = 30; t <= dur; t += 30)); do
	sleep 30
	echo "$t $(rss "$po") $(rss "$pn")"
done
