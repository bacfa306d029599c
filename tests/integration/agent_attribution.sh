#!/usr/bin/env bash
# Per-process series carry container, pod_uid, slurm_job and user labels:
# from a fixture /proc tree (--proc-root, tests/data/proc) for pids it
# has, and from the simulator's cgroup paths for simulated pids it lacks
# (and for all of them without --proc-root).
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
DATA=${GW_TEST_DATA:?GW_TEST_DATA must point at tests/}
command -v curl >/dev/null || { echo "skipped: curl not installed"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"
C3=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
C9=9999999999999999999999999999999999999999999999999999999999999999

cat >"$tmp/fleet.scn" <<SCN
[sim]
clock = manual
[gpu 0]
model = H200
process = 1003 vllm C 1000
process = 1006 python3 C 2000
[gpu 1]
model = H200
process = 20001 python3 C 3000 cgroup=/system.slice/docker-$C9.scope
SCN

scrape() { # args... ; writes $tmp/m
	local port
	port=$(free_port)
	"$BIN" --sim "$tmp/fleet.scn" agent -a "127.0.0.1:$port" --storage.path "$tmp/data" "$@" 2>"$tmp/agent.err" &
	local p=$!
	pids+=("$p")
	for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
	# the three processes, once a sample has read both GPUs' lists (on a busy
	# machine the first tick's read of a GPU may run past its deadline)
	for _ in $(seq 50); do
		curl -s "http://127.0.0.1:$port/metrics" | grep '^gpuwatch_process_memory_used_bytes' >"$tmp/m"
		[ "$(wc -l <"$tmp/m")" -ge 3 ] && break
		sleep 0.2
	done
	kill "$p"
	wait "$p" 2>/dev/null # it lets go of the store before the next agent opens it
}
has() { grep "pid=\"$1\"" "$tmp/m" | grep -qF "$2" || fail "$3: pid $1 lacks $2: $(grep "pid=\"$1\"" "$tmp/m")"; }
hasnt() { grep "pid=\"$1\"" "$tmp/m" | grep -qF "$2" && fail "$3: pid $1 has $2"; }

scrape --proc-root "$DATA/data"
has 1003 "type=\"C\",container=\"$C3\",pod_uid=\"0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b\",user=\"root\"}" fixture
has 1006 'slurm_job="4242001"' fixture
hasnt 1006 'container=' fixture
has 20001 "container=\"$C9\"" "simulator fallback"
hasnt 20001 'user=' "simulator fallback"

# Without --proc-root a simulated fleet uses only the simulator: the fixture's
# pids get nothing (their scenario lines name no cgroup), never the host's /proc.
scrape
hasnt 1003 'container=' "sim only"
hasnt 1003 'user=' "sim only"
has 20001 "container=\"$C9\"" "sim only"
[ "$(wc -l <"$tmp/m")" = 3 ] || fail "expected 3 process series: $(cat "$tmp/m")"

[ "$fails" = 0 ] && echo "agent attribution: ok"
exit $((fails > 0))
