#!/usr/bin/env bash
# top_cpu.sh - CPU used by `gpuwatch top` at 1 s refresh on 8 and 64
# simulated GPUs, as percent of one core, from /proc/PID/stat (utime+stime
# of the whole process, sampler threads included) over WINDOW seconds.
# Usage: [GW_BIN=build/gpuwatch] [WINDOW=120] bench/top_cpu.sh
set -euo pipefail
bin=${GW_BIN:-build/gpuwatch}
window=${WINDOW:-120}
command -v tmux >/dev/null || { echo "top_cpu: needs tmux" >&2; exit 1; }
tmp=$(mktemp -d)
sock=$tmp/tmux.sock
trap 'tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, clock ticks

echo "# gpuwatch top CPU, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs," \
	"$(lscpu | sed -n 's/^Model name: *//p' | head -1), window ${window}s, refresh 1 s"
for spec in 8xH200:training 64xH100:training; do
	name=s${spec%%x*}
	tmux -S "$sock" new-session -d -s "$name" -x 160 -y 50 \
		"env LANG=C.UTF-8 TERM=tmux-256color $bin --sim $spec top -d 1 2>/dev/null"
	sleep 3 # start-up (first frame, first draw) is not the steady state
	pid=$(pgrep -P "$(tmux -S "$sock" display -p -t "$name:" '#{pane_pid}')" | head -1)
	[ -n "$pid" ] || pid=$(tmux -S "$sock" display -p -t "$name:" '#{pane_pid}')
	t0=$(ticks "$pid"); s0=$(date +%s.%N)
	sleep "$window"
	t1=$(ticks "$pid"); s1=$(date +%s.%N)
	pct=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v x="$s0" -v y="$s1" 'BEGIN {printf "%.2f", (b - a) / hz / (y - x) * 100}')
	echo "$spec: ${pct}% of one core (pid $pid, $((t1 - t0)) ticks in $(awk -v x="$s0" -v y="$s1" 'BEGIN{printf "%.1f", y-x}') s)"
	tmux -S "$sock" send-keys -t "$name:" q
done
