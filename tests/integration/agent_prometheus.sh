#!/usr/bin/env bash
# The agent scraped by a real Prometheus (Debian's prometheus 2.42) with the
# reference prometheus.yml and gpu_alerts.yml (ports adjusted), the values
# read back through Prometheus' HTTP API equal the simulator's pinned values,
# the reference alert rules load and evaluate, promtool finds nothing wrong
# with the native exposition, and the agent survives bad requests, a bad
# counters file on SIGHUP, and stops cleanly on SIGTERM.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v prometheus >/dev/null && command -v promtool >/dev/null && command -v curl >/dev/null || {
	echo "skipped: prometheus, promtool or curl not installed (scripts/deps.sh test installs them)"
	exit 77
}
. "$(dirname "$0")/../lib/common.sh"

# Two H200s with pinned values (GPU 1 hotter and busier).
cat >"$tmp/fleet.scn" <<'SCN'
[sim]
fleet = 2xH200:training
clock = manual
[gpu 0]
temp_c = 61
util_gpu = 42
power_mw = 612340
mem_used_mib = 100000
[gpu 1]
temp_c = 88
util_gpu = 97
power_mw = 690000
mem_used_mib = 140000
SCN

aport=$(free_port)
"$BIN" --sim "$tmp/fleet.scn" agent -a "127.0.0.1:$aport" -c 1000 -f "$tmp/counters.csv" --storage.path "$tmp/data" 2>"$tmp/agent.err" &
apid=$!
sleep 0.5
# A missing counters file is a clear start-up error, not a silent default.
if kill -0 "$apid" 2>/dev/null; then
	fail "agent started with a missing counters file"
	kill "$apid"
else
	grep -q "cannot open counters file $tmp/counters.csv" "$tmp/agent.err" || fail "missing counters file: $(cat "$tmp/agent.err")"
fi
printf 'DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\nDCGM_FI_DEV_GPU_UTIL, gauge, GPU utilization (in %%).\nDCGM_FI_DEV_FB_USED, gauge, Framebuffer memory used (in MiB).\nDCGM_FI_DEV_FB_TOTAL, gauge, Framebuffer memory total (in MiB).\nDCGM_FI_DEV_POWER_USAGE, gauge, Power draw (in W).\nDCGM_FI_DEV_POWER_LIMIT, gauge, Power limit (in W).\nDCGM_FI_DRIVER_VERSION, label, Driver Version\n' >"$tmp/counters.csv"
"$BIN" --sim "$tmp/fleet.scn" agent -a "127.0.0.1:$aport" -c 1000 -f "$tmp/counters.csv" --storage.path "$tmp/data" 2>"$tmp/agent.err" &
apid=$!
pids+=("$apid")
wait_http "http://127.0.0.1:$aport/health" 10 || fail "agent /health never answered: $(cat "$tmp/agent.err")"
[ "$(curl -s "http://127.0.0.1:$aport/health")" = OK ] || fail "/health is not OK"
curl -s "http://127.0.0.1:$aport/metrics" >"$tmp/metrics"
grep -q '^DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-[0-9a-f-]*",pci_bus_id="00000000:2A:00.0",device="nvidia1",modelName="NVIDIA H200",Hostname="[^"]*",DCGM_FI_DRIVER_VERSION="590.48.01"} 88$' "$tmp/metrics" ||
	fail "DCGM_FI_DEV_GPU_TEMP line for GPU 1: $(grep GPU_TEMP "$tmp/metrics")"
grep -q '^DCGM_FI_DEV_SM_CLOCK' "$tmp/metrics" && fail "counters file not honoured: SM_CLOCK exported"
# Native families pass promtool's lint (DCGM names are dcgm-exporter's, camelCase labels and all).
grep -v 'DCGM_FI_' "$tmp/metrics" >"$tmp/native"
lint=$(promtool check metrics <"$tmp/native" 2>&1)
[ -z "$lint" ] || fail "promtool check metrics: $lint"
# OpenMetrics by content negotiation.
curl -s -H 'Accept: application/openmetrics-text;version=1.0.0' -D "$tmp/h" "http://127.0.0.1:$aport/metrics" >"$tmp/om"
grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0' "$tmp/h" || fail "OpenMetrics content type: $(cat "$tmp/h")"
[ "$(tail -1 "$tmp/om")" = "# EOF" ] || fail "OpenMetrics does not end with # EOF"

# Bad requests get 4xx and the agent stays up.
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$aport/nope")
[ "$code" = 404 ] || fail "unknown path answered $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary @"$tmp/metrics" "http://127.0.0.1:$aport/metrics")
[ "${code:0:1}" = 4 ] || fail "POST with a large body answered $code"
printf 'GARBAGE\r\n\r\n' | timeout 2 bash -c "cat >/dev/tcp/127.0.0.1/$aport" 2>/dev/null
wait_http "http://127.0.0.1:$aport/health" 2 || fail "agent died after bad requests"

# Prometheus with the reference configuration, ports adjusted.
ref=${GW_SHARED_DIR:-/nonexistent}/reference
if [ -f "$ref/prometheus.yml" ] && [ -f "$ref/gpu_alerts.yml" ]; then
	cp "$ref/prometheus.yml" "$ref/gpu_alerts.yml" "$tmp/"
else
	echo "note: reference prometheus.yml not present ($ref); using an equivalent configuration"
	cat >"$tmp/prometheus.yml" <<'YML'
global:
  scrape_interval: 15s
rule_files:
  - "gpu_alerts.yml"
scrape_configs:
  - job_name: 'prometheus'
    static_configs:
    - targets: ['localhost:9090']
  - job_name: 'dcgm-exporter'
    static_configs:
    - targets: ['localhost:9400']
    scrape_interval: 5s
YML
	cat >"$tmp/gpu_alerts.yml" <<'YML'
groups:
- name: gpu_alerts
  rules:
  - alert: HighGpuTemperature
    expr: DCGM_FI_DEV_GPU_TEMP > 85
    for: 2m
  - alert: HighMemoryUsage
    expr: DCGM_FI_DEV_FB_USED / DCGM_FI_DEV_FB_TOTAL * 100 > 90
    for: 5m
  - alert: GpuPowerViolation
    expr: DCGM_FI_DEV_POWER_USAGE > DCGM_FI_DEV_POWER_LIMIT * 0.95
    for: 5m
YML
fi
pport=$(free_port)
sed -i -e "s/localhost:9400/127.0.0.1:$aport/" -e "s/localhost:9090/127.0.0.1:$pport/" -e "s/localhost:9093/127.0.0.1:1/" "$tmp/prometheus.yml"
promtool check config "$tmp/prometheus.yml" >"$tmp/check" 2>&1 || fail "promtool check config: $(cat "$tmp/check")"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$pport" --log.level=error >"$tmp/prom.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$pport/-/ready" 30 || fail "prometheus not ready: $(tail -5 "$tmp/prom.log")"
q() { curl -s --data-urlencode "query=$1" "http://127.0.0.1:$pport/api/v1/query"; }
got=""
for _ in $(seq 100); do # the first scrape comes within one 5 s interval
	got=$(q 'DCGM_FI_DEV_GPU_TEMP{gpu="1"}' | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")')
	[ -n "$got" ] && break
	sleep 0.2
done
[ "$got" = 88 ] || fail "Prometheus reads DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"} = '$got', simulator pinned 88"
got=$(q 'DCGM_FI_DEV_POWER_USAGE{gpu="0"}' | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")')
[ "$got" = 612.34 ] || fail "power of GPU 0 through Prometheus: '$got', want 612.34"
got=$(q 'DCGM_FI_DEV_FB_USED / DCGM_FI_DEV_FB_TOTAL * 100 > 90' | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(",".join(sorted(x["metric"]["gpu"] for x in r)))')
[ "$got" = 1 ] || fail "the HighMemoryUsage expression selects GPUs '$got', want 1"
# The reference rules load and evaluate without errors.
sleep 1
rules=$(curl -s "http://127.0.0.1:$pport/api/v1/rules")
echo "$rules" | python3 -c '
import json, sys
g = json.load(sys.stdin)["data"]["groups"]
rules = [r for x in g for r in x["rules"]]
bad = [r["name"] for r in rules if r.get("health") not in ("ok", "unknown")]
sys.exit(1 if not rules or bad else 0)' || fail "rules not healthy: $rules"
up=$(q 'up{job="dcgm-exporter"}' | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")')
[ "$up" = 1 ] || fail "Prometheus sees the agent as up='$up'"

# SIGHUP with a good counters file: /metrics and the history both follow it
# (a family added, the driver label dropped).
grep -v DRIVER_VERSION "$tmp/counters.csv" >"$tmp/counters.new"
echo 'DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).' >>"$tmp/counters.new"
mv "$tmp/counters.new" "$tmp/counters.csv"
kill -HUP "$apid"
sleep 2.5
curl -s "http://127.0.0.1:$aport/metrics" >"$tmp/metrics2"
grep -q '^DCGM_FI_DEV_SM_CLOCK{gpu="1",[^}]*} [0-9]' "$tmp/metrics2" || fail "SM_CLOCK not exported after SIGHUP"
grep -q 'DCGM_FI_DRIVER_VERSION=' "$tmp/metrics2" && fail "driver label still exported after SIGHUP dropped it"
hist() { curl -s --data-urlencode "query=$1" "http://127.0.0.1:$aport/api/v1/query" |
	python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["result"]))'; }
[ "$(hist 'DCGM_FI_DEV_SM_CLOCK')" = 2 ] || fail "history does not keep SM_CLOCK after SIGHUP: $(hist 'DCGM_FI_DEV_SM_CLOCK')"
[ "$(hist 'DCGM_FI_DEV_GPU_TEMP{DCGM_FI_DRIVER_VERSION=""}')" = 2 ] ||
	fail "history does not store GPU_TEMP without the driver label after SIGHUP"

# SIGHUP with a broken counters file keeps the old set; SIGTERM stops cleanly.
echo 'DCGM_FI_DEV_GPU_TEMP, gaugeX, broken' >"$tmp/counters.csv"
kill -HUP "$apid"
sleep 0.5
grep -q 'counters.csv:1: unknown metric type' "$tmp/agent.err" || fail "reload error not logged: $(tail -3 "$tmp/agent.err")"
curl -s "http://127.0.0.1:$aport/metrics" | grep -q '^DCGM_FI_DEV_GPU_TEMP{' || fail "lost the counters after a bad reload"
kill -TERM "$apid"
wait "$apid"
rc=$?
[ "$rc" = 0 ] || fail "agent exit status $rc after SIGTERM"
grep -q 'msg="shutting down" signal=SIGTERM' "$tmp/agent.err" || fail "no shutdown log line"

[ "$fails" = 0 ] || { cat "$tmp/agent.err"; exit 1; }
echo ok
