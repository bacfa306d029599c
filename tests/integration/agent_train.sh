#!/usr/bin/env bash
# Live training efficiency from pushes: jobs push gpuwatch_training_tokens_total
# and gpuwatch_training_model_info to an agent on 8 simulated H100s (curl
# --data-binary in the Pushgateway text format, and Python's prometheus_client
# where it is installed). The agent derives tokens/s (the counter's rate over
# the pushes, resets read as restarts), MFU and HFU (equal, within 2 %, to
# `gpuwatch mfu --format json` at that rate) and tokens/J (the rate over the
# job's GPUs' power), a group's counter samples added up, on /metrics with HELP and TYPE and in the history; a
# gpus label picks the GPUs; a POST that keeps the counter adds no point;
# a malformed model_info is logged once with why and gives no MFU; the
# families go when the group is deleted or loses its counter.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed"; exit 77; }
done
# shellcheck source=tests/lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

port=$(free_port)
"$BIN" --sim 8xH100:burn agent -a "127.0.0.1:$port" -c 100 --web.enable-push --storage.path "$tmp/d" \
	2>"$tmp/agent.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/metrics" 20 || fail "agent did not serve: $(cat "$tmp/agent.err")"
U="http://127.0.0.1:$port"

shape='params="8.03e9",layers="32",hidden="4096",seq="8192"'
# push METHOD JOB BODY: prints the status code
push() { printf '%b' "$3" | curl -s -o "$tmp/resp" -w '%{http_code}' -X "$1" --data-binary @- "$U/metrics/job/$2"; }
# tokens JOB N [MODEL_INFO_LABELS]: PUT the counter at N with the model's info (none when the labels are "-")
tokens() {
	local body="# TYPE gpuwatch_training_tokens_total counter\ngpuwatch_training_tokens_total $2\n"
	[ "${3-}" = - ] || body+="gpuwatch_training_model_info{${3-$shape}} 1\n"
	local code
	code=$(push PUT "$1" "$body")
	[ "$code" = 200 ] || fail "PUT $1: $code $(cat "$tmp/resp")"
}
# query PROMQL: the answer's JSON on stdout
query() { curl -s "$U/api/v1/query" --data-urlencode "query=$1"; }

# check JOB GPUS RECOMPUTE [POWER_SELECTOR]: the job's derived families against
# its pushed counter (as stored, with the push times), `gpuwatch mfu` at that
# rate, and the GPUs' stored power over the same pushes
cat >"$tmp/check.py" <<'PY'
import json, subprocess, sys, urllib.parse, urllib.request
url, binary, job, gpus, recompute, power_sel = sys.argv[1:7]
def q(expr):
    with urllib.request.urlopen(url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})) as r:
        return json.load(r)["data"]["result"]
def one(name):
    r = q('%s{job="%s"}' % (name, job))
    return float(r[0]["value"][1]) if r else None
pts = [(float(t), float(v)) for t, v in q('gpuwatch_training_tokens_total{job="%s"}[5m]' % job)[0]["values"]]
# the agent's window: the pushes of the last minute, at least the last two; a decrease is a restart
# (times come back in seconds with 3 decimals, hence 1e-6 below rather than exactly)
first = next(i for i, p in enumerate(pts) if pts[-1][0] - p[0] <= 60 or i == len(pts) - 2)
inc = sum(b[1] - a[1] if b[1] >= a[1] else b[1] for a, b in zip(pts[first:], pts[first + 1:]))
rate = inc / (pts[-1][0] - pts[first][0])
got = {n: one("gpuwatch_training_" + n) for n in ("tokens_per_second", "mfu_ratio", "hfu_ratio", "tokens_per_joule")}
errs = []
if got["tokens_per_second"] is None or abs(got["tokens_per_second"] / rate - 1) > 1e-6:
    errs.append("tokens_per_second %s, pushed rate %s" % (got["tokens_per_second"], rate))
calc = json.loads(subprocess.run([binary, "mfu", "--params", "8.03e9", "--layers", "32", "--hidden", "4096",
                                  "--heads", "32", "--seq", "8192", "--gpu", "H100", "--gpus", gpus,
                                  "--recompute", recompute, "--tokens-per-s", repr(rate), "--format", "json"],
                                 check=True, capture_output=True).stdout)
for n in ("mfu", "hfu"):
    if got[n + "_ratio"] is None or abs(got[n + "_ratio"] / calc[n] - 1) > 0.02:
        errs.append("%s_ratio %s, the calculator's %s at %.1f tokens/s" % (n, got[n + "_ratio"], calc[n], rate))
# the GPUs' mean power over the pushes, from the stored samples (a steady load: the
# reported power is a moving average, the energy counters integrate what is drawn)
span = "%ds" % (pts[-1][0] - pts[first][0] + 1)
watts = float(q("sum(avg_over_time(DCGM_FI_DEV_POWER_USAGE%s[%s]))" % (power_sel, span))[0]["value"][1])
if got["tokens_per_joule"] is None or abs(got["tokens_per_joule"] * watts / rate - 1) > 0.05:
    errs.append("tokens_per_joule %s, rate over %.1f W is %s" % (got["tokens_per_joule"], watts, rate / watts))
print("; ".join(errs) if errs else "ok %s: %.1f tokens/s, MFU %.4f (calculator %.4f), HFU %.4f, %.2f tokens/J"
      % (job, rate, got["mfu_ratio"], calc["mfu"], got["hfu_ratio"], got["tokens_per_joule"]))
PY
check() {
	local out
	out=$(python3 "$tmp/check.py" "$U" "$BIN" "$1" "$2" "$3" "${4-}" 2>&1)
	case $out in ok*) echo "$out" ;; *) fail "$1: $out" ;; esac
}

uuid1=$(query 'DCGM_FI_DEV_GPU_UTIL{gpu="1"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["metric"]["UUID"])')
# six pushes each: llama3-8b on every GPU, "pair" on GPU 0 and GPU 1 by UUID, two malformed ones
for i in 0 1 2 3 4 5; do
	tokens llama3-8b $((5000000 + i * 30000)) "$shape,recompute=\"selective\""
	tokens pair $((i * 4000)) "$shape,recompute=\"full\",gpus=\"0,$uuid1\""
	tokens noparams $((i * 100)) 'layers="32",hidden="4096",seq="8192"'
	tokens badgpu $((i * 100)) "$shape,gpus=\"9\""
	tokens noinfo $((i * 100)) -
	code=$(push PUT ranks "gpuwatch_training_tokens_total{rank=\"0\"} $((i * 1000))\ngpuwatch_training_tokens_total{rank=\"1\"} $((i * 3000))\n")
	[ "$code" = 200 ] || fail "PUT ranks: $code"
	sleep 0.3
done
check llama3-8b 8 selective
check pair 2 full '{gpu=~"0|1"}'
# a group's samples of the counter (a rank each) add up
query 'gpuwatch_training_tokens_total{job="ranks",rank="0"}[5m]' >"$tmp/r0"
query 'gpuwatch_training_tokens_per_second{job="ranks"}' >"$tmp/r"
python3 - "$tmp/r0" "$tmp/r" <<'PY' || fail "ranks: the counter's samples did not add up"
import json, sys
t = [float(p[0]) for p in json.load(open(sys.argv[1]))["data"]["result"][0]["values"]]
got = float(json.load(open(sys.argv[2]))["data"]["result"][0]["value"][1])
want = 4000 * (len(t) - 1) / (t[-1] - t[0])
sys.exit(abs(got / want - 1) > 1e-6)
PY

# on /metrics with HELP and TYPE, under the group's labels
for _ in $(seq 30); do
	curl -s "$U/metrics" >"$tmp/m"
	grep -q '^gpuwatch_training_mfu_ratio{job="pair"}' "$tmp/m" && break
	sleep 0.1
done
for f in mfu_ratio hfu_ratio tokens_per_second tokens_per_joule; do
	if ! grep -q "^# HELP gpuwatch_training_$f [A-Z]" "$tmp/m" || ! grep -q "^# TYPE gpuwatch_training_$f gauge$" "$tmp/m" ||
		! grep -q "^gpuwatch_training_$f{job=\"llama3-8b\"} [0-9.e+-]*$" "$tmp/m"; then
		fail "/metrics: gpuwatch_training_$f: $(grep "gpuwatch_training_$f" "$tmp/m")"
	fi
done
# in the history: one point a push from the second on
n=$(query 'count_over_time(gpuwatch_training_tokens_per_second{job="llama3-8b"}[5m])' |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')
[ "$n" = 5 ] || fail "stored tokens_per_second points: $n, want 5"
curl -s "$U/api/v1/query_range" --data-urlencode 'query=gpuwatch_training_mfu_ratio{job="llama3-8b"}' \
	--data-urlencode "start=$(($(date +%s) - 60))" --data-urlencode "end=$(date +%s)" --data-urlencode step=1 >"$tmp/qr"
grep -q '"resultType":"matrix","result":\[{"metric":{"__name__":"gpuwatch_training_mfu_ratio","instance"' "$tmp/qr" ||
	fail "query_range: $(head -c 300 "$tmp/qr")"

# malformed model_info: logged once each with why; tokens/s without MFU; no GPUs, no tokens/J
grep -c 'training model_info not usable.*group="job=noparams".*why="params is missing' "$tmp/agent.err" | grep -qx 1 ||
	fail "missing params not logged once: $(grep noparams "$tmp/agent.err")"
grep -c 'training model_info not usable.*group="job=badgpu".*why="gpus: \\"9\\" is no GPU here' "$tmp/agent.err" | grep -qx 1 ||
	fail "unknown GPU not logged once: $(grep badgpu "$tmp/agent.err")"
grep -q 'training model_info not usable.*group="job=noinfo".*no gpuwatch_training_model_info pushed' "$tmp/agent.err" ||
	fail "a job without model_info not logged: $(grep noinfo "$tmp/agent.err")"
grep -q 'msg="training efficiency derived" group="job=llama3-8b" gpus=8 dtype=bf16 recompute=selective' "$tmp/agent.err" ||
	fail "no log line for the derived job: $(grep llama3-8b "$tmp/agent.err")"
for j in noparams badgpu noinfo; do
	grep -q "^gpuwatch_training_tokens_per_second{job=\"$j\"} [0-9]" "$tmp/m" || fail "$j: no tokens/s on /metrics"
	grep -q "^gpuwatch_training_mfu_ratio{job=\"$j\"}" "$tmp/m" && fail "$j: MFU from a malformed model_info"
done
grep -q '^gpuwatch_training_tokens_per_joule{job="noparams"}' "$tmp/m" || fail "noparams: no tokens/J (all GPUs)"
grep -q '^gpuwatch_training_tokens_per_joule{job="badgpu"}' "$tmp/m" && fail "badgpu: tokens/J of no GPUs"

# a counter reset reads as a restart from 0; a POST that keeps the counter adds no point
tokens llama3-8b 40000 "$shape,recompute=\"selective\""
sleep 0.3
tokens llama3-8b 70000 "$shape,recompute=\"selective\""
check llama3-8b 8 selective
before=$(query 'gpuwatch_training_tokens_per_second{job="llama3-8b"}')
code=$(push POST llama3-8b 'train_loss 1.5\n')
[ "$code" = 200 ] || fail "POST: $code"
after=$(query 'gpuwatch_training_tokens_per_second{job="llama3-8b"}')
[ "${before##*,\"}" = "${after##*,\"}" ] || fail "a POST without the counter moved the rate: $before -> $after"

# Python's prometheus_client, as docs/EFFICIENCY.md shows it (Debian's python3-prometheus-client)
py=""
for p in python3 /usr/bin/python3; do
	command -v "$p" >/dev/null && "$p" -c 'import prometheus_client' 2>/dev/null && { py=$p; break; }
done
if [ -z "$py" ]; then
	echo "agent_train: the prometheus_client part skipped: no python3 with prometheus_client (python3-prometheus-client)"
else
	"$py" - "127.0.0.1:$port" <<'PY' || fail "prometheus_client push failed"
import sys, time
from prometheus_client import CollectorRegistry, Counter, Gauge, push_to_gateway
reg = CollectorRegistry()
tokens = Counter("gpuwatch_training_tokens", "Tokens trained on.", registry=reg)
info = Gauge("gpuwatch_training_model_info", "The model's shape.", ["params", "layers", "hidden", "seq"], registry=reg)
info.labels(params="8.03e9", layers="32", hidden="4096", seq="8192").set(1)
for step in range(6):
    tokens.inc(2 * 8192)  # a step's sequences x their length
    push_to_gateway(sys.argv[1], job="pyjob", registry=reg)
    time.sleep(0.3)
PY
	check pyjob 8 none
fi

# the families go with the group, or with its counter
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$U/metrics/job/llama3-8b")
[ "$code" = 202 ] || fail "DELETE: $code"
code=$(push PUT pair 'train_loss 1.2\n')
[ "$code" = 200 ] || fail "PUT without the counter: $code"
for _ in $(seq 30); do
	curl -s "$U/metrics" >"$tmp/m"
	grep -q 'gpuwatch_training_[a-z_]*{job="\(llama3-8b\|pair\)"}' "$tmp/m" || break
	sleep 0.1
done
grep 'gpuwatch_training_[a-z_]*{job="\(llama3-8b\|pair\)"}' "$tmp/m" && fail "families on /metrics after their group went"
[ "$(query 'gpuwatch_training_mfu_ratio{job=~"llama3-8b|pair"}')" = '{"status":"success","data":{"resultType":"vector","result":[]}}' ] ||
	fail "queries still see the families after their group went"
grep -q 'no longer derived.*group="job=llama3-8b"' "$tmp/agent.err" || fail "deletion not logged"

[ "$fails" = 0 ] && echo "agent_train: all passed"
[ "$fails" = 0 ]
