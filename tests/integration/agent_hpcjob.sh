#!/usr/bin/env bash
# dcgm-exporter's --hpc-job-mapping-dir on a real agent: every DCGM series of
# a GPU with jobs once per job with hpc_job last, gpuwatch_hpc_job_info for
# joins, native families unchanged (and promtool-clean); a rewritten file,
# a removed one and a missing directory seen at the next sample; the env
# variable honoured and overridden by the option; the history answering
# queries on hpc_job.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null && command -v python3 >/dev/null || { echo "skipped: curl or python3 not installed"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

jobs=$tmp/jobs
mkdir "$jobs"
printf '1001\n 1002 \n\n1001\n' >"$jobs/0" # trimmed, blank line skipped, repeat counted once
printf 'x\n' >"$jobs/3.0"                   # dcgm-exporter's MIG naming: no whole-GPU label

start() { # port, then agent options; sets apid
	"$BIN" --sim 2xH200:training agent -a "127.0.0.1:$1" --storage.path "$tmp/data-$1" "${@:2}" 2>"$tmp/agent-$1.err" &
	apid=$!
	pids+=("$apid")
	wait_http "http://127.0.0.1:$1/health" 10 || fail "agent on $1 never healthy: $(cat "$tmp/agent-$1.err")"
}
scrape() { curl -s "http://127.0.0.1:$1/metrics" >"$tmp/m"; }
lines() { grep -c "$1" "$tmp/m"; } # grep -c prints 0 when nothing matches
# until_scrape PORT PATTERN COUNT: scrape until PATTERN has COUNT lines (a sample or two)
until_scrape() {
	for _ in $(seq 40); do
		scrape "$1"
		[ "$(lines "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

"$BIN" agent --help | grep -q -- '--hpc-job-mapping-dir DIR' || fail "agent --help does not document --hpc-job-mapping-dir"

port=$(free_port)
start "$port" --hpc-job-mapping-dir "$jobs"
scrape "$port"
# GPU 0: each DCGM series once per job, hpc_job after every dcgm-exporter label
grep -q '^DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-[0-9a-f-]*",pci_bus_id="[^"]*",device="nvidia0",modelName="NVIDIA H200",Hostname="[^"]*",DCGM_FI_DRIVER_VERSION="[^"]*",hpc_job="1001"} [0-9]*$' "$tmp/m" ||
	fail "GPU 0 temperature with hpc_job=1001: $(grep '^DCGM_FI_DEV_GPU_TEMP' "$tmp/m")"
[ "$(lines '^DCGM_FI_DEV_GPU_TEMP{gpu="0",.*,hpc_job="1002"} ')" = 1 ] || fail "GPU 0 temperature with hpc_job=1002 missing"
[ "$(lines '^DCGM_FI_DEV_GPU_TEMP{gpu="0"')" = 2 ] || fail "GPU 0 temperature: want 2 series (one per job)"
dcgm0=$(lines '^DCGM_FI_[A-Z_]*{gpu="0"')
dcgm1=$(lines '^DCGM_FI_[A-Z_]*{gpu="1"')
[ "$dcgm0" = $((2 * dcgm1)) ] || fail "GPU 0 has $dcgm0 DCGM series, want twice GPU 1's $dcgm1"
[ "$(lines '^DCGM_FI_.*gpu="1".*hpc_job=')" = 0 ] || fail "GPU 1 has no file but carries hpc_job"
# native: one series per GPU, the jobs in their own family
[ "$(lines '^gpuwatch_temperature_gpu_celsius{')" = 2 ] || fail "native families multiplied by jobs"
[ "$(lines '^gpuwatch_hpc_job_info{gpu="0",.*hpc_job="100[12]"} 1$')" = 2 ] ||
	fail "gpuwatch_hpc_job_info: $(grep hpc_job_info "$tmp/m")"
if command -v promtool >/dev/null; then
	grep -v 'DCGM_FI_' "$tmp/m" >"$tmp/native"
	lint=$(promtool check metrics <"$tmp/native" 2>&1)
	[ -z "$lint" ] || fail "promtool check metrics: $lint"
fi
grep -q 'msg="hpc jobs changed" gpu=0 hpc_jobs="1001,1002"' "$tmp/agent-$port.err" || fail "no log of GPU 0's jobs"
grep -q 'msg="hpc job mapping: files that name no GPU here are ignored".*first="3.0"' "$tmp/agent-$port.err" ||
	fail "the MIG-named file is not reported as ignored: $(cat "$tmp/agent-$port.err")"

api() { curl -s --data-urlencode "query=$1" "http://127.0.0.1:$port/api/v1/query"; }
# History is fed after the scrape shows a frame: wait until the first jobs are stored.
info_series() { api 'count(last_over_time(gpuwatch_hpc_job_info[5m]))' | json 'd["data"]["result"][0]["value"][1]' 2>/dev/null; }
for _ in $(seq 100); do [ "$(info_series)" = 2 ] && break; sleep 0.2; done
[ "$(info_series)" = 2 ] || fail "history: the first jobs' gpuwatch_hpc_job_info never stored"

# The prolog of a new job rewrites GPU 0's file and writes GPU 1's: seen at the next sample.
printf '2001\n' >"$jobs/0"
printf '3001\n3002\n' >"$jobs/1"
until_scrape "$port" '^DCGM_FI_DEV_GPU_TEMP{gpu="1",.*hpc_job="300[12]"} ' 2 || fail "GPU 1's new file not picked up"
[ "$(lines '^DCGM_FI_DEV_GPU_TEMP{gpu="0"')" = 1 ] || fail "GPU 0 after the rewrite: want one series"
[ "$(lines '^DCGM_FI_DEV_GPU_TEMP{gpu="0",.*hpc_job="2001"} ')" = 1 ] || fail "GPU 0 rewritten to 2001 not seen"
[ "$(lines 'hpc_job="100[12]"')" = 0 ] || fail "the old jobs linger"

# The epilog removes GPU 0's file: its label goes.
rm "$jobs/0"
until_scrape "$port" '^DCGM_FI_DEV_GPU_TEMP{gpu="0",.*hpc_job=' 0 || fail "GPU 0 keeps hpc_job after its file was removed"
[ "$(lines '^DCGM_FI_DEV_GPU_TEMP{gpu="0"')" = 1 ] || fail "GPU 0's series gone with its file"

# Garbage never breaks a scrape: a binary file, a FIFO.
head -c 300 /dev/urandom | tr -d '\n' | sed 's/^/\x00/' >"$jobs/0"
mkfifo "$jobs/x" && mv "$jobs/x" "$jobs/1"
until_scrape "$port" 'hpc_job=' 0 || fail "labels from a binary file or a FIFO: $(grep hpc_job "$tmp/m" | head -3)"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")" = 200 ] || fail "/metrics not 200"
grep -q 'msg="hpc job mapping file not used; the GPU has no hpc_job label" gpu=1 .*why="not a regular file"' \
	"$tmp/agent-$port.err" || fail "FIFO not reported: $(tail -3 "$tmp/agent-$port.err")"

# The history keeps what /metrics showed, labels and all.
n=$(api 'count(last_over_time(DCGM_FI_DEV_GPU_TEMP{hpc_job=~"300[12]"}[5m]))' | json 'd["data"]["result"][0]["value"][1]')
[ "$n" = 2 ] || fail "history: GPU 1's two job series: got '$n'"
n=$(api 'count(last_over_time(gpuwatch_hpc_job_info[5m]))' | json 'd["data"]["result"][0]["value"][1]')
[ "$n" = 5 ] || fail "history: gpuwatch_hpc_job_info series for 1001 1002 2001 3001 3002: got '$n'"
kill "$apid"

# A missing directory: the agent runs, without labels, and says so once.
rm -rf "$jobs"
port=$(free_port)
start "$port" --hpc-job-mapping-dir "$jobs" --no-history
sleep 2.2
scrape "$port"
[ "$(lines '^DCGM_FI_DEV_GPU_TEMP{')" = 2 ] || fail "no directory: want the plain series"
[ "$(grep -c 'hpc job mapping directory unavailable' "$tmp/agent-$port.err")" = 1 ] ||
	fail "missing directory: want one log line: $(cat "$tmp/agent-$port.err")"
mkdir "$jobs" && printf '4001\n' >"$jobs/1"
until_scrape "$port" '^gpuwatch_hpc_job_info{gpu="1",.*hpc_job="4001"} 1$' 1 ||
	fail "the directory created later is not picked up: $(cat "$tmp/agent-$port.err")"
[ "$(lines '^DCGM_FI_[A-Z_]*{gpu="1",.*,hpc_job="4001"} ')" = "$(lines '^DCGM_FI_[A-Z_]*{gpu="1",')" ] ||
	fail "some of GPU 1's DCGM series lack hpc_job=4001"
kill "$apid"

# dcgm-exporter's variable, and the option over it.
port=$(free_port)
DCGM_HPC_JOB_MAPPING_DIR=$jobs start "$port" --no-history
scrape "$port"
[ "$(lines '^DCGM_FI_DEV_GPU_TEMP{gpu="1",.*hpc_job="4001"}')" = 1 ] || fail "DCGM_HPC_JOB_MAPPING_DIR not honoured"
kill "$apid"
port=$(free_port)
DCGM_HPC_JOB_MAPPING_DIR=$tmp/elsewhere start "$port" --no-history --hpc-job-mapping-dir="$jobs"
scrape "$port"
[ "$(lines 'hpc_job="4001"')" -gt 0 ] || fail "the option does not override DCGM_HPC_JOB_MAPPING_DIR"
grep -q elsewhere "$tmp/agent-$port.err" && fail "the variable's directory was used despite the option"
kill "$apid"

[ "$fails" = 0 ] && echo "agent hpc job mapping: ok"
exit $((fails > 0))
