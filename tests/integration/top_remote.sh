#!/usr/bin/env bash
# top_remote.sh - `gpuwatch top --remote` in a real terminal (tmux) against
# two real agents on loopback, plus two broken peers: one that accepts and
# never answers, one that answers cut-short text. Checks both agents' GPUs
# with the pinned scenario values and their node, their processes, the
# title's SIMULATED (from gpuwatch_build_info), the broken peers shown
# with why (and never a crash), that an agent killed with -9 turns stale
# while the other keeps updating and keys keep working, that it comes back
# live when restarted on the same port, that q quits at once with a peer
# hanging, an agent run with --no-history (GPUs and processes, and why the
# charts start empty), the error when libcurl cannot be loaded, and the
# agents' health verdicts (a double-bit ECC error fails its GPU only, the
# incidents from /api/v1/health in the detail view) and OOM forecast (a
# leak has a time to full, an idle GPU none).
. "$(dirname "$0")/../lib/common.sh"
command -v tmux >/dev/null && command -v curl >/dev/null && command -v python3 >/dev/null ||
	{ echo "skip: tmux, curl or python3 not installed"; exit 77; }
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
row() { cap "$1" | grep -E -- "^$2 " | head -1; }
clock() { cap "$1" | head -1 | grep -Eo '[0-9]{2}:[0-9]{2}:[0-9]{2}'; }

agent() { # NAME SCENARIO PORT: an agent with its own store
	"$GW_BIN" --sim "$scn/$2" agent -a "127.0.0.1:$3" --storage.path "$tmp/$1.data" 2>>"$tmp/$1.err" &
	pids+=($!)
	eval "${1}_pid=$!"
	wait_http "http://127.0.0.1:$3/health" 10 || fail "agent $1 did not start: $(tail -3 "$tmp/$1.err")"
}
pa=$(free_port) pb=$(free_port) ph=$(free_port) pg=$(free_port)
agent a top-remote-a.scn "$pa"
agent b top-remote-b.scn "$pb"
# a peer that accepts connections and never answers, and one that answers cut-short text
python3 - "$ph" "$pg" <<'PY' &
import socket, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
hang = socket.socket(); hang.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
hang.bind(("127.0.0.1", int(sys.argv[1]))); hang.listen(64)
class Cut(BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"status":"success","data":{"resultType":"vector","result":[{"metric":{"gpu":"0"'
        if self.path == "/metrics":
            body = b'# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-'
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Cut).serve_forever()
PY
pids+=($!)
wait_http "http://127.0.0.1:$pg/" 5 || true

A="127\.0\.0\.1:$pa" B="127\.0\.0\.1:$pb" H="127\.0\.0\.1:$ph" G="127\.0\.0\.1:$pg"
T new-session -d -s r -x 120 -y 32 "env LANG=C.UTF-8 TERM=tmux-256color $GW_BIN top -w 1 \
	--remote 127.0.0.1:$pa,127.0.0.1:$pb,127.0.0.1:$ph,127.0.0.1:$pg 2>$tmp/r.err; echo \$? >$tmp/r.rc; sleep 60"
T set-option -t r window-size manual >/dev/null 2>&1

# --- both agents' GPUs with their node and the scenario's values -------------
wait_for r "^$B +0 H100" 10 || fail "agent B's GPU not shown"
s=$(cap r)
grep -q 'gpuwatch top  remote  4 nodes (2 down)  3 GPUs  SIMULATED ' <<<"$s" || fail "title: $(head -1 <<<"$s")"
grep -Eq "^$A +0 H200 +42%.* 97\.7G/140G .* 61C +612/700W" <<<"$s" || fail "A GPU 0: $(row r "$A +0")"
grep -Eq "^$A +1 H200 +97%.* 117G/140G .* 77C +690/700W" <<<"$s" || fail "A GPU 1: $(row r "$A +1")"
grep -Eq "^$B +0 H100 80G +13%.* 19\.5G/79\.6G.* 45C +250/700W" <<<"$s" || fail "B GPU 0: $(row r "$B +0")"
grep -Eq "^$H +- +no answer within 1000 ms" <<<"$s" || fail "hanging peer: $(row r "$H")"
grep -Eq "^$G +- +bad answer: text ends early at byte [0-9]+ \(truncated\?\): line 2" <<<"$s" || fail "cut exposition: $(row r "$G")"
grep -Eq '^NODE +PID +USER' <<<"$s" || fail "no NODE column in the process table"
# the agents' processes, from their /metrics (the history store keeps none)
grep -Eq "^$A +4242 .* 0 +90000MiB .*trainer" <<<"$s" || fail "A's process 4242 not shown: $(grep -E '^NODE|4242' <<<"$s")"
# the detail view of a remote GPU names its node and has the values
keys r Down Down Enter
s=$(cap r)
grep -Eq "^$B  GPU 0  NVIDIA H100 80G" <<<"$s" || fail "detail of B's GPU: $(sed -n 2p <<<"$s")"
grep -q 'power 250.00 / 700 W' <<<"$s" || fail "detail power of B"
keys r Escape

# --- kill -9 B: B stale, A keeps updating, keys keep working --------------------
kill -9 "$b_pid"
wait_for r "^$B +0 H100 80G +stale [0-9]+s +unreachable: connection refused" 5 || fail "killed agent not marked stale"
c1=$(clock r)
sleep 2.2
s=$(cap r)
[ "$(clock r)" != "$c1" ] || fail "the screen stopped updating with an agent down ($c1)"
grep -Eq "^$A +0 H200 +42%" <<<"$s" || fail "A not live while B is down: $(row r "$A +0")"
grep -Eq "^$B +0 H100 80G +stale ([2-9]|[1-9][0-9])s" <<<"$s" || fail "B's stale age does not grow: $(row r "$B +0")"
grep -q 'events:.*127.0.0.1:'"$pb"' unreachable: connection refused' <<<"$s" || fail "no event for B going down"
keys r w
cap r | head -1 | grep -q 'window 5m' || fail "key w did not work with an agent down"
keys r '?'
cap r | grep -q 'braille / block' || fail "help did not open with an agent down"
keys r x
keys r b # block characters instead of braille, and back
cap r | sed -n 3p | LC_ALL=C grep -q $'\xe2\x96[\x81-\x88]' || fail "b did not switch the charts to blocks: $(cap r | sed -n 3p)"
keys r b
cap r | sed -n 3p | LC_ALL=C grep -q $'\xe2[\xa0-\xa3]' || fail "b did not switch back to braille"

# --- restart B on the same port: live again ---------------------------------------
agent b top-remote-b.scn "$pb"
wait_for r "^$B +0 H100 80G +13%" 6 || fail "restarted agent not live again"
cap r | grep -q 'events:.*answers again' || fail "no event for B coming back"

# --- processes are the remote side's; never signalled -------------------------------
keys r Tab T
cap r | tail -1 | grep -Eq 'select a process first|remote processes are never signalled' || fail "T on remote: $(cap r | tail -1)"
keys r Tab

# --- a resize with remote rows, then q quits at once although a peer hangs --------
T resize-window -t r: -x 80 -y 24; sleep 1.2
s=$(cap r)
python3 -c 'import sys; sys.exit(any(len(l) > 80 for l in sys.stdin.read().splitlines()))' <<<"$s" || fail "lines wider than 80"
grep -Eq "^$A +0 H200" <<<"$s" || fail "no A row at 80x24"
t0=$(date +%s%N)
keys r q
for _ in $(seq 30); do [ -s "$tmp/r.rc" ] && break; sleep 0.1; done
t1=$(date +%s%N)
[ "$(cat "$tmp/r.rc" 2>/dev/null)" = 0 ] || fail "q: exit code $(cat "$tmp/r.rc" 2>/dev/null) $(cat "$tmp/r.err")"
[ $(((t1 - t0) / 1000000)) -lt 2000 ] || fail "q took $(((t1 - t0) / 1000000)) ms with a hanging peer"
cap r | grep -q 'gpuwatch top' && fail "screen not restored after q"

# --- an agent without history: its GPUs and processes, and why the charts start empty ---
pc=$(free_port)
"$GW_BIN" --sim "$scn/top-remote-a.scn" agent -a "127.0.0.1:$pc" --no-history 2>>"$tmp/c.err" &
pids+=($!)
wait_http "http://127.0.0.1:$pc/health" 10 || fail "agent c did not start: $(tail -3 "$tmp/c.err")"
C="127\.0\.0\.1:$pc"
T new-session -d -s c -x 120 -y 24 "env LANG=C.UTF-8 TERM=tmux-256color $GW_BIN top -w 1 --remote 127.0.0.1:$pc \
	2>$tmp/c.top.err; echo \$? >$tmp/c.rc; sleep 60"
T set-option -t c window-size manual >/dev/null 2>&1
wait_for c "^$C +1 H200" 10 || fail "no-history agent's GPUs not shown"
wait_for c "^$C +4242 .* 0 +90000MiB .*trainer" 3 || fail "no-history agent's process not shown"
s=$(cap c)
grep -q 'gpuwatch top  remote  1 node  2 GPUs  SIMULATED ' <<<"$s" || fail "no-history title: $(head -1 <<<"$s")"
grep -Eq "^$C +0 H200 +42%.* 97\.7G/140G .* 61C +612/700W" <<<"$s" || fail "no-history GPU 0: $(grep -E "^$C +0" <<<"$s")"
grep -q "events:.*127.0.0.1:$pc no history (agent run with --no-history?): charts start now" <<<"$s" ||
	fail "no-history agent: no event saying why the charts start empty: $(grep events: <<<"$s")"
grep -q 'HTTP 404' <<<"$s" && fail "no-history agent shown as a bare HTTP 404"
keys c Enter
cap c | sed -n 2p | grep -q "GPU 0  NVIDIA H200  .*  SIMULATED  no history" || fail "detail: $(cap c | sed -n 2p)"
keys c q

# --- health and the OOM forecast as the agents compute them -----------------------------
cat >"$tmp/dbe.scn" <<'SCN'
[sim]
seed = 3
clock = real
fleet = 4xH200:training
[gpu 1]
fault = 2s ecc-dbe
SCN
pf=$(free_port) pl=$(free_port)
"$GW_BIN" --sim "$tmp/dbe.scn" agent -a "127.0.0.1:$pf" --no-history 2>>"$tmp/f.err" &
pids+=($!)
"$GW_BIN" --sim 1xH100:leak,speed=100,1xH100:idle agent -a "127.0.0.1:$pl" -c 100 --memory.forecast-window 4s \
	--no-history 2>>"$tmp/l.err" &
pids+=($!)
wait_http "http://127.0.0.1:$pf/health" 10 || fail "fault agent did not start: $(tail -3 "$tmp/f.err")"
wait_http "http://127.0.0.1:$pl/health" 10 || fail "leak agent did not start: $(tail -3 "$tmp/l.err")"
F="127\.0\.0\.1:$pf" L="127\.0\.0\.1:$pl"
T new-session -d -s h -x 80 -y 24 "env LANG=C.UTF-8 TERM=tmux-256color $GW_BIN top --remote 127.0.0.1:$pf,127.0.0.1:$pl \
	2>$tmp/h.err; echo \$? >$tmp/h.rc; sleep 60"
T set-option -t h window-size manual >/dev/null 2>&1
wait_for h "^$F +1 H200 .*/700W FAIL memory" 15 || fail "remote GPU 1 not FAIL memory after a double-bit error"
wait_for h "^$L +0 H100 80G .* oom [0-9]{1,2}[sm] .* PASS" 10 || fail "no time to full on the leaking remote GPU"
s=$(cap h)
for g in 0 2 3; do
	grep -Eq "^$F +$g H200 .*/700W PASS" <<<"$s" || fail "remote GPU $g not PASS: $(grep -E "^$F +$g " <<<"$s")"
done
grep -Eq "^$L +1 H100 80G .* PASS" <<<"$s" || fail "idle remote GPU: $(grep -E "^$L +1 " <<<"$s")"
grep -E "^$L +1 H100" <<<"$s" | grep -q oom && fail "a time to full on the idle remote GPU"
# the detail view has the incidents from the agent's /api/v1/health
keys h Down Enter
s=$(cap h)
grep -q '^health FAIL  memory: DBE  memory: remap pending (warn)  driver: XID 94 (warn)' <<<"$s" ||
	fail "remote detail without the verdict: $(grep health <<<"$s")"
grep -Eq '^  FAIL memory +[0-9]+ uncorrectable \(double-bit\) ECC errors' <<<"$s" ||
	fail "remote detail without the incident's message: $(grep -A3 '^health' <<<"$s")"
keys h q

# --- no libcurl: a clear error naming the library, exit 1 ----------------------------
T new-session -d -s n -x 100 -y 10 "env GPUWATCH_CURL_LIBRARY=$tmp/none/libcurl.so.4 $GW_BIN top --remote 127.0.0.1:$pa \
	2>$tmp/n.err; echo \$? >$tmp/n.rc; sleep 60"
for _ in $(seq 30); do [ -s "$tmp/n.rc" ] && break; sleep 0.1; done
[ "$(cat "$tmp/n.rc" 2>/dev/null)" = 1 ] || fail "without libcurl: exit $(cat "$tmp/n.rc" 2>/dev/null)"
grep -q "cannot load $tmp/none/libcurl.so.4" "$tmp/n.err" || fail "without libcurl: $(cat "$tmp/n.err")"
# bad arguments: exit 2 before any terminal is touched
"$GW_BIN" top --remote >/dev/null 2>&1; [ $? = 2 ] || fail "--remote without a value accepted"
"$GW_BIN" top --prometheus a,b >/dev/null 2>"$tmp/p.err"; [ $? = 2 ] || fail "--prometheus with two URLs accepted"
grep -q 'one URL' "$tmp/p.err" || fail "--prometheus a,b: $(cat "$tmp/p.err")"

[ "$fails" = 0 ] && echo "top_remote: ok"
exit $((fails > 0))
