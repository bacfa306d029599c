#!/usr/bin/env bash
# Dashboard queries through both HTTP APIs, side by side: the agent's
# Prometheus-compatible API over its own store, and Prometheus 2.42 over
# the same samples (exported with `gpuwatch export`, backfilled with
# `promtool tsdb create-blocks-from openmetrics`). Also: store size on the
# same data, and the agent's RSS while answering.
#
# Data: `gpuwatch sim record` of an 8-GPU simulated training fleet, every
# default series the agent stores. DAYS of history at INTERVAL (defaults 7
# days at 60 s: Prometheus' backfill of 1 s data for a week would not fit
# this machine); 1 h, 24 h and 7 d ranges at Grafana-like steps, start
# aligned to the step as Grafana aligns it. Median of RUNS runs each, timed
# twice: on one kept-alive connection (how Grafana's data source queries: the
# server's latency) and with a new curl and connection per request.
#
# Needs prometheus, promtool and curl (scripts/deps.sh test installs them).
# Usage: bench/query_http.sh [build-dir]
# Env: DAYS, INTERVAL, RUNS, SIM, QUERIES (one a line); RANGES ("3600:15 86400:60 ..." range:step
# pairs in seconds, default 1 h, 24 h and DAYS); GW_DATA and PROM_DATA: a
# gpuwatch store and Prometheus blocks of the same samples made before
# (copied, not changed; skips the recording and the backfill, which for a
# day at 1 s takes promtool ~11 minutes and 15 GiB), with END the data's
# last second.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
BIN=$PWD/$b/gpuwatch
export GPUWATCH_SIM_LIBRARY=$PWD/$b/libgpuwatch-sim.so
days=${DAYS:-7}
interval=${INTERVAL:-60s}
runs=${RUNS:-5}
sim=${SIM:-8xH200:training}
for c in prometheus promtool curl python3; do
	command -v $c >/dev/null || { echo "needs $c (scripts/deps.sh test installs it)" >&2; exit 1; }
done
w=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$w"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.2; done; echo "no answer from $1" >&2; return 1; }

echo "## $(date -u +%FT%TZ) $(nproc) CPUs,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
if [ -n "${GW_DATA:-}" ] && [ -n "${PROM_DATA:-}" ]; then
	echo "## data: copies of $GW_DATA and $PROM_DATA, ending at ${END:?END, the last second of the data, is needed with GW_DATA}"
	cp -r "$GW_DATA" "$w/gw"
	cp -r "$PROM_DATA" "$w/prom"
	command -v sqlite3 >/dev/null || { echo "GW_DATA needs sqlite3 (to count the samples)" >&2; exit 1; }
	samples=$(sqlite3 "$GW_DATA/gpuwatch.db" \
		"SELECT (SELECT coalesce(sum(count), 0) FROM chunks) + (SELECT coalesce(sum(count), 0) FROM partials)")
	# the store as the recording left it, without the agent's later writes and journal
	ours=$(du -sb "$GW_DATA" | cut -f1)
	theirs=$(du -sb "$PROM_DATA" | cut -f1)
	now=$((END + 120))
else
	echo "## data: $sim, ${days} d at $interval"
	t0=$(date +%s.%N)
	"$BIN" --sim "$sim" sim record --duration "${days}d" --interval "$interval" --storage.path "$w/gw" --instance node1:9400 -q
	t1=$(date +%s.%N)
	"$BIN" export --storage.path "$w/gw" >"$w/om.txt" 2>/dev/null
	samples=$(grep -vc '^#' "$w/om.txt")
	t2=$(date +%s.%N)
	promtool tsdb create-blocks-from openmetrics "$w/om.txt" "$w/prom" >/dev/null
	t3=$(date +%s.%N)
	rm -f "$w/om.txt"
	ours=$(du -sb "$w/gw" | cut -f1)
	theirs=$(du -sb "$w/prom" | cut -f1)
	echo "gpuwatch sim record $(echo "$t1 - $t0" | bc) s; promtool backfill $(echo "$t3 - $t2" | bc) s"
	now=$(date +%s)
fi
awk -v s="$samples" -v o="$ours" -v t="$theirs" 'BEGIN {
	printf "samples: %d\n", s
	printf "on disk: gpuwatch %d bytes (%.3f B/sample), prometheus %d bytes (%.3f B/sample): gpuwatch/prometheus %.3f\n",
		o, o / s, t, t / s, o / t }'

pp=$(free_port)
printf 'global:\n  scrape_interval: 1h\nscrape_configs: []\n' >"$w/prom.yml"
prometheus --config.file="$w/prom.yml" --storage.tsdb.path="$w/prom" --storage.tsdb.retention.time=3650d \
	--web.listen-address="127.0.0.1:$pp" --log.level=warn 2>"$w/prom.err" &
pids+=($!)
ppid=$!
ap=$(free_port)
# The agent keeps sampling (every minute, into the same store) while it answers.
# Over prepared data that may reach past now, it keeps one field the queries
# do not ask for, so that its own samples cannot join their answers.
live=()
if [ -n "${GW_DATA:-}" ]; then
	printf 'DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).\n' >"$w/one.csv"
	live=(-f "$w/one.csv" --no-native)
fi
"$BIN" --sim "$sim" agent -a "127.0.0.1:$ap" -c 60000 "${live[@]}" --storage.path "$w/gw" 2>"$w/agent.err" &
pids+=($!)
apid=$!
wait_http "http://127.0.0.1:$pp/-/ready"
wait_http "http://127.0.0.1:$ap/api/v1/status/buildinfo"

queries=(
	'avg(DCGM_FI_DEV_GPU_UTIL)'
	'DCGM_FI_DEV_POWER_USAGE'
	'max by (gpu) (DCGM_FI_DEV_GPU_TEMP)'
	'max_over_time(DCGM_FI_DEV_GPU_TEMP[1h])'
	'sum(rate(DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION[5m])) / 1000'
	'sum by (gpu) (DCGM_FI_DEV_FB_USED) / sum by (gpu) (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)'
)
# QUERIES: one query a line, in place of the dashboard's
[ -n "${QUERIES:-}" ] && mapfile -t queries <<<"$QUERIES"
# range:step pairs, as Grafana picks them for a ~1000 px panel
read -r -a ranges <<<"${RANGES:-3600:15 86400:60 $((days * 86400)):600}"
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "# kept-alive connection (as Grafana queries), then a new curl and connection per request; median of $runs each"
printf "%-8s %-6s %11s %11s %7s   %9s %9s %6s  %s\n" range step gpuwatch prometheus ratio gpuwatch prometheus ratio query
for rs in "${ranges[@]}"; do
	range=${rs%%:*} step=${rs##*:}
	end=$(( (now - 120) / step * step ))
	start=$(( end - range ))
	for q in "${queries[@]}"; do
		declare -A ms=() cold=()
		for who in gpuwatch prometheus; do
			port=$ap
			[ $who = prometheus ] && port=$pp
			url="http://127.0.0.1:$port/api/v1/query_range"
			# One warm-up, then RUNS timed on the same kept-alive connection,
			# as Grafana's data source sends them: the time from sending the
			# request to the last byte of the answer, with no connection set-up.
			urls=() outs=()
			for _ in $(seq "$runs"); do urls+=("$url") outs+=(-o /dev/null); done
			ms[$who]=$(curl -s -o "$w/$who.json" "${outs[@]}" -w '%{num_connects} %{time_total}\n' \
				--data-urlencode "query=$q" -d start=$start -d end=$end -d step=$step "$url" "${urls[@]}" |
				tail -n +2 | awk '$1 != 0 { print "reconnected" > "/dev/stderr" } { print $2 }' |
				median | awk '{ printf "%.3f", $1 * 1000 }')
			# and the same with a new connection (a new curl) per request
			cold[$who]=$(for _ in $(seq "$runs"); do
				curl -s -o /dev/null -w '%{time_total}\n' --data-urlencode "query=$q" -d start=$start -d end=$end \
					-d step=$step "$url"
			done | median | awk '{ printf "%.2f", $1 * 1000 }')
		done
		# the answers must agree (same series, values within 1e-9 relative)
		same=$(python3 - "$w/gpuwatch.json" "$w/prometheus.json" <<'PY'
import json, sys, math
a, b = (json.load(open(p))["data"]["result"] for p in sys.argv[1:3])
key = lambda r: tuple(sorted(r["metric"].items()))
a = {key(r): r["values"] for r in a}; b = {key(r): r["values"] for r in b}
def eq(x, y):
    x, y = float(x), float(y)
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 1e-9 * max(1, abs(y))
ok = a.keys() == b.keys() and all(len(a[k]) == len(b[k]) and all(p[0] == q[0] and eq(p[1], q[1]) for p, q in zip(a[k], b[k])) for k in a)
print("same" if ok else "DIFFERENT")
PY
)
		printf "%-8s %-6s %8s ms %8s ms %6.1fx   %6s ms %6s ms %5.1fx  %s [%s]\n" "$((range / 3600))h" "${step}s" \
			"${ms[gpuwatch]}" "${ms[prometheus]}" "$(echo "${ms[prometheus]} / ${ms[gpuwatch]}" | bc -l)" \
			"${cold[gpuwatch]}" "${cold[prometheus]}" "$(echo "${cold[prometheus]} / ${cold[gpuwatch]}" | bc -l)" "$q" "$same"
		unset ms cold
	done
done
echo "agent while answering: $(grep -E 'VmRSS|VmHWM' /proc/$apid/status | tr -s ' \t\n' ' ')"
echo "prometheus while answering: $(grep -E 'VmRSS|VmHWM' /proc/$ppid/status | tr -s ' \t\n' ' ')"
