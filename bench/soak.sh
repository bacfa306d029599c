#!/usr/bin/env bash
# Soak: the agent for DURATION seconds of real time at 1 s sampling with
# history, under everything at once: a Prometheus-style scrape every
# second, Grafana-style range queries every 10 s, a slowloris client that
# keeps 20 connections trickling headers, and GPU faults every few minutes
# (XIDs, ECC, a power read that hangs 3 s, throttling). Every 10 s it
# records the agent's RSS and open file descriptors; at the end it checks
# that both are flat (the last quarter's maximum within 10 % / 8 fds of the
# first quarter's, after a warm-up minute) and that no sample was missed
# (gpuwatch_samples_missed_total, and count_over_time of one series against
# the seconds elapsed). Then a simulated month: `sim record` of 30 days at
# 60 s through the virtual clock, and a 30-day query over it.
#
# Usage: bench/soak.sh [build-dir]; env DURATION (default 3600), PORT.
# Prints a summary for bench/RESULTS.md; exits non-zero when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
case $b in /*) ;; *) b=$PWD/$b ;; esac
BIN=$b/gpuwatch
export GPUWATCH_SIM_LIBRARY=$b/libgpuwatch-sim.so
dur=${DURATION:-3600}
port=${PORT:-19460}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# Faults every few minutes for the whole run (times from the start).
{
	echo "[sim]"
	echo "fleet = 8xH200:training"
	echo "[gpu 3]"
	for ((t = 120; t < dur; t += 300)); do
		echo "fault = ${t}s xid 31"
		echo "fault = $((t + 60))s ecc-sbe 3"
		echo "fault = $((t + 120))s timeout nvmlDeviceGetPowerUsage 3000 20"
		echo "fault = $((t + 180))s throttle hw-slowdown 30"
	done
} >"$tmp/soak.scn"

"$BIN" --sim "$tmp/soak.scn" agent -a "127.0.0.1:$port" -c 1000 --storage.path "$tmp/data" >"$tmp/agent.log" 2>&1 &
agent=$!
pids+=("$agent")
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
start=$(date +%s)
url="http://127.0.0.1:$port"

# Scrapes, once a second; failures counted.
(
	fails=0
	while kill -0 "$agent" 2>/dev/null; do
		curl -sf -m 5 -o /dev/null "$url/metrics" || fails=$((fails + 1))
		echo "$fails" >"$tmp/scrape_fails"
		sleep 1
	done
) &
pids+=($!)
# Dashboard queries every 10 s over the last hour.
(
	while kill -0 "$agent" 2>/dev/null; do
		now=$(date +%s)
		for q in 'avg by (gpu) (DCGM_FI_DEV_GPU_UTIL)' 'max_over_time(DCGM_FI_DEV_GPU_TEMP[5m])' \
			'rate(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[1m])' 'quantile_over_time(0.9, DCGM_FI_DEV_POWER_USAGE[5m])'; do
			curl -sf -m 30 -o /dev/null "$url/api/v1/query_range" --data-urlencode "query=$q" \
				--data-urlencode "start=$((now - 3600))" --data-urlencode "end=$now" --data-urlencode step=15 ||
				echo x >>"$tmp/query_fails"
		done
		sleep 10
	done
) &
pids+=($!)
# Slowloris: 20 connections that trickle a header line every 3 s, reopened when cut.
python3 - "$port" "$dur" <<'PY' &
import socket, sys, time
port, dur = int(sys.argv[1]), int(sys.argv[2])
end = time.time() + dur
socks = []
while time.time() < end:
    while len(socks) < 20:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)
        except OSError:
            time.sleep(1)
            break
    alive = []
    for s in socks:
        try:
            s.sendall(b"X-Slow: 1\r\n")
            alive.append(s)
        except OSError:
            s.close()
    socks = alive
    time.sleep(3)
PY
pids+=($!)

echo "t_s,rss_kb,fds" >"$tmp/samples.csv"
while [ $(($(date +%s) - start)) -lt "$dur" ]; do
	kill -0 "$agent" 2>/dev/null || { echo "FAIL: the agent died"; tail -5 "$tmp/agent.log"; exit 1; }
	rss=$(awk '/VmRSS/ {print $2}' "/proc/$agent/status")
	fds=$(ls "/proc/$agent/fd" | wc -l)
	echo "$(($(date +%s) - start)),$rss,$fds" >>"$tmp/samples.csv"
	sleep 10
done
elapsed=$(($(date +%s) - start))
missed=$(curl -sf "$url/metrics" | awk '/^gpuwatch_samples_missed_total/ {print $2}')
count=$(curl -sf "$url/api/v1/query" --data-urlencode "query=count_over_time(DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"}[$((elapsed - 5))s])" |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
soak=0
python3 - "$tmp/samples.csv" "$elapsed" "${missed:-?}" "$count" "$(cat "$tmp/scrape_fails" 2>/dev/null || echo 0)" \
	"$(cat "$tmp/query_fails" 2>/dev/null | wc -l)" <<'PY' || soak=$?
import csv, sys
rows = [(int(t), int(r), int(f)) for t, r, f in list(csv.reader(open(sys.argv[1])))[1:]]
elapsed, missed, count, sfail, qfail = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
warm = [x for x in rows if x[0] >= 60] or rows
q = max(1, len(warm) // 4)
first, last = warm[:q], warm[-q:]
r0, r1 = max(x[1] for x in first), max(x[1] for x in last)
f0, f1 = max(x[2] for x in first), max(x[2] for x in last)
print(f"elapsed {elapsed} s; RSS first quarter max {r0/1024:.1f} MiB, last quarter max {r1/1024:.1f} MiB, "
      f"overall max {max(x[1] for x in rows)/1024:.1f} MiB")
print(f"fds first quarter max {f0}, last quarter max {f1}")
# the curve, every 5 minutes: a leak climbs to the end, a working set levels off
print("RSS MiB by minute: " + ", ".join(f"{t // 60}: {r / 1024:.1f}" for t, r, _ in rows if t % 300 < 10))
print(f"samples missed {missed}; gpu 0 temperature samples stored {count} over {int(elapsed) - 5} s; "
      f"scrape failures {sfail}; query failures {qfail}")
ok = r1 <= r0 * 1.10 and f1 <= f0 + 8 and missed in ("0", "0.0") and float(count) >= int(elapsed) - 5 - 2
print("soak: " + ("PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY

echo "agent error lines: $(grep -c 'level=error' "$tmp/agent.log" || true)"
kill "$agent"
wait "$agent" 2>/dev/null || true

echo "== a simulated month"
/usr/bin/time -f "sim record: %e s, max RSS %M KiB" "$BIN" --sim 8xH200:training sim record --duration 30d \
	--interval 60s --storage.path "$tmp/month" -q
du -sh "$tmp/month" | sed 's/^/store: /'
end=$(date +%s)
/usr/bin/time -f "30-day query: %e s, max RSS %M KiB" "$BIN" query --storage.path "$tmp/month" \
	--start $((end - 30 * 86400 + 3600)) --end "$end" --step 1h 'avg(DCGM_FI_DEV_GPU_UTIL)' | tail -1 | cut -c1-120
exit $soak
