#!/usr/bin/env bash
# top_prometheus.sh - `gpuwatch top --prometheus URL` in a real terminal
# (tmux) against Debian's real prometheus scraping a real agent on
# loopback: the scraped GPUs with the pinned values, named by the agent's
# Hostname label; SIMULATED as the agent's gpuwatch_build_info says; charts that start with Prometheus' history; the
# per-process series with their node, never signalled; the node stale when
# its exporter dies; the server's own failure when Prometheus goes; the
# agent's health verdicts (gpuwatch_health_status) on its GPUs, and none
# (not a PASS) on those of an exporter without that series.
. "$(dirname "$0")/../lib/common.sh"
command -v prometheus >/dev/null && command -v tmux >/dev/null && command -v curl >/dev/null ||
	{ echo "skip: prometheus, tmux or curl not installed (scripts/deps.sh test installs them)"; exit 77; }
: "${GW_BIN:?}" "${GW_TEST_DATA:?}"
scn="$GW_TEST_DATA/data/scenarios"
sock="$tmp/tmux.sock"
T() { tmux -S "$sock" "$@"; }
trap 'T kill-server 2>/dev/null; cleanup' EXIT
cap() { T capture-pane -p -t "$1:" "${@:2}"; }
wait_for() { # NAME REGEX [SECONDS]
	for _ in $(seq $((${3:-10} * 10))); do cap "$1" | grep -Eq -- "$2" && return 0; sleep 0.1; done
	echo "--- screen of $1 (wanted $2):"; cap "$1"; return 1
}
keys() { T send-keys -t "$1:" "${@:2}"; sleep 0.4; }

aport=$(free_port) pport=$(free_port)
"$GW_BIN" --sim "$scn/top-remote-a.scn" agent -a "127.0.0.1:$aport" --storage.path "$tmp/agent.data" 2>"$tmp/agent.err" &
apid=$!
pids+=("$apid")
wait_http "http://127.0.0.1:$aport/health" 10 || fail "agent did not start: $(tail -3 "$tmp/agent.err")"
host=$(curl -s "http://127.0.0.1:$aport/metrics" | sed -n 's/^DCGM_FI_DEV_GPU_UTIL{.*Hostname="\([^"]*\)".*/\1/p' | head -1)
[ -n "$host" ] || fail "no Hostname label in the agent's /metrics"
# a dcgm-exporter stand-in: GPU series, no gpuwatch_health_status
xport=$(free_port)
python3 - "$xport" <<'PY' &
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
L = 'gpu="0",UUID="GPU-plain",modelName="NVIDIA H100 80GB HBM3",Hostname="plain-exporter"'
BODY = "".join("%s{%s} %s\n" % (n, L, v) for n, v in [("DCGM_FI_DEV_GPU_UTIL", 7), ("DCGM_FI_DEV_FB_USED", 1024),
    ("DCGM_FI_DEV_FB_FREE", 80000), ("DCGM_FI_DEV_GPU_TEMP", 33), ("DCGM_FI_DEV_POWER_USAGE", 80.5)]).encode()
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", str(len(BODY))); self.end_headers()
        self.wfile.write(BODY)
    def log_message(self, *a): pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
pids+=($!)
wait_http "http://127.0.0.1:$xport/metrics" 5 || fail "the plain exporter did not start"
# two targets in start_prometheus' one YAML list
start_prometheus "$pport" "127.0.0.1:$aport', '127.0.0.1:$xport" || fail "prometheus not ready: $(tail -5 "$tmp/prom.log")"
ppid_=$prom_pid
n=0
for _ in $(seq 100); do # until Prometheus holds several seconds of history
	n=$(curl -s --data-urlencode 'query=count_over_time(DCGM_FI_DEV_GPU_UTIL{gpu="0"}[1m])' \
		"http://127.0.0.1:$pport/api/v1/query" | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
	[ "$n" -ge 6 ] && break
	sleep 0.3
done
[ "$n" -ge 6 ] || fail "Prometheus scraped $n samples only"

T new-session -d -s p -x 120 -y 30 "env LANG=C.UTF-8 TERM=tmux-256color $GW_BIN top -w 1 \
	--prometheus http://127.0.0.1:$pport 2>$tmp/p.err; echo \$? >$tmp/p.rc; sleep 60"
T set-option -t p window-size manual >/dev/null 2>&1
H=$(sed 's/[.[\*^$]/\\&/g' <<<"$host")

# --- the scraped GPUs, named by the Hostname label, with the pinned values ------
wait_for p "^$H +1 H200" 10 || fail "top --prometheus did not show the GPUs: $(cat "$tmp/p.err")"
s=$(cap p)
grep -q "gpuwatch top  via 127.0.0.1:$pport  2 nodes  3 GPUs  SIMULATED 1 of 2 nodes " <<<"$s" || fail "title: $(head -1 <<<"$s")"
grep -Eq "^$H +0 H200 +42%.* 97\.7G/140G .* 61C +612/700W" <<<"$s" || fail "GPU 0: $(sed -n 2p <<<"$s")"
grep -Eq "^$H +1 H200 +97%.* 117G/140G .* 77C +690/700W" <<<"$s" || fail "GPU 1: $(sed -n 4p <<<"$s")"
# health: the agent's verdicts; the plain exporter has none, and gets none
wait_for p "^$H +1 H200 .*/700W PASS" 5 || fail "no health verdict from gpuwatch_health_status"
s=$(cap p)
grep -Eq "^$H +0 H200 .*/700W PASS" <<<"$s" || fail "GPU 0 without its verdict: $(grep -E "^$H +0 " <<<"$s")"
grep -Eq '^plain-exporter +0 H100 80G +7%.* 33C' <<<"$s" || fail "plain exporter's GPU: $(grep plain <<<"$s")"
grep -E '^plain-exporter +0 ' <<<"$s" | grep -Eq 'PASS|WARN|FAIL' && fail "a verdict on a GPU whose exporter has none"
# the chart starts from Prometheus' history: several cells at once, not one sample
cells=$(sed -n 3p <<<"$s" | LC_ALL=C grep -o $'\xe2[\xa0-\xa3].' | wc -l)
[ "$cells" -ge 3 ] || fail "chart without Prometheus' history ($cells cells): $(sed -n 3p <<<"$s")"
# the per-process series, with the node
grep -Eq "^$H +4242 .* 0 +90000MiB .*trainer" <<<"$s" || fail "process 4242 not shown: $(grep 4242 <<<"$s")"
keys p Tab '<' '<' '<' '<' '<' # sort by the node column, then the first row
keys p T
cap p | tail -1 | grep -q 'remote processes are never signalled' || fail "T on a remote process: $(cap p | tail -1)"
keys p Tab

# --- the exporter dies: Prometheus stops having it, top shows it stale ------------
kill -9 "$apid"
wait_for p "^$H +0 H200 +stale [0-9]+s +no samples in Prometheus" 15 || fail "dead exporter's node not stale"
# --- Prometheus itself goes: said so, for every node it had shown ------------------
kill "$ppid_"
wait_for p "^$H +0 H200 +stale [0-9]+s +Prometheus unreachable: connection refused" 10 || fail "Prometheus down not shown"
keys p q
for _ in $(seq 30); do [ -s "$tmp/p.rc" ] && break; sleep 0.1; done
[ "$(cat "$tmp/p.rc" 2>/dev/null)" = 0 ] || fail "q: exit $(cat "$tmp/p.rc" 2>/dev/null) $(cat "$tmp/p.err")"

[ "$fails" = 0 ] && echo "top_prometheus: ok"
exit $((fails > 0))
