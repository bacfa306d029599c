#!/usr/bin/env bash
# The ready-made policy actions in deploy/policies/, run by the agent as a
# policy's exec on a simulated DBE: drain-slurm.sh drains the node with a
# reason naming the GPU and the condition (through SCONTROL, a recorder
# standing in for Slurm's scontrol, which is not installed here), and
# cordon-node.sh PATCHes the node unschedulable with the service account's
# token, against a small HTTP server standing in for the Kubernetes API
# server, which records the request. Missing pieces (no scontrol, no token,
# an API server that refuses) fail the action with a message, which the
# agent logs; drain-on-hardware.yml loads.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed"; exit 77; }
done
. "$(dirname "$0")/../lib/common.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
pol=$SRC/deploy/policies

# the recorder: one line per call, its argv as given
cat >"$tmp/scontrol" <<SH
#!/bin/sh
for a in "\$@"; do printf '[%s]' "\$a"; done >>"$tmp/scontrol.calls"
echo >>"$tmp/scontrol.calls"
SH
chmod +x "$tmp/scontrol"
# the API server: records method, path, auth, content type and body; 200, or 403 for node "denied"
aport=$(free_port)
python3 - "$aport" "$tmp/api.log" >/dev/null 2>&1 <<'PY' &
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_PATCH(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        with open(sys.argv[2], "a") as f:
            f.write(json.dumps({"path": self.path, "auth": self.headers.get("Authorization"),
                                "type": self.headers.get("Content-Type"), "body": json.loads(body)}) + "\n")
        code = 403 if self.path.endswith("/denied") else 200
        self.send_response(code); self.send_header("Content-Type", "application/json"); self.end_headers()
        self.wfile.write(b'{"kind":"Status","message":"nodes \\"denied\\" is forbidden"}' if code == 403 else b'{"kind":"Node"}')
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
pids+=($!)
mkdir -p "$tmp/sa"
echo "tok-123" >"$tmp/sa/token"
for _ in $(seq 50); do curl -s -o /dev/null -X PATCH "http://127.0.0.1:$aport/ping" -d '{}' && break; sleep 0.1; done
: >"$tmp/api.log"

# a policy with both actions on GPU 1's DBE (a simulated fault two seconds in)
cat >"$tmp/fleet.scn" <<'SCN'
[sim]
fleet = 2xH200:training
[gpu 1]
fault = 2s ecc-dbe
SCN
cat >"$tmp/policy.yml" <<YML
policies:
  - name: take-out
    conditions:
      dbe: true
    actions:
      - exec: ["$pol/drain-slurm.sh"]
      - exec: ["$pol/cordon-node.sh"]
    interval: 1h
YML
port=$(free_port)
SCONTROL=$tmp/scontrol SLURM_NODENAME=node-a NODE_NAME=node-a KUBERNETES_API=http://127.0.0.1:$aport SA_DIR=$tmp/sa \
	"$BIN" --sim "$tmp/fleet.scn" agent -a "127.0.0.1:$port" --no-history --slow-interval 500 \
	--policy "$tmp/policy.yml" >"$tmp/agent.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$port/health" 10 || fail "agent did not start: $(tail -3 "$tmp/agent.log")"
for _ in $(seq 100); do [ -s "$tmp/scontrol.calls" ] && [ -s "$tmp/api.log" ] && break; sleep 0.1; done
uuid=$(curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="\([^"]*\)".*/\1/p')
[ -n "$uuid" ] || fail "no UUID for GPU 1"
want="[update][nodename=node-a][state=drain][reason=gpuwatch: GPU 1 ($uuid) dbe=1]"
[ "$(cat "$tmp/scontrol.calls" 2>/dev/null)" = "$want" ] ||
	fail "drain-slurm.sh: scontrol got '$(cat "$tmp/scontrol.calls" 2>/dev/null)', want '$want'"
python3 - "$tmp/api.log" "$uuid" >"$tmp/api.out" 2>&1 <<'PY' || fail "cordon-node.sh: $(cat "$tmp/api.out")"
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(calls) == 1, calls
c = calls[0]
assert c["path"] == "/api/v1/nodes/node-a", c
assert c["auth"] == "Bearer tok-123", c
assert c["type"] == "application/strategic-merge-patch+json", c
assert c["body"]["spec"] == {"unschedulable": True}, c
assert c["body"]["metadata"]["annotations"]["gpuwatch.io/cordon-reason"] == "gpuwatch: GPU 1 (%s) dbe=1" % sys.argv[2], c
print("ok")
PY
grep -q 'msg="policy action failed"' "$tmp/agent.log" && fail "an action failed: $(grep 'action failed' "$tmp/agent.log")"

# run by hand, as an operator tries them: what is missing is said, with a non-zero exit
fire="GPUWATCH_GPU_INDEX=3 GPUWATCH_GPU_UUID=GPU-x GPUWATCH_CONDITION=xid GPUWATCH_VALUE=79"
out=$(env $fire SCONTROL=/nonexistent/scontrol SLURM_NODENAME=n "$pol/drain-slurm.sh" 2>&1)
[ $? = 127 ] && [[ $out == *"not found: cannot drain n (gpuwatch: GPU 3 (GPU-x) xid=79)"* ]] || fail "no scontrol: '$out'"
out=$("$pol/drain-slurm.sh" 2>&1) && fail "drain-slurm.sh ran outside a policy"
[[ $out == *"not run by a gpuwatch policy"* ]] || fail "drain-slurm.sh outside a policy: '$out'"
out=$(env $fire NODE_NAME=n SA_DIR=$tmp/nosa KUBERNETES_API=http://127.0.0.1:$aport "$pol/cordon-node.sh" 2>&1)
[ $? = 2 ] && [[ $out == *"no service account token"* ]] || fail "no token: '$out'"
out=$(env $fire NODE_NAME=denied SA_DIR=$tmp/sa KUBERNETES_API=http://127.0.0.1:$aport "$pol/cordon-node.sh" 2>&1)
[ $? = 1 ] && [[ $out == *"answered 403 for node denied"* ]] && [[ $out == *forbidden* ]] || fail "a refusal: '$out'"
out=$(env $fire NODE_NAME=n SA_DIR=$tmp/sa KUBERNETES_API=http://127.0.0.1:1 "$pol/cordon-node.sh" 2>&1)
[ $? = 1 ] && [[ $out == *unreachable* ]] || fail "no API server: '$out'"
# the example policy file loads as shipped
"$BIN" --sim 1xH200 agent -a 127.0.0.1:0 --no-history --policy "$pol/drain-on-hardware.yml" >"$tmp/ex.log" 2>&1 &
ex=$!
for _ in $(seq 50); do grep -q 'policies loaded' "$tmp/ex.log" && break; sleep 0.1; done
kill $ex 2>/dev/null
grep -q 'msg="policies loaded" file=.*drain-on-hardware.yml policies=1' "$tmp/ex.log" || fail "drain-on-hardware.yml: $(tail -2 "$tmp/ex.log")"
if command -v shellcheck >/dev/null; then
	shellcheck "$pol/drain-slurm.sh" "$pol/cordon-node.sh" || fail "shellcheck"
fi

[ "$fails" = 0 ] || exit 1
echo ok
