#!/usr/bin/env bash
# --query.max-samples reaches the agent's query API: a query over more
# samples than it allows is refused with Prometheus' message, a small one
# answers, and --help names the flag.
. "$(dirname "$0")/../lib/common.sh"
export GPUWATCH_SIM_LIBRARY=$GW_SIM_LIB
"$GW_BIN" --sim 1xH200 agent --help | grep -q -- '--query.max-samples N' || fail "--help lacks --query.max-samples"
port=$(free_port)
"$GW_BIN" --sim 1xH200 agent -a "127.0.0.1:$port" -c 100 --query.max-samples 20 --storage.path "$tmp/data" \
	2>"$tmp/agent.log" &
pids+=($!)
wait_http "http://127.0.0.1:$port/health" 10 || fail "agent not up: $(tail -3 "$tmp/agent.log")"
sleep 3 # 30 samples a series
code=$(curl -s -o "$tmp/q.json" -w '%{http_code}' "http://127.0.0.1:$port/api/v1/query" \
	--data-urlencode 'query=count_over_time(DCGM_FI_DEV_GPU_TEMP[1m])')
[ "$code" = 422 ] || fail "a query over ~30 samples with --query.max-samples 20 answered $code"
grep -q 'query processing would load too many samples into memory in query execution' "$tmp/q.json" ||
	fail "not Prometheus' message: $(cat "$tmp/q.json")"
code=$(curl -s -o "$tmp/q2.json" -w '%{http_code}' "http://127.0.0.1:$port/api/v1/query" \
	--data-urlencode 'query=count_over_time(DCGM_FI_DEV_GPU_TEMP[250ms])')
[ "$code" = 200 ] || fail "a query over ~3 samples answered $code: $(cat "$tmp/q2.json")"
"$GW_BIN" --sim 1xH200 agent --query.max-samples 0 --no-history 2>/dev/null
[ $? -eq 2 ] || fail "--query.max-samples 0 was not refused"
echo "$((5 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
