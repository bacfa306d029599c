#!/usr/bin/env bash
# --kubernetes against a fake kubelet (tests/tools/fake_kubelet.py: a real
# gRPC server from python3-grpcio on a unix socket in $tmp): pod, namespace
# and container on the DCGM series of the GPUs the kubelet lists for a pod
# container, and on those GPUs' processes, none elsewhere; a GPU shared by
# two containers credited to the last one on its DCGM series, and on its
# processes only to a pod whose uid a GPU of its own taught; then the socket removed: one log line, the labels gone,
# processes back to their cgroup labels; the kubelet back: labels back;
# on a MIG GPU, a MIG device's pod on its instance's series and processes only.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null || { echo "skipped: curl not installed"; exit 77; }
# Debian's python3-grpcio lives in the system python; a python3 earlier on PATH may lack it
PY=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import grpc' 2>/dev/null; then
		PY=$p
		break
	fi
done
[ -n "$PY" ] || { echo "skipped: python3-grpcio not installed (apt-get install python3-grpcio)"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"
KUBELET=$(dirname "$0")/../tools/fake_kubelet.py
A=0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b
CA=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
CB=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
B=22222222-3333-4444-5555-666666666666

cat >"$tmp/fleet.scn" <<SCN
[sim]
clock = manual
[gpu 0]
model = H200
process = 100 python3 C 1000 cgroup=/kubepods.slice/kubepods-pod${A//-/_}.slice/cri-containerd-$CA.scope
[gpu 1]
model = H200
process = 200 vllm C 2000 cgroup=/kubepods/burstable/pod11111111-2222-3333-4444-555555555555/$CB
[gpu 2]
model = H200
process = 300 python3 C 3000
[gpu 3]
model = H200
process = 400 python3 C 4000 cgroup=/system.slice/docker-$CB.scope
process = 401 python3 C 4100 cgroup=/kubepods/besteffort/pod$B/$CB
[gpu 4]
model = H200
process = 500 python3 C 5000 cgroup=/kubepods/besteffort/pod$B/$CB
SCN
mapfile -t U < <("$BIN" --sim "$tmp/fleet.scn" smi -L 2>/dev/null | sed 's/.*UUID: \(.*\))/\1/')
[ "${#U[@]}" = 5 ] || { echo "FAIL: smi -L gave ${#U[@]} UUIDs"; exit 1; }

# GPU 0 by UUID; GPU 1 as a time-sliced replica of a renamed shared resource;
# GPU 2 under a resource that is not NVIDIA's (ignored); GPU 3 shared by two
# containers, of which share-b also holds GPU 4 (where its pod uid is
# learned, to tell its process on GPU 3); a pod without devices.
cat >"$tmp/pods.json" <<JSON
[{"name": "train-0", "namespace": "ml", "containers": [
   {"name": "sidecar", "devices": []},
   {"name": "trainer", "devices": [{"resource": "nvidia.com/gpu", "ids": ["${U[0]}"]}]}]},
 {"name": "infer-1", "namespace": "serving", "containers": [
   {"name": "server", "devices": [{"resource": "nvidia.com/gpu.shared", "ids": ["${U[1]}::0"]}]}]},
 {"name": "odd", "namespace": "default", "containers": [
   {"name": "c", "devices": [{"resource": "example.com/accel", "ids": ["${U[2]}"]}]}]},
 {"name": "share-a", "namespace": "team", "containers": [
   {"name": "a", "devices": [{"resource": "nvidia.com/gpu", "ids": ["${U[3]}::1"]}]}]},
 {"name": "share-b", "namespace": "team", "containers": [
   {"name": "b", "devices": [{"resource": "nvidia.com/gpu", "ids": ["${U[3]}::2", "${U[4]}"]}]}]},
 {"name": "web", "namespace": "default", "containers": [{"name": "nginx"}]}]
JSON

sock=$tmp/kubelet.sock
kubelet() {
	"$PY" "$KUBELET" "$sock" "$tmp/pods.json" >"$tmp/kubelet.out" 2>&1 &
	kpid=$!
	pids+=("$kpid")
	for _ in $(seq 100); do [ -S "$sock" ] && return 0; sleep 0.1; done
	fail "the fake kubelet never listened: $(cat "$tmp/kubelet.out")"
}
kubelet

"$BIN" agent --help | grep -q -- '--kubernetes.pod-resources-socket PATH' ||
	fail "agent --help does not document --kubernetes.pod-resources-socket"

# an HPC job on GPU 1 too: hpc_job goes among the pod labels, in name order
mkdir "$tmp/jobs"
echo 77 >"$tmp/jobs/1"
port=$(free_port)
"$BIN" --sim "$tmp/fleet.scn" agent -a "127.0.0.1:$port" --storage.path "$tmp/data" --kubernetes \
	--kubernetes.pod-resources-socket "$sock" --kubernetes.poll-interval 200ms --hpc-job-mapping-dir "$tmp/jobs" \
	2>"$tmp/agent.err" &
pids+=("$!")
wait_http "http://127.0.0.1:$port/health" 10 || fail "agent never healthy: $(cat "$tmp/agent.err")"
scrape() { curl -s "http://127.0.0.1:$port/metrics" >"$tmp/m"; }
# query PROMQL: the history's answer, one "labels value" line a series
query() {
	curl -s "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$1" |
		"$PY" -c 'import json,sys; [print(r["metric"], r["value"][1]) for r in json.load(sys.stdin)["data"]["result"]]'
}
# until PATTERN COUNT: scrape until PATTERN has COUNT lines
until_lines() {
	for _ in $(seq 50); do
		scrape
		[ "$(grep -c "$1" "$tmp/m")" = "$2" ] && [ "$(grep -c '^gpuwatch_process_memory_used_bytes' "$tmp/m")" = 6 ] && return 0
		sleep 0.1
	done
	return 1
}
util() { grep "^DCGM_FI_DEV_GPU_UTIL{gpu=\"$1\"" "$tmp/m"; }
proc() { grep "^gpuwatch_process_memory_used_bytes{.*pid=\"$1\"" "$tmp/m"; }
ends() { util "$1" | grep -q ",$2} " || fail "gpu $1: labels should end with $2: $(util "$1")"; }
has() { proc "$1" | grep -qF "$2" || fail "pid $1 lacks $2: $(proc "$1")"; }
hasnt() { proc "$1" | grep -qF "$2" && fail "pid $1 has $2: $(proc "$1")"; }

until_lines '^DCGM_FI_DEV_GPU_UTIL{.*pod=' 4 || fail "pod labels on 4 GPUs expected: $(grep '^DCGM_FI_DEV_GPU_UTIL' "$tmp/m")"
ends 0 'container="trainer",namespace="ml",pod="train-0"'
ends 1 'container="server",hpc_job="77",namespace="serving",pod="infer-1"'
util 2 | grep -q 'pod=' && fail "gpu 2 (not an NVIDIA resource) has a pod: $(util 2)"
ends 3 'container="b",namespace="team",pod="share-b"' # the last listed, as dcgm-exporter
ends 4 'container="b",namespace="team",pod="share-b"'
# every DCGM family of a GPU carries them, not only one
[ "$(grep -c '^DCGM_FI_.*{gpu="0".*pod="train-0"' "$tmp/m")" = "$(grep -c '^DCGM_FI_.*{gpu="0"' "$tmp/m")" ] ||
	fail "some DCGM series of gpu 0 lack the pod"
# native per-GPU families stay one series a GPU, without pod labels
grep '^gpuwatch_.*pod="' "$tmp/m" | grep -v '^gpuwatch_process_' | head -1 | grep -q . &&
	fail "a native per-GPU series has a pod label"

has 100 "container=\"trainer\"" "process on gpu 0"
has 100 "container_id=\"$CA\"" "process on gpu 0"
has 100 'namespace="ml"' "process on gpu 0"
has 100 'pod="train-0"' "process on gpu 0"
has 100 "pod_uid=\"$A\"" "process on gpu 0"
has 200 'pod="infer-1"' "process on gpu 1"
hasnt 300 'pod=' "process on gpu 2"
hasnt 400 'pod=' "process on the shared gpu 3"
has 400 "container=\"$CB\"" "process on the shared gpu 3"
has 401 'pod="share-b"' "process of share-b (uid learned on gpu 4) on the shared gpu 3"
has 401 'container="b"' "process of share-b on the shared gpu 3"
has 500 'pod="share-b"' "process on gpu 4"
grep -q '^gpuwatch_kubernetes_up 1$' "$tmp/m" || fail "gpuwatch_kubernetes_up is not 1"
grep -q '^gpuwatch_kubernetes_pods 6$' "$tmp/m" || fail "gpuwatch_kubernetes_pods is not 6: $(grep kubernetes_pods "$tmp/m")"
grep -q '^gpuwatch_kubernetes_pod_gpus 5$' "$tmp/m" || fail "gpuwatch_kubernetes_pod_gpus is not 5"
grep -q 'pod-resources answering' "$tmp/agent.err" || fail "no log line for the kubelet answering"
# the history stores the DCGM series as /metrics shows them
sleep 1.5 # a sample stored
q=$(query 'DCGM_FI_DEV_GPU_UTIL{pod!=""}')
[ "$(echo "$q" | grep -c "'pod': 'train-0'.*'gpu': '0'\|'gpu': '0'.*'pod': 'train-0'")" = 1 ] ||
	fail "history: DCGM_FI_DEV_GPU_UTIL of gpu 0 with pod train-0 expected: $q"
[ "$(echo "$q" | grep -c .)" = 4 ] || fail "history: 4 GPUs with a pod expected: $q"
if command -v promtool >/dev/null; then
	promtool check metrics <"$tmp/m" >"$tmp/promtool.out" 2>&1
	grep -E 'error|duplicate' "$tmp/promtool.out" && fail "promtool check metrics: $(cat "$tmp/promtool.out")"
fi

# The kubelet goes away: cgroups only, said once however many polls fail.
kill "$kpid"
wait "$kpid" 2>/dev/null
rm -f "$sock"
until_lines '^DCGM_FI_.*pod=' 0 || fail "pod labels still there without a kubelet"
sleep 1 # five more failed polls
scrape
[ "$(grep -c 'pod-resources unavailable' "$tmp/agent.err")" = 1 ] ||
	fail "expected one log line for the lost kubelet: $(grep kubelet "$tmp/agent.err")"
# why: the socket gone; or, when a poll fell between the kubelet's exit and the socket's removal,
# refused, or reset by the dying server (whichever the poll met: each says the kubelet went away)
grep -Eq 'pod-resources unavailable.*err="[^"]*(No such file|refused|reset by peer)' "$tmp/agent.err" ||
	fail "the log line does not say why: $(grep 'pod-resources unavailable' "$tmp/agent.err")"
hasnt 100 'pod=' "without a kubelet"
has 100 "container=\"$CA\"" "without a kubelet"
has 100 "pod_uid=\"$A\"" "without a kubelet"
grep -q '^gpuwatch_kubernetes_up 0$' "$tmp/m" || fail "gpuwatch_kubernetes_up is not 0"
grep -Eq '^gpuwatch_kubernetes_list_errors_total [1-9]' "$tmp/m" || fail "no List errors counted"
sleep 1.5
q=$(query 'DCGM_FI_DEV_GPU_UTIL{gpu="0",pod=""}')
[ "$(echo "$q" | grep -c .)" = 1 ] || fail "history: gpu 0 without a pod expected once the kubelet is gone: $q"

# A kubelet answering with a gRPC error is down too; back to a good answer, labels return.
echo '{"status": 14, "message": "kubelet restarting"}' >"$tmp/pods.json.err"
"$PY" "$KUBELET" "$sock" "$tmp/pods.json.err" >"$tmp/kubelet.out" 2>&1 &
epid=$!
pids+=("$epid")
sleep 1
[ "$(grep -c 'pod-resources unavailable' "$tmp/agent.err")" = 1 ] || fail "a still-failing kubelet logged again"
kill "$epid"
wait "$epid" 2>/dev/null
rm -f "$sock"
kubelet
until_lines '^DCGM_FI_DEV_GPU_UTIL{.*pod=' 4 || fail "pod labels not back with the kubelet"
[ "$(grep -c 'pod-resources answering' "$tmp/agent.err")" = 2 ] || fail "expected a second 'answering' line"

# MIG: a pod holding one MIG device labels its GPU instance's series and
# processes; the GPU's own series and the other instance's stay unlabelled.
cat >"$tmp/mig.scn" <<SCN
[sim]
clock = manual
[gpu 0]
model = H100
mig = 3g.40gb+2g.20gb
process = 500 python3 C 1000 gi=2 ci=0
process = 600 python3 C 1000 gi=3 ci=0
SCN
mig=$("$BIN" --sim "$tmp/mig.scn" smi -L 2>/dev/null | sed -n 's/.*3g.40gb.*UUID: \(MIG-[^)]*\)).*/\1/p')
[ -n "$mig" ] || fail "no MIG UUID from smi -L"
cat >"$tmp/pods.json" <<JSON
[{"name": "mig-a", "namespace": "ml", "containers": [
   {"name": "w", "devices": [{"resource": "nvidia.com/mig-3g.40gb", "ids": ["$mig"]}]}]}]
JSON
port=$(free_port)
"$BIN" --sim "$tmp/mig.scn" agent -a "127.0.0.1:$port" --no-history --kubernetes \
	--kubernetes.pod-resources-socket "$sock" --kubernetes.poll-interval 200ms 2>"$tmp/agent-mig.err" &
pids+=("$!")
wait_http "http://127.0.0.1:$port/health" 10 || fail "MIG agent never healthy: $(cat "$tmp/agent-mig.err")"
for _ in $(seq 50); do
	scrape
	grep -q 'GPU_I_ID="2".*pod="mig-a"' "$tmp/m" && [ "$(grep -c '^gpuwatch_process_memory_used_bytes' "$tmp/m")" = 2 ] && break
	sleep 0.1
done
grep -q '^DCGM_FI_DEV_FB_USED{.*GPU_I_ID="2".*,container="w",namespace="ml",pod="mig-a"} ' "$tmp/m" ||
	fail "MIG instance 2 lacks its pod: $(grep '^DCGM_FI_DEV_FB_USED' "$tmp/m")"
grep '^DCGM_FI_DEV_FB_USED{.*GPU_I_ID="3"' "$tmp/m" | grep -q 'pod=' && fail "MIG instance 3 has a pod"
grep '^DCGM_FI_DEV_GPU_UTIL{' "$tmp/m" | grep -q 'pod=' && fail "the MIG GPU's own series has a pod"
has 500 'pod="mig-a"' "process in MIG instance 2"
hasnt 600 'pod=' "process in MIG instance 3"

[ "$fails" = 0 ] && echo "agent kubernetes: ok"
exit $((fails > 0))
