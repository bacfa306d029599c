#!/usr/bin/env bash
# deploy_examples.sh - the Prometheus and Grafana examples in deploy/ are
# what their readers copy, so they must work as shipped:
#   - promtool accepts deploy/prometheus/prometheus.yml unchanged;
#   - Debian's real Prometheus, run with that file (only the example node
#     names swapped for a local agent), scrapes the agent, and its relabelling
#     names the node as the agent's own history does (instance without port):
#     the same query through both data sources returns the same series;
#   - the Grafana provisioning files have the structure Grafana reads (data
#     sources of type prometheus at the agent's port and Prometheus', a file
#     provider), and the dashboard JSON is one Grafana can load (unique panel
#     ids, every target on the ${datasource} variable, the variables it uses
#     defined). grafana_dashboards.sh runs every query of that dashboard
#     against the agent and Prometheus.
. "$(dirname "$0")/../lib/common.sh"
for c in prometheus promtool curl python3; do
	command -v $c >/dev/null || { echo "skipped: $c not installed (scripts/deps.sh test installs it)"; exit 77; }
done
: "${GW_BIN:?}" "${GW_TEST_DATA:?}"
deploy="$GW_TEST_DATA/../deploy"

# --- promtool reads the example as shipped ----------------------------------
if out=$(promtool check config "$deploy/prometheus/prometheus.yml" 2>&1); then
	echo "ok   promtool check config deploy/prometheus/prometheus.yml"
else
	fail "promtool check config: $out"
fi

# --- Prometheus with the example scrapes an agent ---------------------------
aport=$(free_port)
pport=$(free_port)
"$GW_BIN" --sim 2xH100 agent -a "127.0.0.1:$aport" -c 500 --storage.path "$tmp/agent.data" \
	--instance 127.0.0.1 2>"$tmp/agent.err" &
pids+=($!)
wait_http "http://127.0.0.1:$aport/health" 10 || { echo "FAIL: agent did not start: $(tail -3 "$tmp/agent.err")"; exit 1; }
# the example's nodes become the local agent; everything else stays as shipped
sed -e "s/gpu-node-01:9400/127.0.0.1:$aport/" -e '/gpu-node-02:9400/d' \
	-e "s#/etc/prometheus/targets#$tmp/targets#" "$deploy/prometheus/prometheus.yml" >"$tmp/prometheus.yml"
grep -q "127.0.0.1:$aport" "$tmp/prometheus.yml" || fail "the example no longer names gpu-node-01:9400"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prom" \
	--web.listen-address="127.0.0.1:$pport" --log.level=error >"$tmp/prom.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$pport/-/ready" 30 || { echo "FAIL: prometheus not ready: $(tail -5 "$tmp/prom.log")"; exit 1; }

python3 - "127.0.0.1:$aport" "127.0.0.1:$pport" <<'PY' || fails=$((fails + 1))
import json, sys, time, urllib.parse, urllib.request
AGENT, PROM = sys.argv[1], sys.argv[2]
def q(base, expr):
    u = f"http://{base}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(u, timeout=10) as r:
        return json.load(r)["data"]["result"]
deadline = time.time() + 30   # the example scrapes every 5 s
up = []
while time.time() < deadline:
    up = q(PROM, 'up{job="gpuwatch"}')
    if up and up[0]["value"][1] == "1" and q(PROM, "DCGM_FI_DEV_GPU_TEMP"):
        break
    time.sleep(0.5)
if not up or up[0]["value"][1] != "1":
    sys.exit(f"FAIL: Prometheus with the example config did not scrape the agent: up = {up}")
inst = up[0]["metric"].get("instance")
if inst != "127.0.0.1":
    sys.exit(f"FAIL: the example's relabelling made instance {inst!r}, want the node without its port, '127.0.0.1'")
expr = "count by (instance, gpu) (DCGM_FI_DEV_GPU_TEMP)"
a = sorted(json.dumps(s["metric"], sort_keys=True) for s in q(AGENT, expr))
p = sorted(json.dumps(s["metric"], sort_keys=True) for s in q(PROM, expr))
if a != p or len(a) != 2:
    sys.exit(f"FAIL: {expr}: the agent answers {a}, Prometheus {p}: one node must be one instance in both")
print(f"ok   Prometheus with the example scrapes the agent; instance={inst} in both, {len(a)} GPUs")
PY

# --- Grafana's provisioning and the dashboard --------------------------------
python3 - "$deploy" <<'PY' || fails=$((fails + 1))
import glob, json, re, sys, urllib.parse, yaml
D = sys.argv[1]
errs = []
ds = yaml.safe_load(open(f"{D}/grafana/provisioning/datasources/gpuwatch.yml"))
if ds.get("apiVersion") != 1 or not ds.get("datasources"):
    errs.append("datasources: apiVersion 1 and a datasources list")
uids = set()
for d in ds.get("datasources", []):
    for k in ("name", "uid", "type", "url", "access"):
        if k not in d:
            errs.append(f"data source {d.get('name')}: no {k}")
    if d.get("type") != "prometheus":
        errs.append(f"data source {d.get('name')}: type {d.get('type')}, want prometheus")
    u = urllib.parse.urlparse(d.get("url", ""))
    if u.scheme not in ("http", "https") or not u.port:
        errs.append(f"data source {d.get('name')}: url {d.get('url')} needs a scheme and a port")
    uids.add(d.get("uid"))
ports = {urllib.parse.urlparse(d["url"]).port for d in ds.get("datasources", [])}
if 9400 not in ports or 9090 not in ports:
    errs.append(f"data sources should name an agent (:9400) and a Prometheus (:9090): {sorted(ports)}")
if sum(1 for d in ds.get("datasources", []) if d.get("isDefault")) > 1:
    errs.append("more than one default data source")
pv = yaml.safe_load(open(f"{D}/grafana/provisioning/dashboards/gpuwatch.yml"))
provs = pv.get("providers") or []
if pv.get("apiVersion") != 1 or not provs or provs[0].get("type") != "file" or not provs[0].get("options", {}).get("path"):
    errs.append("dashboards provider: apiVersion 1, one provider of type file with options.path")
dashes = sorted(glob.glob(f"{D}/grafana/dashboards/*.json"))
if not dashes:
    errs.append("no dashboard JSON in deploy/grafana/dashboards")
seen_uid = set()
for path in dashes:
    name = path.rsplit("/", 1)[1]
    d = json.load(open(path))
    for k in ("title", "uid", "panels", "templating", "schemaVersion"):
        if k not in d:
            errs.append(f"{name}: no {k}")
    if d.get("uid") in seen_uid or len(d.get("uid", "")) > 40:
        errs.append(f"{name}: uid {d.get('uid')} repeated or over Grafana's 40 characters")
    seen_uid.add(d.get("uid"))
    names = {v["name"] for v in d["templating"]["list"]}
    builtin = {"__interval", "__rate_interval", "__range", "__interval_ms", "__range_s", "__range_ms", "__all"}
    ids = [p["id"] for p in d["panels"]]
    if len(ids) != len(set(ids)):
        errs.append(f"{name}: panel ids repeat: {ids}")
    for v in d["templating"]["list"]:
        if v["type"] == "query" and v.get("datasource", {}).get("uid") != "${datasource}":
            errs.append(f"{name}: variable {v['name']} not on the data source variable")
    for p in d["panels"]:
        g = p.get("gridPos", {})
        if not all(k in g for k in "xywh") or g["x"] + g["w"] > 24:
            errs.append(f"{name}: panel {p['title']}: gridPos {g} outside Grafana's 24 columns")
        if not p.get("targets"):
            errs.append(f"{name}: panel {p['title']} has no query")
        for t in p.get("targets", []):
            if t.get("datasource", {}).get("uid") != "${datasource}" or p["datasource"].get("uid") != "${datasource}":
                errs.append(f"{name}: {p['title']}/{t.get('refId')}: not on the ${{datasource}} variable")
            for var in re.findall(r"\$\{?(\w+)", t["expr"]):
                if var not in names and var not in builtin:
                    errs.append(f"{name}: {p['title']}: ${var} is no variable of the dashboard")
if errs:
    print("FAIL: " + "\nFAIL: ".join(errs))
    sys.exit(1)
print(f"ok   Grafana provisioning: {len(ds['datasources'])} data sources, {len(dashes)} dashboards")
PY

[ "$fails" = 0 ] || { echo "--- agent log:"; tail -5 "$tmp/agent.err"; exit 1; }
echo ok
