#!/usr/bin/env bash
# One slow GPU costs only its own values. GPU 3's nvmlDeviceGetPowerUsage
# hangs for 3 s per call for ~9 s while the agent samples every 500 ms:
# the other GPUs' values keep changing and every scrape shows a newer
# sample; GPU 3's values leave the exposition, gpuwatch_gpu_read_stalled
# and gpuwatch_gpu_read_timeouts_total name it, /health says "degraded"
# and names it instead of "sampling stalled"; once the fault ends GPU 3
# is read again and /health is OK.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null && command -v python3 >/dev/null || { echo "skipped: curl or python3 missing"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"

cat >"$tmp/fleet.scn" <<'SCN'
[sim]
fleet = 4xH200:training
[gpu 3]
fault = 3s timeout nvmlDeviceGetPowerUsage 3000 9
SCN

port=$(free_port)
"$BIN" --sim "$tmp/fleet.scn" agent -a "127.0.0.1:$port" -c 500 --no-history 2>"$tmp/agent.err" &
apid=$!
pids+=("$apid")
wait_http "http://127.0.0.1:$port/health" 10 || fail "agent /health never answered: $(cat "$tmp/agent.err")"
now_ms() { date +%s%3N; }
start=$(now_ms)
# sleep_until S: until S seconds after $start (no python: a loaded machine starts it slowly)
sleep_until() {
	local d=$((start + $1 * 1000 - $(now_ms)))
	[ "$d" -gt 0 ] && sleep "$((d / 1000)).$(printf %03d $((d % 1000)))"
	return 0
}
metric() { sed -n "s/^$1 \([0-9.e+-]*\)\$/\1/p" "$2"; }
power() { metric "DCGM_FI_DEV_POWER_USAGE{gpu=\"$1\",[^}]*}" "$2"; }

# During the fault: a scrape every second from 5 s to 11 s in.
sleep_until 5
prev_ms=0
stalled_seen=0
degraded_seen=0
for k in 0 1 2 3 4 5 6; do
	curl -s "http://127.0.0.1:$port/metrics" >"$tmp/m$k"
	health=$(curl -s "http://127.0.0.1:$port/health")
	ts=$(metric gpuwatch_last_sample_timestamp_seconds "$tmp/m$k")
	# A newer sample each scrape, at most a little over two intervals old (times are whole ms).
	ts=${ts:-0}
	frac=000
	case "$ts" in *.*) frac="${ts#*.}000" ;; esac
	t=$((${ts%%.*} * 1000 + 10#${frac:0:3}))
	age=$(($(now_ms) - t))
	[ "$t" -gt "$prev_ms" ] && [ "$age" -lt 1200 ] || fail "scrape $k: sample at ${t} ms after ${prev_ms} ms, ${age} ms old"
	prev_ms=$t
	for g in 0 1 2; do
		[ -n "$(power $g "$tmp/m$k")" ] || fail "scrape $k: no power for GPU $g"
	done
	[ -z "$(power 3 "$tmp/m$k")" ] || fail "scrape $k: GPU 3's power is shown while its reads hang"
	[ "$(metric 'gpuwatch_gpu_read_stalled{gpu="3",[^}]*}' "$tmp/m$k")" = 1 ] && stalled_seen=$((stalled_seen + 1))
	[ "$(metric 'gpuwatch_gpu_read_stalled{gpu="0",[^}]*}' "$tmp/m$k")" = 0 ] || fail "scrape $k: GPU 0 stalled or no gauge"
	[ "$health" = "sampling stalled" ] && fail "scrape $k: /health says sampling stalled"
	case "$health" in degraded*"gpu 3"*) degraded_seen=$((degraded_seen + 1)) ;; esac
	sleep_until $((6 + k))
done
# The healthy GPUs' values keep moving: several different readings each.
for g in 0 1 2; do
	n=$(for k in 0 1 2 3 4 5 6; do power $g "$tmp/m$k"; done | sort -u | wc -l)
	[ "$n" -ge 4 ] || fail "GPU $g: $n different power readings in 7 scrapes, want >= 4"
done
[ "$stalled_seen" -ge 5 ] || fail "gpuwatch_gpu_read_stalled{gpu=\"3\"} was 1 in $stalled_seen of 7 scrapes, want >= 5"
[ "$degraded_seen" -ge 5 ] || fail "/health named GPU 3 as degraded in $degraded_seen of 7 scrapes, want >= 5: '$health'"
t3=$(metric 'gpuwatch_gpu_read_timeouts_total{gpu="3",[^}]*}' "$tmp/m6")
[ "${t3:-0}" -ge 2 ] 2>/dev/null || fail "gpuwatch_gpu_read_timeouts_total for GPU 3: '${t3:-}', want >= 2"
[ "$(metric 'gpuwatch_gpu_read_timeouts_total{gpu="1",[^}]*}' "$tmp/m6")" = 0 ] || fail "timeouts counted on GPU 1"

# The fault ends at 12 s and the last hung call by 15 s: GPU 3 is back.
sleep_until 17
curl -s "http://127.0.0.1:$port/metrics" >"$tmp/after"
[ -n "$(power 3 "$tmp/after")" ] || fail "GPU 3's power did not come back after the fault"
[ "$(metric 'gpuwatch_gpu_read_stalled{gpu="3",[^}]*}' "$tmp/after")" = 0 ] || fail "GPU 3 still stalled after the fault"
[ "$(curl -s "http://127.0.0.1:$port/health")" = OK ] || fail "/health is not OK after the fault: $(curl -s "http://127.0.0.1:$port/health")"

kill -TERM "$apid"
wait "$apid"
rc=$?
[ "$rc" = 0 ] || fail "agent exit status $rc after SIGTERM"

[ "$fails" = 0 ] || { cat "$tmp/agent.err"; exit 1; }
echo ok
