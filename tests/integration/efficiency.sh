#!/usr/bin/env bash
# The efficiency calculators and the live OOM forecast: `mfu` and
# `memplan` print their formulas and numbers (JSON shapes and values
# checked against hand-computed cases), refuse bad input with a clear
# message and exit status 2, read the GPU through NVML (--sim) when --gpu
# is not given; the agent's gpuwatch_memory_time_to_full_seconds is finite
# and shrinking on a leaking GPU (--sim 1xH100:leak), in /metrics and in
# its history, where the rule pack's GpuMemoryOomForecast fires on it, and
# absent on an idle GPU.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null || { echo "skipped: curl not installed"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"

# json FILE EXPR: a value out of a JSON answer
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# ---- mfu ----------------------------------------------------------------------
"$BIN" mfu --help >"$tmp/h" || fail "mfu --help: exit $?"
grep -q '6N + 12 L H Q T' "$tmp/h" || fail "mfu --help does not give the formula"
grep -q -- '--tokens-per-s' "$tmp/h" || fail "mfu --help does not list --tokens-per-s"
grep -q -- '--agent URL --throughput QUERY' "$tmp/h" || fail "mfu --help does not list --agent"
"$BIN" help memplan >"$tmp/h" || fail "help memplan: exit $?"
grep -q -- '--zero 0..3' "$tmp/h" || fail "memplan --help does not list --zero"
"$BIN" --help | grep -q '^  mfu ' || fail "mfu is not in the command list"

# 1000 tokens/s of 6N + 12 L h T = 6.012e9 FLOPs on 2 A100s (312 TFLOP/s): 0.963 %
"$BIN" mfu --params 1e9 --layers 10 --hidden 1000 --heads 10 --seq 100 --gpu A100 --gpus 2 \
	--tokens-per-s 1000 --format json >"$tmp/m.json" || fail "mfu json: exit $?"
[ "$(json "$tmp/m.json" 'd["mfu"]')" = 0.00963462 ] || fail "mfu: $(cat "$tmp/m.json")"
[ "$(json "$tmp/m.json" 'd["flops_per_token"]')" = 6012000000 ] || fail "flops_per_token: $(cat "$tmp/m.json")"
[ "$(json "$tmp/m.json" 'd["peak_flops_per_gpu"]')" = 312000000000000.0 ] || fail "peak: $(cat "$tmp/m.json")"
[ "$(json "$tmp/m.json" 'd["hfu"] == d["mfu"]')" = True ] || fail "hfu without recomputation is not mfu"
# full recomputation: HFU counts 8N + 16 L h T
"$BIN" mfu --params 1e9 --layers 10 --hidden 1000 --heads 10 --seq 100 --gpu A100 --gpus 2 \
	--tokens-per-s 1000 --recompute full --format json >"$tmp/m.json" || fail "mfu full: exit $?"
[ "$(json "$tmp/m.json" 'd["hardware_flops_per_token"]')" = 8016000000 ] || fail "hfu flops: $(cat "$tmp/m.json")"
# --step-time with --global-batch: 64 sequences of 8192 tokens in 4 s = 131072 tokens/s
"$BIN" mfu --preset llama3-8b --gpu H100 --gpus 64 --step-time 4 --global-batch 64 --format json >"$tmp/m.json" ||
	fail "mfu step time: exit $?"
[ "$(json "$tmp/m.json" 'd["tokens_per_s"]')" = 131072 ] || fail "tokens/s from step time: $(cat "$tmp/m.json")"
# the GPUs present, through NVML: 8 simulated H200s
"$BIN" --sim 8xH200 mfu --preset llama3-70b --tokens-per-s 20000 --format json >"$tmp/m.json" 2>"$tmp/err" ||
	fail "mfu --sim: exit $? $(cat "$tmp/err")"
[ "$(json "$tmp/m.json" 'd["gpus"], d["gpu"], d["peak_flops_per_gpu"]')" = "(8, 'H200', 989400000000000.0)" ] ||
	fail "mfu --sim: $(cat "$tmp/m.json")"
grep -q SIMULATED "$tmp/err" || fail "mfu --sim does not say the GPUs are simulated"
"$BIN" mfu --preset llama3-70b --gpu H100 --gpus 64 --tokens-per-s 52000 >"$tmp/t" || fail "mfu text: exit $?"
grep -q '^MFU          40.1 %' "$tmp/t" || fail "mfu text: $(cat "$tmp/t")"
grep -q 'H100 typically\|H100 runs typically' "$tmp/t" || fail "mfu text lacks the reference ranges"

# bad_input EXPECTED-MESSAGE ARGS...: exit status 2 and the message on stderr
bad_input() {
	local want=$1
	shift
	"$BIN" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ "$rc" = 2 ] || fail "$*: exit $rc, not 2"
	grep -qF -- "$want" "$tmp/err" || fail "$*: no '$want' in: $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && fail "$*: wrote to stdout: $(cat "$tmp/out")"
}
bad_input "unknown option '--bogus'" mfu --preset llama3-8b --gpu H100 --tokens-per-s 1 --bogus
bad_input "--params x: not a positive number" mfu --params x
bad_input "--preset gpt5: unknown model" mfu --preset gpt5
bad_input "the throughput is missing" mfu --preset llama3-8b --gpu H100
bad_input "needs --layers" mfu --params 8B --gpu H100 --tokens-per-s 1
bad_input "A100 has no fp8 tensor path" mfu --preset llama3-8b --gpu A100 --tokens-per-s 1 --dtype fp8
bad_input "--gpu Voodoo3: not in the peak table" mfu --preset llama3-8b --gpu Voodoo3 --tokens-per-s 1
bad_input "--step-time and --global-batch go together" mfu --preset llama3-8b --gpu H100 --step-time 2
bad_input "--gpus 0: not a whole number" mfu --preset llama3-8b --gpu H100 --tokens-per-s 1 --gpus 0

# ---- memplan ------------------------------------------------------------------
# 1e9 parameters, Adam, BF16, one GPU: 16 GB of model states; 2 layers of
# 1024 x 1024 x (34 + 80) bytes of activations; no reserves
"$BIN" memplan --params 1e9 --layers 2 --hidden 1024 --heads 16 --seq 1024 --gpu H100 \
	--cuda-reserve-gib 0 --fragmentation 0 --format json >"$tmp/p.json"
rc=$?
[ "$rc" = 0 ] || fail "memplan fits: exit $rc"
[ "$(json "$tmp/p.json" 'd["model_states_bytes"], d["activations_bytes"], d["total_bytes"], d["fits"]')" = \
	"(16000000000, 239075328, 16239075328, True)" ] || fail "memplan json: $(cat "$tmp/p.json")"
[ "$(json "$tmp/p.json" 'd["gpu_memory_bytes"], d["max_micro_batch"]')" = "(85520809984, 290)" ] ||
	fail "memplan memory and largest micro-batch: $(cat "$tmp/p.json")"
# Llama 3 70B on one H100 does not fit: exit 1, and says so
"$BIN" memplan --preset llama3-70b --gpu H100 >"$tmp/t"
rc=$?
[ "$rc" = 1 ] || fail "memplan not fitting: exit $rc"
grep -q 'does NOT fit' "$tmp/t" || fail "memplan verdict: $(cat "$tmp/t")"
# inference on the simulated L40S: NVML's memory.total (46068 MiB), KV cache 128 KiB a token
"$BIN" --sim 1xL40S memplan --preset llama3-8b --inference --batch 4 --context 8192 --format json \
	>"$tmp/p.json" 2>/dev/null || fail "memplan inference: exit $?"
[ "$(json "$tmp/p.json" 'd["gpu_memory_bytes"], d["kv_cache_bytes"], d["gpu"]')" = \
	"(48305799168, 4294967296, 'L40S')" ] || fail "memplan inference: $(cat "$tmp/p.json")"
bad_input "multiple of tensor x pipeline" memplan --preset llama3-8b --gpu H100 --gpus 12 --tp 8
bad_input "--zero 4: not a whole number from 0 to 3" memplan --preset llama3-8b --gpu H100 --zero 4
bad_input "--optimizer lion: unknown" memplan --preset llama3-8b --gpu H100 --optimizer lion
bad_input "sequence parallelism needs tensor parallelism" memplan --preset llama3-8b --gpu H100 --sequence-parallel
bad_input "--batch is for --inference" memplan --preset llama3-8b --gpu H100 --batch 2

# ---- golden outputs: tests/golden/efficiency/NAME (GW_GOLDEN_UPDATE=1 rewrites them)
GOLD=${GW_TEST_DATA:-$(dirname "$0")/..}/golden/efficiency
golden() {
	local name=$1
	shift
	"$BIN" "$@" >"$tmp/g" 2>/dev/null
	if [ -n "${GW_GOLDEN_UPDATE:-}" ]; then
		mkdir -p "$GOLD" && cp "$tmp/g" "$GOLD/$name"
	elif [ ! -f "$GOLD/$name" ]; then
		fail "no golden file $GOLD/$name (GW_GOLDEN_UPDATE=1 writes it)"
	else
		diff -u "$GOLD/$name" "$tmp/g" >"$tmp/d" || fail "$name differs from its golden file: $(cat "$tmp/d")"
	fi
}
golden mfu_llama3_70b_h100.txt mfu --preset llama3-70b --gpu H100 --gpus 64 --tokens-per-s 52000 --recompute selective
golden mfu_llama3_8b_sim_h200.json --sim 8xH200 mfu --preset llama3-8b --tokens-per-s 60000 --format json
golden memplan_llama3_8b_zero3.txt memplan --preset llama3-8b --gpu H100 --gpus 8 --zero 3 --flash-attention
golden memplan_llama3_70b_tp8.json memplan --preset llama3-70b --gpu H100 --gpus 64 --tp 8 --zero 1 \
	--sequence-parallel --recompute selective --format json
golden memplan_llama3_8b_inference_l40s.txt --sim 1xL40S memplan --preset llama3-8b --inference --batch 8 --context 8192

# ---- the agent's OOM forecast -------------------------------------------------
FAM=gpuwatch_memory_time_to_full_seconds
SRC=$(cd "$(dirname "$0")/../.." && pwd)
# the rule pack, every `for` 1 s and every group evaluated each second
sed -e 's/^\(  *\)for: .*/\1for: 1s/' -e 's/^\(- name: .*\)$/\1\n  interval: 1s/' \
	"$SRC/deploy/rules/gpuwatch-alerts.yml" >"$tmp/rules.yml"
port=$(free_port)
"$BIN" --sim 1xH100:leak,speed=100 agent -a "127.0.0.1:$port" -c 100 --memory.forecast-window 4s \
	--storage.path "$tmp/leak" --rules "$tmp/rules.yml" 2>"$tmp/leak.err" &
pids+=($!)
idle_port=$(free_port)
"$BIN" --sim 1xH100:idle agent -a "127.0.0.1:$idle_port" -c 100 --memory.forecast-window 4s \
	--no-history 2>"$tmp/idle.err" &
pids+=($!)
wait_http "http://127.0.0.1:$port/metrics" 20 || fail "leak agent did not serve: $(cat "$tmp/leak.err")"
wait_http "http://127.0.0.1:$idle_port/metrics" 20 || fail "idle agent did not serve: $(cat "$tmp/idle.err")"
# At speed 100 the leak grows 300 MiB a second (80 % of the memory in 6
# virtual hours): full in about 200 s, so the 1 MiB steps of the values
# are noise well under the 3 s the forecast must shrink by.
# ttf: the leaking GPU's time to full from /metrics, "" when absent
ttf() { curl -s "http://127.0.0.1:$1/metrics" | awk -v f="$FAM" '$1 ~ "^" f "[{]" { print $NF }'; }
first=""
for _ in $(seq 100); do
	first=$(ttf "$port")
	[ -n "$first" ] && break
	sleep 0.1
done
[ -n "$first" ] || fail "no $FAM on the leaking GPU"
sleep 3
second=$(ttf "$port")
python3 -c "import math,sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if math.isfinite(a) and 0 < b < a else 1)" \
	"${first:-nan}" "${second:-nan}" || fail "time to full not finite and shrinking: $first then $second"
curl -s "http://127.0.0.1:$port/metrics" | grep -q "^# TYPE $FAM gauge" || fail "$FAM has no TYPE gauge"
curl -s "http://127.0.0.1:$port/metrics" | grep -q "^$FAM{gpu=\"0\",uuid=\"GPU-[0-9a-f-]*\",pci_bus_id=\"[0-9A-F:.]*\",model=\"NVIDIA H100 80GB HBM3\"} " ||
	fail "$FAM labels: $(curl -s "http://127.0.0.1:$port/metrics" | grep "^$FAM")"
# stored, so the agent's own rules see it
sleep 3
curl -s "http://127.0.0.1:$port/api/v1/query?query=$FAM" >"$tmp/q.json"
[ "$(json "$tmp/q.json" 'len(d["data"]["result"])')" = 1 ] || fail "$FAM not in the history: $(cat "$tmp/q.json")"
# the rule pack's GpuMemoryOomForecast fires in the agent itself
for _ in $(seq 100); do
	curl -s "http://127.0.0.1:$port/api/v1/alerts" >"$tmp/a.json"
	grep -q '"alertname":"GpuMemoryOomForecast".*"state":"firing"' "$tmp/a.json" && break
	sleep 0.1
done
grep -q '"alertname":"GpuMemoryOomForecast".*"state":"firing"' "$tmp/a.json" ||
	fail "GpuMemoryOomForecast does not fire on the leaking GPU: $(cat "$tmp/a.json")"
[ -z "$(ttf "$idle_port")" ] || fail "$FAM on an idle GPU: $(ttf "$idle_port")"
curl -s "http://127.0.0.1:$idle_port/metrics" | grep -q "^gpuwatch_memory_used_bytes{" || fail "idle agent has no memory family"

"$BIN" --sim 1xH100 agent --memory.forecast-window 1x --no-history 2>"$tmp/bad.err"
[ $? = 2 ] || fail "a bad --memory.forecast-window is not refused"
grep -q 'memory.forecast-window wants a duration' "$tmp/bad.err" || fail "bad window: $(cat "$tmp/bad.err")"

[ "$fails" = 0 ] && echo "efficiency: all passed"
[ "$fails" = 0 ]
