#!/usr/bin/env bash
# The health watches end to end on tests/data/scenarios/health-faults.scn
# (twelve GPUs, one fault each on GPUs 1-9 and 11 three seconds in: ecc-dbe,
# retire-page, remap-fail, pcie-replay, xid 31, lost, hw-thermal throttle,
# NVLink replay errors, power brake, an NVLink down): each watch gives its verdict on its
# GPU and on no other, through `gpuwatch health` (text, --json, -i, exit
# codes) and through the agent's /metrics (gpuwatch_health_status and
# dcgm-exporter's DCGM_EXP_GPU_HEALTH_STATUS), /api/v1/health and its
# history. A clean fleet passes with exit 0; the text and JSON match
# tests/golden/health/ on tests/data/scenarios/health-state.scn. Policies (--policy) run a
# program, log and post a webhook for their GPU's events, once each, and
# every condition fires on its fault's GPU; a program that is not there is
# logged and the agent goes on; SIGHUP reloads the policy file.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed"; exit 77; }
done
. "$(dirname "$0")/../lib/common.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
scn="$SRC/tests/data/scenarios/health-faults.scn"

# What each GPU must show: status, then system:severity:code of each incident, sorted.
expect() {
	case $1 in
	0 | 10) echo "pass" ;;
	1) echo "fail driver:warn:DCGM_FR_CONTAINED_ERROR memory:fail:DCGM_FR_VOLATILE_DBE_DETECTED memory:warn:DCGM_FR_PENDING_ROW_REMAP" ;;
	2) echo "warn memory:warn:DCGM_FR_PENDING_PAGE_RETIREMENTS" ;;
	3) echo "fail memory:fail:DCGM_FR_ROW_REMAP_FAILURE" ;;
	4) echo "warn pcie:warn:DCGM_FR_PCI_REPLAY_RATE" ;;
	5) echo "warn memory:warn:DCGM_FR_XID_ERROR" ;;
	6) echo "fail driver:fail:DCGM_FR_FALLEN_OFF_BUS driver:fail:DCGM_FR_FALLEN_OFF_BUS" ;;
	7) echo "warn thermal:warn:DCGM_FR_CLOCK_THROTTLE_THERMAL" ;;
	8) echo "fail nvlink:fail:DCGM_FR_NVLINK_ERROR_CRITICAL" ;;
	9) echo "warn power:warn:DCGM_FR_CLOCK_THROTTLE_POWER" ;;
	11) echo "fail nvlink:fail:DCGM_FR_NVLINK_DOWN" ;;
	esac
}
# The JSON's verdicts in expect()'s shape, one line a GPU: "INDEX STATUS incidents..."
verdicts() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
for g in d["gpus"]:
    inc = sorted("%s:%s:%s" % (i["system"], i["severity"], i["code"]) for i in g["incidents"])
    for i in g["incidents"]:
        assert i["message"] and i["since"].endswith("Z"), i
    print(g["index"], " ".join([g["status"]] + inc))
print("overall", d["overall"])'
}
check_verdicts() { # FILE WHAT
	for g in $(seq 0 11); do
		got=$(grep "^$g " "$1" | cut -d' ' -f2-)
		[ "$got" = "$(expect "$g")" ] || fail "$2: GPU $g: got '$got', want '$(expect "$g")'"
	done
	grep -qx 'overall fail' "$1" || fail "$2: overall is not fail: $(grep overall "$1")"
}

# ---- the one-shot command ----
"$BIN" --sim "$scn" health --json -w 5 >"$tmp/one.json" 2>"$tmp/one.err"
rc=$?
[ "$rc" = 21 ] || fail "health exit $rc with failing GPUs, want 21 ($(cat "$tmp/one.err"))"
verdicts <"$tmp/one.json" >"$tmp/one.v" || fail "health --json is not the documented JSON: $(head -c 300 "$tmp/one.json")"
check_verdicts "$tmp/one.v" "gpuwatch health"

"$BIN" --sim "$scn" health -i 4,0 -w 5 >"$tmp/sel.txt" 2>/dev/null
rc=$?
[ "$rc" = 20 ] || fail "health -i 4,0 exit $rc with a warning only, want 20"
grep -q '^Overall: warn$' "$tmp/sel.txt" || fail "health -i 4,0 text: $(cat "$tmp/sel.txt")"
grep -q '^GPU 4 .* warn$' "$tmp/sel.txt" && grep -q '^GPU 0 .* pass$' "$tmp/sel.txt" ||
	fail "health -i 4,0 does not show GPUs 4 and 0: $(cat "$tmp/sel.txt")"
grep -q 'PCIe replays in the last minute.*check the slot' "$tmp/sel.txt" || fail "no replay incident with advice: $(cat "$tmp/sel.txt")"
[ "$(grep -c '^GPU ' "$tmp/sel.txt")" = 2 ] || fail "health -i 4,0 shows other GPUs: $(cat "$tmp/sel.txt")"

"$BIN" --sim 4xH200:training,2xL40S:inference,1xA100:burn health -w 2 >"$tmp/clean.txt" 2>/dev/null
rc=$?
[ "$rc" = 0 ] || fail "a clean fleet exits $rc, want 0: $(cat "$tmp/clean.txt")"
[ "$(grep -c '^GPU .* pass$' "$tmp/clean.txt")" = 7 ] || fail "a clean fleet does not pass: $(cat "$tmp/clean.txt")"

# the text and JSON as they are printed (tests/golden/health/; times masked; GW_GOLDEN_UPDATE=1 rewrites them)
gold="$SRC/tests/golden/health"
mask() { sed -e 's/(since [0-9T:.Z-]*)/(since T)/' -e 's/"since":"[0-9T:.Z-]*"/"since":"T"/g'; }
"$BIN" --sim "$SRC/tests/data/scenarios/health-state.scn" health 2>/dev/null | mask >"$tmp/state.txt"
[ "${PIPESTATUS[0]}" = 21 ] || fail "health-state.scn: exit ${PIPESTATUS[0]}, want 21"
"$BIN" --sim "$SRC/tests/data/scenarios/health-state.scn" health --json 2>/dev/null | mask >"$tmp/state.json"
for f in state.txt state.json; do
	if [ "${GW_GOLDEN_UPDATE:-0}" = 1 ]; then
		mkdir -p "$gold" && cp "$tmp/$f" "$gold/$f"
	else
		diff -u "$gold/$f" "$tmp/$f" >"$tmp/$f.diff" || fail "health output differs from tests/golden/health/$f: $(head -20 "$tmp/$f.diff")"
	fi
done

"$BIN" --sim 2xH200 health -w abc >/dev/null 2>"$tmp/bad.err"
[ $? = 2 ] && grep -q -- '-w abc: not a number of seconds' "$tmp/bad.err" || fail "bad -w: $(cat "$tmp/bad.err")"
"$BIN" --sim 2xH200 health -i 7 >/dev/null 2>"$tmp/bad.err"
[ $? = 6 ] && grep -q 'no such GPU' "$tmp/bad.err" || fail "health -i 7 of 2 GPUs: $(cat "$tmp/bad.err")"
"$BIN" health --help | grep -q 'Exit status: 0 all pass, 20 a warning' || fail "health --help says no exit codes"

# ---- the agent ----
printf 'DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\nDCGM_EXP_GPU_HEALTH_STATUS, counter, DCGM reported health status\n' >"$tmp/counters.csv"
# policies: a program with the firing in its environment, the log, a webhook, and a program that is not there
cat >"$tmp/hook.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with open(sys.argv[2], "ab") as f:
            f.write(body)
        self.send_response(200); self.end_headers()
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
hport=$(free_port)
python3 "$tmp/hook.py" "$hport" "$tmp/hook.out" &
pids+=($!)
cat >"$tmp/record.sh" <<SH
#!/bin/sh
echo "\$GPUWATCH_GPU_INDEX \$GPUWATCH_GPU_UUID \$GPUWATCH_CONDITION \$GPUWATCH_VALUE \$1" >>"$tmp/fired"
SH
chmod +x "$tmp/record.sh"
cat >"$tmp/policy.yml" <<YML
policies:
  - name: memory
    conditions:
      dbe: true
      xid: [79]
    actions:
      - exec: ["$tmp/record.sh", memory]
      - log
  - name: links
    conditions:
      nvlink_errors: true
    actions:
      - webhook: http://127.0.0.1:$hport/gpu
      - exec: [/nonexistent/drain]
    interval: 1h
  - name: others
    conditions:
      retired_pages: 1
      pcie_replays_per_min: 0
      thermal_violation: true
      power_violation: true
      health: fail
    actions:
      - exec: ["$tmp/record.sh", others]
    interval: 1h
YML
port=$(free_port)
"$BIN" --sim "$scn" agent -a "127.0.0.1:$port" -f "$tmp/counters.csv" --slow-interval 500 --storage.path "$tmp/data" \
	--policy "$tmp/policy.yml" >"$tmp/agent.log" 2>&1 &
apid=$!
pids+=($apid)
wait_http "http://127.0.0.1:$port/api/v1/health" 10 || fail "no /api/v1/health: $(tail -5 "$tmp/agent.log")"
sleep 6 # the faults, then frames with them (the slow fields: ECC, retired pages, every 0.5 s)
curl -sf "http://127.0.0.1:$port/api/v1/health" >"$tmp/agent.json"
verdicts <"$tmp/agent.json" >"$tmp/agent.v" || fail "/api/v1/health is not the documented JSON: $(head -c 300 "$tmp/agent.json")"
check_verdicts "$tmp/agent.v" "/api/v1/health"
curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/metrics"
# gpuwatch_health_status: 0 pass, 1 warn, 2 fail, one series per GPU and system
[ "$(grep -c '^gpuwatch_health_status{' "$tmp/metrics")" = 84 ] ||
	fail "want 12 GPUs x 7 systems of gpuwatch_health_status, got $(grep -c '^gpuwatch_health_status{' "$tmp/metrics")"
grep -q '^gpuwatch_health_status{gpu="1",uuid="GPU-[^"]*",pci_bus_id="[^"]*",model="NVIDIA H200",system="memory"} 2$' "$tmp/metrics" ||
	fail "GPU 1's memory does not fail in /metrics: $(grep 'gpu="1".*memory' "$tmp/metrics")"
grep -q '^gpuwatch_health_status{gpu="4",.*system="pcie"} 1$' "$tmp/metrics" || fail "GPU 4's pcie does not warn in /metrics"
grep -q '^gpuwatch_health_status{gpu="8",.*system="nvlink"} 2$' "$tmp/metrics" || fail "GPU 8's nvlink does not fail in /metrics"
bad=$(grep '^gpuwatch_health_status{gpu="\(0\|10\)",' "$tmp/metrics" | grep -v ' 0$')
[ -z "$bad" ] || fail "healthy GPUs do not pass: $bad"
[ "$(grep '^gpuwatch_health_status{' "$tmp/metrics" | grep -vc ' 0$')" = 11 ] ||
	fail "want 11 series that are not pass (GPU 1: memory and driver): $(grep '^gpuwatch_health_status{' "$tmp/metrics" | grep -v ' 0$')"
# dcgm-exporter's family: 11 watches a GPU, DCGM's values and error codes
[ "$(grep -c '^DCGM_EXP_GPU_HEALTH_STATUS{' "$tmp/metrics")" = 132 ] ||
	fail "want 12 GPUs x 11 watches of DCGM_EXP_GPU_HEALTH_STATUS, got $(grep -c '^DCGM_EXP_GPU_HEALTH_STATUS{' "$tmp/metrics")"
grep -q '^DCGM_EXP_GPU_HEALTH_STATUS{gpu="1",UUID="GPU-[^"]*",pci_bus_id="[^"]*",device="nvidia1",modelName="NVIDIA H200",Hostname="[^"]*",health_error_code="DCGM_FR_VOLATILE_DBE_DETECTED",health_watch="MEM"} 20$' "$tmp/metrics" ||
	fail "GPU 1's MEM watch in DCGM_EXP_GPU_HEALTH_STATUS: $(grep 'gpu="1".*MEM' "$tmp/metrics")"
grep -q '^DCGM_EXP_GPU_HEALTH_STATUS{gpu="6",.*health_error_code="DCGM_FR_FALLEN_OFF_BUS",health_watch="ALL"} 20$' "$tmp/metrics" ||
	fail "GPU 6's fall off the bus is not under ALL"
grep -q '^DCGM_EXP_GPU_HEALTH_STATUS{gpu="0",.*health_error_code="DCGM_FR_OK",health_watch="PCIE"} 0$' "$tmp/metrics" ||
	fail "GPU 0's PCIE watch does not pass with DCGM_FR_OK"
grep -q 'counters file: field left out.*DCGM_EXP_GPU_HEALTH_STATUS' "$tmp/agent.log" && fail "the agent still leaves DCGM_EXP_GPU_HEALTH_STATUS out"
# the history keeps the family as /metrics shows it
sleep 1.5
q=$(curl -sf "http://127.0.0.1:$port/api/v1/query" --data-urlencode 'query=gpuwatch_health_status{system="nvlink",gpu="8"}' |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")')
[ "$q" = 2 ] || fail "the history's gpuwatch_health_status for GPU 8 nvlink is $q, want 2"

# the policies fired on their GPUs only, once each (a DBE is one event; the interval holds repeats back)
uuid() { python3 -c "import json,sys; print([g['uuid'] for g in json.load(open('$tmp/agent.json'))['gpus'] if g['index']==$1][0])"; }
grep ' memory$' "$tmp/fired" 2>/dev/null | sort >"$tmp/fired.s"
printf '1 %s dbe 1 memory\n6 %s xid 79 memory\n' "$(uuid 1)" "$(uuid 6)" | sort >"$tmp/fired.want"
cmp -s "$tmp/fired.s" "$tmp/fired.want" || fail "policy exec: got '$(cat "$tmp/fired.s")', want '$(cat "$tmp/fired.want")'"
grep -q 'level=warn msg="policy fired" policy=memory condition=dbe gpu=1 ' "$tmp/agent.log" || fail "no policy log line for GPU 1's DBE"
# the other conditions, each on its fault's GPU: retired pages (2), PCIe replays (4), thermal
# violation (7), a failing verdict (1, 3, 6, 8, 11); power violations on every GPU, since the training
# workload runs at its power cap, GPU 9's brake among them
grep ' others$' "$tmp/fired" 2>/dev/null | awk '$3 != "power_violation" { print $1, $3 }' | sort -n >"$tmp/others"
printf '1 health\n2 retired_pages\n3 health\n4 pcie_replays_per_min\n6 health\n7 thermal_violation\n8 health\n11 health\n' >"$tmp/others.want"
cmp -s "$tmp/others" "$tmp/others.want" ||
	fail "policy conditions: got '$(tr '\n' ';' <"$tmp/others")', want '$(tr '\n' ';' <"$tmp/others.want")'"
grep -q "^9 GPU-[^ ]* power_violation [0-9.]* others$" "$tmp/fired" || fail "no power_violation firing on GPU 9"
python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(lines) == 1, lines
h = lines[0]
assert (h["policy"], h["condition"], h["gpu"], h["value"]) == ("links", "nvlink_errors", 8, "3"), h
assert h["uuid"].startswith("GPU-") and h["time"].endswith("Z"), h
' "$tmp/hook.out" 2>"$tmp/hook.err" || fail "policy webhook: $(cat "$tmp/hook.err" "$tmp/hook.out" 2>/dev/null | tail -3)"
grep -q 'msg="policy action failed" policy=links condition=nvlink_errors gpu=8 action=exec target="/nonexistent/drain" err="cannot run it' "$tmp/agent.log" ||
	fail "a missing program is not logged: $(grep policy "$tmp/agent.log")"
curl -sf "http://127.0.0.1:$port/-/healthy" >/dev/null || fail "the agent is down after a failed policy action"
# SIGHUP reloads the policy file: a broken one keeps the policies in force and says where it is wrong;
# a good one takes over. Its rate limits start afresh (GPU 8's NVLink errors, which still hold, fire
# again under the new policy), and events seen before (GPU 1's DBE) do not fire again.
cp "$tmp/policy.yml" "$tmp/policy.good"
printf 'policies:\n  - name: x\n    conditions: {dbe: maybe}\n    actions: [log]\n' >"$tmp/policy.yml"
kill -HUP "$apid"
for _ in $(seq 50); do grep -q 'keeping the previous policies' "$tmp/agent.log" && break; sleep 0.1; done
grep -q 'msg="reload failed; keeping the previous policies" err=".*policy.yml:3' "$tmp/agent.log" ||
	fail "a broken policy file on SIGHUP: $(grep -i 'polic' "$tmp/agent.log" | tail -2)"
cat >"$tmp/policy.yml" <<YML
policies:
  - name: reloaded
    conditions:
      dbe: true
      nvlink_errors: true
    actions:
      - exec: ["$tmp/record.sh", reloaded]
    interval: 1h
YML
kill -HUP "$apid"
for _ in $(seq 80); do grep -q ' reloaded$' "$tmp/fired" 2>/dev/null && break; sleep 0.1; done
grep -q "msg=\"reloaded policies\" file=$tmp/policy.yml policies=1" "$tmp/agent.log" ||
	fail "no reload log line: $(grep -i 'polic' "$tmp/agent.log" | tail -2)"
sleep 2
grep ' reloaded$' "$tmp/fired" >"$tmp/fired.r"
printf '8 %s nvlink_errors 3 reloaded\n' "$(uuid 8)" >"$tmp/fired.rwant"
cmp -s "$tmp/fired.r" "$tmp/fired.rwant" || fail "after the reload: got '$(cat "$tmp/fired.r")', want '$(cat "$tmp/fired.rwant")'"
curl -sf "http://127.0.0.1:$port/-/healthy" >/dev/null || fail "the agent is down after the policy reloads"
# a bad policy file stops the start, naming the line
printf 'policies:\n  - conditions: {dbee: true}\n    actions: [log]\n' >"$tmp/bad.yml"
"$BIN" --sim 2xH200 agent -a 127.0.0.1:0 --no-history --policy "$tmp/bad.yml" >/dev/null 2>"$tmp/bad.log"
[ $? != 0 ] && grep -q 'bad.yml:2: unknown condition' "$tmp/bad.log" || fail "a bad policy file: $(tail -2 "$tmp/bad.log")"

[ "$fails" = 0 ] || exit 1
echo ok
