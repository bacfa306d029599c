#!/usr/bin/env bash
# The agent's store hits a full disk while the agent runs (a file size
# limit stands in for it: writes fail with EFBIG as they would with ENOSPC):
# the agent logs it once, keeps serving fresh /metrics, counts the failed
# writes in gpuwatch_store_flush_errors_total, keeps the new samples in
# memory, and once the limit is lifted writes them all, logging that it
# works again. Read back from disk after the agent stopped, the series has
# no hole where the disk was full.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in curl python3 prlimit; do
	command -v "$c" >/dev/null || { echo "skipped: $c missing"; exit 77; }
done
tmp=$(mktemp -d)
apid=
cleanup() { [ -n "$apid" ] && kill "$apid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
metric() { curl -s "http://127.0.0.1:$port/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
wait_log() { # pattern, seconds
	for _ in $(seq $(($2 * 10))); do grep -q "$1" "$tmp/agent.err" && return 0; sleep 0.1; done
	return 1
}

# 192 KiB: the empty store fits, a few seconds of 8 GPUs at 100 ms do not.
# The soft limit only, so that lifting it needs no privilege.
(ulimit -S -f 192 && exec "$BIN" --sim 8xH200:training agent -a "127.0.0.1:$port" -c 100 \
	--storage.path "$tmp/data" 2>"$tmp/agent.err") &
apid=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done

wait_log 'cannot write the history store' 60 || fail "no log line for the failing store: $(tail -3 "$tmp/agent.err")"
t_fail=$(date +%s)
kill -0 "$apid" 2>/dev/null || fail "the agent died when its store could not be written"
sleep 3 # failing for a while: more samples wait in memory
n=$(grep -c 'cannot write the history store' "$tmp/agent.err")
[ "$n" = 1 ] || fail "failure logged $n times in a few seconds, want once (then once a minute)"
grep 'cannot write the history store' "$tmp/agent.err" | grep -q 'err="[^"]' || fail "the log line does not say why"
errs=$(metric gpuwatch_store_flush_errors_total)
awk -v e="${errs:-0}" 'BEGIN { exit !(e >= 1) }' || fail "gpuwatch_store_flush_errors_total '$errs' while failing"
unfl=$(metric gpuwatch_store_unflushed_samples)
awk -v u="${unfl:-0}" 'BEGIN { exit !(u >= 8 * 100 * 10) }' || fail "unflushed samples '$unfl': not kept in memory?"
last=$(metric gpuwatch_last_sample_timestamp_seconds)
awk -v l="${last:-0}" -v now="$(date +%s.%N)" 'BEGIN { exit !(now - l < 2) }' ||
	fail "/metrics went stale while the store failed (last sample $last)"
live=$(curl -s --data-urlencode 'query=count_over_time(gpuwatch_temperature_gpu_celsius{gpu="0"}[1h])' \
	"http://127.0.0.1:$port/api/v1/query" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')
[ "${live:-0}" -ge 30 ] 2>/dev/null || fail "the query API lost the unwritten samples: count '$live'"

prlimit --pid "$apid" --fsize=unlimited: || fail "prlimit"
wait_log 'writing the history store again' 30 || fail "no log line for the recovery: $(tail -3 "$tmp/agent.err")"
t_rec=$(date +%s)
grep 'writing the history store again' "$tmp/agent.err" | grep -q 'failed_flushes=[1-9]' ||
	fail "the recovery line does not count the failed writes"
sleep 1.5
e1=$(metric gpuwatch_store_flush_errors_total)
sleep 2
e2=$(metric gpuwatch_store_flush_errors_total)
[ "$e1" = "$e2" ] || fail "writes still failing after the limit was lifted ($e1 -> $e2)"
kill -TERM "$apid"
wait "$apid" 2>/dev/null
apid=

# From disk alone: every second from before the failure to after the
# recovery holds samples (none lost to the full disk).
"$BIN" query --storage.path "$tmp/data" --format json --start "$((t_fail - 1))" --end "$((t_rec + 2))" --step 1s 'count_over_time(gpuwatch_temperature_gpu_celsius{gpu="0"}[1s])' >"$tmp/q.json" ||
	fail "query the store after the run: $(cat "$tmp/q.json")"
python3 - "$tmp/q.json" "$t_fail" "$t_rec" <<'PY' || fail "holes in the stored history"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["result"]  # --format json: the API answer's data object
assert len(r) == 1, r
vals = [(float(t), float(v)) for t, v in r[0]["values"]]
seconds = len(vals)
# every second in the range answered (a missing step is a second without samples)
steps = int(float(r[0]["values"][-1][0]) - float(r[0]["values"][0][0])) + 1
thin = [t for t, v in vals if v < 5]  # 10 a second at 100 ms; a busy machine may miss some ticks
print(f"{seconds} of {steps} seconds hold samples; {len(thin)} hold fewer than 5")
covers = vals[0][0] <= int(sys.argv[2]) and vals[-1][0] >= int(sys.argv[3])  # the failure, end to end
sys.exit(0 if covers and seconds == steps and len(thin) <= 2 else 1)
PY

[ "$fails" = 0 ] && echo "ok: store failure logged once, /metrics fresh, samples kept and written after recovery"
exit $((fails > 0))
