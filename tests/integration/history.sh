#!/usr/bin/env bash
# The agent keeps history in its store and answers Prometheus' query API;
# the history survives a restart and `gpuwatch query` reads it from the
# shell; `gpuwatch import` loads an nvidia-smi CSV log (bad lines reported
# by number, the good ones kept).
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null && command -v python3 >/dev/null || { echo "skipped: curl or python3 missing"; exit 77; }
tmp=$(mktemp -d)
apid=
cleanup() { [ -n "$apid" ] && kill "$apid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

cat >"$tmp/fleet.scn" <<'SCN'
[sim]
fleet = 2xH100:training
[gpu 0]
temp_c = 44
[gpu 1]
temp_c = 71
SCN
"$BIN" --sim "$tmp/fleet.scn" agent -a "127.0.0.1:$port" -c 200 --storage.path "$tmp/data" --instance node-a:9400 \
	2>"$tmp/agent.err" &
apid=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
sleep 2.5 # about a dozen samples at 200 ms, and two flushes of the store
api() { curl -s --data-urlencode "query=$1" "${@:2}" "http://127.0.0.1:$port/api/v1/query"; }
got=$(api 'DCGM_FI_DEV_GPU_TEMP{gpu="1",instance="node-a:9400",job="gpuwatch"}' | json 'd["data"]["result"][0]["value"][1]')
[ "$got" = 71 ] || fail "stored GPU 1 temperature: '$got', want 71"
n=$(api 'count_over_time(DCGM_FI_DEV_GPU_TEMP{gpu="0"}[10s])' | json 'd["data"]["result"][0]["value"][1]')
[ "${n:-0}" -ge 8 ] 2>/dev/null || fail "samples in the last 10 s: '$n', want >= 8 at 200 ms"
now=$(date +%s)
pts=$(curl -s "http://127.0.0.1:$port/api/v1/query_range?query=gpuwatch_temperature_gpu_celsius&start=$((now - 3))&end=$now&step=0.5" |
	json 'sum(len(r["values"]) for r in d["data"]["result"])')
[ "${pts:-0}" -ge 10 ] 2>/dev/null || fail "query_range points: '$pts'"
vals=$(curl -s "http://127.0.0.1:$port/api/v1/label/gpu/values?match[]=DCGM_FI_DEV_GPU_TEMP" | json '",".join(d["data"])')
[ "$vals" = "0,1" ] || fail "label values of gpu: '$vals'"
# every family /metrics exposes is stored too, series for series (so a rule
# or panel written against a Prometheus scraping the agent works on the
# agent itself), and up is 1 as a scrape would record it
python3 - "$port" <<'PY' || fail "stored families differ from /metrics"
import json, re, sys, urllib.parse, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
text = urllib.request.urlopen(base + "/metrics").read().decode()
expo = {}
for line in text.splitlines():
    m = re.match(r"^(DCGM_FI_\w+)\{(.*)\} (\S+)$", line)
    if m:
        expo.setdefault(m.group(1), []).append((m.group(2), m.group(3)))
def q(expr):
    u = base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    return json.load(urllib.request.urlopen(u))["data"]["result"]
bad = []
for name, series in sorted(expo.items()):
    got = q(name)
    if len(got) != len(series):
        bad.append(f"{name}: {len(series)} series in /metrics, {len(got)} stored")
for name in ("DCGM_FI_DEV_POWER_LIMIT", "DCGM_FI_DEV_XID_ERRORS"):
    want = sorted(float(v) for _, v in expo.get(name, []))
    got = sorted(float(r["value"][1]) for r in q(name))
    if not want or want != got:
        bad.append(f"{name}: /metrics {want}, stored {got}")
up = q('up{job="gpuwatch",instance="node-a:9400"}')
if len(up) != 1 or up[0]["value"][1] != "1":
    bad.append(f"up: {up}")
meta = json.load(urllib.request.urlopen(base + "/api/v1/metadata"))["data"]
for name in list(expo) + ["up"]:
    if name not in meta:
        bad.append(f"{name}: not in /api/v1/metadata")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
kill -TERM "$apid"
wait "$apid" || fail "agent exit status $? on SIGTERM"
apid=

# The history is on disk: read it from the shell.
out=$("$BIN" query --storage.path "$tmp/data" --time "$now" 'max by (gpu) (DCGM_FI_DEV_GPU_TEMP)')
echo "$out" | grep -qx '{gpu="1"} => 71 @\[[0-9.]*\]' || fail "gpuwatch query after restart: $out"
"$BIN" query --storage.path "$tmp/data" 'sum(' >/dev/null 2>"$tmp/qerr" && fail "a bad query exited 0"
grep -q 'parse error' "$tmp/qerr" || fail "bad query message: $(cat "$tmp/qerr")"

# Import the reference article's log shape, with a bad and a truncated line.
cat >"$tmp/gpu_monitor.log" <<'LOG'
======= 2026-12-02 10:00:00 =======
index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu, power.draw [W]
0, NVIDIA H100 80GB HBM3, 97 %, 70000 MiB, 81559 MiB, 66, 612.50 W
1, NVIDIA H100 80GB HBM3, 95 %, 69000 MiB, 81559 MiB, 64, 598.00 W
======= 2026-12-02 10:00:10 =======
index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu, power.draw [W]
0, NVIDIA H100 80GB HBM3, 12 %, 70000 MiB, 81559 MiB, sixty, 300.00 W
1, NVIDIA H100 80GB HBM3, 94 %, 69500 MiB, 81559 MiB, 65, 601.00 W
0, NVIDIA H100 80GB HBM3, 12 %, 70000 MiB, 815
LOG
TZ=UTC "$BIN" import --storage.path "$tmp/imp" "$tmp/gpu_monitor.log" >"$tmp/imp.out" 2>"$tmp/imp.err"
rc=$?
[ "$rc" = 3 ] || fail "import with bad lines exited $rc, want 3"
grep -q "gpu_monitor.log:7: \"sixty\" is not a value of temperature.gpu" "$tmp/imp.err" || fail "bad line 7 not reported: $(cat "$tmp/imp.err")"
grep -q "gpu_monitor.log:9: " "$tmp/imp.err" || fail "truncated line 9 not reported"
grep -q "3 rows" "$tmp/imp.out" || fail "import summary: $(cat "$tmp/imp.out")"
got=$("$BIN" query --storage.path "$tmp/imp" --time 2026-12-02T10:00:10Z 'DCGM_FI_DEV_FB_USED{gpu="1"} / DCGM_FI_DEV_FB_TOTAL{gpu="1"} * 100 > 80')
echo "$got" | grep -q 'instance="gpu_monitor.log"' || fail "imported series query: $got"
echo "$got" | grep -q '=> 85.21' || fail "memory percentage from the import: $got"

# Our own export imports back unchanged (OpenMetrics with time stamps), and
# malformed OpenMetrics lines are reported by number, the rest kept.
"$BIN" export --storage.path "$tmp/data" >"$tmp/a.om" || fail "export"
"$BIN" import -q --format openmetrics --storage.path "$tmp/copy" "$tmp/a.om" >/dev/null || fail "import of our export"
"$BIN" export --storage.path "$tmp/copy" >"$tmp/b.om"
cmp -s "$tmp/a.om" "$tmp/b.om" || fail "export -> import -> export differs: $(diff "$tmp/a.om" "$tmp/b.om" | head -3)"
[ "$(wc -l <"$tmp/a.om")" -gt 100 ] || fail "export is nearly empty"
# without --format the first line tells OpenMetrics from an nvidia-smi log
"$BIN" import -q --storage.path "$tmp/copy2" "$tmp/a.om" >/dev/null || fail "import of our export, format detected"
"$BIN" export --storage.path "$tmp/copy2" | cmp -s - "$tmp/a.om" || fail "export -> detected import -> export differs"
printf '# TYPE x gauge\nx{a="1"} 5 1700000000\nx{a="1" 6 1700000001\nx{a="1"} 7\nx{a="1"} seven 1700000003\nx{a="1"} 8 1700000004.5\n# EOF\n' >"$tmp/bad.om"
"$BIN" import --format openmetrics --storage.path "$tmp/om" "$tmp/bad.om" >"$tmp/om.out" 2>"$tmp/om.err"
rc=$?
[ "$rc" = 3 ] || fail "OpenMetrics import with bad lines exited $rc, want 3"
for l in 3 4 5; do grep -q "bad.om:$l: " "$tmp/om.err" || fail "OpenMetrics bad line $l not reported: $(cat "$tmp/om.err")"; done
got=$("$BIN" query --storage.path "$tmp/om" --time 1700000004.5 'x')
echo "$got" | grep -q '=> 8 @' || fail "good OpenMetrics lines not kept: $got"

[ "$fails" = 0 ] || { cat "$tmp/agent.err"; exit 1; }
echo ok
