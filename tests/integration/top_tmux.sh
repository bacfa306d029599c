#!/usr/bin/env bash
# top_tmux.sh - `gpuwatch top` in a real terminal: tmux runs it, send-keys
# types, capture-pane reads what a person would see. Checks the values of a
# pinned scenario, moving charts, sorting, filtering, help, detail view,
# resize to 40x10 and back, braille and block charts, ASCII and NO_COLOR, a lost GPU, every way out
# restoring the terminal, the no-driver message (the same as smi's), the
# health verdicts (a double-bit ECC error fails its GPU only, with the
# incidents in the detail view) and the OOM forecast (a leak has one, red
# under an hour; an idle GPU none) at 80 columns.
. "$(dirname "$0")/../lib/common.sh"
command -v tmux >/dev/null || { echo "skip: tmux not installed"; exit 77; }
: "${GW_BIN:?}" "${GW_TEST_DATA:?}"
scn="$GW_TEST_DATA/data/scenarios"
sock="$tmp/tmux.sock"
T() { tmux -S "$sock" "$@"; }
trap 'T kill-server 2>/dev/null; cleanup' EXIT

# start NAME COLSxROWS ENV... -- ARGS: run top in session NAME; its exit code lands in $tmp/NAME.rc
start() {
	local name=$1 size=$2; shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
	T new-session -d -s "$name" -x "${size%x*}" -y "${size#*x}" \
		"env TERM=tmux-256color ${envs[*]} $GW_BIN $* 2>$tmp/$name.err; echo \$? >$tmp/$name.rc; sleep 60"
	T set-option -t "$name" window-size manual >/dev/null 2>&1
}
# targets are "NAME:" so a bare name is never taken for a window of another session
cap() { T capture-pane -p -t "$1:" "${@:2}"; }
# wait_for NAME REGEX [SECONDS]: until the screen matches
wait_for() {
	for _ in $(seq $((${3:-10} * 10))); do cap "$1" | grep -Eq -- "$2" && return 0; sleep 0.1; done
	echo "--- screen of $1:"; cap "$1"; return 1
}
keys() { T send-keys -t "$1:" "${@:2}"; sleep 0.4; }
proc_rows() { cap "$1" | grep -E '^ +[0-9]+ .*(memhog|gpu_burn)' | awk '{print $1}' | tr '\n' ' '; }

# --- pinned values (tests/data/scenarios/h200-load.scn) -------------------
start a 100x30 LANG=C.UTF-8 -- --sim "$scn/h200-load.scn" top -w 1
wait_for a 'gpu_burn' || fail "top did not show the processes"
s=$(cap a)
grep -q 'gpuwatch top .*1 GPU .*SIMULATED' <<<"$s" || fail "title without SIMULATED"
grep -Eq '^ 0 H200 +100%.* 31\.6G/140G .* 52C +627/700W' <<<"$s" || fail "GPU 0 row differs from the scenario: $(sed -n 2p <<<"$s")"
grep -q 'clk sm 1980 mem 3201 MHz' <<<"$s" || fail "clocks differ from the scenario"
grep -q 'pcie rx 8.7 tx 4.2 MB/s' <<<"$s" || fail "PCIe differs from the scenario (8691/4217 KB/s): $(sed -n 3p <<<"$s")"
grep -Eq '28234MiB +- \./gpu_burn' <<<"$s" || fail "gpu_burn row without its memory"
[ "$(proc_rows a)" = "10309 10291 10293 " ] || fail "default sort (memory, descending): $(proc_rows a)"

# --- charts move: the 1-minute chart gains columns between refreshes ------
# braille by default in UTF-8 (two samples per cell), block characters after b
braille() { cap a | sed -n 3p | LC_ALL=C grep -o $'\xe2[\xa0-\xa3].' | wc -l; }
c1=$(braille)
sleep 3.5
c2=$(braille)
[ "$c2" -gt "$c1" ] || fail "chart did not move ($c1 -> $c2 braille cells)"
keys a b
c3=$(cap a | sed -n 3p | grep -o '█' | wc -l)
[ "$c3" -gt 0 ] && [ "$(braille)" = 0 ] || fail "b did not switch to block charts ($c3 blocks, $(braille) braille)"
keys a b
[ "$(braille)" -gt 0 ] || fail "b did not switch back to braille"

# --- sorting ---------------------------------------------------------------
keys a '<' '<' '<' '<'          # memory -> gpu -> owner -> user -> pid
[ "$(proc_rows a)" = "10291 10293 10309 " ] || fail "sort by pid: $(proc_rows a)"
cap a | grep -q 'PID▲' || fail "no sort mark on PID"
keys a r
[ "$(proc_rows a)" = "10309 10293 10291 " ] || fail "reversed pid sort: $(proc_rows a)"

# --- filtering ---------------------------------------------------------------
keys a / m e m h o g Enter
[ "$(proc_rows a)" = "10293 10291 " ] || fail "filter memhog: $(proc_rows a)"
cap a | grep -q 'filter: memhog' || fail "filter not shown"
keys a / Escape
[ "$(proc_rows a)" = "10309 10293 10291 " ] || fail "cleared filter: $(proc_rows a)"

# --- help and detail ---------------------------------------------------------
keys a '?'
cap a | grep -q 'Keys' || fail "no help on ?"
cap a | grep -q 'b          charts: braille / block characters' || fail "help does not mention b"
keys a x
cap a | grep -q 'Keys' && fail "help did not close"
keys a Enter
s=$(cap a)
grep -q 'GPU 0  NVIDIA H200  00000000:83:00.0' <<<"$s" || fail "no detail view"
grep -q 'power 627.40 / 700 W' <<<"$s" || fail "detail power differs"
grep -q 'temperature (C)  now 52' <<<"$s" || fail "detail temperature chart"
keys a Escape
wait_for a 'gpu_burn' 3 || fail "Esc did not return from detail"

# --- refresh interval at run time --------------------------------------------
keys a +
wait_for a 'every 0\.5s' 5 || fail "+ did not speed up the refresh"
keys a - -
wait_for a 'every 2\.0s' 5 || fail "- did not slow down the refresh"
keys a +
wait_for a 'every 1\.0s' 5 || fail "+ did not go back to 1 s"

# --- resize to 40x10 and back ------------------------------------------------
mask() { sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}//; 3d'; } # clock and chart row move by themselves
before=$(cap a | mask)
T resize-window -t a: -x 40 -y 10; sleep 1.2
s=$(cap a)
python3 -c 'import sys; sys.exit(any(len(l) > 40 for l in sys.stdin.read().splitlines()))' <<<"$s" || { fail "lines wider than 40 after resize"; echo "$s"; }
head -1 <<<"$s" | grep -q '^ gpuwatch top' || fail "no title at 40x10"
grep -q '^ 0 H200' <<<"$s" || fail "no GPU row at 40x10"
T resize-window -t a: -x 100 -y 30; sleep 1.2
after=$(cap a | mask)
[ "$before" = "$after" ] || { fail "screen differs after resizing back"; diff <(echo "$before") <(echo "$after"); }

# --- q quits and restores the terminal ---------------------------------------
keys a q
wait_rc() { for _ in $(seq 30); do [ -s "$tmp/$1.rc" ] && return 0; sleep 0.1; done; return 1; }
wait_rc a
[ "$(cat "$tmp/a.rc" 2>/dev/null)" = 0 ] || fail "q: exit code $(cat "$tmp/a.rc" 2>/dev/null)"
cap a | grep -q 'gpuwatch top' && fail "screen not restored after q"

# --- ASCII fallback, NO_COLOR, Ctrl-C -----------------------------------------
start b 100x30 LANG=C LC_ALL=C NO_COLOR=1 -- --sim "$scn/h200-load.scn" top
wait_for b 'gpu_burn' || fail "top (ASCII) did not start"
cap b | LC_ALL=C grep -q $'[\x80-\xff]' && fail "non-ASCII output in the C locale"
cap b | grep -Eq '100%\[\|{8,}\]' || fail "no ASCII bars"
cap b -e | grep -Eq $'\e\\[(3[0-7]|9[0-7]|38;)' && fail "colour despite NO_COLOR"
start c 100x30 LANG=C.UTF-8 -- --sim "$scn/h200-load.scn" top
wait_for c 'gpu_burn' || fail "top (colour) did not start"
cap c -e | grep -Eq $'\e\\[(3[0-7]|38;)' || fail "no colour without NO_COLOR"
keys b C-c
wait_rc() { for _ in $(seq 30); do [ -s "$tmp/$1.rc" ] && return 0; sleep 0.1; done; return 1; }
wait_rc b
[ "$(cat "$tmp/b.rc" 2>/dev/null)" = 0 ] || fail "Ctrl-C: exit code $(cat "$tmp/b.rc" 2>/dev/null)"
cap b | grep -q 'gpuwatch top' && { fail "screen not restored after Ctrl-C"; cap b; }

# --- SIGTERM from outside restores the terminal --------------------------------
pid=$(pgrep -P "$(T display -p -t c: '#{pane_pid}')" -x gpuwatch | head -1)
[ -n "$pid" ] && kill -TERM "$pid"
wait_rc c
[ -s "$tmp/c.rc" ] || fail "SIGTERM did not end top"
cap c | grep -q 'gpuwatch top' && fail "screen not restored after SIGTERM"

# --- eight GPUs on 80x24 --------------------------------------------------------
start d 80x24 LANG=C.UTF-8 -- --sim 8xH200:training top
wait_for d '^ 7 H200' || fail "not all 8 GPUs on 80x24"
for g in 0 1 2 3 4 5 6; do cap d | grep -q "^ $g H200" || fail "GPU $g missing on 80x24"; done
keys d q

# --- PCIe throughput of another board (l40s-load.scn: 2012109 / 259423 KB/s) ------------
start l 100x30 LANG=C.UTF-8 -- --sim "$scn/l40s-load.scn" top
wait_for l 'pcie rx 2012\.1 tx 259\.4 MB/s' 5 || fail "L40S PCIe differs from the scenario"
keys l q

# --- a GPU lost while watching ---------------------------------------------------
start e 100x30 LANG=C.UTF-8 -- --sim "$scn/gpu-lost.scn" top
wait_for e '^ 1 H200 +LOST' 8 || fail "lost GPU 1 not marked"
cap e | grep -Eq '^ 0 H200 +[0-9]+%' || fail "GPU 0 stopped showing values after GPU 1 was lost"
wait_for e 'events:.*GPU 1 GPU lost' 3 || fail "no event for the loss"
keys e q

# --- health: a double-bit ECC error on GPU 1 fails it (memory), the others pass ------
cat >"$tmp/dbe.scn" <<'SCN'
[sim]
seed = 3
clock = real
fleet = 4xH200:training
[gpu 1]
fault = 2s ecc-dbe
SCN
start h 80x24 LANG=C.UTF-8 -- --sim "$tmp/dbe.scn" top
wait_for h '^ 0 H200 .* PASS' 8 || fail "no health verdict on GPU 0"
# the volatile ECC counters are slow fields, read every 10 s
wait_for h '^ 1 H200 .*/700W FAIL memory' 15 || fail "GPU 1 not FAIL memory after a double-bit error"
s=$(cap h)
for g in 0 2 3; do
	grep -Eq "^ $g H200 .*/700W PASS" <<<"$s" || fail "GPU $g not PASS: $(grep -E "^ $g H200" <<<"$s")"
done
grep -q 'events:.*GPU 1 health FAIL memory: DBE' <<<"$s" || fail "no event for GPU 1's failure: $(grep events: <<<"$s")"
cap h -e | grep -E ' 1 H200 ' | grep -Eq $'\e\\[[0-9;]*31m FAIL' || fail "FAIL not in red"
keys h Down Enter
s=$(cap h)
grep -q '^health FAIL  memory: DBE  memory: remap pending (warn)  driver: XID 94 (warn)' <<<"$s" ||
	fail "detail without the verdict and its systems: $(grep health <<<"$s")"
grep -Eq '^  FAIL memory +[0-9]+ uncorrectable \(double-bit\) ECC errors since the driver loaded;' <<<"$s" ||
	fail "detail without the DBE incident's message: $(grep -A3 '^health' <<<"$s")"
keys h Escape Up Enter
cap h | grep -q '^health PASS$' || fail "GPU 0's detail: $(cap h | grep health)"
keys h q

# --- OOM forecast: a leak gets a time to full beside memory, red under an hour; idle none
# (at speed 100 the leak fills the H100 in about 3 minutes; a 4 s window of 0.2 s points)
start k 80x24 LANG=C.UTF-8 -- --sim 1xH100:leak,speed=100,1xH100:idle top -d 0.2 --memory.forecast-window 4s
wait_for k '^ 0 H100 80G .*G/79\.6G.* oom [0-9]{1,2}[sm] .* PASS' 10 || fail "no time to full on the leaking GPU"
s=$(cap k)
grep -E '^ 1 H100' <<<"$s" | grep -q oom && fail "a time to full on the idle GPU: $(grep -E '^ 1 H100' <<<"$s")"
grep -Eq '^ 1 H100 80G .* 0M/79\.6G.* PASS' <<<"$s" || fail "idle GPU row: $(grep -E '^ 1 H100' <<<"$s")"
cap k -e | grep -E ' 0 H100 ' | grep -Eq $'\e\\[[0-9;]*31m oom' || fail "a time to full under an hour not in red"
keys k Enter
cap k | grep -Eq '^util .* memory [0-9]+ / 81559 MiB  full in [0-9]{1,2}[sm]  temp' || fail "detail: $(cap k | sed -n 3p)"
keys k Escape Down Enter
cap k | grep -q 'full in' && fail "idle GPU's detail has a time to full"
keys k q
"$GW_BIN" top --memory.forecast-window 1x </dev/null >/dev/null 2>"$tmp/opt.err"; rc=$?
if [ "$rc" != 2 ] || ! grep -q 'gpuwatch top: --memory.forecast-window wants a duration from 1s to 7d, got "1x"' "$tmp/opt.err"; then
	fail "bad --memory.forecast-window: exit $rc, $(cat "$tmp/opt.err")"
fi

# --- no driver: the same message and exit code as smi ----------------------------
nolib="$tmp/none/libnvidia-ml.so.1"
GPUWATCH_NVML_LIBRARY=$nolib "$GW_BIN" smi >"$tmp/smi.out" 2>/dev/null; src=$?
GPUWATCH_NVML_LIBRARY=$nolib "$GW_BIN" top >"$tmp/top.out" 2>/dev/null; trc=$?
[ "$src" = "$trc" ] && [ "$trc" != 0 ] || fail "no driver: top exit $trc, smi exit $src"
cmp -s "$tmp/smi.out" "$tmp/top.out" || fail "no driver: top's message differs from smi's"
"$GW_BIN" top --remote a:1 </dev/null >/dev/null 2>"$tmp/remote.err"; rc=$?
[ "$rc" = 2 ] && grep -q 'needs a terminal' "$tmp/remote.err" || fail "--remote without a terminal: exit $rc, $(cat "$tmp/remote.err")"

# --- an option without its value says which value is missing, exit 2 ------------------
for args in "-d|-d needs SECONDS" "--delay|--delay needs SECONDS" "-w|-w needs MINUTES" \
	"--window|--window needs MINUTES" "--remote|--remote needs HOST:PORT,..." \
	"--prometheus|--prometheus needs URL" "--remote -c|--remote needs HOST:PORT,..." \
	"-d 0.5 -w|-w needs MINUTES" "--window=|--window needs MINUTES, got an empty value"; do
	IFS='|' read -r a want <<<"$args"
	# shellcheck disable=SC2086
	"$GW_BIN" top $a </dev/null >/dev/null 2>"$tmp/opt.err"; rc=$?
	[ "$rc" = 2 ] && [ "$(head -1 "$tmp/opt.err")" = "gpuwatch top: $want" ] ||
		fail "top $a: exit $rc, $(head -1 "$tmp/opt.err") (wanted: $want)"
done
"$GW_BIN" top --window=5x </dev/null >/dev/null 2>"$tmp/opt.err"
grep -q 'wants 1, 5, 15 or 60 minutes, got "5x"' "$tmp/opt.err" || fail "--window=5x: $(cat "$tmp/opt.err")"
"$GW_BIN" top --frobnicate </dev/null >/dev/null 2>"$tmp/opt.err"
grep -q "unknown option '--frobnicate'" "$tmp/opt.err" || fail "unknown option: $(cat "$tmp/opt.err")"

[ "$fails" = 0 ] && echo "top_tmux: ok"
exit $((fails > 0))
