#!/usr/bin/env bash
# api_parity.sh - the agent answers the Prometheus API calls clients make as
# Debian's Prometheus 2.42 answers them, side by side on loopback:
#   - bad requests (missing and malformed parameters, parse errors of
#     queries and selectors, bad limits): the same HTTP status and the same
#     JSON body, byte for byte, "invalid parameter" prefixes included;
#   - the endpoints besides queries (query_exemplars, status/buildinfo,
#     config, flags, runtimeinfo, targets, /-/healthy, /-/ready): the same
#     status, content type and JSON shape (the keys and their types), with
#     the agent's own contents (documented in docs/METRICS.md).
# The one answer that differs on purpose is listed in KNOWN below.
. "$(dirname "$0")/../lib/common.sh"
for c in prometheus curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed (scripts/deps.sh test installs it)"; exit 77; }
done
: "${GW_BIN:?}"
aport=$(free_port)
pport=$(free_port)
"$GW_BIN" --sim 2xH100 agent -a "127.0.0.1:$aport" --storage.path "$tmp/agent.data" 2>"$tmp/agent.err" &
pids+=($!)
wait_http "http://127.0.0.1:$aport/health" 10 || { echo "FAIL: agent did not start: $(tail -3 "$tmp/agent.err")"; exit 1; }
start_prometheus "$pport" "127.0.0.1:$aport" || { echo "FAIL: prometheus not ready: $(tail -5 "$tmp/prom.log")"; exit 1; }

python3 - "127.0.0.1:$aport" "127.0.0.1:$pport" "$(hostname)" <<'PY' || fails=$((fails + 1))
import json, sys, time, urllib.error, urllib.parse, urllib.request
AGENT, PROM, HOST = sys.argv[1], sys.argv[2], sys.argv[3]

def get(base, path, method="GET"):
    req = urllib.request.Request(f"http://{base}{path}", method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()

def q(d=None, **kw):
    return urllib.parse.urlencode(d if d is not None else kw)

# --- errors: byte for byte --------------------------------------------------------
BAD = [
    "/api/v1/query", "/api/v1/query?" + q(query=""), "/api/v1/query?query=up&time=abc",
    "/api/v1/query?query=up&timeout=abc", "/api/v1/query?query=up&timeout=-1s",
    "/api/v1/query_range?query=up", "/api/v1/query_range?query=up&start=1",
    "/api/v1/query_range?query=up&start=1&end=2", "/api/v1/query_range?query=up&start=1&end=abc&step=1",
    "/api/v1/query_range?query=up&start=1&end=2&step=abc", "/api/v1/query_range?query=up&start=1&end=2&step=0",
    "/api/v1/query_range?query=up&start=1&end=2&step=-1", "/api/v1/query_range?query=up&start=3&end=2&step=1",
    "/api/v1/query_range?query=up&start=0&end=100000&step=1",
    "/api/v1/query_range?" + q(query="up[5m]", start=1, end=2, step=1),
    "/api/v1/series", "/api/v1/series?" + q({"match[]": "up("}), "/api/v1/series?" + q({"match[]": "1"}),
    "/api/v1/series?" + q({"match[]": "up[5m]"}), "/api/v1/series?" + q({"match[]": "rate(up[5m])"}),
    "/api/v1/series?" + q({"match[]": "{}"}), "/api/v1/series?" + q({"match[]": ""}),
    "/api/v1/series?" + q({"match[]": "up", "start": "abc"}), "/api/v1/series?" + q({"match[]": "up", "end": "x"}),
    "/api/v1/labels?" + q({"match[]": "up("}), "/api/v1/labels?start=abc",
    "/api/v1/label/job/values?start=abc", "/api/v1/label/job/values?" + q({"match[]": "up("}),
    "/api/v1/label/foo-bar/values", "/api/v1/metadata?limit=abc",
    "/api/v1/query_exemplars", "/api/v1/query_exemplars?" + q(query="up("),
    "/api/v1/query_exemplars?query=up&start=abc",
]
PARSE = ["up(", "foo()", "foo bar", "sum by (a) by (b) (x)", "foo{", "1 2", 'foo "x"', "foo 5m", "sum(up",
         "rate(up[5m]", "(up", "up)", 'foo{a="b"', "sum(up) by", "1 +* 2", "foo[5m", "up @", "sum sum",
         "up 123456789012345", "up by", "up and", "foo + ", "rate(up)", "abs()", "{}", "5m", "up{", "sum(",
         "histogram_quantile(1, up, 2)", "up[5m] + 1", "topk(up)"]
BAD += ["/api/v1/query?" + q(query=x) for x in PARSE]
fails = []
for path in BAD:
    a, p = get(AGENT, path), get(PROM, path)
    if (a[0], a[2]) != (p[0], p[2]):
        fails.append(f"{path}\n    Prometheus {p[0]} {p[2].strip()}\n    agent      {a[0]} {a[2].strip()}")
print(f"{len(BAD) - len(fails)} of {len(BAD)} bad requests answered as Prometheus answers them")

# --- the other endpoints: status, type and shape -------------------------------------
def shape(v):
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(v[0])] if v else []
    return "number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v).__name__

# Prometheus lists its target once it has scraped the agent
for _ in range(100):
    if json.loads(get(PROM, "/api/v1/targets")[2])["data"]["activeTargets"]:
        break
    time.sleep(0.1)
OTHER = ["/api/v1/query_exemplars?query=up", "/api/v1/status/buildinfo", "/api/v1/status/config",
         "/api/v1/status/runtimeinfo", "/api/v1/targets", "/api/v1/targets?state=active",
         "/api/v1/targets?state=dropped", "/api/v1/targets?state=any", "/api/v1/metadata?limit=0"]
for path in OTHER:
    a, p = get(AGENT, path), get(PROM, path)
    if a[0] != p[0] or a[1] != p[1]:
        fails.append(f"{path}: agent {a[0]} {a[1]}, Prometheus {p[0]} {p[1]}")
        continue
    sa, sp = shape(json.loads(a[2])), shape(json.loads(p[2]))
    if sa != sp:
        fails.append(f"{path}: shapes differ\n    Prometheus {sp}\n    agent      {sa}")
# flags: a map of strings on both, the agent's own flags
a, p = get(AGENT, "/api/v1/status/flags"), get(PROM, "/api/v1/status/flags")
fa = json.loads(a[2])["data"]
if a[0] != 200 or not fa or not all(isinstance(v, str) for v in fa.values()) or "storage.path" not in fa:
    fails.append(f"/api/v1/status/flags: {a}")
for path in ("/-/healthy", "/-/ready"):
    for method in ("GET", "HEAD"):
        a, p = get(AGENT, path, method), get(PROM, path, method)
        if a[0] != p[0] or (method == "GET" and (a[1] != p[1] or not a[2].endswith("\n"))):
            fails.append(f"{method} {path}: agent {a[:2]}, Prometheus {p[:2]}")
# what the agent says of itself is true
bi = json.loads(get(AGENT, "/api/v1/status/buildinfo")[2])["data"]
if not bi["version"].startswith("2.") or bi["branch"] != "gpuwatch" or not bi["revision"]:
    fails.append(f"buildinfo: {bi}")
t = json.loads(get(AGENT, "/api/v1/targets")[2])["data"]["activeTargets"]
if len(t) != 1 or t[0]["health"] != "up" or t[0]["scrapeUrl"] != f"http://{AGENT}/metrics" or t[0]["lastError"]:
    fails.append(f"targets: the agent should list itself, up: {t}")
# scraped at its listen address, its series named by the host name (its history's instance)
elif t[0]["discoveredLabels"]["__address__"] != AGENT or t[0]["labels"]["instance"] != HOST:
    fails.append(f"targets: __address__ {t[0]['discoveredLabels']['__address__']}, want {AGENT}; "
                 f"instance {t[0]['labels']['instance']}, want {HOST}")
cfg = json.loads(get(AGENT, "/api/v1/status/config")[2])["data"]["yaml"]
if f"- {AGENT}\n" not in cfg or f"replacement: {HOST}\n" not in cfg:
    fails.append(f"config: the target should be {AGENT}, relabelled to instance {HOST}: {cfg}")
ri = json.loads(get(AGENT, "/api/v1/status/runtimeinfo")[2])["data"]
if ri["storageRetention"] != "15d" or ri["goroutineCount"] < 2:
    fails.append(f"runtimeinfo: {ri}")

# KNOWN: a time past +-2^61 ms. Prometheus wraps it through Go's int64
# conversion and answers an empty vector for some instant centuries away;
# the agent refuses it (its engine's times are bounded so that they cannot
# overflow).
a = get(AGENT, "/api/v1/query?query=up&time=1e30")
if a[0] != 400 or "out of range" not in a[2]:
    fails.append(f"time=1e30: {a}")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PY
[ "$fails" = 0 ] || { echo "--- agent log:"; tail -5 "$tmp/agent.err"; exit 1; }
echo ok
