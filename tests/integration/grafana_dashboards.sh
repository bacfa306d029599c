#!/usr/bin/env bash
# grafana_dashboards.sh - the queries of the two Grafana dashboards for
# dcgm-exporter data (tests/data/grafana/dcgm_dashboard_queries.txt) and of
# gpuwatch's own (deploy/grafana/dashboards/*.json) run the
# way Grafana runs them against the agent's own query API and against Debian's
# real Prometheus scraping the same agent on loopback, and the answers agree:
# the variable queries (label_values through /api/v1/series and through
# /api/v1/label/NAME/values) return the same values, and every panel query
# (range queries with start and end aligned to the step, POSTed as Grafana's
# backend does; instant queries at the aligned end) returns data on both, of
# the same type, with the same label sets, the same time stamps and the same
# values: exactly on the GPUs whose values the scenario pins; on the others,
# whose values change every sample, Prometheus' value at T must be one the
# agent itself answers for the same query within the few seconds a scrape
# can lag (the agent samples on its ticks, Prometheus scrapes at other
# moments, so the two are one scrape apart at most, never a different value).
. "$(dirname "$0")/../lib/common.sh"
for c in prometheus curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed (scripts/deps.sh test installs it)"; exit 77; }
done
: "${GW_BIN:?}" "${GW_TEST_DATA:?}"
queries="$GW_TEST_DATA/data/grafana/dcgm_dashboard_queries.txt"
ours="$GW_TEST_DATA/../deploy/grafana/dashboards" # gpuwatch's own dashboards, read from their JSON

# GPUs 0 and 1 run a steady burn with their values pinned (the clock too, so
# the tensor ratio, which scales with it, holds still); 2 and 3 train freely.
cat >"$tmp/fleet.scn" <<'SCN'
[sim]
fleet = 4xH100:training
[gpu 0-1]
workload = burn
util_gpu = 100
[gpu 0]
temp_c = 64
power_mw = 650120
clock_sm_mhz = 1980
mem_used_mib = 61234
pcie_tx_kbs = 412345
pcie_rx_kbs = 301234
[gpu 1]
temp_c = 71
power_mw = 683210
clock_sm_mhz = 1755
mem_used_mib = 70001
pcie_tx_kbs = 123456
pcie_rx_kbs = 654321
SCN
pinned=0,1

aport=$(free_port)
pport=$(free_port)
instance="127.0.0.1:$aport" # what Prometheus names the target; the agent is told the same
"$GW_BIN" --sim "$tmp/fleet.scn" agent -a "$instance" -c 1000 --storage.path "$tmp/agent.data" \
	--instance "$instance" 2>"$tmp/agent.err" &
pids+=($!)
wait_http "http://$instance/health" 10 || { echo "FAIL: agent did not start: $(tail -3 "$tmp/agent.err")"; exit 1; }
start_prometheus "$pport" "$instance" || { echo "FAIL: prometheus not ready: $(tail -5 "$tmp/prom.log")"; exit 1; }

python3 - "$instance" "127.0.0.1:$pport" "$queries" "$pinned" "$ours" <<'PY' || fails=$((fails + 1))
import glob, json, math, re, sys, time, urllib.error, urllib.parse, urllib.request

AGENT, PROM, QFILE, PINNED, OURS = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4].split(",")), sys.argv[5]
SCRAPE = 1.0     # the data source's "scrape interval" setting: Prometheus scrapes every 1 s
SPAN = 20        # the dashboard's time range: the last 20 s
STEPS = (1, 2, 5)  # 1 s is what Grafana picks for 20 s (its minimum is the scrape interval); 2, 5: a panel's min interval
LAG = 4.0        # how far (s) behind the agent's answer Prometheus' may be: scrape interval + sample interval + slack
PINNED_TEMP = {"0": "64", "1": "71"}

def call(base, path, params, post=False):
    data = urllib.parse.urlencode(params, doseq=True)
    if post:
        req = urllib.request.Request(f"http://{base}{path}", data=data.encode(),
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    else:
        req = urllib.request.Request(f"http://{base}{path}?{data}")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        try:
            return json.loads(body)
        except ValueError:
            return {"status": "error", "error": f"HTTP {e.code}: {body[:200]}"}

def both(path, params, post=False):
    return call(AGENT, path, params, post), call(PROM, path, params, post)

def data_or_none(r):
    return r.get("data") if r.get("status") == "success" else None

# --- wait until Prometheus holds the dashboard's range --------------------------
first = None
for _ in range(150):
    d = data_or_none(call(PROM, "/api/v1/query", {"query": 'timestamp(DCGM_FI_DEV_GPU_TEMP{gpu="0"})'}))
    if d and d["result"]:
        first = float(d["result"][0]["value"][1])
        break
    time.sleep(0.2)
if first is None:
    print("FAIL: Prometheus never scraped the agent")
    sys.exit(1)
# the range, aligned down to the largest step, starts after Prometheus' first scrape
while time.time() < first + SPAN + max(STEPS) + 2:
    time.sleep(0.25)
to = time.time()
frm = to - SPAN

fails, notes = [], {"exact": 0, "lag": 0, "lagged": 0, "queries": 0, "rates": 0}

def fail(msg):
    fails.append(msg)
    print("FAIL:", msg if len(msg) < 700 else msg[:700] + "...")

# --- Grafana's data source check ------------------------------------------------
for path, params in (("/api/v1/query", {"query": "1+1", "time": f"{to:.3f}"}), ("/api/v1/status/buildinfo", {})):
    a, p = both(path, params)
    if data_or_none(a) is None or data_or_none(p) is None:
        fail(f"data source check {path}: agent {a.get('error', 'ok')}, Prometheus {p.get('error', 'ok')}")
    elif path == "/api/v1/query" and (a["data"]["resultType"], a["data"]["result"][1]) != ("scalar", "2"):
        fail(f"1+1 through the agent: {a['data']}")

# --- the fixture ------------------------------------------------------------------
dashboards = []
for line in open(QFILE):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    word, _, rest = line.partition(" ")
    if word == "dashboard":
        dashboards.append({"name": rest, "vars": [], "selects": [], "panels": []})
    elif word == "var":
        name, _, q = rest.partition(" ")
        dashboards[-1]["vars"].append((name, q))
    elif word == "select":
        dashboards[-1]["selects"].append(dict(x.split("=", 1) for x in rest.split()))
    elif word in ("range", "instant"):
        _, title, expr = (x.strip() for x in line.split("|", 2))
        dashboards[-1]["panels"].append((word, title, expr))
    else:
        raise SystemExit(f"{QFILE}: cannot read: {line}")

# gpuwatch's own dashboards (deploy/grafana/dashboards), read from their JSON as
# Grafana reads them: query variables in order, every panel target, "instant"
# targets as instant queries
def panels_of(ps):
    for p in ps:
        yield p
        yield from panels_of(p.get("panels", []))  # collapsed rows hold their panels

ndash = len(dashboards)
for path in sorted(glob.glob(f"{OURS}/*.json")):
    d = json.load(open(path))
    dash = {"name": d["title"], "vars": [], "selects": [], "panels": []}
    for v in d.get("templating", {}).get("list", []):
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            dash["vars"].append((v["name"], q))
        elif v["type"] != "datasource":
            raise SystemExit(f"{path}: variable {v['name']} of type {v['type']}: the test knows query and datasource")
    for p in panels_of(d["panels"]):
        for t in p.get("targets", []):
            dash["panels"].append(("instant" if t.get("instant") else "range", p["title"], t["expr"]))
    if not dash["panels"]:
        raise SystemExit(f"{path}: no panel queries")
    dashboards.append(dash)
if len(dashboards) == ndash:
    raise SystemExit(f"no dashboards in {OURS}")

# --- Grafana's interpolation ------------------------------------------------------
def regex_escape(v):
    # prometheusSpecialRegexEscape: a backslash becomes four, a metacharacter gets two
    v = v.replace("\\", "\\" * 4)
    return re.sub(r"[$^*{}\[\]+?.()|]", lambda m: "\\\\" + m.group(0), v)

def fmt(values):
    esc = [regex_escape(v) for v in values]
    return esc[0] if len(esc) == 1 else "(" + "|".join(esc) + ")"

def dur(s):
    return f"{int(s)}s" if s == int(s) else f"{int(s * 1000)}ms"

def interpolate(expr, values, step=None):
    if step is not None:
        rate = max(step + SCRAPE, 4 * SCRAPE)
        rng = round(to - frm)
        for k, v in (("$__rate_interval_ms", str(int(rate * 1000))), ("$__rate_interval", dur(rate)),
                     ("$__interval_ms", str(int(step * 1000))), ("$__interval", dur(step)),
                     ("$__range_ms", str(int(rng * 1000))), ("$__range_s", str(rng)), ("$__range", f"{rng}s")):
            expr = expr.replace(k, v).replace("${" + k[1:] + "}", v)
    def sub(m):
        name = m.group(1) or m.group(2)
        return fmt(values[name]) if name in values else m.group(0)
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", sub, expr)

# --- variables: label_values(METRIC, LABEL), both ways Grafana asks ----------------
def label_values(q):
    m = re.match(r"^label_values\((?:(.+),\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\)\s*$", q)
    metric, label = m.group(1), m.group(2)
    params = {"start": str(math.floor(frm)), "end": str(math.ceil(to))}
    if metric:
        params["match[]"] = metric
    got = {}
    for how, path in (("label", f"/api/v1/label/{label}/values"), ("series", "/api/v1/series")):
        if how == "series" and not metric:
            continue
        a, p = both(path, params)
        sets = []
        for who, r in (("agent", a), ("Prometheus", p)):
            d = data_or_none(r)
            if d is None:
                fail(f"{q} via {path} on {who}: {r.get('error')}")
                d = []
            sets.append(sorted(set(d if how == "label" else (s[label] for s in d if s.get(label)))))
        if sets[0] != sets[1]:
            fail(f"{q} via {path}: agent {sets[0]}, Prometheus {sets[1]}")
        elif not sets[0]:
            fail(f"{q} via {path}: no values")
        got[how] = sets[1]
    return got.get("label", [])

# --- one panel query on both sides -------------------------------------------------
def series_map(d):
    out = {}
    for s in d["result"]:
        out[json.dumps(s["metric"], sort_keys=True)] = s["values"] if "values" in s else [s["value"]]
    return out

def close(a, b):
    a, b = float(a), float(b)
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))

def run_panel(kind, title, expr, step, sel_pinned):
    start, end = math.floor(frm / step) * step, math.floor(to / step) * step
    if kind == "range":
        params = {"query": expr, "start": str(start), "end": str(end), "step": str(step)}
        a, p = both("/api/v1/query_range", params, post=step != 1)  # Grafana POSTs by default; 1 s by GET
    else:
        a, p = both("/api/v1/query", {"query": expr, "time": str(end)})
    where = f"{title} [{kind}, step {step}s]: {expr}"
    da, dp = data_or_none(a), data_or_none(p)
    if da is None or dp is None:
        return fail(f"{where}: agent {a.get('error', 'ok')}; Prometheus {p.get('error', 'ok')}")
    if da["resultType"] != dp["resultType"]:
        return fail(f"{where}: result type {da['resultType']} on the agent, {dp['resultType']} on Prometheus")
    # rate() and increase() over a counter that changes in bursts (the
    # unpinned GPUs' clock events): Prometheus' samples are the agent's
    # values at other moments, so the two extrapolate over different points
    # and may differ by any amount; on those only labels and time stamps
    # are compared (on the pinned GPUs the values must still be equal)
    rates = re.search(r"\b(rate|irate|increase)\(", expr) is not None
    ma, mp = series_map(da), series_map(dp)
    if not ma or not mp:
        return fail(f"{where}: empty on {'the agent' if not ma else 'Prometheus'}")
    if set(ma) != set(mp):
        names = [set().union(*(json.loads(k) for k in m)) for m in (ma, mp)]
        return fail(f"{where}: label sets differ (label names only the agent's have: {sorted(names[0] - names[1])}, "
                    f"only Prometheus': {sorted(names[1] - names[0])}): agent {sorted(set(ma) - set(mp))[:1]}, "
                    f"Prometheus {sorted(set(mp) - set(ma))[:1]}")
    # what the agent answers at every moment a scrape may lag behind: its values change on its ticks
    c = data_or_none(call(AGENT, "/api/v1/query_range", {"query": expr, "start": str(start - LAG),
                                                         "end": str(end + 1), "step": "0.25"}))
    cand = series_map(c) if c else {}
    for k in ma:
        pa, pp = ma[k], mp[k]
        if [x[0] for x in pa] != [x[0] for x in pp]:
            return fail(f"{where} {k}: time stamps differ: agent {[x[0] for x in pa]}, Prometheus {[x[0] for x in pp]}")
        gpu = json.loads(k).get("gpu")
        exact = sel_pinned or gpu in PINNED
        for (t, va), (_, vp) in zip(pa, pp):
            if exact:
                notes["exact"] += 1
                if not close(va, vp):
                    return fail(f"{where} {k} @{t}: agent {va}, Prometheus {vp} (pinned: must be equal)")
            elif rates:
                notes["rates"] += 1
            else:
                notes["lag"] += 1
                notes["lagged"] += not close(va, vp)
                seen = [v for (tc, v) in cand.get(k, []) if t - LAG <= tc <= t + 1]
                if not any(close(vp, v) for v in seen):
                    return fail(f"{where} {k} @{t}: Prometheus {vp}, not a value the agent had between "
                                f"{t - LAG} and {t + 1} ({sorted(set(seen))}); the agent says {va} at {t}")
    notes["queries"] += 1

for dash in dashboards:
    values = {}
    for name, q in dash["vars"]:
        values[name] = label_values(interpolate(q, values))
    if "instance" in values and values["instance"] != [AGENT]:
        fail(f"{dash['name']}: instance values {values['instance']}, want [{AGENT}]")
    if values.get("gpu") != ["0", "1", "2", "3"]:
        fail(f"{dash['name']}: gpu values {values.get('gpu')}")
    for sel in dash["selects"] or [{}]:
        vals = {n: sel[n].split(",") if n in sel else v for n, v in values.items()}
        sel_pinned = set(vals.get("gpu", [])) <= PINNED
        for kind, title, expr in dash["panels"]:
            for step in STEPS:
                run_panel(kind, title, interpolate(expr, vals, step), step, sel_pinned)

# the pins reached both: Prometheus and the agent read the pinned temperatures
for g, want in PINNED_TEMP.items():
    a, p = both("/api/v1/query", {"query": f'DCGM_FI_DEV_GPU_TEMP{{gpu="{g}"}}', "time": str(math.floor(to))})
    got = [(data_or_none(r) or {"result": []})["result"] for r in (a, p)]
    if any(len(r) != 1 or r[0]["value"][1] != want for r in got):
        fail(f"pinned temperature of GPU {g}: agent {got[0]}, Prometheus {got[1]}, want {want}")

print(f"Grafana dashboards vs Prometheus: {notes['queries']} panel queries agree "
      f"({notes['exact']} points equal exactly; {notes['lag']} changing, of which {notes['lagged']} "
      f"one scrape behind the agent's; {notes['rates']} rates of bursty counters not compared), {len(fails)} failed")
sys.exit(1 if fails else 0)
PY

[ "$fails" = 0 ] || { echo "--- agent log:"; tail -5 "$tmp/agent.err"; exit 1; }
echo ok
