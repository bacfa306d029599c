#!/usr/bin/env bash
# fleet_netns.sh - a fleet of hosts on one machine: three agents, each in a
# network namespace of its own with its own address (a veth to a bridge in
# the root namespace), host name and simulated fleet (8 H100s training,
# 4 L40S serving, 2 H200s with faults). A real Prometheus 2.42 in the root
# namespace scrapes them by address with the reference prometheus.yml's
# shape: every node's GPUs arrive with its instance label and the values its
# /metrics shows. Each agent remote-writes to a second Prometheus (the
# receiver): every node's series arrive, equal to the agent's own history,
# and a node whose link is cut for a while (`ip link set down` inside its
# namespace) sends what it kept over the outage once the link returns, in
# order and without a gap. `top --prometheus`, `top --remote` and the web page's fleet mode
# show all three nodes; `report --job --url` over the central Prometheus
# summarises a job that ran on two nodes, one row per node. Then the fleet
# grows to FLEET_SCALE nodes (32 by default, 8 GPUs each): all of them up
# and complete in a second Prometheus and in the receiver.
# Needs root (ip netns); skipped where namespaces cannot be made.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
for c in prometheus curl python3 ip unshare; do
	command -v $c >/dev/null || { echo "skipped: $c not installed (scripts/deps.sh test installs it)"; exit 77; }
done
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

id=$$
ns=()    # namespaces made, removed on exit
apids=() # the agents
br=gwf${id}br
# shellcheck disable=SC2317 # run by the trap
net_cleanup() {
	for t in "$tmp"/tmux-*.sock; do [ -S "$t" ] && tmux -S "$t" kill-server 2>/dev/null; done
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for n in "${ns[@]}"; do ip netns del "$n" 2>/dev/null; done # takes its veth and the peer with it
	ip link del "$br" 2>/dev/null
	cleanup
}
trap net_cleanup EXIT
trap 'exit 1' INT TERM # through the EXIT trap: no namespace outlives an interrupted run
if ! ip netns add "gwf${id}probe" 2>"$tmp/netns.err"; then
	echo "skipped: cannot make a network namespace (ip netns add: $(cat "$tmp/netns.err"); needs root)"
	exit 77
fi
ip netns del "gwf${id}probe"

# A /24 of 10.77.X.0 no interface holds yet (X from the pid, so parallel runs differ).
sub=""
for k in $(seq 0 249); do
	x=$(((id + k) % 250 + 1))
	[ -z "$(ip -o -4 addr show to "10.77.$x.0/24")" ] && { sub=10.77.$x; break; }
done
[ -n "$sub" ] || { echo "skipped: no free 10.77.X.0/24"; exit 77; }
if ! { ip link add "$br" type bridge && ip addr add "$sub.254/24" dev "$br" && ip link set "$br" up; }; then
	echo "skipped: cannot make a bridge"
	exit 77
fi

# node I NAME SPEC [GPUS [k8s]]: namespace gwf<pid>nI with eth0 at $sub.I, its agent on
# :9400 (host name NAME; with k8s, NODE_NAME=NAME in a pod named NAME-pod) remote-writing
# to the receiver; job 4242 mapped on GPUS.
node() {
	local i=$1 name=$2 spec=$3 n=gwf${id}n$1 h=gwf${id}h$1
	ip netns add "$n" || { fail "ip netns add $n"; return 1; }
	ns+=("$n")
	if ! { ip link add "$h" type veth peer name eth0 netns "$n" && ip link set "$h" master "$br" &&
		ip link set "$h" up && ip -n "$n" addr add "$sub.$i/24" dev eth0 && ip -n "$n" link set eth0 up &&
		ip -n "$n" link set lo up; }; then
		fail "network of $n"
		return 1
	fi
	mkdir -p "$tmp/$name/jobs"
	for g in ${4:-}; do echo 4242 >"$tmp/$name/jobs/$g"; done # the prolog's mapping of job 4242
	# As the Kubernetes DaemonSet runs it: the pod has a host name of its own, NODE_NAME names the node.
	local host=$name env=(env -u NODE_NAME) inst=()
	[ "${5:-}" = k8s ] && host=$name-pod env=(env NODE_NAME="$name") inst=(--instance "$name")
	# shellcheck disable=SC2016 # the inner shell expands them
	ip netns exec "$n" unshare --uts sh -c 'hostname "$1"; shift; exec "$@"' sh "$host" \
		"${env[@]}" "$BIN" --sim "$spec" agent -a :9400 "${inst[@]}" --storage.path "$tmp/$name/data" \
		--storage.flush-interval 1s --hpc-job-mapping-dir "$tmp/$name/jobs" \
		--remote-write.url "http://$sub.254:$rport/api/v1/write" --remote-write.batch-send-deadline 1s \
		--remote-write.max-backoff 500ms --remote-write.timeout 2s \
		--remote-write.keep 'DCGM_FI_DEV_(GPU_TEMP|POWER_USAGE)|gpuwatch_ecc_uncorrected_volatile_total|up' \
		2>"$tmp/$name.err" &
	pids+=($!)
	apids+=($!)
}

# The receiver, on the bridge's address so the namespaces reach it.
rport=$(free_port)
printf 'global:\n  scrape_interval: 1m\n' >"$tmp/recv.yml"
prometheus --config.file="$tmp/recv.yml" --storage.tsdb.path="$tmp/recv" --web.enable-remote-write-receiver \
	--web.listen-address="$sub.254:$rport" --log.level=error >"$tmp/recv.log" 2>&1 &
pids+=($!)

cat >"$tmp/faulty.scn" <<SCN
[sim]
fleet = 2xH200:training
host = gwf${id}-c
clock = manual
[gpu 1]
ecc.unc.vol.dram = 2
SCN
names=("gwf${id}-a" "gwf${id}-b" "gwf${id}-c")
node 1 "${names[0]}" "8xH100:training,clock=manual,host=${names[0]}" "0 1"
node 2 "${names[1]}" "4xL40S:inference,clock=manual,host=${names[1]}" "2 3"
node 3 "${names[2]}" "$tmp/faulty.scn" "" k8s
gpus=(8 4 2) models=(H100 L40S H200)
for i in 1 2 3; do
	wait_http "http://$sub.$i:9400/health" 15 || fail "agent $i never answered at $sub.$i:9400: $(tail -3 "$tmp/${names[i - 1]}.err")"
done
wait_http "http://$sub.254:$rport/-/ready" 30 || fail "receiver not ready: $(tail -5 "$tmp/recv.log")"

# The central Prometheus: the reference prometheus.yml, its one dcgm-exporter
# target replaced by the three nodes' addresses (scraped every 1 s rather than
# 5 s to keep the test short; its alert rules are agent_prometheus.sh's concern).
ref=${GW_SHARED_DIR:-/nonexistent}/reference
pport=$(free_port)
if [ -f "$ref/prometheus.yml" ]; then
	grep -v -e '^rule_files' -e 'gpu_alerts.yml' "$ref/prometheus.yml" >"$tmp/prometheus.yml"
else
	echo "note: reference prometheus.yml not present ($ref); using the same shape"
	cat >"$tmp/prometheus.yml" <<'YML'
global:
  scrape_interval: 15s
scrape_configs:
  - job_name: 'prometheus'
    static_configs:
    - targets: ['localhost:9090']
  - job_name: 'dcgm-exporter'
    static_configs:
    - targets: ['localhost:9400']
    scrape_interval: 5s
YML
fi
sed -i -e "s/'localhost:9400'/'$sub.1:9400', '$sub.2:9400', '$sub.3:9400'/" -e "s/localhost:9090/127.0.0.1:$pport/" \
	-e "s/localhost:9093/127.0.0.1:1/" -e 's/scrape_interval: 5s/scrape_interval: 1s/' "$tmp/prometheus.yml"
grep -q "'$sub.3:9400'" "$tmp/prometheus.yml" || fail "targets not replaced: $(cat "$tmp/prometheus.yml")"
promtool check config "$tmp/prometheus.yml" >"$tmp/check" 2>&1 || fail "promtool check config: $(cat "$tmp/check")"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/prom" \
	--web.listen-address="127.0.0.1:$pport" --log.level=error >"$tmp/prom.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$pport/-/ready" 30 || fail "prometheus not ready: $(tail -5 "$tmp/prom.log")"
P=http://127.0.0.1:$pport
# pq QUERY: Prometheus' answer's result, one line per series: "label=value,... VALUE"
pq() {
	curl -s "$1/api/v1/query" --data-urlencode "query=$2" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["data"]["result"]:
    print(",".join(f"{k}={v}" for k, v in sorted(s["metric"].items())), s["value"][1])'
}
# pv URL QUERY: the value of the answer's first series ("" when none)
pv() { pq "$1" "$2" | awk '{ print $NF; exit }'; }
for _ in $(seq 60); do
	[ "$(pv "$P" 'count(up{job="dcgm-exporter"} == 1)')" = 3 ] && break
	sleep 0.5
done
[ "$(pv "$P" 'count(up{job="dcgm-exporter"} == 1)')" = 3 ] ||
	fail "Prometheus does not see three nodes up: $(pq "$P" 'up')"

# --- every node's GPUs in Prometheus, under its address, equal to its /metrics -----
for i in 1 2 3; do
	name=${names[i - 1]}
	curl -s "http://$sub.$i:9400/metrics" >"$tmp/m$i"
	curl -s "$P/api/v1/query" --data-urlencode "query={__name__=~\"DCGM_FI_.*|gpuwatch_.*\",gpu!=\"\",instance=\"$sub.$i:9400\"}" >"$tmp/p$i.json"
	python3 - "$tmp/m$i" "$tmp/p$i.json" "$name" "${gpus[i - 1]}" <<'PY' || fail "node $i ($name): Prometheus differs from its /metrics (above)"
import json, re, sys
line = re.compile(r'^((?:DCGM_FI|gpuwatch)_\w+)\{(.*)\} (\S+)$')
pair = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
m = {}
for l in open(sys.argv[1]):
    x = line.match(l.strip())
    labels = tuple(sorted(pair.findall(x[2]))) if x else ()
    # the agent's own count of failed NVML calls moves between the two reads
    if any(n == "gpu" for n, _ in labels) and not x[1].startswith("gpuwatch_nvml_"):
        m[(x[1],) + labels] = float(x[3])
p = {}
for s in json.load(open(sys.argv[2]))["data"]["result"]:
    l = dict(s["metric"])
    name = l.pop("__name__")
    if name.startswith("gpuwatch_nvml_"):
        continue
    assert l.pop("job") == "dcgm-exporter", l
    l.pop("instance")
    p[(name,) + tuple(sorted(l.items()))] = float(s["value"][1])
bad = 0
if set(m) != set(p):
    print("series only in /metrics:", sorted(set(m) - set(p))[:3], "only in Prometheus:", sorted(set(p) - set(m))[:3])
    bad = 1
diff = [k for k in m if k in p and m[k] != p[k]]
if diff:
    print("values differ:", [(k[0], m[k], p[k]) for k in diff[:3]])
    bad = 1
hosts = {v for k in m for n, v in k[1:] if n == "Hostname"}
gpus = {v for k in m for n, v in k[1:] if n == "gpu"}
if hosts != {sys.argv[3]} or len(gpus) != int(sys.argv[4]):
    print("hosts", hosts, "gpus", sorted(gpus), "want", sys.argv[3], sys.argv[4])
    bad = 1
sys.exit(bad)
PY
done
# The fault is on node c's GPU 1 alone, and its health says so.
got=$(pq "$P" 'gpuwatch_ecc_uncorrected_volatile_total > 0' | sed 's/.*gpu=\([0-9]*\).*instance=\([^,]*\),.* \(.*\)/\2 \1 \3/')
[ "$got" = "$sub.3:9400 1 2" ] || fail "2 uncorrected ECC errors on node c's GPU 1 alone: '$got'"
got=$(pq "$P" 'gpuwatch_health_status > 0' | sed 's/.*gpu=\([0-9]*\).*instance=\([^,]*\),.* \(.*\)/\2 \1 \3/')
[ "$got" = "$sub.3:9400 1 2" ] || fail "node c's GPU 1 alone failing its health watches: '$got'"
got=$(pq "$P" 'count by (instance) (DCGM_FI_DEV_GPU_TEMP)' | sed 's/instance=\(.*\) /\1=/' | sort | tr '\n' ' ')
[ "$got" = "$sub.1:9400=8 $sub.2:9400=4 $sub.3:9400=2 " ] || fail "GPUs per instance: $got"

# --- remote_write: every node's series at the receiver, equal to its history ------
R=http://$sub.254:$rport
# rw NODE NAME: node NODE's value of a gpuwatch_remote_write_* family (asked from
# inside its namespace, so it answers while its link is down too)
rw() {
	ip netns exec "gwf${id}n$1" curl -s http://127.0.0.1:9400/metrics |
		awk -v n="$2" -v u="$R/api/v1/write" '$1 == n "{url=\"" u "\"}" { print $2 }'
}
# sent_past NODE MS SECONDS: until node NODE has sent everything up to MS
sent_past() {
	for _ in $(seq $(($3 * 5))); do
		p=$(rw "$1" gpuwatch_remote_write_queue_highest_sent_timestamp_seconds)
		python3 -c "import sys; sys.exit(0 if float('${p:-0}') * 1000 > $2 else 1)" && return 0
		sleep 0.2
	done
	return 1
}
# same NODE WHAT: every sample node NODE holds up to its sent position is at the receiver, same times and values
same() {
	local i=$1 name=${names[$1 - 1]} pos
	pos=$(rw "$i" gpuwatch_remote_write_queue_highest_sent_timestamp_seconds)
	for q in DCGM_FI_DEV_GPU_TEMP DCGM_FI_DEV_POWER_USAGE gpuwatch_ecc_uncorrected_volatile_total up; do
		curl -s "http://$sub.$i:9400/api/v1/query" --data-urlencode "query=${q}[1h]" --data-urlencode "time=$pos" >"$tmp/a.json"
		curl -s "$R/api/v1/query" --data-urlencode "query=$q{instance=\"$name\"}[1h]" --data-urlencode "time=$pos" >"$tmp/r.json"
		python3 - "$tmp/a.json" "$tmp/r.json" "$2: node $i $q" <<'PY' || fail "$2: node $i: $q differs at the receiver (above)"
import json, sys
a = json.load(open(sys.argv[1]))["data"]["result"]
r = json.load(open(sys.argv[2]))["data"]["result"]
key = lambda m: tuple(sorted(m.items()))
A = {key(s["metric"]): s["values"] for s in a}
R = {key(s["metric"]): s["values"] for s in r}
if not A:
    print(sys.argv[3], ": the agent holds no samples"); sys.exit(1)
if set(A) != set(R):
    print(sys.argv[3], ": series differ:", sorted(set(A) ^ set(R))[:2]); sys.exit(1)
for k in A:
    if A[k] != R[k]:
        ta = {t for t, _ in A[k]}; tr = {t for t, _ in R[k]}
        print(sys.argv[3], ": samples differ: agent", len(A[k]), "receiver", len(R[k]), "missing", sorted(ta - tr)[:5])
        sys.exit(1)
PY
	done
}
start=$(date +%s%3N)
for i in 1 2 3; do
	sent_past "$i" $((start + 2000)) 30 || fail "node $i never sent past its start: $(tail -3 "$tmp/${names[i - 1]}.err")"
	same "$i" "live"
done
# stored as exposed: each node's Hostname label is its instance (NODE_NAME for node c, not its pod's name)
got=$(pq "$R" 'count by (instance, Hostname) (DCGM_FI_DEV_GPU_TEMP)' | sed 's/Hostname=\(.*\),instance=\(.*\) /\1 \2=/' |
	sort | tr '\n' ' ')
[ "$got" = "${names[0]} ${names[0]}=8 ${names[1]} ${names[1]}=4 ${names[2]} ${names[2]}=2 " ] ||
	fail "Hostname, instance and GPUs at the receiver: $got"

# Node b's link cut for 8 s inside its namespace: it cannot send (or be
# scraped); once the link is back, what it kept arrives, in order, no gap.
ip -n "gwf${id}n2" link set eth0 down || fail "cannot cut node b's link"
down=$(date +%s%3N)
sleep 6
lag=$(rw 2 gpuwatch_remote_write_lag_seconds)
python3 -c "import sys; sys.exit(0 if float('${lag:-0}') >= 4 else 1)" || fail "node b's lag with its link down 6 s: '$lag'"
sleep 2
ip -n "gwf${id}n2" link set eth0 up || fail "cannot restore node b's link"
up=$(date +%s%3N)
sent_past 2 $((up + 2000)) 30 || fail "node b never caught up after its link returned: $(tail -3 "$tmp/${names[1]}.err")"
f=$(rw 2 gpuwatch_remote_write_failures_total)
[ "${f:-0}" != 0 ] || fail "node b counted no failed sends (2 s timeout) while its link was down"
[ "$(rw 2 gpuwatch_remote_write_samples_failed_total)" = 0 ] || fail "node b had samples refused (out of order?)"
same 2 "after the outage"
curl -s "$R/api/v1/query" --data-urlencode "query=DCGM_FI_DEV_GPU_TEMP{instance=\"${names[1]}\",gpu=\"0\"}[30s]" \
	--data-urlencode "time=$(((up + 2000) / 1000))" >"$tmp/gap.json"
python3 - "$tmp/gap.json" "$down" "$up" <<'PY' || fail "node b's series at the receiver over the outage (above)"
import json, sys
v = json.load(open(sys.argv[1]))["data"]["result"][0]["values"]
t = [x[0] for x in v]
down, up = int(sys.argv[2]) / 1000, int(sys.argv[3]) / 1000
inside = [x for x in t if down <= x <= up]
gaps = [b - a for a, b in zip(t, t[1:])]
if t[0] > down - 1 or t[-1] < up + 1 or len(inside) < 7 or max(gaps) > 1.5 or min(gaps) <= 0:
    print(f"outage {down}..{up}: {len(t)} samples {t[0]}..{t[-1]}, {len(inside)} inside, gaps {min(gaps)}..{max(gaps)}")
    sys.exit(1)
PY
[ "$(pv "$P" "min_over_time(up{instance=\"$sub.2:9400\"}[20s])")" = 0 ] || fail "Prometheus never missed node b's scrape"

# --- top over the fleet: through the central Prometheus, and straight from the three agents ---
# top_fleet TITLE ARGS...: top's title shows TITLE and every node's GPUs, each row under its node
top_fleet() {
	local title=$1 sock=$tmp/tmux-$2.sock s="" # a server of its own: the last one may still be exiting
	shift
	tmux -S "$sock" new-session -d -s f -x 120 -y 60 "env LANG=C.UTF-8 TERM=tmux-256color $BIN top -w 1 $* 2>$tmp/top.err; sleep 60"
	for _ in $(seq 300); do
		s=$(tmux -S "$sock" capture-pane -p -t f:)
		grep -q " 3 nodes  14 GPUs " <<<"$s" && [ "$(grep -cE "^(gwf$id-[abc]|$sub\.[123]:9400) +[0-9]+ (H100|L40S|H200) " <<<"$s")" = 14 ] && break
		sleep 0.1
	done
	grep -q "$title  3 nodes  14 GPUs  SIMULATED" <<<"$s" || fail "top $*: title $(head -1 <<<"$s") $(cat "$tmp/top.err")"
	for i in 1 2 3; do
		n=$(grep -cE "^(${names[i - 1]}|$sub\.$i:9400) +[0-7] ${models[i - 1]} " <<<"$s")
		[ "$n" = "${gpus[i - 1]}" ] || fail "top $*: $n ${models[i - 1]}s of ${names[i - 1]}, want ${gpus[i - 1]}: $(grep -cE "^(${names[i - 1]}|$sub\.$i:9400) " <<<"$s") rows"
	done
	tmux -S "$sock" kill-server
}
if command -v tmux >/dev/null; then
	top_fleet "via 127.0.0.1:$pport" --prometheus "$P"
	top_fleet "remote" --remote "$sub.1:9400,$sub.2:9400,$sub.3:9400"
else
	echo "note: tmux not installed; top over the fleet not checked"
fi

# --- the web page's fleet mode (?source=): the node picker lists every node --------
if command -v chromium >/dev/null; then
	timeout 90 chromium --headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --disable-default-apps --user-data-dir="$tmp/profile" \
		--no-proxy-server --virtual-time-budget=10000 --dump-dom "http://$sub.1:9400/?source=$P#node=*" \
		>"$tmp/fleet.html" 2>"$tmp/chromium.err"
	for i in 1 2 3; do
		grep -q "<option value=\"$sub.$i:9400\">" "$tmp/fleet.html" || fail "the page's node picker lacks $sub.$i:9400"
	done
	n=$(grep -o '<button class="cell" type="button" data-gpu="[0-9]*" data-uuid="GPU-[0-9a-f-]*" data-instance="[0-9.:]*"' \
		"$tmp/fleet.html" | wc -l)
	[ "$n" = 14 ] || fail "fleet heat-map: $n cells, want 14"
else
	echo "note: chromium not installed; the web page's fleet mode not checked"
fi

# --- job 4242 ran on GPUs 0-1 of node a and 2-3 of node b: one summary across nodes -----
for i in 1 2; do rm -f "$tmp/${names[i - 1]}/jobs/"*; done # the epilogs unmap it
ended=$(date +%s%3N)
sleep 2
"$BIN" report --url "$P" --job 4242 --format json -o "$tmp/job.json" 2>"$tmp/job.err" || fail "report --job 4242: $(cat "$tmp/job.err")"
want() { pv "$P" "$1"; }
python3 - "$tmp/job.json" "$sub" "$ended" "$(want "avg(gpuwatch_utilization_gpu_ratio{instance=\"$sub.2:9400\",gpu=~\"2|3\"})")" \
	"$(want "max(gpuwatch_memory_used_bytes{instance=\"$sub.1:9400\",gpu=~\"0|1\"})")" \
	"$(want "avg(gpuwatch_power_draw_watts{instance=\"$sub.1:9400\",gpu=~\"0|1\"})")" <<'PY' || fail "report --job across nodes (above)"
import json, sys
from datetime import datetime
d = json.load(open(sys.argv[1]))
sub, ended = sys.argv[2], int(sys.argv[3]) / 1000
util_b, mem_a, power_a = map(float, sys.argv[4:7])
a, b = sub + ".1:9400", sub + ".2:9400"
gpus = sorted((g["instance"], g["index"]) for g in d["gpus"])
assert gpus == [(a, 0), (a, 1), (b, 2), (b, 3)], gpus
assert [j["hpc_job"] for j in d["jobs"]] == ["4242"], d["jobs"]
j = d["jobs"][0]
n = {x["instance"]: x for x in j["nodes"]}
assert list(n) == [a, b], j["nodes"]
assert n[a]["gpus"] == [0, 1] and n[b]["gpus"] == [2, 3], j["nodes"]
for k in ("gpu_seconds", "energy_joules"):
    assert abs(n[a][k] + n[b][k] - j[k]) <= 1e-6 * j[k], (k, j[k], n[a][k], n[b][k])
assert n[a]["gpu_seconds"] >= 2 * 10 and n[b]["gpu_seconds"] >= 2 * 5, j["nodes"]
assert n[a]["utilization_ratio_mean"] == 1, n[a]
assert abs(n[b]["utilization_ratio_mean"] - util_b) < 1e-9, (n[b], util_b)
assert n[a]["memory_used_bytes_max"] == mem_a, (n[a], mem_a)
assert abs(n[a]["energy_joules"] - power_a * n[a]["gpu_seconds"]) < 0.01 * n[a]["energy_joules"], (n[a], power_a)
ts = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
assert ts(j["to"]) <= ended + 1.5, (j["to"], ended)
assert min(ts(x["from"]) for x in j["nodes"]) == ts(j["from"]), j
PY
"$BIN" report --url "$P" --job 4242 >"$tmp/job.txt" 2>&1 || fail "report --job 4242 (text): $(cat "$tmp/job.txt")"
for row in '^  4242 +2 nodes +0,1,2,3 ' "^ +$sub.1:9400 +0,1 +[0-9.]+ +100\.0 " "^ +$sub.2:9400 +2,3 "; do
	grep -Eq "$row" "$tmp/job.txt" || fail "text summary: no job row '$row': $(grep -A4 '^Jobs' "$tmp/job.txt")"
done
# --- the fleet at scale: FLEET_SCALE agents (default 32) of 8 GPUs -----------------------
# Nodes 4..N join the three (8 H100s each, training), every one remote-writing to the
# receiver; a second Prometheus scrapes all N by address. Every node is up in both,
# with all its GPUs; the agents' memory and CPU are printed for docs/SCALING.md.
scale=${FLEET_SCALE:-32}
if [ "$scale" -gt 3 ]; then
	scale_t0=$(date +%s)
	for i in $(seq 4 "$scale"); do
		node "$i" "gwf${id}-s$i" "8xH100:training,clock=manual,host=gwf${id}-s$i"
	done
	for i in $(seq 4 "$scale"); do
		wait_http "http://$sub.$i:9400/health" 30 || fail "agent $i never answered: $(tail -3 "$tmp/gwf${id}-s$i.err")"
	done
	sport=$(free_port)
	targets=$(for i in $(seq 1 "$scale"); do printf "'%s:9400'," "$sub.$i"; done)
	printf 'global:\n  scrape_interval: 2s\nscrape_configs:\n  - job_name: fleet\n    static_configs:\n    - targets: [%s]\n' \
		"${targets%,}" >"$tmp/scale.yml"
	prometheus --config.file="$tmp/scale.yml" --storage.tsdb.path="$tmp/scale" \
		--web.listen-address="127.0.0.1:$sport" --log.level=error >"$tmp/scale.log" 2>&1 &
	pids+=($!)
	wait_http "http://127.0.0.1:$sport/-/ready" 30 || fail "scale prometheus not ready: $(tail -5 "$tmp/scale.log")"
	S=http://127.0.0.1:$sport R=http://$sub.254:$rport
	want_gpus=$((14 + 8 * (scale - 3)))
	for _ in $(seq 60); do
		[ "$(pv "$S" 'count(up == 1)')" = "$scale" ] && [ "$(pv "$S" 'count(DCGM_FI_DEV_GPU_TEMP)')" = "$want_gpus" ] &&
			[ "$(pv "$R" 'count(count by (instance) (DCGM_FI_DEV_GPU_TEMP))')" = "$scale" ] && break
		sleep 1
	done
	[ "$(pv "$S" 'count(up == 1)')" = "$scale" ] || fail "scale: $(pv "$S" 'count(up == 1)') of $scale nodes up"
	[ "$(pv "$S" 'count(count by (instance) (DCGM_FI_DEV_GPU_TEMP))')" = "$scale" ] ||
		fail "scale: GPUs from $(pv "$S" 'count(count by (instance) (DCGM_FI_DEV_GPU_TEMP))') of $scale nodes scraped"
	[ "$(pv "$S" 'count(DCGM_FI_DEV_GPU_TEMP)')" = "$want_gpus" ] ||
		fail "scale: $(pv "$S" 'count(DCGM_FI_DEV_GPU_TEMP)') GPUs scraped, want $want_gpus"
	# (the receiver still holds job 4242's series of the GPUs it ran on, under hpc_job)
	[ "$(pv "$R" 'count(DCGM_FI_DEV_GPU_TEMP{hpc_job=""})')" = "$want_gpus" ] ||
		fail "scale: $(pv "$R" 'count(DCGM_FI_DEV_GPU_TEMP{hpc_job=""})') GPUs remote-written, want $want_gpus"
	[ "$(pv "$R" 'count(count by (instance) (DCGM_FI_DEV_GPU_TEMP))')" = "$scale" ] ||
		fail "scale: $(pv "$R" 'count(count by (instance) (DCGM_FI_DEV_GPU_TEMP))') of $scale nodes remote-wrote"
	hz=$(getconf CLK_TCK)
	rss=() cpu=0
	for p in "${apids[@]}"; do
		rss+=("$(awk '/^VmRSS/ { print $2 }' "/proc/$p/status" 2>/dev/null)")
		cpu=$((cpu + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo "scale: $scale agents, $want_gpus GPUs, up $(($(date +%s) - scale_t0)) s: VmRSS median $(printf '%s\n' "${rss[@]}" | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') KiB, CPU so far $((cpu / hz)) s in all"
fi

# The agents stop cleanly on SIGTERM, with nothing from the sanitizers (in the ASan build).
for i in 0 1 2; do
	kill "${apids[i]}"
	wait "${apids[i]}" || fail "agent ${names[i]} exited $? on SIGTERM: $(tail -3 "$tmp/${names[i]}.err")"
	grep -E 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$tmp/${names[i]}.err" &&
		fail "sanitizer report from agent ${names[i]}"
done

[ "$fails" = 0 ] && echo "fleet_netns: ok"
exit $((fails > 0))
