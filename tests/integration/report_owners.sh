#!/usr/bin/env bash
# Who used the GPUs: the agent's history keeps the process series /metrics
# shows (sim record stores them the same way), and `gpuwatch report` sums
# them by owner. GPU 0 runs Slurm job 111 for the first 10 minutes, then
# job 222 for the remaining 20; GPU 1 a Kubernetes pod's container all half
# hour. Each owner gets its GPU, its GPU time, its process's memory and SM
# use, and its share of the GPU's energy (job 111 a third, job 222 two
# thirds of GPU 0's); a finished process's series ends with a staleness
# marker, so a query a minute later does not see it.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
export TZ=UTC

cat >"$tmp/owners.scn" <<'SCN'
[sim]
clock = manual
[gpu 0]
model = H200
workload = burn
process = 1001 python3 C 40000 sm=90 cgroup=/system.slice/slurmstepd.scope/job_111/step_0/user/task_0 end=10m
process = 1002 python3 C 60000 sm=90 cgroup=/system.slice/slurmstepd.scope/job_222/step_0/user/task_0 start=10m
[gpu 1]
model = H200
workload = burn
process = 2001 python3 C 20000 sm=50 cgroup=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod11111111_2222_3333_4444_555555555555.slice/cri-containerd-abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789.scope
SCN
"$BIN" --sim "$tmp/owners.scn" sim record --start 2026-07-03T10:00:00Z --duration 30m --interval 5s \
	--storage.path "$tmp/d" >/dev/null 2>"$tmp/rec.err" || fail "sim record: $(cat "$tmp/rec.err")"

# the process series are stored with their owners, and a finished one goes stale
q() { "$BIN" query --storage.path "$tmp/d" --time "$1" "$2"; }
q 2026-07-03T10:05:00Z 'gpuwatch_process_memory_used_bytes{slurm_job="111"}' | grep -q 'pid="1001"' ||
	fail "job 111's process not stored: $(q 2026-07-03T10:05:00Z 'gpuwatch_process_memory_used_bytes')"
got=$(q 2026-07-03T10:11:00Z 'gpuwatch_process_memory_used_bytes{slurm_job="111"}')
[ -z "$got" ] || fail "job 111's process still seen a minute after it ended (no staleness marker): $got"
q 2026-07-03T10:11:00Z 'gpuwatch_process_memory_used_bytes{slurm_job="222"}' | grep -q 'pid="1002"' ||
	fail "job 222's process not stored"

"$BIN" report --storage.path "$tmp/d" --from 2026-07-03T10:00:00Z --to 2026-07-03T10:30:00Z --format json \
	--price-per-kwh 0.3 >"$tmp/r.json" 2>"$tmp/r.err" || fail "report: $(cat "$tmp/r.err")"
python3 - "$tmp/r.json" <<'PY' || fail "owners in the JSON report (above)"
import json, sys
d = json.load(open(sys.argv[1]))
o = {(x["kind"], x["owner"]): x for x in d["owners"]}
want = {("slurm_job", "111"), ("slurm_job", "222"), ("pod", "11111111-2222-3333-4444-555555555555"),
        ("container", "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789")}
assert set(o) == want, sorted(o)
assert [x["kind"] for x in d["owners"]] == ["slurm_job", "slurm_job", "pod", "container"], d["owners"]
j1, j2 = o[("slurm_job", "111")], o[("slurm_job", "222")]
assert j1["gpus"] == [0] and j2["gpus"] == [0], (j1, j2)
assert 570 <= j1["gpu_seconds"] <= 630 and 1170 <= j2["gpu_seconds"] <= 1230, (j1["gpu_seconds"], j2["gpu_seconds"])
assert j1["memory_used_bytes_max"] == 40000 * 2**20 and j2["memory_used_bytes_max"] == 60000 * 2**20, (j1, j2)
assert abs(j1["sm_active_ratio_mean"] - 0.9) < 1e-9, j1
g0 = [g for g in d["gpus"] if g["index"] == 0][0]
# the two jobs split GPU 0's energy by their time on it (a constant load)
assert abs(j1["energy_joules"] + j2["energy_joules"] - g0["energy_joules"]) < 0.02 * g0["energy_joules"], (j1, j2, g0["energy_joules"])
assert abs(j2["energy_joules"] / j1["energy_joules"] - 2) < 0.1, (j1["energy_joules"], j2["energy_joules"])
assert abs(j1["cost"] - j1["energy_kwh"] * 0.3) < 1e-9, j1
p = o[("pod", "11111111-2222-3333-4444-555555555555")]
assert p["gpus"] == [1] and 1770 <= p["gpu_seconds"] <= 1830, p
assert abs(p["sm_active_ratio_mean"] - 0.5) < 1e-9 and p["memory_used_bytes_max"] == 20000 * 2**20, p
PY
"$BIN" report --storage.path "$tmp/d" --from 2026-07-03T10:00:00Z --to 2026-07-03T10:30:00Z >"$tmp/r.txt" ||
	fail "report (text) exited $?"
grep -q '^Owners (4, ' "$tmp/r.txt" || fail "text report: no owners section: $(grep -A3 Owners "$tmp/r.txt")"
grep -Eq '^  slurm_job +222 +0 +0\.33 +90\.0 +58\.6 ' "$tmp/r.txt" ||
	fail "text owners row of job 222: $(grep 222 "$tmp/r.txt")"
grep -Eq '^  container +abcdef012345 +1 ' "$tmp/r.txt" ||
	fail "text owners row of the container (short id): $(grep -A6 '^Owners' "$tmp/r.txt")"
"$BIN" report --storage.path "$tmp/d" --from 2026-07-03T10:00:00Z --to 2026-07-03T10:30:00Z --format html |
	grep -q '<h2>Owners (4)</h2>' || fail "html report: no owners table"

[ "$fails" = 0 ] || exit 1
echo ok
