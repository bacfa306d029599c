#!/usr/bin/env bash
# PromQL differential test against the real Prometheus (Debian's 2.42): the
# same series in both (an nvidia-smi log imported into gpuwatch's store,
# exported as OpenMetrics and backfilled into Prometheus with promtool), the
# same instant and range queries through `gpuwatch query --format json` and
# Prometheus' HTTP API; results must be equal (values within 1e-9 relative).
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in prometheus promtool curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed (scripts/deps.sh test installs it)"; exit 77; }
done
tmp=$(mktemp -d)
ppid_=
cleanup() { [ -n "$ppid_" ] && kill "$ppid_" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# Two hours of a 4-GPU node at 15 s, ending one hour ago (inside Prometheus' retention).
end=$(( $(date +%s) / 60 * 60 - 3600 ))
start=$((end - 7200))
python3 - "$start" "$end" >"$tmp/gpu.log" <<'PY'
import math, sys, time
start, end = int(sys.argv[1]), int(sys.argv[2])
print("timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu, power.draw [W], clocks.current.sm [MHz]")
for t in range(start, end + 1, 15):
    ts = time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(t)) + ".000"
    for g in range(4):
        k = (t - start) // 15
        util = 0 if (k + g) % 37 < 3 else 90 + (k * (g + 3)) % 10
        mem = 20000 + g * 5000 + (k * 7) % 3000 + k * g
        temp = 40 + g * 5 + (k % 20) // 2
        power = 300 + 100 * math.sin(k / 17.0 + g) + g * 11.25
        clk = 1980 if util else 345
        if g == 3 and 200 < k < 260:
            continue  # a gap: GPU 3 not reporting for a while
        print(f"{ts}, {g}, NVIDIA H100 80GB HBM3, {util} %, {mem} MiB, 81559 MiB, {temp}, {power:.2f} W, {clk} MHz")
PY
TZ=UTC "$BIN" import -q --storage.path "$tmp/gw" --instance node1:9400 --job gpu "$tmp/gpu.log" >/dev/null ||
	{ echo "FAIL: import"; exit 1; }
"$BIN" export --storage.path "$tmp/gw" >"$tmp/data.om" || { echo "FAIL: export"; exit 1; }
promtool tsdb create-blocks-from openmetrics "$tmp/data.om" "$tmp/prom" >"$tmp/promtool.log" 2>&1 ||
	{ echo "FAIL: promtool refused our OpenMetrics export:"; tail -5 "$tmp/promtool.log"; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 1h\n' >"$tmp/prom.yml"
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/prom" --web.listen-address="127.0.0.1:$port" \
	--storage.tsdb.retention.time=30d --log.level=error >"$tmp/prom.log" 2>&1 &
ppid_=$!
for _ in $(seq 300); do curl -sf -o /dev/null "http://127.0.0.1:$port/-/ready" && break; sleep 0.1; done

cat >"$tmp/queries" <<'Q'
DCGM_FI_DEV_GPU_TEMP
DCGM_FI_DEV_GPU_TEMP{gpu=~"1|3"}
avg(DCGM_FI_DEV_GPU_UTIL)
sum by (gpu) (DCGM_FI_DEV_POWER_USAGE)
max_over_time(DCGM_FI_DEV_POWER_USAGE[10m])
min_over_time(DCGM_FI_DEV_GPU_TEMP[30m])
avg_over_time(DCGM_FI_DEV_GPU_UTIL[1h])
stddev_over_time(DCGM_FI_DEV_POWER_USAGE[20m])
quantile_over_time(0.9, DCGM_FI_DEV_POWER_USAGE[15m])
count_over_time(DCGM_FI_DEV_GPU_TEMP[1h])
changes(DCGM_FI_DEV_SM_CLOCK[1h])
resets(DCGM_FI_DEV_FB_USED[1h])
rate(DCGM_FI_DEV_FB_USED[5m])
increase(DCGM_FI_DEV_FB_USED[10m])
delta(DCGM_FI_DEV_GPU_TEMP[10m])
irate(DCGM_FI_DEV_FB_USED[5m])
idelta(DCGM_FI_DEV_POWER_USAGE[5m])
deriv(DCGM_FI_DEV_FB_USED[10m])
predict_linear(DCGM_FI_DEV_FB_USED[30m], 3600)
DCGM_FI_DEV_FB_USED / DCGM_FI_DEV_FB_TOTAL * 100 > 30
DCGM_FI_DEV_GPU_TEMP > bool 50
topk(2, DCGM_FI_DEV_GPU_TEMP)
bottomk(1, DCGM_FI_DEV_POWER_USAGE)
quantile(0.5, DCGM_FI_DEV_GPU_UTIL)
count_values("t", DCGM_FI_DEV_GPU_TEMP)
stddev(DCGM_FI_DEV_POWER_USAGE)
sort_desc(DCGM_FI_DEV_POWER_USAGE)
DCGM_FI_DEV_GPU_TEMP offset 30m
max_over_time(avg(DCGM_FI_DEV_GPU_UTIL)[30m:1m])
round(DCGM_FI_DEV_POWER_USAGE, 5)
clamp_max(DCGM_FI_DEV_GPU_TEMP, 45)
label_replace(DCGM_FI_DEV_GPU_TEMP, "card", "nvidia$1", "gpu", "(.*)")
DCGM_FI_DEV_GPU_TEMP and on(gpu) DCGM_FI_DEV_GPU_UTIL > 50
DCGM_FI_DEV_GPU_TEMP unless on(gpu) DCGM_FI_DEV_GPU_UTIL > 50
DCGM_FI_DEV_POWER_USAGE / on(gpu) group_left DCGM_FI_DEV_SM_CLOCK
absent(DCGM_FI_DEV_NOPE{gpu="9"})
absent_over_time(DCGM_FI_DEV_GPU_TEMP{gpu="3"}[2m])
timestamp(DCGM_FI_DEV_GPU_TEMP)
-DCGM_FI_DEV_GPU_TEMP % 7
scalar(sum(DCGM_FI_DEV_GPU_UTIL)) / 4
Q
python3 - "$BIN" "$tmp/gw" "$port" "$start" "$end" "$tmp/queries" <<'PY'
import json, math, subprocess, sys, urllib.parse, urllib.request
bin_, store, port, start, end, qfile = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
def prom(path, params):
    url = f"http://127.0.0.1:{port}{path}?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url) as r:
        d = json.load(r)
    assert d["status"] == "success", d
    return d["data"]
def ours(q, args):
    out = subprocess.run([bin_, "query", "--storage.path", store, "--format", "json", *args, "--", q],
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)
def num(s):
    return float(s)
def close(a, b):
    a, b = num(a), num(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return True
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))
def norm(d):
    if d["resultType"] == "scalar":
        return {"": [d["result"]]}
    out = {}
    for r in d["result"]:
        key = json.dumps(r["metric"], sort_keys=True)
        out[key] = r["values"] if "values" in r else [r["value"]]
    return out
def same(a, b):
    if a["resultType"] != b["resultType"]:
        return f"type {a['resultType']} vs {b['resultType']}"
    na, nb = norm(a), norm(b)
    if set(na) != set(nb):
        return f"series differ: only ours {sorted(set(na)-set(nb))[:2]}, only Prometheus {sorted(set(nb)-set(na))[:2]}"
    for k in na:
        pa, pb = na[k], nb[k]
        if len(pa) != len(pb):
            return f"{k}: {len(pa)} points vs {len(pb)}"
        for x, y in zip(pa, pb):
            if abs(float(x[0]) - float(y[0])) > 1e-6 or not close(x[1], y[1]):
                return f"{k}: {x} vs {y}"
    return None
passed = failed = 0
for q in [l.strip() for l in open(qfile) if l.strip()]:
    for t in (end - 3000, end - 1234, end):
        try:
            why = same(ours(q, ["--time", str(t)]), prom("/api/v1/query", {"query": q, "time": t}))
        except Exception as e:
            why = f"error: {e}"
        if why:
            failed += 1
            print(f"FAIL instant {q} @ {t}: {why}")
        else:
            passed += 1
    try:
        if json.loads(json.dumps(prom("/api/v1/query", {"query": q, "time": end})))["resultType"] in ("vector", "scalar"):
            why = same(ours(q, ["--start", str(end - 3600), "--end", str(end), "--step", "60"]),
                       prom("/api/v1/query_range", {"query": q, "start": end - 3600, "end": end, "step": 60}))
            if why:
                failed += 1
                print(f"FAIL range {q}: {why}")
            else:
                passed += 1
    except Exception as e:
        failed += 1
        print(f"FAIL range {q}: error: {e}")
print(f"PromQL differential vs Prometheus: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
