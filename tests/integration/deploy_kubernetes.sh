#!/usr/bin/env bash
# deploy_kubernetes.sh - deploy/kubernetes/ and the Helm chart as shipped:
#   - every manifest against the shapes of the objects it uses
#     (tests/tools/k8s_validate.py: fields, types and required fields from
#     the upstream OpenAPI schemas, strict; no schema validator is packaged
#     for offline use, see docs/KUBERNETES.md);
#   - the PrometheusRule and the chart's rules/ are the rule pack of
#     deploy/rules/ (scripts/k8s-prometheusrule.py --check), and promtool
#     accepts the PrometheusRule's groups;
#   - the agent starts with the DaemonSet's own arguments (only the
#     address, the paths and the node name swapped for local ones) and,
#     with no kubelet there, serves /health and says so;
#   - the chart: Chart.yaml's required fields, every .Values path its
#     templates read defined in values.yaml, and each template's kind one
#     the plain manifests validate.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null || { echo "skipped: curl not installed"; exit 77; }
PY=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import yaml' 2>/dev/null; then
		PY=$p
		break
	fi
done
[ -n "$PY" ] || { echo "skipped: python3-yaml not installed"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
k8s=$root/deploy/kubernetes
chart=$root/deploy/helm/gpuwatch

# --- the manifests ----------------------------------------------------------
manifests=()
for f in "$k8s"/*.yaml; do [ "${f##*/}" = kustomization.yaml ] || manifests+=("$f"); done
out=$("$PY" "$root/tests/tools/k8s_validate.py" "${manifests[@]}" 2>&1) || fail "manifests: $(echo "$out" | grep FAIL)"
echo "$out" | grep -c '^ok' | grep -qx 6 || fail "expected 6 manifests: $out"
"$PY" - "$k8s/kustomization.yaml" <<'PY' || fail "kustomization.yaml lists a missing file"
import os, sys, yaml
k = yaml.safe_load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[1])
assert k["apiVersion"] == "kustomize.config.k8s.io/v1beta1" and k["kind"] == "Kustomization"
sys.exit(0 if all(os.path.exists(os.path.join(d, r)) for r in k["resources"]) else 1)
PY

# --- the rule pack, everywhere the same ---------------------------------------
out=$("$PY" "$root/scripts/k8s-prometheusrule.py" --check 2>&1) || fail "$out"
"$PY" -c 'import sys, yaml; print(yaml.safe_dump({"groups": yaml.safe_load(open(sys.argv[1]))["spec"]["groups"]}, allow_unicode=True))' \
	"$k8s/prometheusrule.yaml" >"$tmp/rules.yml"
if command -v promtool >/dev/null; then
	out=$(promtool check rules "$tmp/rules.yml" 2>&1) || fail "promtool check rules (PrometheusRule): $out"
else
	out=$("$BIN" rules check "$tmp/rules.yml" 2>&1) || fail "gpuwatch rules check (PrometheusRule): $out"
fi

# --- the agent with the DaemonSet's arguments ---------------------------------
port=$(free_port)
mapfile -t args < <("$PY" - "$k8s/daemonset.yaml" "$port" "$tmp" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
c = d["spec"]["template"]["spec"]["containers"][0]
for a in c["args"]:
    a = a.replace("$(NODE_NAME)", "node-1")
    if a.startswith("--address="):
        a = "--address=127.0.0.1:" + sys.argv[2]
    elif a.startswith("--storage.path="):
        a = "--storage.path=" + sys.argv[3] + "/data"
    elif a.startswith("--kubernetes.pod-resources-socket="):
        a = "--kubernetes.pod-resources-socket=" + sys.argv[3] + "/kubelet.sock"
    print(a)
PY
)
[ "${args[0]:-}" = agent ] || fail "the DaemonSet does not run the agent: ${args[*]}"
"$BIN" --sim 2xH200 "${args[@]}" 2>"$tmp/agent.err" &
pids+=("$!")
if wait_http "http://127.0.0.1:$port/health" 10; then
	curl -s "http://127.0.0.1:$port/metrics" >"$tmp/m"
	grep -q '^gpuwatch_kubernetes_up 0$' "$tmp/m" || fail "no gpuwatch_kubernetes_up 0 without a kubelet"
	grep -q 'Hostname="' "$tmp/m" || fail "no Hostname label"
	for _ in $(seq 20); do grep -q 'pod-resources unavailable' "$tmp/agent.err" && break; sleep 0.1; done
	grep -q 'pod-resources unavailable' "$tmp/agent.err" || fail "no log line for the missing kubelet"
else
	fail "the agent did not start with the DaemonSet's arguments (${args[*]}): $(tail -3 "$tmp/agent.err")"
fi

# --- the chart ----------------------------------------------------------------
"$PY" - "$chart" <<'PY' || fail "the Helm chart"
import glob, os, re, sys, yaml
chart = sys.argv[1]
meta = yaml.safe_load(open(os.path.join(chart, "Chart.yaml")))
bad = [k for k in ("apiVersion", "name", "version") if not meta.get(k)]
if meta.get("apiVersion") != "v2":
    bad.append("apiVersion v2")
if not re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", str(meta.get("version"))):
    bad.append("version (semver)")
values = yaml.safe_load(open(os.path.join(chart, "values.yaml")))
known = {"DaemonSet", "Service", "ServiceMonitor", "PodMonitor", "PrometheusRule"}
for t in sorted(glob.glob(os.path.join(chart, "templates", "*"))):
    text = open(t).read()
    for path in set(re.findall(r"\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)", text)):
        v = values
        for part in path.strip(".").split("."):
            if not isinstance(v, dict) or part not in v:
                bad.append(f"{os.path.basename(t)}: .Values{path} is not in values.yaml")
                break
            v = v[part]
    for kind in re.findall(r"^kind: (\S+)", text, re.M):
        if kind not in known:
            bad.append(f"{os.path.basename(t)}: kind {kind}")
for b in bad:
    print("FAIL chart:", b)
sys.exit(1 if bad else 0)
PY

[ "$fails" = 0 ] && echo "deploy kubernetes: ok"
exit $((fails > 0))
