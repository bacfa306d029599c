#!/usr/bin/env bash
# top_cpu.sh - CPU used by `gpuwatch top` at 1 s refresh on 8 and 64
# simulated GPUs, and with --remote against a local agent with 8 simulated
# GPUs, as percent of one core, from /proc/PID/stat (utime+stime of the
# whole top process, sampler or remote worker threads included; the
# agent's own CPU is not counted) over WINDOW seconds.
# Usage: [GW_BIN=build/gpuwatch] [WINDOW=120] bench/top_cpu.sh
set -euo pipefail
bin=${GW_BIN:-build/gpuwatch}
window=${WINDOW:-120}
command -v tmux >/dev/null || { echo "top_cpu: needs tmux" >&2; exit 1; }
command -v curl >/dev/null || { echo "top_cpu: needs curl" >&2; exit 1; }
tmp=$(mktemp -d)
sock=$tmp/tmux.sock
agent=""
# (|| true: under set -e a failing command in the trap would become the exit status)
trap 'tmux -S "$sock" kill-server 2>/dev/null || true; [ -z "$agent" ] || kill "$agent" 2>/dev/null || true; rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime, clock ticks

# measure LABEL ARGS...: top with ARGS in a 160x50 terminal for $window seconds
measure() {
	local label=$1 name=s$RANDOM; shift
	tmux -S "$sock" new-session -d -s "$name" -x 160 -y 50 \
		"env LANG=C.UTF-8 TERM=tmux-256color $bin $* 2>/dev/null"
	sleep 3 # start-up (first frame, first draw, the remote history) is not the steady state
	local pid
	pid=$(pgrep -P "$(tmux -S "$sock" display -p -t "$name:" '#{pane_pid}')" | head -1)
	[ -n "$pid" ] || pid=$(tmux -S "$sock" display -p -t "$name:" '#{pane_pid}')
	local t0 s0 t1 s1
	t0=$(ticks "$pid"); s0=$(date +%s.%N)
	sleep "$window"
	t1=$(ticks "$pid"); s1=$(date +%s.%N)
	pct=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v x="$s0" -v y="$s1" 'BEGIN {printf "%.2f", (b - a) / hz / (y - x) * 100}')
	echo "$label: ${pct}% of one core (pid $pid, $((t1 - t0)) ticks in $(awk -v x="$s0" -v y="$s1" 'BEGIN{printf "%.1f", y-x}') s)"
	tmux -S "$sock" send-keys -t "$name:" q
}

echo "# gpuwatch top CPU, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs," \
	"$(lscpu | sed -n 's/^Model name: *//p' | head -1), window ${window}s, refresh 1 s"
for spec in 8xH200:training 64xH100:training; do
	measure "$spec" --sim "$spec" top -d 1
done

# --remote: a local agent with 8 simulated GPUs, asked every second over loopback
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" --sim 8xH200:training agent -a "127.0.0.1:$port" --storage.path "$tmp/agent" 2>"$tmp/agent.err" &
agent=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
measure "--remote 127.0.0.1 (agent 8xH200:training)" top -d 1 --remote "127.0.0.1:$port"
