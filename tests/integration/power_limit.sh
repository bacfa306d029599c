#!/usr/bin/env bash
# Tokens per joule and the power_limit finding. The simulator's throughput
# model makes tokens as the SM clock a power limit allows; `sim record`
# stores them as the training job would push them. A node swept through
# four power limits (700, 600, 500, 400 W, then back to 700) must give the
# report's training section one row per limit, tokens a second rising and
# tokens a joule falling with the limit, and a power_limit finding that
# proposes 500 W (the most tokens a joule within 90 % of the best
# throughput) over the 700 W it ended at. A node that never changed its
# limit, and one that makes no tokens, get no such finding; tokens pushed
# to a live agent show up in `report --url` against its GPUs.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
. "$(dirname "$0")/../lib/common.sh"
export TZ=UTC

# --- the sweep -------------------------------------------------------------------------
cat >"$tmp/sweep.scn" <<'SCN'
[sim]
fleet = 8xH200:training
clock = manual
epoch = 2026-07-03 10:00:00
fault = 1h power-limit 600
fault = 2h power-limit 500
fault = 3h power-limit 400
fault = 4h power-limit 700
SCN
"$BIN" --sim "$tmp/sweep.scn" sim record --start 2026-07-03T10:00:00Z --duration 5h --interval 10s \
	--storage.path "$tmp/sweep" -q >/dev/null 2>&1 || fail "sim record sweep"
"$BIN" report --storage.path "$tmp/sweep" --from 2026-07-03T10:00:00Z --to 2026-07-03T15:00:00Z \
	--format json --price-per-kwh 0.2 --currency EUR >"$tmp/sweep.json" || fail "report sweep exited $?"
python3 - "$tmp/sweep.json" <<'PY' || fail "sweep: training section and finding"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["training"]
assert len(t) == 1 and t[0]["job"] == "sim-training", t
j = t[0]
assert j["gpus"] == list(range(8)), j["gpus"]
assert 17000 < j["seconds"] <= 18000, j["seconds"]
# 8 H200 at 7,300 tokens/s each when computing, about 70 % of the time
assert 30000 < j["tokens_per_second"] < 45000, j["tokens_per_second"]
assert abs(j["tokens_per_joule"] * j["joules_per_token"] - 1) < 1e-9, j
assert j["cost_per_million_tokens"] > 0, j
lim = j["power_limits"]
assert [l["watts"] for l in lim] == [400, 500, 600, 700], lim
for a, b in zip(lim, lim[1:]):
    assert a["tokens_per_second"] < b["tokens_per_second"], (a, b)
    assert a["tokens_per_joule"] > b["tokens_per_joule"], (a, b)
    assert a["power_watts"] < b["power_watts"], (a, b)
assert 6900 < lim[3]["seconds"] < 7300, lim[3]  # two hours at 700 W (the first and the last)
f = [x for x in d["findings"] if x["kind"] == "power_limit"]
assert len(f) == 1, d["findings"]
f = f[0]
assert f["gpus"] == list(range(8)), f
assert "Run at 500 W instead of 700 W" in f["advice"] and "-pl 500" in f["advice"], f["advice"]
for w in ("400 W", "500 W", "600 W", "700 W"):
    assert w in f["evidence"], f["evidence"]
PY
"$BIN" report --storage.path "$tmp/sweep" --from 2026-07-03T10:00:00Z --to 2026-07-03T15:00:00Z \
	>"$tmp/sweep.txt" || fail "report sweep (text) exited $?"
grep -q '^Training (1 job counting tokens)' "$tmp/sweep.txt" || fail "text report has no training section"
grep -Eq '^  sim-training  GPU 0-7: .* tokens/s; .* J a token' "$tmp/sweep.txt" ||
	fail "text training row: $(grep -A1 '^Training' "$tmp/sweep.txt" | tail -1)"
grep -Eq '^      at a 400 W limit: [0-9]+ tokens/s' "$tmp/sweep.txt" || fail "text: no per-limit rows"
grep -q 'power_limit  GPU 0, 1, 2, 3, 4, 5, 6, 7' "$tmp/sweep.txt" || fail "text: no power_limit finding"
"$BIN" report --storage.path "$tmp/sweep" --from 2026-07-03T10:00:00Z --to 2026-07-03T15:00:00Z \
	--format html >"$tmp/sweep.html" || fail "report sweep (html) exited $?"
grep -q '<h2>Training (1)</h2>' "$tmp/sweep.html" || fail "html report has no training table"
# the last hour alone: one limit, nothing to compare
"$BIN" report --storage.path "$tmp/sweep" --from 2026-07-03T14:05:00Z --to 2026-07-03T15:00:00Z \
	--format json >"$tmp/last.json" || fail "report last hour exited $?"
python3 - "$tmp/last.json" <<'PY' || fail "one limit: no finding"
import json, sys
d = json.load(open(sys.argv[1]))
assert [l["watts"] for l in d["training"][0]["power_limits"]] == [700], d["training"]
assert not [x for x in d["findings"] if x["kind"] == "power_limit"], d["findings"]
PY

# --- a node that makes no tokens -------------------------------------------------------
"$BIN" --sim 'clock=manual,2xH200:inference' sim record --start 2026-07-03T10:00:00Z --duration 30m \
	--interval 10s --storage.path "$tmp/inf" -q >/dev/null 2>&1 || fail "sim record inference"
"$BIN" report --storage.path "$tmp/inf" --from 2026-07-03T10:00:00Z --to 2026-07-03T10:30:00Z \
	--format json >"$tmp/inf.json" || fail "report inference exited $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["training"] == [], d["training"]' \
	"$tmp/inf.json" || fail "an inference node has a training section"
"$BIN" report --storage.path "$tmp/inf" --from 2026-07-03T10:00:00Z --to 2026-07-03T10:30:00Z >"$tmp/inf.txt"
grep -q '^Training' "$tmp/inf.txt" && fail "the text report of an inference node has a training section"

# --- tokens pushed to a live agent --------------------------------------------------------
port=$(free_port)
U="http://127.0.0.1:$port"
"$BIN" --sim 2xH100:training agent -a "127.0.0.1:$port" --web.enable-push --storage.path "$tmp/live" \
	2>"$tmp/agent.err" &
pids+=($!)
wait_http "$U/health" 30 || fail "agent did not start: $(cat "$tmp/agent.err")"
for n in 0 1 2 3 4 5; do
	printf '# TYPE gpuwatch_training_tokens_total counter\ngpuwatch_training_tokens_total %d\n' $((n * 50000)) |
		curl -sf -X PUT --data-binary @- "$U/metrics/job/llm" >/dev/null || fail "push $n"
	sleep 1
done
"$BIN" report --url "$U" --format json >"$tmp/live.json" 2>"$tmp/live.err" || fail "report --url exited $?: $(cat "$tmp/live.err")"
python3 - "$tmp/live.json" <<'PY' || fail "pushed tokens in report --url"
import json, sys
d = json.load(open(sys.argv[1]))
t = [x for x in d["training"] if x["job"] == "llm"]
assert len(t) == 1, d["training"]
t = t[0]
assert t["gpus"] == [0, 1], t
assert t["tokens"] == 250000, t
# 50,000 tokens a push, a push a second or a little slower
assert 30000 < t["tokens_per_second"] <= 52000, t
assert t["tokens_per_joule"] > 0, t
PY

[ "$fails" = 0 ] || exit 1
echo ok
