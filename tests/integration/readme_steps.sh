#!/usr/bin/env bash
# readme_steps.sh - README.md's commands, run as a reader would: every line
# of its ```sh blocks, in order, in a fresh directory that holds only the
# built tree (build/, scripts/), so `data/` starts empty. Each must exit 0
# and print what it is for; at the end the store must count the GPUs the
# steps put in it: the quick start's agent, the recorded day and the
# example agent are the same 8 H200s (one instance, the host name), the
# imported log adds 2 L40S.
#
# What differs from a reader's run, and why:
# - scripts/test.sh is skipped: it is this test suite.
# - scripts/quickstart.sh runs with GPUWATCH_SKIP_BUILD=1 (the tree is
#   built; its build step installs packages), GPUWATCH_ADDRESS on a free
#   loopback port, and no driver (a fresh VM: the simulated fleet); it is
#   stopped once its agent has stored a few samples, as Ctrl-C would.
# - `:9400` and `localhost:9400` become that free port; top --remote's
#   node1/node2 become the agent's address and a port nobody listens on.
# - `sim record --duration 24h` records 2h, to keep the test short.
# - Commands that run until Ctrl-C (agent, smi -l) run in the background
#   and are stopped: smi -l after 3 s, the agent before the next command
#   that writes the store (as `import` asks) or at the end; `top` runs in
#   a pseudo-terminal (script) and is quit with q.
# - Plain commands (no --sim) see the simulator as their driver
#   (GPUWATCH_NVML_LIBRARY, GPUWATCH_SIM=8xH200:training).
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
SIMLIB=${GW_SIM_LIB:?GW_SIM_LIB must point at the simulator}
REPO=$(cd "${GW_TEST_DATA:?GW_TEST_DATA must point at tests/}/.." && pwd)
. "$(dirname "$0")/../lib/common.sh"
for t in curl python3 script; do
	command -v $t >/dev/null || { echo "SKIP: needs $t"; exit 77; }
done

work="$tmp/clone"
mkdir -p "$work"
ln -s "$(cd "$(dirname "$BIN")" && pwd)" "$work/build"
ln -s "$REPO/scripts" "$work/scripts"
ln -s "$REPO/deploy" "$work/deploy"
cd "$work" || exit 1
port=$(free_port)
dead=$(free_port)
host=$(hostname)
export GPUWATCH_NVML_LIBRARY="$SIMLIB" GPUWATCH_SIM=8xH200:training

# The commands: every line inside ```sh ... ``` fences, in order.
mapfile -t steps < <(awk '/^```sh$/ {on = 1; next} /^```/ {on = 0} on && NF' "$REPO/README.md")
[ "${#steps[@]}" -ge 15 ] || fail "only ${#steps[@]} commands found in README.md's sh blocks"

# expect LINE: what its output must match (extended regex), by what the line is.
expect() {
	case "$1" in
	scripts/quickstart.sh*) echo 'running on the SIMULATED fleet' ;;
	*'smi -L'*) echo '^GPU 7: NVIDIA H200 \(UUID: GPU-[0-9a-f-]{36}\)' ;;
	*'smi --help'*) echo 'query-gpu' ;;
	*' -f gpu_monitor.log'*) echo '' ;; # its output is the file, checked below
	*'smi --query-gpu=index'*) echo '^index, name, utilization.gpu \[%\]' ;;
	*'smi -q'*) echo '^==============NVSMI LOG==============' ;;
	*'gpuwatch smi '*) echo 'NVIDIA-SMI 590.48.01' ;;
	*' dmon '*) echo '^# gpu +pwr' ;;
	*' pmon '*) echo '^# gpu +pid' ;;
	*'sim record'*) echo '^recorded [0-9hms]+ of 8 GPUs every 1s' ;;
	*'rules check'*) echo '^  SUCCESS: [0-9]+ rules found' ;;
	*'rules test'*) echo '^  SUCCESS$' ;;
	*'/api/v1/rules'*) echo '^\{"status":"success","data":\{"groups":\[\{"name":"gpu_alerts"' ;;
	*' agent '*) echo '' ;; # answers /health, checked when it starts
	*'/metrics'*) echo '^# (HELP|TYPE) DCGM_FI_DEV_' ;;
	*'/api/v1/query'*) echo '"status":"success"' ;;
	*'max by (gpu)'*) echo '^\{gpu="7"\} => [0-9]+ @' ;;
	*' import '*) echo 'gpu_monitor.log: .* samples imported, 0 bad lines' ;;
	*'count(count by (UUID)'*) echo '^\{\} => 10 @' ;;
	*' export '*) echo '' ;; # its output is temp.om, checked below
	*' top'*) echo 'gpuwatch top' ;;
	*) echo 'UNKNOWN' ;;
	esac
}

agent=""
stop_agent() {
	[ -n "$agent" ] || return 0
	kill "$agent" 2>/dev/null
	wait "$agent" 2>/dev/null
	agent=""
}

n=0
for line in "${steps[@]}"; do
	n=$((n + 1))
	cmd=${line//localhost:9400/127.0.0.1:$port}
	cmd=${cmd//-a :9400/-a 127.0.0.1:$port}
	cmd=${cmd//node1:9400,node2:9400/127.0.0.1:$port,127.0.0.1:$dead}
	cmd=${cmd//--duration 24h/--duration 2h}
	bare=${cmd%%#*} # what runs, without the comment
	want=$(expect "$bare")
	out="$tmp/step$n.out"
	case "$line" in
	scripts/test.sh*)
		echo "step $n: skipped (the test suite itself): $line"
		continue
		;;
	esac
	[ "$want" = UNKNOWN ] && { fail "README line $n has no expectation here: $line"; continue; }
	case "$bare" in
	*' import '* | *'sim record'* | *' agent '* | scripts/quickstart.sh*) stop_agent ;;
	esac
	rc=0
	case "$bare" in
	scripts/quickstart.sh*)
		GPUWATCH_SKIP_BUILD=1 GPUWATCH_ADDRESS="127.0.0.1:$port" GPUWATCH_NVML_LIBRARY="$tmp/no-driver.so" \
			bash -c "$cmd" >"$out" 2>&1 &
		agent=$!
		pids+=("$agent")
		wait_http "http://127.0.0.1:$port/health" 30 || fail "step $n: the quick start's agent did not answer: $(tail -3 "$out")"
		sleep 3 # a few samples in its store, then Ctrl-C
		stop_agent
		;;
	*' agent '*)
		bash -c "exec $cmd" >"$out" 2>&1 &
		agent=$!
		pids+=("$agent")
		wait_http "http://127.0.0.1:$port/health" 30 || fail "step $n: the agent did not answer: $(tail -3 "$out")"
		sleep 2
		;;
	*' -l '* | *' -lms '*)
		bash -c "exec $cmd" >"$out" 2>&1 &
		p=$!
		sleep 3
		kill -INT "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		;;
	*' top'*)
		# a terminal of 120x40 for 3 s, then q
		(sleep 3; printf q) | COLUMNS=120 LINES=40 timeout 30 script -qec "stty cols 120 rows 40; $cmd" /dev/null >"$out" 2>&1
		rc=$?
		;;
	*)
		timeout 120 bash -c "$cmd" >"$out" 2>&1
		rc=$?
		;;
	esac
	[ "$rc" = 0 ] || fail "step $n exited $rc: $line: $(tail -3 "$out")"
	if [ -n "$want" ] && ! grep -Eq "$want" "$out"; then
		fail "step $n printed no /$want/: $line: $(head -c 600 "$out")"
	fi
	echo "step $n: ok: $line"
done
stop_agent

# What the steps wrote besides standard output.
grep -Eq '^20[0-9/]+ [0-9:.]+, 1, NVIDIA L40S, GPU-' gpu_monitor.log || fail "gpu_monitor.log: $(head -3 gpu_monitor.log)"
grep -q "^DCGM_FI_DEV_GPU_TEMP{.*instance=\"$host\"" temp.om && grep -q '^DCGM_FI_DEV_GPU_TEMP{.*instance="gpu_monitor.log"' temp.om ||
	fail "temp.om: $(head -3 temp.om)"
# sim record ran after the quick start's agent had stored samples: it recorded before them.
grep -q 'before them, and merging it into those series' "$tmp"/step*.out || fail "sim record did not record before the quick start's samples"

# The store: 8 H200s under this host's name (the quick start, the recorded
# hours and the example agent continue one another), 2 L40S from the log.
got=$(build/gpuwatch query --storage.path data \
	'count by (instance) (count by (instance, UUID) (count_over_time(DCGM_FI_DEV_GPU_TEMP[3h])))' 2>&1)
echo "$got" | grep -q "^{instance=\"$host\"} => 8 @" || fail "H200s under $host: $got"
echo "$got" | grep -q '^{instance="gpu_monitor.log"} => 2 @' || fail "L40S from the log: $got"
[ "$(echo "$got" | wc -l)" = 2 ] || fail "instances in the store: $got"
# GPU 0's one series holds the recorded frames and both agents' samples.
frames=$(sed -n 's/^recorded .* \([0-9]*\) frames$/\1/p' "$tmp"/step*.out | head -1)
got=$(build/gpuwatch query --storage.path data "count_over_time(DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",instance=\"$host\"}[3h])" 2>&1)
c=$(echo "$got" | sed -n 's/.* => \([0-9]*\) @.*/\1/p')
[ "${frames:-0}" -gt 3600 ] && [ "${c:-0}" -ge $((frames + 4)) ] || fail "gpu 0's samples: $got; recorded frames: ${frames:-none}"

[ "$fails" = 0 ] && echo "readme_steps: ok (${#steps[@]} commands)"
exit $((fails > 0))
