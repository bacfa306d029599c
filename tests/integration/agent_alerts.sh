#!/usr/bin/env bash
# Alerting end to end: the agent on a simulated fleet whose GPU 1 is pinned
# at 91 °C for 15 s, then cools to 40 °C, with the article's rules
# (../shared/reference/gpu_alerts.yml when present, else the rule pack's
# copy of them; `for` shortened in a test copy, a 1 s group interval), and
# a real Alertmanager 0.25 on loopback that notifies a webhook recorder:
# the HighGpuTemperature alert arrives at Alertmanager with the labels and
# annotations Prometheus would render (Chinese text included), the agent's
# external label and generatorURL, and is resolved when the GPU cools. A
# second Alertmanager URL nobody listens on is counted as failing and does
# not hold the live one back; a bad rule file on reload is refused and the
# running rules keep running.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in prometheus-alertmanager curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed (scripts/deps.sh test installs it)"; exit 77; }
done
. "$(dirname "$0")/../lib/common.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

ref="$SRC/../shared/reference/gpu_alerts.yml"
if [ ! -f "$ref" ]; then
	echo "note: $ref absent; using the rule pack's copy of the article's alerts"
	ref="$SRC/deploy/rules/gpuwatch-alerts.yml"
fi
# The test copy: every `for` 3 s, every group evaluated each second.
sed -e 's/^\(  *\)for: .*/\1for: 3s/' -e 's/^\(- name: .*\)$/\1\n  interval: 1s/' "$ref" >"$tmp/rules.yml"
grep -q 'interval: 1s' "$tmp/rules.yml" || { echo "FAIL: could not make the test copy of $ref"; exit 1; }

# Refused at start, with the reason: a rule file that is not there, one with an error, rules without a store.
"$BIN" --sim 1xH200 agent -a 127.0.0.1:0 --storage.path "$tmp/d0" --rules "$tmp/none.yml" 2>"$tmp/start.err"
rc=$?
[ $rc = 1 ] && grep -q "cannot load the rules: rule file $tmp/none.yml: No such file or directory" "$tmp/start.err" ||
	fail "a missing rule file: exit $rc: $(tail -1 "$tmp/start.err")"
printf 'groups:\n- name: g\n  rules:\n  - record: x\n    expr: rate(up[5m]\n' >"$tmp/bad.yml"
"$BIN" --sim 1xH200 agent -a 127.0.0.1:0 --storage.path "$tmp/d0" --rules "$tmp/bad.yml" 2>"$tmp/start.err"
rc=$?
[ $rc = 1 ] && grep -q "bad.yml: 5:11: group .g., rule 1, .x.: could not parse expression" "$tmp/start.err" ||
	fail "a bad rule file: exit $rc: $(tail -1 "$tmp/start.err")"
"$BIN" --sim 1xH200 agent -a 127.0.0.1:0 --no-history --rules "$tmp/rules.yml" 2>"$tmp/start.err"
rc=$?
[ $rc = 1 ] && grep -q -- "--rules needs the history store" "$tmp/start.err" || fail "rules without history: exit $rc"

# The webhook Alertmanager notifies: each POST body kept as a file.
hookport=$(free_port)
mkdir -p "$tmp/hook"
python3 - "$hookport" "$tmp/hook" >"$tmp/hook.log" 2>&1 <<'PY' &
import http.server, os, sys
port, out = int(sys.argv[1]), sys.argv[2]
n = [0]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        n[0] += 1
        with open(os.path.join(out, "%03d.json" % n[0]), "wb") as f:
            f.write(body)
        self.send_response(200); self.end_headers()
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
PY
pids+=($!)

amport=$(free_port)
cat >"$tmp/am.yml" <<YML
route:
  receiver: hook
  group_by: [alertname, gpu]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
- name: hook
  webhook_configs:
  - url: http://127.0.0.1:$hookport/
    send_resolved: true
YML
prometheus-alertmanager --config.file="$tmp/am.yml" --storage.path="$tmp/am" \
	--web.listen-address="127.0.0.1:$amport" --cluster.listen-address= >"$tmp/am.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$amport/-/ready" 30 || { echo "FAIL: alertmanager did not start: $(tail -3 "$tmp/am.log")"; exit 1; }

# GPU 1 hot for the first 15 virtual seconds (from now), then cool.
cat >"$tmp/hot.scn" <<SCN
[sim]
epoch = $(date +%s)
fleet = 2xH200:training
[gpu *]
util_gpu = 50
[gpu 1]
temp_c = 91 91 91 91 91 91 91 91 91 91 91 91 91 91 91 40
SCN
dead=$(free_port)
port=$(free_port)
"$BIN" --sim "$tmp/hot.scn" agent -a "127.0.0.1:$port" --storage.path "$tmp/data" --instance node1 \
	--rules "$tmp/rules.yml" --alertmanager.url "http://127.0.0.1:$dead" \
	--alertmanager.url "http://127.0.0.1:$amport" --external-label cluster=lab \
	--web.external-url "http://node1:9400/" 2>"$tmp/agent.err" &
apid=$!
pids+=($apid)
wait_http "http://127.0.0.1:$port/health" 10 || { echo "FAIL: agent did not start: $(cat "$tmp/agent.err")"; exit 1; }

# notified STATUS: the first webhook body from Alertmanager with HighGpuTemperature in that status.
notified() {
	python3 - "$tmp/hook" "$1" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    d = json.load(open(f))
    if any(a["labels"].get("alertname") == "HighGpuTemperature" and a["status"] == sys.argv[2] for a in d["alerts"]):
        print(f)
        break
PY
}
# The firing notification, within 15 s of the start (3 s for, restore after two evaluations, 1 s group wait).
firing=""
for _ in $(seq 150); do
	firing=$(notified firing)
	[ -n "$firing" ] && break
	sleep 0.1
done
if [ -z "$firing" ]; then
	fail "no firing notification from Alertmanager: $(tail -5 "$tmp/agent.err")"
else
	python3 - "$firing" "$SRC" >"$tmp/check.out" 2>&1 <<'PY' || fail "firing notification: $(cat "$tmp/check.out")"
import json, sys
d = json.load(open(sys.argv[1]))
alerts = [a for a in d["alerts"] if a["labels"]["alertname"] == "HighGpuTemperature" and a["status"] == "firing"]
assert len(alerts) == 1, "HighGpuTemperature alerts: %r" % d["alerts"]
a = alerts[0]
l = a["labels"]
want = {"alertname": "HighGpuTemperature", "severity": "warning", "gpu": "1", "instance": "node1",
        "job": "gpuwatch", "cluster": "lab", "modelName": "NVIDIA H200"}
for k, v in want.items():
    assert l.get(k) == v, "label %s = %r, want %r (%r)" % (k, l.get(k), v, l)
assert "__name__" not in l and "UUID" in l, l
ann = a["annotations"]
assert ann["summary"] == "高GPU温度 (node1)", ann
assert ann["description"] == "GPU 1 温度超过85°C已持续2分钟，当前值: 91°C", ann
g = a["generatorURL"]
assert g == "http://node1:9400/graph?g0.expr=DCGM_FI_DEV_GPU_TEMP+%3E+85&g0.tab=1", g
print("ok")
PY
fi

# The agent's own view: the alert firing, ALERTS written, GPU 0 never alerting.
api() { curl -s --data-urlencode "query=$1" "http://127.0.0.1:$port/api/v1/query"; }
got=$(curl -s "http://127.0.0.1:$port/api/v1/alerts" | json '",".join(sorted(a["labels"]["alertname"]+":"+a["labels"]["gpu"]+":"+a["state"] for a in d["data"]["alerts"] if a["labels"]["alertname"]=="HighGpuTemperature"))')
[ "$got" = "HighGpuTemperature:1:firing" ] || fail "/api/v1/alerts: '$got'"
got=$(api 'ALERTS{alertname="HighGpuTemperature",alertstate="firing"}' | json 'len(d["data"]["result"])')
[ "$got" = 1 ] || fail "ALERTS firing series: '$got', want 1"
health='",".join(r["health"] for g in d["data"]["groups"] for r in g["rules"] if r["name"]=="HighGpuTemperature")'
got=$(curl -s "http://127.0.0.1:$port/api/v1/rules?type=alert" | json "$health")
[ "$got" = ok ] || fail "the temperature rule's health: '$got'"

# A bad rule file on reload is refused; the running rules keep running.
cp "$tmp/rules.yml" "$tmp/rules.good"
printf 'groups:\n- name: x\n  rules:\n  - alert: Broken\n    expr: sum(\n' >"$tmp/rules.yml"
code=$(curl -s -o "$tmp/reload.out" -w '%{http_code}' -X POST "http://127.0.0.1:$port/-/reload")
[ "$code" = 500 ] || fail "reload of a bad rule file answered $code"
grep -q 'rules.yml: 5:11: group "x", rule 1, "Broken": could not parse expression' "$tmp/reload.out" ||
	fail "reload error: $(cat "$tmp/reload.out")"
got=$(curl -s "http://127.0.0.1:$port/api/v1/rules" | json "$health")
[ "$got" = ok ] || fail "rules after a refused reload: '$got'"
cp "$tmp/rules.good" "$tmp/rules.yml"

# Cooled at 15 s: the resolved notification follows.
resolved=""
for _ in $(seq 300); do
	resolved=$(notified resolved)
	[ -n "$resolved" ] && break
	sleep 0.1
done
if [ -z "$resolved" ]; then
	fail "no resolved notification from Alertmanager"
else
	got=$(json '",".join(a["labels"]["gpu"]+":"+a["status"] for a in d["alerts"] if a["labels"]["alertname"]=="HighGpuTemperature")' <"$resolved")
	[ "$got" = "1:resolved" ] || fail "resolved notification: $got"
fi

# The dead Alertmanager: errors counted for it, none for the live one; the agent answered throughout.
m=$(curl -s "http://127.0.0.1:$port/metrics")
echo "$m" | grep -Eq "^gpuwatch_notifications_errors_total\{alertmanager=\"http://127.0.0.1:$dead/api/v2/alerts\"\} [1-9]" ||
	fail "no errors counted for the dead Alertmanager: $(echo "$m" | grep notifications_errors)"
echo "$m" | grep -Eq "^gpuwatch_notifications_sent_total\{alertmanager=\"http://127.0.0.1:$amport/api/v2/alerts\"\} [1-9]" ||
	fail "nothing counted as sent to the live Alertmanager: $(echo "$m" | grep notifications_sent)"
echo "$m" | grep -Eq '^gpuwatch_rule_evaluation_failures_total\{rule_group=".*rules.yml;.*"\} 0$' ||
	fail "rule evaluation failures: $(echo "$m" | grep evaluation_failures)"
kill -INT $apid
wait $apid 2>/dev/null
grep -q 'level=error msg="reload failed; keeping the previous rules"' "$tmp/agent.err" || fail "the refused reload was not logged"

[ "$fails" = 0 ] || exit 1
echo "PASS: alert fired, reached Alertmanager as Prometheus would send it, and resolved"
