#!/usr/bin/env bash
# The agent's live anomaly scores: two H200s at constant full load, GPU 1's
# utilisation dropping to 0 for 2 s once its 10 s baseline is learnt. The
# score of GPU 1's utilisation rises past the sensitivity (6), in /metrics'
# family and in the agent's history; every score of GPU 0 stays 0; and
# /api/v1/anomalies lists that spike, and nothing on GPU 0. Bad parameters
# of the route and a bad --anomaly.window are refused with what is wrong;
# --anomaly.window 0 turns the scores off.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
. "$(dirname "$0")/../lib/common.sh"

cat >"$tmp/f.scn" <<'SCN'
[sim]
fleet = 2xH200:burn
seed = 3

[gpu 1]
fault = 16s spike util_gpu 0 2
SCN
port=$(free_port)
url=http://127.0.0.1:$port
"$BIN" --sim "$tmp/f.scn" agent -a "127.0.0.1:$port" -c 100 --anomaly.window 10s \
	--storage.path "$tmp/db" 2>"$tmp/agent.err" &
pids+=($!)
wait_http "$url/metrics" 20 || fail "agent did not serve: $(cat "$tmp/agent.err")"

# q EXPR: the instant query's answer as "labels value" lines
q() {
	curl -s "$url/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    m = r["metric"]
    print(m.get("gpu", ""), m.get("metric", ""), r["value"][1])'
}
# the spike is at 16 s of virtual (here real) time: wait for its score in the history
peak=""
for _ in $(seq 150); do
	peak=$(q 'max_over_time(gpuwatch_anomaly_score{gpu="1",metric="utilization_ratio"}[1m]) >= 6')
	[ -n "$peak" ] && break
	sleep 0.2
done
[ -n "$peak" ] || fail "no score of 6 or more for GPU 1's utilisation: $(q 'max_over_time(gpuwatch_anomaly_score[1m])')"
sleep 1
# every metric of GPU 0 was scored, and only ever 0
q 'max_over_time(gpuwatch_anomaly_score{gpu="0"}[1m])' >"$tmp/gpu0"
[ "$(wc -l <"$tmp/gpu0")" = 5 ] || fail "GPU 0 has not 5 scored metrics: $(cat "$tmp/gpu0")"
awk '$3 != 0 { bad = 1 } END { exit bad }' "$tmp/gpu0" || fail "GPU 0 scored: $(cat "$tmp/gpu0")"
q 'max_over_time(gpuwatch_anomaly_score{gpu="1",metric="memory_used_bytes"}[1m])' | grep -q ' 0$' ||
	fail "GPU 1's memory scored"
# /metrics: the family with its labels, documented as 0 normal
curl -s "$url/metrics" >"$tmp/metrics"
grep -q '^# HELP gpuwatch_anomaly_score .*0 normal, 6 or more an anomaly' "$tmp/metrics" || fail "no HELP"
grep -Eq '^gpuwatch_anomaly_score\{gpu="1",uuid="GPU-[^"]+",pci_bus_id="[^"]+",model="NVIDIA H200",metric="utilization_ratio"\} [0-9.e+]+$' \
	"$tmp/metrics" || fail "no labelled series: $(grep anomaly "$tmp/metrics")"
grep -q '^gpuwatch_anomaly_evaluations_total [1-9]' "$tmp/metrics" || fail "no evaluations counted"

# /api/v1/anomalies: `gpuwatch anomalies --format json`'s shape over the agent's store
curl -s "$url/api/v1/anomalies?window=1m" >"$tmp/a.json"
python3 - "$tmp/a.json" <<'PY' || fail "/api/v1/anomalies: $(cat "$tmp/a.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sensitivity"] == 6 and d["window_s"] > 0, d
a = d["anomalies"]
assert any(x["gpu"] == "1" and x["metric"] == "utilization_ratio" and x["kind"] == "spike" and x["score"] >= 6
           and x["value"] < 0.5 and x["baseline"] > 0.9 for x in a), a
assert not [x for x in a if x["gpu"] == "0"], a
keys = {"gpu", "uuid", "metric", "kind", "start", "end", "peak", "value", "baseline", "scale", "score"}
for x in a:
    assert set(x) == keys | ({"against", "against_value"} if x["kind"] == "mismatch" else set()), x
PY
since=$(date -u -d '-1 min' +%Y-%m-%dT%H:%M:%SZ)
curl -s "$url/api/v1/anomalies?since=$since" | grep -q '"metric": "utilization_ratio", "kind": "spike"' ||
	fail "?since=$since does not list the spike"
# bad_request PARAMS WORDS: a 400 with a Prometheus-style error saying WORDS
bad_request() {
	code=$(curl -s -o "$tmp/bad" -w '%{http_code}' "$url/api/v1/anomalies?$1")
	[ "$code" = 400 ] && grep -q "\"errorType\":\"bad_data\",\"error\":\"$2" "$tmp/bad" ||
		fail "?$1: $code $(cat "$tmp/bad")"
}
bad_request 'window=soon' 'window=soon: not a duration'
bad_request 'window=-5m' 'window=-5m: not a duration'
bad_request 'since=yesterday' 'since=yesterday: not a time'
bad_request 'since=4102444800' 'since=4102444800: not in the past'
bad_request 'since=0&window=1h' 'give since or window, not both'

# the flag: bad values say so and exit 2; 0 turns the scores off
"$BIN" --sim 1xH200 agent --anomaly.window 1s --no-history 2>"$tmp/err"
[ $? = 2 ] && grep -q 'gpuwatch agent: --anomaly.window wants 0 (off) or a duration from 2s to 7d, got "1s"' "$tmp/err" ||
	fail "--anomaly.window 1s: $(cat "$tmp/err")"
"$BIN" agent --help | grep -q -- '--anomaly.window D' || fail "--help does not list --anomaly.window"
off=$(free_port)
"$BIN" --sim 1xH200:burn agent -a "127.0.0.1:$off" -c 100 --anomaly.window 0 --no-history 2>"$tmp/off.err" &
pids+=($!)
wait_http "http://127.0.0.1:$off/metrics" 20 || fail "agent without scores did not serve: $(cat "$tmp/off.err")"
curl -s "http://127.0.0.1:$off/metrics" | grep -q gpuwatch_anomaly && fail "--anomaly.window 0 still scores"

[ "$fails" = 0 ] || exit 1
echo ok
