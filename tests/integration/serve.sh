#!/usr/bin/env bash
# serve.sh - `gpuwatch serve` answers Prometheus' query API over a store
# without sampling a GPU: a store `sim record` wrote and one `import` filled
# from an nvidia-smi CSV log, read as Grafana reads them; a path without a
# store is refused and nothing is created there; bad flags are named.
. "$(dirname "$0")/../lib/common.sh"
for c in curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed"; exit 77; }
done
: "${GW_BIN:?}"

"$GW_BIN" --sim 2xH100:training sim record --duration 10m --storage.path "$tmp/rec" >/dev/null 2>&1 ||
	fail "sim record"
cat >"$tmp/gpu.log" <<'LOG'
timestamp, index, name, temperature.gpu, utilization.gpu [%], memory.used [MiB]
2026/12/02 10:00:00.000, 0, NVIDIA H200, 41, 97 %, 120034 MiB
2026/12/02 10:00:05.000, 0, NVIDIA H200, 43, 99 %, 120100 MiB
LOG
"$GW_BIN" import --storage.path "$tmp/imp" "$tmp/gpu.log" >/dev/null 2>&1 || fail "import"

serve() { # DIR PORT
	"$GW_BIN" serve --storage.path "$1" -a "127.0.0.1:$2" 2>>"$tmp/serve.err" &
	pids+=($!)
	wait_http "http://127.0.0.1:$2/-/ready" 10 || { fail "serve $1 did not start: $(tail -2 "$tmp/serve.err")"; return 1; }
}
p1=$(free_port)
p2=$(free_port)
serve "$tmp/rec" "$p1"
serve "$tmp/imp" "$p2"
python3 - "127.0.0.1:$p1" "127.0.0.1:$p2" <<'PY' || fails=$((fails + 1))
import json, sys, time, urllib.parse, urllib.request
REC, IMP = sys.argv[1], sys.argv[2]
def get(base, path, **params):
    u = f"http://{base}{path}" + ("?" + urllib.parse.urlencode(params) if params else "")
    with urllib.request.urlopen(u, timeout=20) as r:
        return json.load(r)
bad = []
now = time.time()
# a recorded store: ten minutes of two GPUs ending now
r = get(REC, "/api/v1/query_range", query="max by (gpu) (DCGM_FI_DEV_GPU_TEMP)", start=now - 540, end=now, step=60)
res = r["data"]["result"]
if len(res) != 2 or any(len(s["values"]) < 9 for s in res):
    bad.append(f"recorded store, range query: {res}")
n = get(REC, "/api/v1/query", query="count(count_over_time(DCGM_FI_DEV_GPU_UTIL[10m]))")["data"]["result"]
if not n or n[0]["value"][1] != "2":
    bad.append(f"recorded store, GPUs: {n}")
labels = get(REC, "/api/v1/labels")["data"]
if "gpu" not in labels or "instance" not in labels:
    bad.append(f"labels: {labels}")
meta = get(REC, "/api/v1/metadata", metric="DCGM_FI_DEV_GPU_TEMP")["data"]
if list(meta) != ["DCGM_FI_DEV_GPU_TEMP"] or meta["DCGM_FI_DEV_GPU_TEMP"][0]["type"] != "gauge":
    bad.append(f"metadata: {meta}")
if get(REC, "/api/v1/status/buildinfo")["data"]["version"] != "2.42.0":
    bad.append("buildinfo")
# an imported log, at its own times
r = get(IMP, "/api/v1/query", query="DCGM_FI_DEV_GPU_TEMP", time="2026-12-02T10:00:05Z")["data"]["result"]
if len(r) != 1 or r[0]["value"][1] != "43":
    bad.append(f"imported log: {r}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# a path without a store: refused, and nothing made there
if "$GW_BIN" serve --storage.path "$tmp/none" -a "127.0.0.1:$(free_port)" 2>"$tmp/none.err"; then
	fail "serve of a path without a store exited 0"
fi
grep -q "no store in $tmp/none" "$tmp/none.err" || fail "no-store message: $(cat "$tmp/none.err")"
[ -e "$tmp/none" ] && fail "serve created $tmp/none"
# bad flags are named
out=$("$GW_BIN" serve --query.timeout 5x 2>&1) && fail "a bad --query.timeout was accepted"
echo "$out" | grep -q -- '--query.timeout wants a duration' || fail "bad timeout message: $out"
out=$("$GW_BIN" serve --storage.path 2>&1) && fail "a missing value was accepted"
echo "$out" | grep -q -- '--storage.path needs a value' || fail "missing value message: $out"
"$GW_BIN" serve --help | grep -q -- '--storage.path DIR' || fail "serve --help"

[ "$fails" = 0 ] || { echo "--- serve log:"; tail -5 "$tmp/serve.err"; exit 1; }
echo ok
