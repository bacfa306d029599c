#!/usr/bin/env bash
# The agent scraping inference servers beside the GPUs (--scrape): a fake
# vLLM (our fixture served by `python3 -m http.server` on loopback) lands
# in the store with job and instance labels, queryable with the GPUs'
# series in one query; a later change to the file shows up and a metric
# that went away is marked stale; a gzip answer is taken; a dead target,
# a slow one, one answering garbage, one too big and one answering 404
# each read up=0, are counted and logged once (not at every scrape), and
# the agent keeps answering; the report and the page list the servers
# with their rates; a server that goes away reads up=0 and its series go
# stale; bad --scrape values are refused naming the option.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
DATA=${GW_TEST_DATA:?GW_TEST_DATA must point at tests/}
for c in curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed"; exit 77; }
done
. "$(dirname "$0")/../lib/common.sh"
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# bad values: exit 2, the command and option named
"$BIN" --sim 1xH100 agent --scrape localhost:8000/metrics >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q '^gpuwatch agent: --scrape localhost:8000/metrics: wants \[JOB=\]http://' "$tmp/err" ||
	fail "a URL without a scheme: $(cat "$tmp/err")"
"$BIN" --sim 1xH100 agent --scrape 'http://h:1/m@5ms' >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'interval after .@. wants 100ms or more' "$tmp/err" || fail "a short interval: $(cat "$tmp/err")"
"$BIN" --sim 1xH100 agent --scrape a=http://h:1/m --scrape a=http://h:1/n >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q 'job a already scrapes h:1' "$tmp/err" || fail "a target twice: $(cat "$tmp/err")"
! "$BIN" --sim 1xH100 agent -a 127.0.0.1:0 --no-history --scrape http://h:1/m >/dev/null 2>"$tmp/err" && grep -q 'needs the history' "$tmp/err" || fail "--scrape without history: $(cat "$tmp/err")"
"$BIN" agent --help | grep -q -- '--scrape \[JOB=\]URL\[@INTERVAL\]' || fail "--help does not show --scrape"

# the fake vLLM: a static file, re-read at every request
mkdir -p "$tmp/www"
cp "$DATA/data/scrape/vllm_metrics.txt" "$tmp/www/metrics"
vport=$(free_port)
python3 -m http.server "$vport" --bind 127.0.0.1 --directory "$tmp/www" >"$tmp/www.log" 2>&1 &
pids+=($!)
# a second server: the same body gzipped, a slow answer, garbage
cat >"$tmp/odd.py" <<'PY'
import gzip, http.server, sys, time
body = open(sys.argv[2], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/slow":
            time.sleep(3)
            out, enc = b"late 1\n", None
        elif self.path == "/garbage":
            out, enc = b"\x00\x01<html>\xff", None
        elif self.path == "/huge":
            out, enc = b"a 1\n" * (4 << 20) + b"b 2\n", None
        elif "gzip" in self.headers.get("Accept-Encoding", ""):
            out, enc = gzip.compress(body), "gzip"
        else:
            self.send_error(406, "wants gzip")
            return
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            if enc:
                self.send_header("Content-Encoding", enc)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        except (BrokenPipeError, ConnectionResetError):
            pass
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
oport=$(free_port)
python3 "$tmp/odd.py" "$oport" "$DATA/data/scrape/vllm_metrics.txt" 2>"$tmp/odd.log" &
pids+=($!)
wait_http "http://127.0.0.1:$vport/metrics" 20 || fail "http.server did not start: $(cat "$tmp/www.log")"
wait_http "http://127.0.0.1:$oport/garbage" 20 || fail "the odd server did not start: $(cat "$tmp/odd.log")"

port=$(free_port)
dead=$(free_port)
"$BIN" --sim 2xH100:inference agent -a "127.0.0.1:$port" -c 100 --storage.path "$tmp/d" \
	--scrape "vllm=http://127.0.0.1:$vport/metrics@200ms" --scrape "gz=http://127.0.0.1:$oport/gz@200ms" \
	--scrape "slow=http://127.0.0.1:$oport/slow@500ms" --scrape "junk=http://127.0.0.1:$oport/garbage@200ms" \
	--scrape "dead=http://127.0.0.1:$dead/metrics@200ms" --scrape "huge=http://127.0.0.1:$oport/huge@1s" \
	--scrape "nope=http://127.0.0.1:$vport/nope@200ms" 2>"$tmp/agent.err" &
pids+=($!)
U="http://127.0.0.1:$port"
wait_http "$U/metrics" 20 || fail "agent did not serve: $(cat "$tmp/agent.err")"

# query_until QUERY PYEXPR: an instant query until PYEXPR over its answer d is true
query_until() {
	for _ in $(seq 50); do
		curl -s "$U/api/v1/query" --data-urlencode "query=$1" >"$tmp/q"
		[ "$(json "$tmp/q" "$2" 2>/dev/null)" = True ] && return 0
		sleep 0.1
	done
	return 1
}
one() { echo 'len(d["data"]["result"]) == 1 and d["data"]["result"][0]["value"][1] == "'"$1"'"'; }

query_until 'vllm:generation_tokens_total{job="vllm"}' "$(one 1000000)" || fail "scraped counter: $(cat "$tmp/q")"
# the series, with the target's labels
curl -s "$U/api/v1/series" --data-urlencode 'match[]={job="vllm"}' >"$tmp/s"
[ "$(json "$tmp/s" 'sorted(set(s["__name__"] for s in d["data"]))')" = "['scrape_duration_seconds', 'scrape_samples_scraped', 'up', 'vllm:generation_tokens_total', 'vllm:gpu_cache_usage_perc', 'vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:prompt_tokens_total', 'vllm:request_success_total', 'vllm:time_to_first_token_seconds_bucket', 'vllm:time_to_first_token_seconds_count', 'vllm:time_to_first_token_seconds_sum']" ] ||
	fail "vllm's series: $(cat "$tmp/s")"
[ "$(json "$tmp/s" 'set(s["instance"] for s in d["data"])')" = "{'127.0.0.1:$vport'}" ] ||
	fail "instance label: $(cat "$tmp/s")"
[ "$(json "$tmp/s" '[s["model_name"] for s in d["data"] if s["__name__"] == "vllm:num_requests_running"]')" = \
	"['meta-llama/Llama-3.1-8B-Instruct']" ] || fail "model_name label: $(cat "$tmp/s")"
query_until 'scrape_samples_scraped{job="vllm"}' "$(one 12)" || fail "scrape_samples_scraped: $(cat "$tmp/q")"

# query_range over the scrapes so far: every point is the file's value
end=$(python3 -c 'import time; print(time.time())')
curl -s "$U/api/v1/query_range" --data-urlencode 'query=vllm:num_requests_running{job="vllm"}' \
	--data-urlencode "start=$(python3 -c "print($end - 5)")" --data-urlencode "end=$end" --data-urlencode 'step=0.2' >"$tmp/r"
[ "$(json "$tmp/r" 'set(v for _, v in d["data"]["result"][0]["values"])')" = "{'12'}" ] || fail "query_range: $(cat "$tmp/r")"

# the GPUs and the server in one query: generated tokens per GPU-utilisation point
query_until 'sum(vllm:generation_tokens_total) / sum(DCGM_FI_DEV_GPU_UTIL)' 'len(d["data"]["result"]) == 1' ||
	fail "a query over GPUs and scraped series: $(cat "$tmp/q")"

# the file changes: the new value shows up, the metric taken out goes stale
sed -e 's/^vllm:generation_tokens_total{\(.*\)} 1.0e+06$/vllm:generation_tokens_total{\1} 1.5e+06/' \
	-e '/^vllm:num_requests_waiting{/d' "$DATA/data/scrape/vllm_metrics.txt" >"$tmp/www/metrics.new"
mv "$tmp/www/metrics.new" "$tmp/www/metrics"
query_until 'vllm:generation_tokens_total{job="vllm"}' "$(one 1500000)" || fail "the changed file: $(cat "$tmp/q")"
query_until 'rate(vllm:generation_tokens_total{job="vllm"}[1m]) > 0' 'len(d["data"]["result"]) == 1' || fail "tokens/s: $(cat "$tmp/q")"
query_until 'vllm:num_requests_waiting{job="vllm"}' 'd["data"]["result"] == []' || fail "a removed metric is not stale: $(cat "$tmp/q")"

# gzip is asked for and decoded
query_until 'vllm:generation_tokens_total{job="gz"}' "$(one 1000000)" || fail "gzip target: $(cat "$tmp/q")"
query_until 'up{job="gz"}' "$(one 1)" || fail "up of the gzip target: $(cat "$tmp/q")"

# dead, slow and garbage: up=0, counted, logged once each; the agent still answers
for j in dead slow junk huge nope; do
	query_until "up{job=\"$j\"}" "$(one 0)" || fail "up of $j: $(cat "$tmp/q")"
done
curl -s "$U/api/v1/series" --data-urlencode 'match[]={job="junk"}' >"$tmp/s"
[ "$(json "$tmp/s" 'sorted(s["__name__"] for s in d["data"])')" = "['scrape_duration_seconds', 'scrape_samples_scraped', 'up']" ] ||
	fail "garbage reached the store: $(cat "$tmp/s")"
sleep 1 # a few more failed scrapes of each
curl -sf "$U/metrics" >"$tmp/m" || fail "/metrics does not answer while targets fail"
grep -q '^DCGM_FI_DEV_GPU_UTIL{' "$tmp/m" || fail "/metrics lost the GPUs"
for j in dead junk; do
	n=$(sed -n "s/^gpuwatch_scrape_failures_total{job=\"$j\",instance=\"[^\"]*\"} //p" "$tmp/m")
	[ "${n:-0}" -ge 3 ] || fail "$j: failures counted $n: $(grep scrape_ "$tmp/m")"
	[ "$(grep -c "msg=\"scrape failed\" job=$j " "$tmp/agent.err")" = 1 ] ||
		fail "$j: not logged exactly once: $(grep "job=$j" "$tmp/agent.err")"
done
grep -q '^gpuwatch_scrape_target_up{job="vllm",instance="127.0.0.1:'"$vport"'"} 1$' "$tmp/m" || fail "vllm not up on /metrics"
grep -q 'msg="scrape failed" job=junk .*err="line 1: a NUL byte' "$tmp/agent.err" || fail "why junk failed: $(cat "$tmp/agent.err")"
grep -q 'msg="scrape failed" job=slow .*err="Timeout was reached' "$tmp/agent.err" || fail "why slow failed: $(cat "$tmp/agent.err")"
grep -q 'msg="scrape failed" job=dead .*err="Couldn.t connect' "$tmp/agent.err" || fail "why dead failed: $(cat "$tmp/agent.err")"
grep -q 'msg="scrape failed" job=huge .*err="body over 16 MiB"' "$tmp/agent.err" || fail "why huge failed: $(cat "$tmp/agent.err")"
grep -q 'msg="scrape failed" job=nope .*err="server returned HTTP status 404"' "$tmp/agent.err" || fail "why nope failed: $(cat "$tmp/agent.err")"

# the report lists the scraped servers with their counters' rates: the file's change is 500000 tokens
"$BIN" report --url "$U" --format json >"$tmp/rep.json" 2>"$tmp/rep.err" || fail "report --url: $(cat "$tmp/rep.err")"
json "$tmp/rep.json" '{s["job"]: s for s in d["inference"]}' >/dev/null || fail "report json: $(head -c 300 "$tmp/rep.json")"
[ "$(json "$tmp/rep.json" '[(r["metric"], r["unit"], r["increase"], r["per_second"] > 0) for s in d["inference"] if s["job"] == "vllm" for r in s["rates"]]')" = \
	"[('vllm:generation_tokens_total', 'tokens/s', 500000, True), ('vllm:prompt_tokens_total', 'tokens/s', 0, False), ('vllm:request_success_total', 'requests/s', 0, False)]" ] ||
	fail "report's vllm rates: $(json "$tmp/rep.json" 'd["inference"]')"
[ "$(json "$tmp/rep.json" '[s["up_ratio"] for s in d["inference"] if s["job"] == "dead"]')" = "[0]" ] ||
	fail "report's dead target: $(json "$tmp/rep.json" 'd["inference"]')"
"$BIN" report --url "$U" >"$tmp/rep.txt" 2>&1 || fail "report --url text: $(cat "$tmp/rep.txt")"
grep -q '^Inference servers (7, scraped by the agent)$' "$tmp/rep.txt" || fail "report text: $(tail -20 "$tmp/rep.txt")"
grep -Eq '^    vllm:generation_tokens_total +[0-9.e+]+ tokens/s \(500000 in all\)$' "$tmp/rep.txt" ||
	fail "report text's tokens/s: $(tail -20 "$tmp/rep.txt")"

# the page's inference panel: a row a target, up or down, vllm's tokens a second
if command -v chromium >/dev/null; then
	timeout 90 chromium --headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --disable-default-apps --user-data-dir="$tmp/profile" \
		--virtual-time-budget=8000 --dump-dom "$U/" >"$tmp/dom.html" 2>/dev/null
	python3 - "$tmp/dom.html" >"$tmp/dom.out" 2>&1 <<'PY' || fail "the page's inference panel: $(cat "$tmp/dom.out")"
import re, sys
dom = open(sys.argv[1]).read()
panel = re.search(r'<section id="inference">(.*?)</section>', dom, re.S)
assert panel, "no panel shown"
rows = {j: re.findall(r"<td[^>]*>([^<]*)</td>", r) for j, r in re.findall(r'<tr data-job="(\w+)">(.*?)</tr>', panel.group(1))}
assert sorted(rows) == ["dead", "gz", "huge", "junk", "nope", "slow", "vllm"], rows
assert rows["vllm"][2] == "up" and float(rows["vllm"][4]) > 0, rows["vllm"]
assert rows["dead"][2] == "down" and rows["dead"][4] == "\u2013", rows["dead"]
print("ok")
PY
fi

# the dead target comes to life: up=1 and the recovery is logged
python3 -m http.server "$dead" --bind 127.0.0.1 --directory "$tmp/www" >/dev/null 2>&1 &
pids+=($!)
query_until 'up{job="dead"}' "$(one 1)" || fail "a target that came back: $(cat "$tmp/q")"
grep -q 'msg="scrape recovered" job=dead' "$tmp/agent.err" || fail "no recovery logged"

# the server goes away: up 0 and every series it had is stale at once
kill "${pids[0]}"
query_until 'up{job="vllm"}' "$(one 0)" || fail "up of a server that went away: $(cat "$tmp/q")"
query_until '{job="vllm",__name__=~"vllm:.*"}' 'd["data"]["result"] == []' || fail "the series of a server that went away: $(cat "$tmp/q")"

kill "${pids[2]}"
wait "${pids[2]}" 2>/dev/null
rc=$?
[ "$rc" = 0 ] || fail "agent exit $rc on SIGTERM: $(tail -5 "$tmp/agent.err")"
[ "$fails" = 0 ] && echo "agent_scrape: ok"
exit $((fails > 0))
