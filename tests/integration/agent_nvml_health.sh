#!/usr/bin/env bash
# The agent with a misbehaving driver: NVML calls that keep failing (an
# error code, a timeout) are counted per function and GPU in
# gpuwatch_nvml_errors_total, logged once each (later ones are summarised
# at most once a minute) and never stop the sampling; answers that mean
# "not supported" or "no permission" are neither counted nor logged. A
# 200 ms utilisation spike between two 1 s polls shows in the
# driver-sample families and stays in the agent's own history; the native
# exposition with every new family passes promtool's lint.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null && command -v python3 >/dev/null || { echo "skipped: curl or python3 missing"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

cat >"$tmp/fleet.scn" <<'SCN'
[sim]
fleet = 2xH200:training
[gpu *]
util_gpu = 20
[gpu 1]
fault = 0 fail nvmlDeviceGetBAR1MemoryInfo UNKNOWN
fault = 0 timeout nvmlDeviceGetTemperature 30
fault = 0 fail nvmlDeviceGetEncoderStats NO_PERMISSION
unsupported = nvmlDeviceGetFanSpeed
fault = 2500ms spike util_gpu 100 200ms
SCN

port=$(free_port)
"$BIN" --sim "$tmp/fleet.scn" agent -a "127.0.0.1:$port" -c 1000 --storage.path "$tmp/data" 2>"$tmp/agent.err" &
apid=$!
pids+=("$apid")
wait_http "http://127.0.0.1:$port/health" 10 || fail "agent /health never answered: $(cat "$tmp/agent.err")"
sleep 4.5 # past the spike at 2.5 s, four or five samples

curl -s "http://127.0.0.1:$port/metrics" >"$tmp/metrics"
# Failures by function and GPU; GPU 0 has none, "not supported" and "no permission" are no failures.
grep -q '^gpuwatch_nvml_errors_total{gpu="1",uuid="GPU-[0-9a-f-]*",pci_bus_id="00000000:2A:00.0",model="NVIDIA H200",function="nvmlDeviceGetBAR1MemoryInfo"} [1-9][0-9]*$' "$tmp/metrics" ||
	fail "no BAR1 failures for GPU 1: $(grep nvml_errors "$tmp/metrics")"
grep -q '^gpuwatch_nvml_errors_total{gpu="1",.*function="nvmlDeviceGetTemperature"} [1-9]' "$tmp/metrics" ||
	fail "no temperature timeouts for GPU 1: $(grep nvml_errors "$tmp/metrics")"
grep -q '^gpuwatch_nvml_errors_total{gpu="0"' "$tmp/metrics" && fail "failures counted on GPU 0"
grep -Eq 'function="nvmlDevice(GetFanSpeed|GetEncoderStats)"' "$tmp/metrics" && fail "an unsupported call counted as failed"
# Sampling went on: samples every second and a healthy agent.
n=$(sed -n 's/^gpuwatch_samples_total \([0-9]*\)$/\1/p' "$tmp/metrics")
[ "${n:-0}" -ge 4 ] 2>/dev/null || fail "samples taken: '$n', want >= 4"
[ "$(curl -s "http://127.0.0.1:$port/health")" = OK ] || fail "/health is not OK with failing NVML calls"

# One log line per failing function, in the agent's key=value style; nothing for the others.
c=$(grep -c 'level=warn msg="NVML call failed" function=nvmlDeviceGetBAR1MemoryInfo errors=[0-9]* total=[0-9]* gpu=1 err="Unknown Error" code=999 ' "$tmp/agent.err")
[ "$c" = 1 ] || fail "BAR1 failure log lines: $c, want 1: $(grep NVML "$tmp/agent.err")"
c=$(grep -c 'msg="NVML call failed" function=nvmlDeviceGetTemperature .*err="Timeout"' "$tmp/agent.err")
[ "$c" = 1 ] || fail "temperature timeout log lines: $c, want 1"
grep -q 'keeps failing' "$tmp/agent.err" && fail "a summary line before a minute passed"
grep -Eq 'function=nvmlDevice(GetFanSpeed|GetEncoderStats)' "$tmp/agent.err" && fail "an unsupported call logged"

# The spike: in the driver samples' max, kept by the history; GPU 0 never left 20 %.
api() { curl -s --data-urlencode "query=$1" "http://127.0.0.1:$port/api/v1/query"; }
got=$(api 'max_over_time(gpuwatch_utilization_gpu_max_ratio{gpu="1"}[1m])' | json 'd["data"]["result"][0]["value"][1]')
[ "$got" = 1 ] || fail "highest stored utilisation of GPU 1: '$got', want 1 (the spike)"
got=$(api 'max_over_time(gpuwatch_utilization_gpu_max_ratio{gpu="0"}[1m])' | json 'd["data"]["result"][0]["value"][1]')
[ "$got" = 0.2 ] || fail "highest stored utilisation of GPU 0: '$got', want 0.2"
got=$(api 'min_over_time(gpuwatch_utilization_gpu_min_ratio{gpu="1"}[1m])' | json 'd["data"]["result"][0]["value"][1]')
[ "$got" = 0.2 ] || fail "lowest stored utilisation of GPU 1: '$got', want 0.2"
# Six driver samples a second, each counted once.
ds=$(sed -n 's/^gpuwatch_utilization_gpu_driver_samples_total{gpu="0",[^}]*} \([0-9]*\)$/\1/p' "$tmp/metrics")
[ "${ds:-0}" -ge 18 ] && [ "${ds:-0}" -le 40 ] 2>/dev/null || fail "driver samples read in ~5 s: '$ds', want 18..40"

if command -v promtool >/dev/null; then
	grep -v 'DCGM_FI_' "$tmp/metrics" >"$tmp/native"
	grep -q '^# TYPE gpuwatch_power_draw_max_watts gauge$' "$tmp/native" || fail "no gpuwatch_power_draw_max_watts family"
	lint=$(promtool check metrics <"$tmp/native" 2>&1)
	[ -z "$lint" ] || fail "promtool check metrics: $lint"
fi

kill -TERM "$apid"
wait "$apid"
rc=$?
[ "$rc" = 0 ] || fail "agent exit status $rc after SIGTERM"

[ "$fails" = 0 ] || { cat "$tmp/agent.err"; exit 1; }
echo ok
