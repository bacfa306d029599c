#!/usr/bin/env bash
# The stored instance label is the host name (not host:port), so an agent
# moved to another port, and sim record, continue the same series. A store
# written by older versions (instance "HOST:PORT", as the agent and sim
# record named it before) is renamed when the agent opens it: one series
# per GPU, the old samples and the new in it, and a log line saying so.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
. "$(dirname "$0")/../lib/common.sh"
command -v curl >/dev/null && command -v python3 >/dev/null || { echo "SKIP: needs curl and python3"; exit 0; }

host=$(hostname)
d="$tmp/data"
now=$(date +%s)
# The old names, as versions before 2026-12-03 wrote them: the agent on
# :9400, then on :9401 (a port change), each for two minutes.
"$BIN" --sim 2xH100:training sim record -q --duration 2m --end $((now - 600)) --storage.path "$d" \
	--instance "$host:9400" 2>"$tmp/err" || fail "recording under $host:9400: $(cat "$tmp/err")"
"$BIN" --sim 2xH100:training sim record -q --duration 2m --end $((now - 300)) --storage.path "$d" \
	--instance "$host:9401" 2>"$tmp/err" || fail "recording under $host:9401: $(cat "$tmp/err")"
q() { "$BIN" query --storage.path "$d" --time "$now" "$1" 2>&1; }
got=$(q 'count(count by (instance, UUID) (count_over_time(DCGM_FI_DEV_GPU_TEMP[1h])))')
echo "$got" | grep -q '^{} => 4 @' || fail "the old store should hold 2 GPUs under 2 names: $got"

port=$(free_port)
"$BIN" --sim 2xH100:training agent -a "127.0.0.1:$port" -c 1000 --storage.path "$d" 2>"$tmp/agent.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/health" 10 || fail "agent did not start: $(tail -3 "$tmp/agent.err")"
grep -q "renamed the series of the old instance name host:port to the host name.*instance=\"$host\" series=[1-9][0-9]* merged=[1-9]" \
	"$tmp/agent.err" || fail "no rename logged: $(grep -i renam "$tmp/agent.err")"
sleep 2.5 # two of the agent's own samples
api() {
	curl -s --data-urlencode "query=$1" "http://127.0.0.1:$port/api/v1/query" |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(" ".join(sorted(x["metric"].get("instance","")+"="+x["value"][1] for x in r)))'
}
got=$(api 'count by (instance) (count by (instance, UUID) (count_over_time(DCGM_FI_DEV_GPU_TEMP[1h])))')
[ "$got" = "$host=2" ] || fail "GPUs by instance after the rename: '$got', want '$host=2'"
# The GPU's one series holds both old recordings (121 samples each) and the agent's own.
got=$(api 'count_over_time(DCGM_FI_DEV_GPU_TEMP{gpu="0"}[1h])')
n=${got#*=}
[ "${got%%=*}" = "$host" ] && [ "${n:-0}" -ge 244 ] || fail "gpu 0's samples after the rename: '$got', want $host= at least 244"
kill "${pids[-1]}"
wait "${pids[-1]}" 2>/dev/null

# sim record afterwards continues the same series under the same name.
"$BIN" --sim 2xH100:training sim record -q --duration 1m --start $((now + 60)) --storage.path "$d" 2>"$tmp/err" ||
	fail "sim record after the agent: $(cat "$tmp/err")"
got=$("$BIN" query --storage.path "$d" --time $((now + 120)) 'count by (instance) (count by (instance, UUID) (count_over_time(DCGM_FI_DEV_GPU_TEMP[2h])))')
echo "$got" | grep -q "^{instance=\"$host\"} => 2 @" || fail "after sim record: $got"
[ "$(echo "$got" | wc -l)" = 1 ] || fail "more than one instance after sim record: $got"

# An explicit --instance is what the operator chose: nothing is renamed.
d2="$tmp/data2"
"$BIN" --sim 1xH100 sim record -q --duration 1m --end $((now - 300)) --storage.path "$d2" --instance "$host:9400" 2>/dev/null
port=$(free_port)
"$BIN" --sim 1xH100 agent -a "127.0.0.1:$port" --storage.path "$d2" --instance other 2>"$tmp/agent2.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/health" 10 || fail "second agent did not start: $(tail -3 "$tmp/agent2.err")"
grep -q 'renamed the series' "$tmp/agent2.err" && fail "an agent with --instance renamed series"
kill "${pids[-1]}"
wait "${pids[-1]}" 2>/dev/null
got=$("$BIN" query --storage.path "$d2" --time "$now" 'count by (instance) (count_over_time(DCGM_FI_DEV_GPU_TEMP[1h]))')
echo "$got" | grep -q "instance=\"$host:9400\"" || fail "the old name under --instance: $got"

[ "$fails" = 0 ] && echo "store_instance: ok"
exit $((fails > 0))
