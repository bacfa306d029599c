#!/usr/bin/env bash
# /metrics stays fast (< 1 s) while other clients misbehave, all on loopback:
# 2,000 idle connections from two addresses (the per-address limit refuses
# most at accept, the read-header deadline closes the rest), 300 slowloris
# connections from ten addresses trickling a header line every 2 s (each
# under the per-address limit, so only the request-head deadline cuts them:
# all closed within the default 10 s, however steadily they trickle), and 20
# concurrent heavy query_range requests (they run on the query pool, never
# on the threads that answer scrapes). Then a full query queue answers 503
# with Prometheus' JSON error, and --help names the new flags. The scraper
# is 127.0.0.1; the other clients bind 127.0.0.2 and up.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null && command -v python3 >/dev/null || {
	echo "skipped: curl or python3 not installed"
	exit 77
}
# 2,000 client sockets here; the agent raises its own limit.
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge 2200 ] || {
	echo "skipped: open-file limit $(ulimit -n) is below the 2,200 this test needs"
	exit 77
}
. "$(dirname "$0")/../lib/common.sh"

cat >"$tmp/clients.py" <<'PY'
# clients.py MODE PORT N SOURCES HOLD_S [INTERVAL_S]: misbehaving clients.
#   idle: N connections that send nothing; slow: N connections that send a
#   request line, then a header line every INTERVAL_S, never finishing.
# Spread over SOURCES (comma-separated addresses). Prints "ready" once all
# are open, then after HOLD_S one JSON line: how many opened, and how many
# the server closed, and when (seconds after opening).
import json, socket, sys, time
mode, port, n, srcs, hold = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(","), float(sys.argv[5])
interval = float(sys.argv[6]) if len(sys.argv) > 6 else 0
conns, failed = [], 0
for i in range(n):
    s = socket.socket()
    try:
        s.bind((srcs[i % len(srcs)], 0))
        s.settimeout(5)
        s.connect(("127.0.0.1", port))
        s.setblocking(False)
        if mode == "slow":
            s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        conns.append({"s": s, "t0": time.monotonic(), "closed": None})
    except OSError:
        failed += 1
        s.close()
print("ready", flush=True)
def closed_by_server(c):
    try:
        return c["s"].recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
end, k = time.monotonic() + hold, 0
while time.monotonic() < end:
    time.sleep(min(interval or 0.5, 0.5))
    k += 1
    trickle = mode == "slow" and k % max(1, round(interval / 0.5)) == 0
    for c in conns:
        if c["closed"] is not None:
            continue
        gone = closed_by_server(c)
        if not gone and trickle:
            try:
                c["s"].send(b"X-Pad-%d: y\r\n" % k)
            except OSError:
                gone = True
        if gone:
            c["closed"] = time.monotonic() - c["t0"]
closed = [c["closed"] for c in conns if c["closed"] is not None]
print(json.dumps({"opened": len(conns), "connect_failed": failed, "closed": len(closed),
                  "last_close_s": round(max(closed), 1) if closed else None}), flush=True)
PY

# probe SECONDS NAME: scrape /metrics from 127.0.0.1 every 0.3 s for SECONDS;
# the times (s, 3 for no answer) go to $tmp/NAME.lat; fails on a slow or failed one.
probe() {
	local until=$((SECONDS + $1)) out=$tmp/$2.lat
	: >"$out"
	while [ $SECONDS -lt "$until" ]; do
		r=$(curl -s --interface 127.0.0.1 --max-time 3 -o /dev/null -w '%{http_code} %{time_total}' "$url/metrics")
		case $r in 200\ *) echo "${r#* }" >>"$out" ;; *) echo 3 >>"$out" ;; esac
		sleep 0.3
	done
	local max
	max=$(sort -g "$out" | tail -1)
	echo "$2: $(wc -l <"$out") scrapes, slowest ${max}s"
	awk -v m="$max" 'BEGIN { exit !(m < 1) }' || fail "$2: a scrape took ${max}s (3 = no answer within 3 s)"
}
# wait_ready FILE: until the clients script has opened its connections.
wait_ready() {
	for _ in $(seq 300); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.1; done
	fail "clients never got ready: $(cat "$1")"
}
metric() { curl -s --max-time 3 "$url/metrics" | awk -v n="$1" '$1 == n { print $2 }'; }

"$BIN" --sim 8xH200:training sim record --duration 2h --storage.path "$tmp/data" >"$tmp/record.out" 2>&1 ||
	fail "sim record: $(cat "$tmp/record.out")"
port=$(free_port)
url="http://127.0.0.1:$port"
"$BIN" --sim 8xH200:training agent -a "127.0.0.1:$port" --storage.path "$tmp/data" 2>"$tmp/agent.err" &
agent=$!
pids+=("$agent")
wait_http "$url/metrics" 20 || fail "agent never answered: $(cat "$tmp/agent.err")"

# --- 2,000 idle connections from two addresses ------------------------------------
python3 "$tmp/clients.py" idle "$port" 2000 127.0.0.2,127.0.0.3 11 >"$tmp/idle.out" 2>&1 &
pids+=($!)
wait_ready "$tmp/idle.out"
probe 5 idle
rejected=$(metric gpuwatch_http_connections_rejected_total)
awk -v r="${rejected:-0}" 'BEGIN { exit !(r >= 1800) }' ||
	fail "per-address limit: ${rejected:-no} connections rejected of 2,000 (want >= 1,800 at 64 per address)"
wait $!
grep -q '"opened": 2000' "$tmp/idle.out" || fail "idle clients: $(cat "$tmp/idle.out")"
# every idle connection ends: refused at once, or cut at the 10 s head deadline
grep -q '"closed": 2000' "$tmp/idle.out" || fail "idle connections left open after 11 s: $(tail -1 "$tmp/idle.out")"

# --- 300 slowloris connections from ten addresses ----------------------------------
srcs=$(seq -s, -f '127.0.0.%g' 10 19)
python3 "$tmp/clients.py" slow "$port" 300 "$srcs" 12 2 >"$tmp/slow.out" 2>&1 &
pids+=($!)
wait_ready "$tmp/slow.out"
probe 10 slowloris
wait $!
grep -q '"opened": 300' "$tmp/slow.out" || fail "slowloris clients: $(cat "$tmp/slow.out")"
grep -q '"closed": 300' "$tmp/slow.out" || fail "slowloris connections not all cut within 12 s: $(tail -1 "$tmp/slow.out")"
timeouts=$(metric gpuwatch_http_read_header_timeouts_total)
awk -v t="${timeouts:-0}" 'BEGIN { exit !(t >= 300) }' || fail "read-header timeouts counted: ${timeouts:-none} (want >= 300)"

# --- 20 concurrent heavy range queries ----------------------------------------------
now=$(date +%s)
heavy() { # OUT STEP: a heavy query_range (~0.5 s at step 20 on one core); "code seconds" to OUT.code, the body to OUT.json
	curl -s --max-time 120 -o "$1.json" -w '%{http_code} %{time_total}\n' \
		--data-urlencode 'query=quantile_over_time(0.99, DCGM_FI_DEV_GPU_UTIL[1h])' \
		--data-urlencode "start=$((now - 7200))" --data-urlencode "end=$now" --data-urlencode "step=$2" \
		"$url/api/v1/query_range" >"$1.code"
}
qp=()
for i in $(seq 20); do heavy "$tmp/q$i" 20 & qp+=($!); done
sleep 0.5
probe 5 queries
queued=$(metric gpuwatch_query_queue_length)
running=$(metric gpuwatch_query_running)
wait "${qp[@]}"
ok=$(cat "$tmp"/q*.code | grep -c '^200 ')
[ "$ok" = 20 ] || fail "heavy queries: $ok of 20 answered 200: $(head -c 300 "$tmp/q1.json")"
echo "queries: running ${running:-?}, queued ${queued:-?} mid-way; slowest $(cat "$tmp"/q*.code | awk '{print $2}' | sort -g | tail -1)s"
[ "${running:-0}" -le 4 ] || fail "$running queries ran at once; --query.max-concurrency defaults to 4"

# --- a full queue: 503 with Prometheus' error JSON -----------------------------------
kill "$agent"
wait "$agent" 2>/dev/null
"$BIN" --sim 8xH200:training agent -a "127.0.0.1:$port" --storage.path "$tmp/data" --query.max-concurrency 1 \
	--query.timeout 1m 2>"$tmp/agent2.err" &
pids+=($!)
wait_http "$url/metrics" 20 || fail "agent with --query.max-concurrency 1 never answered: $(cat "$tmp/agent2.err")"
qp=()
for i in $(seq 24); do heavy "$tmp/f$i" 60 & qp+=($!); done
wait "${qp[@]}"
busy=$(cat "$tmp"/f*.code | grep -c '^503 ')
[ "$busy" -ge 1 ] || fail "24 queries at 1 running + 16 queued: none answered 503"
grep -lq '"errorType":"unavailable"' "$tmp"/f*.json || fail "a refused query's body is not Prometheus' error JSON"
refused=$(metric gpuwatch_query_rejected_total)
[ "${refused:-0}" = "$busy" ] || fail "gpuwatch_query_rejected_total ${refused:-none}, but $busy answered 503"

"$BIN" agent --help >"$tmp/help" 2>&1
for f in --web.max-connections --web.max-connections-per-ip --web.read-header-timeout --query.max-concurrency \
	--query.timeout; do
	grep -q -- "$f " "$tmp/help" || fail "agent --help does not describe $f"
done
"$BIN" --sim 1xH200 agent --no-history --web.read-header-timeout 10x >/dev/null 2>"$tmp/bad" && fail "a bad --web.read-header-timeout was accepted"
grep -q 'web.read-header-timeout wants a duration' "$tmp/bad" || fail "bad --web.read-header-timeout: $(cat "$tmp/bad")"

[ "$fails" -eq 0 ] && echo "ok"
exit $((fails > 0))
