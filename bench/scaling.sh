#!/usr/bin/env bash
# Per-agent costs for docs/SCALING.md: one agent on a simulated 8xH200
# fleet (default 1 s sampling) remote-writing to a real Prometheus
# (--web.enable-remote-write-receiver) for DUR seconds. Prints the bytes of
# one /metrics scrape plain and gzip'd (as Prometheus asks:
# Accept-Encoding: gzip), the series and samples in it, the samples/s and
# bytes/s the agent sent (its gpuwatch_remote_write_samples_total and
# gpuwatch_remote_write_bytes_total over the run), and the head series and
# samples appended the receiver counted.
# Needs prometheus (Debian's 2.42), curl. Usage: bench/scaling.sh [build-dir]
# Env: SIM (default 8xH200:training), DUR (default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
BIN=$PWD/$b/gpuwatch
sim=${SIM:-8xH200:training}
dur=${DUR:-60}
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }
pp=$(port) ap=$(port)
echo 'global: {scrape_interval: 1h}' >"$tmp/prom.yml"
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/prom" --web.enable-remote-write-receiver \
	--web.listen-address="127.0.0.1:$pp" --log.level=error >"$tmp/prom.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$pp/-/ready"
"$BIN" --sim "$sim" agent -a "127.0.0.1:$ap" --storage.path "$tmp/data" \
	--remote-write.url "http://127.0.0.1:$pp/api/v1/write" 2>"$tmp/agent.log" &
pids+=($!)
wait_http "http://127.0.0.1:$ap/health"
metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n || index($1, n "{") == 1 { s += $2; f = 1 } END { if (f) print s }'; }
sleep 5 # the first samples, the queue started
s0=$(metric "$ap" gpuwatch_remote_write_samples_total) b0=$(metric "$ap" gpuwatch_remote_write_bytes_total)
r0=$(metric "$pp" prometheus_tsdb_head_samples_appended_total)
t0=$(date +%s.%N)
sleep "$dur"
s1=$(metric "$ap" gpuwatch_remote_write_samples_total) b1=$(metric "$ap" gpuwatch_remote_write_bytes_total)
r1=$(metric "$pp" prometheus_tsdb_head_samples_appended_total)
t1=$(date +%s.%N)
curl -s "http://127.0.0.1:$ap/metrics" >"$tmp/m"
plain=$(wc -c <"$tmp/m")
gz=$(curl -s -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "http://127.0.0.1:$ap/metrics")
series=$(grep -vc '^#' "$tmp/m")
dcgm=$(grep -c '^DCGM_FI_' "$tmp/m" || true)
heads=$(metric "$pp" prometheus_tsdb_head_series)
failed=$(metric "$ap" gpuwatch_remote_write_samples_failed_total)
python3 - "$sim" "$plain" "$gz" "$series" "$dcgm" "$t0" "$t1" "$s0" "$s1" "$b0" "$b1" "$r0" "$r1" "$heads" "$failed" <<'PY'
import sys
sim, plain, gz, series, dcgm = sys.argv[1], *map(int, sys.argv[2:6])
t0, t1, s0, s1, b0, b1, r0, r1, heads, failed = map(float, sys.argv[6:])
dt = t1 - t0
print(f"fleet                              {sim}")
print(f"/metrics bytes, plain              {plain}")
print(f"/metrics bytes, gzip               {gz}  ({plain / gz:.1f}x smaller)")
print(f"series in one scrape               {series}  ({dcgm} DCGM_FI_*)")
print(f"remote write samples/s (agent)     {(s1 - s0) / dt:.0f}")
print(f"remote write bytes/s (agent)       {(b1 - b0) / dt:.0f}  ({(b1 - b0) / max(s1 - s0, 1):.2f} B/sample)")
print(f"receiver samples appended/s        {(r1 - r0) / dt:.0f}")
print(f"receiver head series               {heads:.0f}")
print(f"remote write samples failed        {failed:.0f}")
print(f"window                             {dt:.1f} s")
PY
