#!/usr/bin/env bash
# remote_write: the agent sends its stored samples to a real Prometheus 2.42
# receiver (--web.enable-remote-write-receiver) on loopback, and the samples
# Prometheus holds equal the agent's own (same time stamps, same values,
# the external label added, dropped metrics left out); the receiver stopped
# for a while and started again gets the gap filled; the agent killed with
# kill -9 and started again resumes where it was acknowledged; a receiver
# answering 400 has its samples dropped and counted while basic auth, the
# extra header and the protocol's headers reach it; one answering 503 at
# first is retried until it takes them; an HTTPS receiver is verified with
# the CA file given and gets the bearer token; --no-history refuses the
# option, a bad regex is named, every flag is in --help; a store holding
# half an hour the receiver never saw is sent whole, in order.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v prometheus >/dev/null && command -v curl >/dev/null && command -v python3 >/dev/null && command -v openssl >/dev/null || {
	echo "skipped: prometheus, curl, python3 or openssl not installed (scripts/deps.sh test installs them)"
	exit 77
}
. "$(dirname "$0")/../lib/common.sh"

# --no-history: nothing to send from, said at once.
out=$("$BIN" --sim 1xH200 agent -a 127.0.0.1:0 --no-history --remote-write.url http://127.0.0.1:1/api/v1/write 2>&1)
rc=$?
[ "$rc" != 0 ] && grep -q "remote-write.url sends from the history store: drop --no-history" <<<"$out" ||
	fail "--no-history with --remote-write.url: rc=$rc $out"
out=$("$BIN" --sim 1xH200 agent --remote-write.header 'X-A: b' 2>&1)
grep -q "applies to the --remote-write.url before it" <<<"$out" || fail "per-URL option before any URL: $out"

out=$("$BIN" --sim 1xH200 agent -a 127.0.0.1:0 --storage.path "$tmp/bad" --remote-write.url http://127.0.0.1:1/w \
	--remote-write.keep 'a(' 2>&1)
grep -q 'cannot start remote write: --remote-write.keep: invalid regular expression' <<<"$out" || fail "bad keep regex: $out"
"$BIN" agent --help >"$tmp/help"
for f in url username password password-file bearer-token bearer-token-file header tls-ca-file tls-cert-file \
	tls-key-file tls-insecure-skip-verify keep drop timeout max-shards max-samples-per-send batch-send-deadline \
	min-backoff max-backoff retry-on-http-429; do
	grep -q -- "--remote-write.$f\b" "$tmp/help" || fail "agent --help does not describe --remote-write.$f"
done

# A receiver that records what reaches it: /r400 refuses everything with 400,
# /r503 answers 503 three times, then 204.
cat >"$tmp/recv.py" <<'PY'
import http.server, json, sys
state = {"n503": 0}
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        rec = {"path": self.path, "len": len(body), "headers": {k.lower(): v for k, v in self.headers.items()}}
        with open(sys.argv[2], "a") as f:
            f.write(json.dumps(rec) + "\n")
        if self.path == "/r400":
            code = 400
        elif state["n503"] < 3:
            state["n503"] += 1
            code = 503
        else:
            code = 204
        self.send_response(code)
        msg = b"out of bounds\n" if code == 400 else b""
        self.send_header("Content-Length", str(len(msg)))
        self.end_headers()
        self.wfile.write(msg)
    def log_message(self, *a):
        pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
if len(sys.argv) > 3:  # HTTPS with this certificate and key
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
PY
rport=$(free_port)
python3 "$tmp/recv.py" "$rport" "$tmp/recv.log" &
pids+=($!)
# The same over HTTPS, its certificate checked against our own CA file.
tport=$(free_port)
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" >/dev/null 2>&1 || fail "openssl could not make a certificate"
python3 "$tmp/recv.py" "$tport" "$tmp/tls.log" "$tmp/cert.pem" "$tmp/key.pem" &
pids+=($!)
printf 'tok123\n' >"$tmp/token"

pport=$(free_port)
start_receiver() {
	printf 'global:\n  scrape_interval: 1m\n' >"$tmp/prom.yml"
	prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/prom" --web.enable-remote-write-receiver \
		--web.listen-address="127.0.0.1:$pport" --log.level=error >>"$tmp/prom.log" 2>&1 &
	prom_pid=$!
	pids+=("$prom_pid")
	wait_http "http://127.0.0.1:$pport/-/ready" 30 || fail "prometheus not ready: $(tail -5 "$tmp/prom.log")"
}
start_receiver

aport=$(free_port)
store=$tmp/data
extra=()
start_agent() {
	"$BIN" --sim 2xH200:training agent -a "127.0.0.1:$aport" --storage.path "$store" --storage.flush-interval 1s \
		"${extra[@]}" \
		--external-label cluster=c1 --rules "$tmp/rules.yml" \
		--remote-write.url "http://127.0.0.1:$pport/api/v1/write" --remote-write.drop 'DCGM_FI_PROF_.*' \
		--remote-write.batch-send-deadline 1s --remote-write.max-backoff 500ms \
		--remote-write.url "http://127.0.0.1:$rport/r400" --remote-write.username alice \
		--remote-write.password-file "$tmp/pw" --remote-write.header 'X-Scope-OrgID: tenant1' \
		--remote-write.keep 'DCGM_FI_DEV_GPU_TEMP' \
		--remote-write.url "http://127.0.0.1:$rport/r503" --remote-write.keep 'DCGM_FI_DEV_POWER_USAGE' \
		--remote-write.batch-send-deadline 1s \
		--remote-write.url "https://127.0.0.1:$tport/tls" --remote-write.tls-ca-file "$tmp/cert.pem" \
		--remote-write.bearer-token-file "$tmp/token" --remote-write.keep up 2>>"$tmp/agent.err" &
	apid=$!
	pids+=("$apid")
	wait_http "http://127.0.0.1:$aport/health" 10 || fail "agent /health never answered: $(cat "$tmp/agent.err")"
}
printf 's3cret\n' >"$tmp/pw"
# Rule results are stored, so they are sent too.
cat >"$tmp/rules.yml" <<'YML'
groups:
  - name: gpu
    interval: 1s
    rules:
      - record: gpu:temp:max
        expr: max(DCGM_FI_DEV_GPU_TEMP)
YML
start_agent

# metric NAME [URL]: the agent's value of a gpuwatch_remote_write_* family for the receiver.
metric() {
	curl -s "http://127.0.0.1:$aport/metrics" |
		awk -v n="$1" -v u="${2:-http://127.0.0.1:$pport/api/v1/write}" '$1 == n "{url=\"" u "\"}" { print $2 }'
}
# wait_position SECONDS MS: until the receiver's position is past MS.
wait_position() {
	for _ in $(seq $(($1 * 5))); do
		p=$(metric gpuwatch_remote_write_queue_highest_sent_timestamp_seconds)
		python3 -c "import sys; sys.exit(0 if float('${p:-0}') * 1000 > $2 else 1)" && return 0
		sleep 0.2
	done
	return 1
}

# compare: every sample the agent holds up to the position equals Prometheus' (same time, same value).
# compare WHAT [MATCHERS [METRICS]]
compare() {
	local what=$1 m=${2:-} pos
	pos=$(metric gpuwatch_remote_write_queue_highest_sent_timestamp_seconds)
	for q in ${3:-DCGM_FI_DEV_GPU_TEMP DCGM_FI_DEV_POWER_USAGE gpuwatch_power_draw_watts up gpu:temp:max}; do
		curl -s "http://127.0.0.1:$aport/api/v1/query" --data-urlencode "query=$q{$m}[1h]" --data-urlencode "time=$pos" >"$tmp/a.json"
		curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$q{cluster=\"c1\"${m:+,$m}}[1h]" \
			--data-urlencode "time=$pos" >"$tmp/p.json"
		python3 - "$tmp/a.json" "$tmp/p.json" "$what $q" <<'PY' || fail "$what: $q differs (see above)"
import json, sys
a = json.load(open(sys.argv[1]))["data"]["result"]
p = json.load(open(sys.argv[2]))["data"]["result"]
key = lambda m: tuple(sorted((k, v) for k, v in m.items() if k != "cluster"))
A = {key(s["metric"]): s["values"] for s in a}
P = {key(s["metric"]): s["values"] for s in p}
if not A:
    print(sys.argv[3], ": the agent has no samples"); sys.exit(1)
bad = 0
if set(A) != set(P):
    print(sys.argv[3], ": series differ:", sorted(set(A) ^ set(P))[:3]); bad = 1
n = 0
for k in A:
    if k in P and A[k] != P[k]:
        ta = {t for t, _ in A[k]}; tp = {t for t, _ in P[k]}
        print(sys.argv[3], ": samples differ for", dict(k).get("gpu"), "agent", len(A[k]), "prometheus", len(P[k]),
              "missing", sorted(ta - tp)[:5], "extra", sorted(tp - ta)[:5])
        bad = 1
    n += len(A[k])
if all(m.get("cluster") != "c1" for m in (s["metric"] for s in p)):
    print("external label missing"); bad = 1
sys.exit(bad)
PY
	done
}

start=$(date +%s%3N)
wait_position 30 $((start + 3000)) || fail "position never moved past the start: $(tail -5 "$tmp/agent.err")"
compare "live"
n=$(curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode 'query=count({__name__=~"DCGM_FI_PROF_.*"})' |
	python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["result"]))')
[ "$n" = 0 ] || fail "--remote-write.drop DCGM_FI_PROF_.* still sent them"

# HTTPS: the CA file verifies the receiver, the bearer token reaches it (after its 503s, since it counts them too).
ut="https://127.0.0.1:$tport/tls"
for _ in $(seq 50); do [ "$(metric gpuwatch_remote_write_samples_total "$ut")" != 0 ] && break; sleep 0.2; done
[ "$(metric gpuwatch_remote_write_samples_total "$ut")" != 0 ] || fail "https: never sent: $(grep tls "$tmp/agent.err" | tail -2)"
grep -q '"authorization": "Bearer tok123"' "$tmp/tls.log" || fail "https: no bearer token: $(head -c 600 "$tmp/tls.log")"
# 503 three times: retried until taken, nothing failed.
u503="http://127.0.0.1:$rport/r503"
for _ in $(seq 50); do [ "$(metric gpuwatch_remote_write_samples_total "$u503")" != 0 ] && break; sleep 0.2; done
[ "$(metric gpuwatch_remote_write_samples_total "$u503")" != 0 ] || fail "503: never sent"
[ "$(metric gpuwatch_remote_write_samples_retried_total "$u503")" != 0 ] || fail "503: nothing retried"
[ "$(metric gpuwatch_remote_write_samples_failed_total "$u503")" = 0 ] || fail "503: samples dropped"


# The receiver down for 8 s: failures counted, then the gap filled in order once it is back.
kill "$prom_pid"
wait "$prom_pid" 2>/dev/null
down=$(date +%s%3N)
sleep 8
f=$(metric gpuwatch_remote_write_failures_total)
[ "${f:-0}" != 0 ] || fail "no failures counted while the receiver was down"
lag=$(metric gpuwatch_remote_write_lag_seconds)
python3 -c "import sys; sys.exit(0 if float('${lag:-0}') >= 4 else 1)" || fail "lag while down: $lag"
start_receiver
wait_position 30 $((down + 9000)) || fail "position never passed the outage: $(tail -5 "$tmp/agent.err")"
compare "after the outage"
grep -q 'msg="remote write resumed"' "$tmp/agent.err" || fail "no resumed line: $(tail -5 "$tmp/agent.err")"

# kill -9 the agent while the receiver is down again and the samples wait,
# start both: it resumes from the position it had written, backlog and all.
kill "$prom_pid"
wait "$prom_pid" 2>/dev/null
sleep 4
{ kill -9 "$apid"; wait "$apid"; } 2>/dev/null
killed=$(date +%s%3N)
sleep 1
start_receiver
start_agent
wait_position 30 $((killed + 3000)) || fail "position never moved after the restart: $(tail -5 "$tmp/agent.err")"
compare "after kill -9"
late=$(metric gpuwatch_remote_write_samples_late_total)
[ "$late" = 0 ] || fail "$late rule results stored after remote write had read past them"
f=$(metric gpuwatch_remote_write_samples_failed_total)
[ "$f" = 0 ] || fail "after kill -9: $f samples refused by Prometheus: $(grep refused "$tmp/agent.err" | tail -2)"

# 400: dropped and counted, and the request carried what it should.
u400="http://127.0.0.1:$rport/r400"
for _ in $(seq 50); do [ "$(metric gpuwatch_remote_write_samples_failed_total "$u400")" != 0 ] && break; sleep 0.2; done
[ "$(metric gpuwatch_remote_write_samples_failed_total "$u400")" != 0 ] || fail "400: no samples counted as failed"
[ "$(metric gpuwatch_remote_write_samples_retried_total "$u400")" = 0 ] || fail "400 was retried"
grep -q 'msg="remote write refused; samples dropped"' "$tmp/agent.err" || fail "no log line for the 400"
python3 - "$tmp/recv.log" <<'PY' || fail "what reached the receiver (see above)"
import base64, json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in recs if x["path"] == "/r400"]
if not r:
    print("nothing reached /r400"); sys.exit(1)
h = r[0]["headers"]
want = {"authorization": "Basic " + base64.b64encode(b"alice:s3cret").decode(), "x-scope-orgid": "tenant1",
        "content-encoding": "snappy", "content-type": "application/x-protobuf",
        "x-prometheus-remote-write-version": "0.1.0"}
bad = [(k, h.get(k), v) for k, v in want.items() if h.get(k) != v]
if not h.get("user-agent", "").startswith("gpuwatch/"):
    bad.append(("user-agent", h.get("user-agent"), "gpuwatch/..."))
if [x for x in recs if x["path"] == "/r503" and "x-scope-orgid" in x["headers"]]:
    bad.append(("a header meant for another URL", "", ""))
print(bad) if bad else None
sys.exit(1 if bad else 0)
PY
# Half an hour the receiver never saw: a store written by sim record as the
# agent writes it, with the position at its start. All of it arrives, in
# order, in windows of about 64 requests, and equals the store's.
kill "$apid"
wait "$apid" 2>/dev/null
"$BIN" --sim 2xH200:training sim record -d 30m --storage.path "$tmp/big" --instance big -q 2>/dev/null ||
	fail "sim record failed"
url="http://127.0.0.1:$pport/api/v1/write"
id=$(python3 -c 'import sys
h = 1469598103934665603
for c in sys.argv[1].encode():
    h = ((h ^ c) * 1099511628211) % (1 << 64)
print("%016x" % h)' "$url")
mkdir -p "$tmp/big/remote_write"
now=$(date +%s%3N)
printf 'acked %d\ninflight %d\nurl %s\n' $((now - 1900000)) $((now - 1900000)) "$url" >"$tmp/big/remote_write/$id"
store=$tmp/big
extra=(--instance big)
t0=$(date +%s%3N)
start_agent
wait_position 120 "$now" || fail "30 minutes behind: never caught up: $(tail -3 "$tmp/agent.err")"
echo "caught up 30 minutes of 2 GPUs in $(($(date +%s%3N) - t0)) ms"
compare "30 minutes behind" 'instance="big"' "DCGM_FI_DEV_GPU_TEMP DCGM_FI_DEV_POWER_USAGE gpuwatch_power_draw_watts"
n=$(curl -s "http://127.0.0.1:$pport/api/v1/query" --data-urlencode 'query=count_over_time(DCGM_FI_DEV_GPU_TEMP{instance="big",gpu="0"}[1h])' \
	--data-urlencode "time=$(metric gpuwatch_remote_write_queue_highest_sent_timestamp_seconds)" |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
[ "${n:-0}" -ge 1800 ] || fail "30 minutes behind: Prometheus holds $n samples of a series, want 1800 or more"

kill "$apid"
wait "$apid" 2>/dev/null
[ "$fails" = 0 ] && echo "remote_write: ok"
exit $((fails > 0))
