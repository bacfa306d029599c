#!/usr/bin/env bash
# deploy/slurm's prolog and epilog against a real agent with
# --hpc-job-mapping-dir, in a fake Slurm environment (the variables slurmd
# gives them; Slurm itself is not needed): the prolog labels the job's GPUs
# and no other, concurrent prologs and epilogs on one GPU lose no line, the
# epilog unmaps the job and writes its summary (report --job), and neither
# fails when gpuwatch or its directory is missing. report --job covers only
# the job's GPUs and span.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null && command -v python3 >/dev/null || { echo "skipped: curl or python3 not installed"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"
SLURM=$(cd "$(dirname "$0")/../../deploy/slurm" && pwd)

if command -v shellcheck >/dev/null; then
	out=$(cd "$SLURM" && shellcheck -x gpuwatch-prolog.sh gpuwatch-epilog.sh gpuwatch-common.sh 2>&1) ||
		fail "shellcheck: $out"
fi

jobs=$tmp/jobs sums=$tmp/summaries
mkdir -p "$tmp/out"
export GPUWATCH_SLURM_CONF=/nonexistent GPUWATCH_HPC_JOB_DIR=$jobs GPUWATCH_SUMMARY_DIR=$sums GPUWATCH_BIN=$BIN
port=$(free_port)
export GPUWATCH_URL=http://127.0.0.1:$port
# the directory exists before the agent, as the unit's RuntimeDirectory would make it
mkdir -p "$jobs"
"$BIN" --sim 4xH200:training agent -a "127.0.0.1:$port" --storage.path "$tmp/data" \
	--hpc-job-mapping-dir "$jobs" 2>"$tmp/agent.err" &
pids+=($!)
wait_http "$GPUWATCH_URL/health" 10 || { fail "agent never healthy: $(cat "$tmp/agent.err")"; exit 1; }

prolog() { env -i PATH="$PATH" GPUWATCH_SLURM_CONF=/nonexistent GPUWATCH_HPC_JOB_DIR="$jobs" "$@" "$SLURM/gpuwatch-prolog.sh"; }
epilog() {
	env -i PATH="$PATH" GPUWATCH_SLURM_CONF=/nonexistent GPUWATCH_HPC_JOB_DIR="$jobs" GPUWATCH_SUMMARY_DIR="$sums" \
		GPUWATCH_BIN="$BIN" GPUWATCH_URL="$GPUWATCH_URL" "$@" "$SLURM/gpuwatch-epilog.sh"
}
# metric_jobs GPU: the hpc_job values of the GPU's DCGM_FI_DEV_GPU_UTIL series, sorted, space separated
metric_jobs() {
	curl -s "$GPUWATCH_URL/metrics" | grep "^DCGM_FI_DEV_GPU_UTIL{gpu=\"$1\"," |
		sed -n 's/.*hpc_job="\([^"]*\)".*/\1/p' | sort | tr '\n' ' '
}
until_jobs() { # GPU WANT
	for _ in $(seq 50); do [ "$(metric_jobs "$1")" = "$2" ] && return 0; sleep 0.1; done
	return 1
}

t0=$(date +%s)
prolog SLURM_JOB_ID=4242 SLURM_JOB_GPUS=1,2 || fail "prolog exited non-zero"
prolog SLURM_JOB_ID=77 CUDA_VISIBLE_DEVICES=3 || fail "prolog (CUDA_VISIBLE_DEVICES) exited non-zero"
[ "$(cat "$jobs/1" "$jobs/2" 2>/dev/null)" = "$(printf '4242\n4242')" ] || fail "mapping files of GPUs 1, 2: $(ls -la "$jobs")"
until_jobs 1 "4242 " || fail "GPU 1 hpc_job: '$(metric_jobs 1)'"
until_jobs 2 "4242 " || fail "GPU 2 hpc_job: '$(metric_jobs 2)'"
until_jobs 3 "77 " || fail "GPU 3 hpc_job: '$(metric_jobs 3)'"
[ -z "$(metric_jobs 0)" ] || fail "GPU 0 has jobs it was not given: '$(metric_jobs 0)'"
sleep 4 # the job runs
t1=$(date +%s)

# concurrent jobs sharing GPU 0: no prolog's or epilog's line lost
for i in $(seq 100 119); do prolog SLURM_JOB_ID=$i SLURM_STEP_GPUS=0 & done
wait_jobs() { for p in $(jobs -p); do case " ${pids[*]} " in *" $p "*) ;; *) wait "$p" ;; esac; done; }
wait_jobs
[ "$(sort -n "$jobs/0" | tr '\n' ' ')" = "$(seq 100 119 | tr '\n' ' ')" ] || fail "20 concurrent prologs on GPU 0: $(tr '\n' ' ' <"$jobs/0")"
for i in $(seq 100 119); do epilog SLURM_JOB_ID=$i SLURM_JOB_GPUS=0 GPUWATCH_BIN=/nonexistent & done
wait_jobs
[ ! -e "$jobs/0" ] || fail "GPU 0's file left after 20 concurrent epilogs: $(tr '\n' ' ' <"$jobs/0")"
ls "$jobs" | grep -v '^[0-9]*$' && fail "temporary files left in the mapping directory"

epilog SLURM_JOB_ID=4242 SLURM_JOB_GPUS=1,2 SLURM_SUBMIT_DIR="$tmp/out" || fail "epilog exited non-zero"
t2=$(date +%s)
[ ! -e "$jobs/1" ] && [ ! -e "$jobs/2" ] || fail "epilog left the mapping: $(ls "$jobs")"
[ "$(cat "$jobs/3")" = 77 ] || fail "epilog of 4242 touched job 77's GPU"
until_jobs 1 "" || fail "GPU 1 still labelled after the epilog: '$(metric_jobs 1)'"
[ -s "$sums/4242.json" ] || fail "no summary $sums/4242.json"
grep -q 'jobs\|GPU' "$tmp/out/gpuwatch-job-4242.txt" 2>/dev/null || fail "no text summary in the job's directory"
python3 - "$sums/4242.json" "$t0" "$t1" "$t2" <<'PY' || fail "summary numbers"
import json, sys
d = json.load(open(sys.argv[1])); t0, t1, t2 = (int(x) for x in sys.argv[2:])
gpus = sorted(str(g["index"]) for g in d["gpus"])
assert gpus == ["1", "2"], f"report GPUs {gpus}, want 1 and 2"
j = [j for j in d["jobs"] if j["hpc_job"] == "4242"]
assert len(j) == 1, d["jobs"]
j = j[0]
assert sorted(str(g) for g in j["gpus"]) == ["1", "2"], j
held = t2 - t0 + 2
assert 2 * 3 <= j["gpu_seconds"] <= 2 * held, f"gpu_seconds {j['gpu_seconds']} for 2 GPUs over {held} s"
assert 0 <= j["utilization_ratio_mean"] <= 1, j
assert 1e9 < j["memory_used_bytes_max"] <= 141e9 * 1.1, j
assert 100 < j["energy_joules"] < 2 * 700 * held, j
from datetime import datetime
ts = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
assert t0 - 1 <= ts(d["from"]) and ts(d["to"]) <= t2 + 2, f"report range {d['from']}..{d['to']} outside the job's {t0}..{t2}"
print("summary:", j)
PY

# report --job by hand, from the agent and from its store
"$BIN" report --url "$GPUWATCH_URL" --job 77 --format json -o "$tmp/77.json" 2>"$tmp/77.err" || fail "report --job 77: $(cat "$tmp/77.err")"
python3 -c "
import json,sys; d=json.load(open('$tmp/77.json'))
g=[str(x['index']) for x in d['gpus']]; assert g==['3'], g
assert [j['hpc_job'] for j in d['jobs']]==['77'], d['jobs']" || fail "report --job 77 covers more than GPU 3"
"$BIN" report --url "$GPUWATCH_URL" --job 999 >/dev/null 2>"$tmp/999.err"
[ $? = 1 ] && grep -q 'no job 999' "$tmp/999.err" || fail "report --job of an unknown job: $(cat "$tmp/999.err")"
# and from the agent's store (read beside it; flushed within 5 s)
for _ in $(seq 20); do
	"$BIN" report --storage.path "$tmp/data" --job 4242 --format json -o "$tmp/st.json" 2>"$tmp/st.err" && break
	sleep 0.5
done
python3 -c "
import json; d=json.load(open('$tmp/st.json'))
g=sorted(str(x['index']) for x in d['gpus']); assert g==['1','2'], g
assert '4242' in [j['hpc_job'] for j in d['jobs']], d['jobs']" 2>/dev/null || fail "report --job 4242 from the store: $(cat "$tmp/st.err")"
"$BIN" report --help | grep -q -- '--job ID' || fail "report --help does not document --job"

# never fail the job: gpuwatch missing, the directory not creatable, no job ID
prolog SLURM_JOB_ID=5 SLURM_JOB_GPUS=0 GPUWATCH_HPC_JOB_DIR=/proc/nope 2>/dev/null || fail "prolog failed on an uncreatable directory"
epilog SLURM_JOB_ID=77 SLURM_JOB_GPUS=3 GPUWATCH_BIN=/nonexistent/gpuwatch 2>/dev/null || fail "epilog failed without gpuwatch"
[ ! -e "$jobs/3" ] || fail "epilog without gpuwatch did not unmap"
epilog SLURM_JOB_GPUS=0 2>/dev/null || fail "epilog failed without SLURM_JOB_ID"
[ "$fails" = 0 ] && echo "PASS: slurm prolog/epilog" 
exit $((fails > 0))
