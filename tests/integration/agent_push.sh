#!/usr/bin/env bash
# The agent as a Pushgateway (--web.enable-push): a training job PUTs its
# throughput, the agent serves it on /metrics with the group's labels and
# push_time_seconds, keeps it in the history (queryable at once, so MFU can
# be computed live in PromQL, and `mfu --agent --throughput` reads it),
# POST replaces only the families it names, a bad push is refused with 400
# and a reason and leaves the group as it was, a protobuf push gets 415,
# DELETE removes the group; without the flag there is no push route.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed"; exit 77; }
done
. "$(dirname "$0")/../lib/common.sh"
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

port=$(free_port)
"$BIN" --sim 8xH100 agent -a "127.0.0.1:$port" -c 100 --web.enable-push --storage.path "$tmp/d" 2>"$tmp/agent.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/metrics" 20 || fail "agent did not serve: $(cat "$tmp/agent.err")"
U="http://127.0.0.1:$port"

# push BODY METHOD PATH: prints the status code, the answer in $tmp/resp
push() { printf "$1" | curl -s -o "$tmp/resp" -w '%{http_code}' -X "$2" --data-binary @- "$U$3"; }
# metrics_until PATTERN: /metrics (rendered once a frame) until it matches
metrics_until() {
	for _ in $(seq 30); do
		curl -s "$U/metrics" >"$tmp/m"
		grep -q "$1" "$tmp/m" && return 0
		sleep 0.1
	done
	return 1
}

code=$(push '# HELP train_tokens_per_second Tokens a second over the job.\n# TYPE train_tokens_per_second gauge\ntrain_tokens_per_second 60000\n# TYPE train_steps_total counter\ntrain_steps_total 42\n' PUT /metrics/job/llama3-8b/node/gpu-01)
[ "$code" = 200 ] || fail "PUT: $code $(cat "$tmp/resp")"
metrics_until '^train_tokens_per_second{job="llama3-8b",node="gpu-01"} 60000$' || fail "pushed sample not on /metrics: $(grep train_ "$tmp/m")"
grep -q '^# TYPE train_steps_total counter$' "$tmp/m" || fail "pushed counter lost its type"
grep -q '^push_time_seconds{job="llama3-8b",node="gpu-01"} 1[0-9.]*$' "$tmp/m" || fail "no push_time_seconds"
# in the history at once; MFU of Llama 3 8B (6.1065e10 FLOPs a token) on the 8 H100s, in PromQL
curl -s "$U/api/v1/query" --data-urlencode 'query=sum(train_tokens_per_second) * 6.1065e10 / (8 * 989.4e12)' >"$tmp/q"
[ "$(json "$tmp/q" 'round(float(d["data"]["result"][0]["value"][1]), 4)')" = 0.4629 ] || fail "live MFU query: $(cat "$tmp/q")"
# the same from the command: mfu reads the pushed throughput live
"$BIN" --sim 8xH100 mfu --preset llama3-8b --agent "$U" --throughput 'sum(train_tokens_per_second{job="llama3-8b"})' \
	--format json >"$tmp/mfu.json" 2>"$tmp/mfu.err" || fail "mfu --agent: exit $? $(cat "$tmp/mfu.err")"
[ "$(json "$tmp/mfu.json" 'd["mfu"], d["tokens_per_s"], d["gpus"]')" = "(0.462893, 60000, 8)" ] ||
	fail "mfu --agent: $(cat "$tmp/mfu.json")"
"$BIN" mfu --preset llama3-8b --gpu H100 --agent "$U" --throughput 'sum(' >/dev/null 2>"$tmp/mfu.err"
[ $? = 2 ] && grep -q 'parse error' "$tmp/mfu.err" || fail "mfu --agent with a bad query: $(cat "$tmp/mfu.err")"
"$BIN" mfu --preset llama3-8b --gpu H100 --agent "$U" --throughput 'no_such_series' >/dev/null 2>"$tmp/mfu.err"
[ $? = 2 ] && grep -q 'want one positive value' "$tmp/mfu.err" || fail "mfu --agent, no series: $(cat "$tmp/mfu.err")"
curl -s "$U/api/v1/query?query=train_steps_total" >"$tmp/q"
[ "$(json "$tmp/q" 'sorted(d["data"]["result"][0]["metric"].items())')" = \
	"[('__name__', 'train_steps_total'), ('instance', '$(json "$tmp/q" 'd["data"]["result"][0]["metric"]["instance"]')'), ('job', 'llama3-8b'), ('node', 'gpu-01')]" ] ||
	fail "stored labels: $(cat "$tmp/q")"

# POST replaces the families it names only
code=$(push 'train_tokens_per_second 61000\n' POST /metrics/job/llama3-8b/node/gpu-01)
[ "$code" = 200 ] || fail "POST: $code"
metrics_until 'train_tokens_per_second{job="llama3-8b",node="gpu-01"} 61000' || fail "POST did not replace the family"
grep -q '^train_steps_total{job="llama3-8b",node="gpu-01"} 42$' "$tmp/m" || fail "POST dropped a family it did not name"

# refused: 400 with the reason; nothing changes, push_failure_time_seconds says when
code=$(push 'train_tokens_per_second 1 1700000000000\n' PUT /metrics/job/llama3-8b/node/gpu-01)
[ "$code" = 400 ] && grep -q 'no time stamp' "$tmp/resp" || fail "a time stamp: $code $(cat "$tmp/resp")"
code=$(push 'x{node="gpu-02"} 1\n' PUT /metrics/job/llama3-8b/node/gpu-01)
[ "$code" = 400 ] && grep -q 'differs from the grouping key' "$tmp/resp" || fail "a conflicting label: $code $(cat "$tmp/resp")"
code=$(push 'x 1\n' PUT /metrics/job/)
[ "$code" = 400 ] && grep -q 'job name is empty' "$tmp/resp" || fail "no job name: $code $(cat "$tmp/resp")"
metrics_until '^push_failure_time_seconds{job="llama3-8b",node="gpu-01"} 1' || fail "no failure time"
grep -q 'train_tokens_per_second{job="llama3-8b",node="gpu-01"} 61000' "$tmp/m" || fail "a refused push changed the group"

code=$(printf '\x0a\x01' | curl -s -o "$tmp/resp" -w '%{http_code}' -X PUT -H 'Content-Type: application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited' --data-binary @- "$U/metrics/job/go")
[ "$code" = 415 ] && grep -q 'push the text format' "$tmp/resp" || fail "a protobuf push: $code $(cat "$tmp/resp")"

# base64 grouping values (a slash in the job name)
code=$(push 'y 3\n' PUT /metrics/job@base64/dHJhaW4vYQ)
[ "$code" = 200 ] || fail "base64 PUT: $code $(cat "$tmp/resp")"
metrics_until '^y{job="train/a"} 3$' || fail "base64 job: $(grep '^y' "$tmp/m")"

# DELETE: 202, and the group is gone
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$U/metrics/job/llama3-8b/node/gpu-01")
[ "$code" = 202 ] || fail "DELETE: $code"
for _ in $(seq 30); do
	curl -s "$U/metrics" >"$tmp/m"
	grep -q 'llama3-8b' "$tmp/m" || break
	sleep 0.1
done
grep -q 'llama3-8b' "$tmp/m" && fail "deleted group still on /metrics"

# without --web.enable-push there is no such route
port2=$(free_port)
"$BIN" --sim 1xH100 agent -a "127.0.0.1:$port2" --no-history 2>"$tmp/agent2.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port2/metrics" 20 || fail "second agent did not serve"
code=$(printf 'x 1\n' | curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary @- "http://127.0.0.1:$port2/metrics/job/a")
[ "$code" = 404 ] || fail "push without --web.enable-push: $code"

[ "$fails" = 0 ] && echo "agent_push: all passed"
[ "$fails" = 0 ]
