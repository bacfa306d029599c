#!/usr/bin/env bash
# bench/rules_eval.sh [BUILD_DIR]: 1,000 rules (500 recording, 500
# alerting with templated annotations, in 10 groups) over a 64-GPU
# simulated node, evaluated by the agent against its own history and by
# Prometheus 2.42 scraping that agent every second (so both hold the same
# series), side by side in the same run.
#
# Reported per tool: the evaluation time of a whole cycle (the sum over the
# groups of *_rule_group_last_duration_seconds, read once a second: p50 and
# p99 over the run) and the process's CPU (utime + stime from /proc over
# the window), in three runs: no rules, the rules in the agent only, the
# rules in Prometheus only (so each evaluator has the machine to itself and
# the rules' own CPU is the difference from the first run).
#
# Environment: SECONDS_RUN (default 90) per run, INTERVAL (default 5s).
set -u
B=${1:-build}
BIN=$(cd "$B" && pwd)/gpuwatch
RUN=${SECONDS_RUN:-90}
IV=${INTERVAL:-5s}
for c in prometheus curl python3; do command -v $c >/dev/null || { echo "needs $c"; exit 1; }; done
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

python3 - "$tmp/rules.yml" <<'PY'
import sys
out = []
exprs_rec = ["avg by (gpu) (avg_over_time(DCGM_FI_DEV_GPU_UTIL[1m]))", "sum by (Hostname) (DCGM_FI_DEV_POWER_USAGE)",
             "max by (gpu) (max_over_time(DCGM_FI_DEV_GPU_TEMP[5m]))", "DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)",
             "rate(DCGM_FI_PROF_PCIE_TX_BYTES[1m])", "quantile_over_time(0.9, DCGM_FI_DEV_SM_CLOCK[5m])"]
exprs_alert = ["DCGM_FI_DEV_GPU_TEMP > %d", "DCGM_FI_DEV_GPU_UTIL > %d", "DCGM_FI_DEV_POWER_USAGE > %d * 10",
               "avg_over_time(DCGM_FI_DEV_GPU_UTIL[5m]) < %d", "DCGM_FI_DEV_FB_USED / DCGM_FI_DEV_FB_TOTAL * 100 > %d"]
out.append("groups:")
for g in range(10):
    out.append("- name: bench%d\n  rules:" % g)
    for i in range(50):
        out.append("  - record: bench:r%d_%d\n    expr: %s" % (g, i, exprs_rec[(g * 50 + i) % len(exprs_rec)]))
    for i in range(50):
        e = exprs_alert[(g * 50 + i) % len(exprs_alert)] % (i * 2)
        out.append("  - alert: Bench%d_%d\n    expr: %s\n    for: 1m\n    labels: {severity: warning}\n"
                   "    annotations:\n      summary: 'GPU {{ $labels.gpu }} on {{ $labels.Hostname }}'\n"
                   "      description: 'value {{ $value | humanize }} ({{ printf \"%%.1f\" $value }})'" % (g, i, e))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# run NAME AGENT_RULES PROM_RULES (yes|no): one agent and Prometheus scraping it, RUN seconds, the
# rules in the one named (so each evaluator has the machine to itself); one line per tool.
run() {
	local ap pp dir=$tmp/${1// /_} rulesarg=() promrules=""
	mkdir -p "$dir"
	ap=$(port)
	pp=$(port)
	[ "$2" = yes ] && rulesarg=(--rules "$tmp/rules.yml" --rules.evaluation-interval "$IV")
	[ "$3" = yes ] && promrules="rule_files: [$tmp/rules.yml]"
	"$BIN" --sim 64xH200:training agent -a "127.0.0.1:$ap" --storage.path "$dir/gw" "${rulesarg[@]}" 2>"$dir/agent.log" &
	local apid=$!
	pids+=($apid)
	cat >"$dir/prom.yml" <<YML
global: {scrape_interval: 1s, evaluation_interval: $IV}
$promrules
scrape_configs:
- job_name: gpuwatch
  static_configs: [{targets: ['127.0.0.1:$ap']}]
YML
	prometheus --config.file="$dir/prom.yml" --storage.tsdb.path="$dir/prom" --web.listen-address="127.0.0.1:$pp" \
		--log.level=error >"$dir/prom.log" 2>&1 &
	local ppid=$!
	pids+=($ppid)
	sleep 20 # warm: history and Prometheus' head fill, first evaluations done
	local a0 p0 a1 p1
	a0=$(cpu $apid)
	p0=$(cpu $ppid)
	: >"$dir/gw.samples"
	: >"$dir/prom.samples"
	for _ in $(seq "$RUN"); do
		curl -s "127.0.0.1:$ap/metrics" | awk '/^gpuwatch_rule_group_last_duration_seconds/ {s += $2} END {print s + 0}' >>"$dir/gw.samples"
		curl -s "127.0.0.1:$pp/metrics" | awk '/^prometheus_rule_group_last_duration_seconds/ {s += $2} END {print s + 0}' >>"$dir/prom.samples"
		sleep 1
	done
	a1=$(cpu $apid)
	p1=$(cpu $ppid)
	local hz
	hz=$(getconf CLK_TCK)
	kill $apid $ppid
	wait $apid $ppid 2>/dev/null
	python3 - "$1" "$dir" "$(( (a1 - a0) ))" "$(( (p1 - p0) ))" "$hz" "$RUN" <<'PY'
import sys
name, d, a, p, hz, run = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
def pct(f):
    v = sorted(float(x) for x in open(f) if x.strip())
    if not v or v[-1] == 0:
        return "-", "-"
    return "%.1f ms" % (1000 * v[len(v) // 2]), "%.1f ms" % (1000 * v[min(len(v) - 1, int(len(v) * 0.99))])
g50, g99 = pct(d + "/gw.samples")
p50, p99 = pct(d + "/prom.samples")
print("| %s | gpuwatch agent | %s | %s | %.1f %% |" % (name, g50, g99, 100.0 * a / hz / run))
print("| %s | Prometheus 2.42 | %s | %s | %.1f %% |" % (name, p50, p99, 100.0 * p / hz / run))
PY
}
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%dT%H:%MZ)"
echo "64 x H200 simulated, 1,000 rules in 10 groups, evaluation interval $IV, $RUN s measured per run"
echo
echo "| run | process | cycle p50 | cycle p99 | CPU (of one core) |"
echo "|---|---|---|---|---|"
run "no rules" no no
run "rules in the agent" yes no
run "rules in Prometheus" no yes
