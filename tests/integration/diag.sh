#!/usr/bin/env bash
# `gpuwatch diag` on the simulator: a clean fleet passes level 1 (device
# files SKIP, never a fake PASS) with exit 0; on
# tests/data/scenarios/diag-faults.scn the pending page retirement fails GPU 2
# and no other GPU, and GPU 3's persistence mode and graphics process warn;
# CUDA_VISIBLE_DEVICES naming a GPU that is not there fails naming it (UUID
# prefixes pass, as CUDA takes them); a corrupted InfoROM fails its GPU and
# an NVML error is a Skip with NVML's words, never a Pass; the
# CUDA tests of -r 2 and -r 3 SKIP with the reason (the library is not
# there, is not the CUDA driver, or the GPUs are simulated) while level 1
# still runs; with tests/tools/fake_cuda.c as libcuda (and the simulator as
# NVML) each CUDA test passes, and an injected failure or bad memory word
# fails the right test with the driver's message, and level 3's stress
# fails on an XID and warns on a hardware slowdown; --json has the documented keys;
# bad levels exit 2; --help.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v python3 >/dev/null || { echo "skipped: python3 not installed"; exit 77; }
. "$(dirname "$0")/../lib/common.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
scn="$SRC/tests/data/scenarios/diag-faults.scn"
unset CUDA_VISIBLE_DEVICES CUDA_LAUNCH_BLOCKING CUDA_DEVICE_MAX_CONNECTIONS CUDA_MPS_PIPE_DIRECTORY GPUWATCH_CUDA_LIBRARY

# The JSON as lines "GPU NAME RESULT" (GPU "-" for system checks), after checking its keys.
rows() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
assert set(d) == {"level", "overall", "tests"}, sorted(d)
assert d["overall"] in ("Pass", "Warn", "Fail"), d["overall"]
for t in d["tests"]:
    keys = {"name", "category", "result", "measured", "threshold", "message"}
    assert set(t) - {"gpu"} == keys, sorted(t)
    assert t["result"] in ("Pass", "Warn", "Fail", "Skip"), t
    assert t["message"] and t["threshold"], t
    print(t.get("gpu", "-"), t["name"].replace(" ", "_"), t["result"])
print("overall", d["level"], d["overall"])'
}

# ---- a clean fleet: pass, exit 0 ----
"$BIN" --sim 2xH200 diag -r 1 >"$tmp/clean.txt" 2>/dev/null
rc=$?
[ $rc -eq 0 ] || fail "clean fleet: exit $rc, want 0: $(cat "$tmp/clean.txt")"
grep -q '^| NVML library  *| Pass' "$tmp/clean.txt" || fail "clean fleet: no NVML library row"
grep -q -- '-  Deployment  -' "$tmp/clean.txt" || fail "clean fleet: no Deployment section"
grep -q 'Skip - simulated GPUs: no device files' "$tmp/clean.txt" || fail "clean fleet: device files are not SKIP"
grep -q '^Level 1: Pass$' "$tmp/clean.txt" || fail "clean fleet: no 'Level 1: Pass'"
grep -Eq '\| (Fail|Warn) ' "$tmp/clean.txt" && fail "clean fleet: a warning or failure: $(grep -E '(Fail|Warn) ' "$tmp/clean.txt")"
"$BIN" --sim 2xH200 diag -r 1 --json 2>/dev/null | rows >"$tmp/clean.rows" || fail "clean fleet: --json does not parse"
grep -qx 'overall 1 Pass' "$tmp/clean.rows" || fail "clean fleet JSON: $(tail -1 "$tmp/clean.rows")"
[ "$(grep -c '^[01] Persistence_mode Pass$' "$tmp/clean.rows")" = 2 ] || fail "clean fleet: persistence rows"
grep -q '^- Device_files Skip$' "$tmp/clean.rows" || fail "clean fleet JSON: device files not SKIP"

# ---- faults: GPU 2 fails page retirement, GPU 3 warns, exit 23 ----
"$BIN" --sim "$scn" diag -r 1 --json >"$tmp/f.json" 2>/dev/null
rc=$?
[ $rc -eq 23 ] || fail "faults: exit $rc, want 23"
rows <"$tmp/f.json" >"$tmp/f.rows" || fail "faults: --json does not parse"
grep -qx '2 Page_retirement Fail' "$tmp/f.rows" || fail "faults: GPU 2's page retirement is not Fail"
bad=$(grep -v '^overall' "$tmp/f.rows" | grep -E ' (Fail|Warn)$' | sort | tr '\n' ';')
want="2 Page_retirement Fail;3 Compute_mode Warn;3 Persistence_mode Warn;"
[ "$bad" = "$want" ] || fail "faults: got '$bad', want '$want'"
grep -qx 'overall 1 Fail' "$tmp/f.rows" || fail "faults: overall $(tail -1 "$tmp/f.rows")"
# without GPU 2 the worst is a warning: exit 22
"$BIN" --sim "$scn" diag -r 1 -i 0,1,3 >"$tmp/w.txt" 2>/dev/null
rc=$?
[ $rc -eq 22 ] || fail "-i 0,1,3: exit $rc, want 22"
grep -q 'GPU 2' "$tmp/w.txt" && fail "-i 0,1,3: GPU 2 is in the table"
"$BIN" --sim "$scn" diag -r 1 -i 0,1 >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] || fail "-i 0,1 (clean GPUs): exit $rc, want 0"

# ---- the driver's and NVML's versions must agree ----
for v in "590.48:Pass" "12.590.48.01:Pass" "12.580.10:Fail" "595.71:Fail"; do
	printf '[sim]\nseed = 7\nclock = real\nfleet = 1xH200:idle\ndriver = 590.48.01\nnvml = %s\n' "${v%%:*}" >"$tmp/ver.scn"
	got=$("$BIN" --sim "$tmp/ver.scn" diag -r 1 --json 2>/dev/null | rows | grep '^- Driver_version ' | cut -d' ' -f3)
	[ "$got" = "${v##*:}" ] || fail "NVML ${v%%:*} with driver 590.48.01: '$got', want ${v##*:}"
done

# ---- the environment ----
CUDA_VISIBLE_DEVICES=7 "$BIN" --sim 2xH200 diag -r 1 --json >"$tmp/cvd.json" 2>/dev/null
rc=$?
[ $rc -eq 23 ] || fail "CUDA_VISIBLE_DEVICES=7: exit $rc, want 23"
python3 -c '
import json, sys
t = [t for t in json.load(open(sys.argv[1]))["tests"] if t["name"] == "CUDA_VISIBLE_DEVICES"][0]
assert t["result"] == "Fail" and "'"'"'7'"'"'" in t["message"] and "gpu" not in t, t' "$tmp/cvd.json" ||
	fail "CUDA_VISIBLE_DEVICES=7: not a system FAIL naming 7"
CUDA_VISIBLE_DEVICES=1,0 "$BIN" --sim 2xH200 diag -r 1 >/dev/null 2>&1 || fail "CUDA_VISIBLE_DEVICES=1,0: exit $?, want 0"
CUDA_LAUNCH_BLOCKING=1 CUDA_DEVICE_MAX_CONNECTIONS=1 CUDA_MPS_PIPE_DIRECTORY="$tmp/none" \
	"$BIN" --sim 2xH200 diag -r 1 --json 2>/dev/null | rows >"$tmp/env.rows"
bad=$(grep -v '^overall' "$tmp/env.rows" | grep -E ' (Fail|Warn)$' | sort | tr '\n' ';')
want="- CUDA_DEVICE_MAX_CONNECTIONS Warn;- CUDA_LAUNCH_BLOCKING Warn;- CUDA_MPS_PIPE_DIRECTORY Warn;"
[ "$bad" = "$want" ] || fail "environment: got '$bad', want '$want'"

# UUIDs, whole or a prefix as CUDA allows; an unknown UUID and an empty list fail
uuid=$("$BIN" --sim 2xH200 smi -L 2>/dev/null | sed -n 's/^GPU 1: .*(UUID: \(GPU-[^)]*\))$/\1/p')
[ -n "$uuid" ] || fail "no UUID for GPU 1 from smi -L"
for v in "$uuid" "${uuid:0:12}" "1,$uuid"; do
	CUDA_VISIBLE_DEVICES=$v "$BIN" --sim 2xH200 diag -r 1 >/dev/null 2>&1 || fail "CUDA_VISIBLE_DEVICES=$v: exit $?, want 0"
done
for v in "GPU-00000000-dead" "" "0,x"; do
	CUDA_VISIBLE_DEVICES=$v "$BIN" --sim 2xH200 diag -r 1 --json 2>/dev/null | rows >"$tmp/cvd.rows"
	grep -qx -- '- CUDA_VISIBLE_DEVICES Fail' "$tmp/cvd.rows" || fail "CUDA_VISIBLE_DEVICES='$v': not Fail"
done

# ---- what NVML answers: a corrupted InfoROM fails its GPU; an error is a Skip with NVML's words ----
cat >"$tmp/nvml.scn" <<SCN
[sim]
seed = 7
clock = real
fleet = 2xH200:idle
[gpu 1]
fault = 0s fail nvmlDeviceValidateInforom CORRUPTED_INFOROM
fault = 0s fail nvmlDeviceGetMigMode UNKNOWN
SCN
"$BIN" --sim "$tmp/nvml.scn" diag -r 1 --json >"$tmp/nvml.json" 2>/dev/null
rc=$?
[ $rc -eq 23 ] || fail "nvml faults: exit $rc, want 23"
bad=$(rows <"$tmp/nvml.json" | grep -Ev '^overall|Pass$' | sort | tr '\n' ';')
want="- Device_files Skip;0 Page_retirement Skip;1 InfoROM Fail;1 MIG_mode Skip;1 Page_retirement Skip;"
[ "$bad" = "$want" ] || fail "nvml faults: got '$bad', want '$want'"
python3 -c '
import json, sys
t = [t for t in json.load(open(sys.argv[1]))["tests"] if t["name"] == "MIG mode" and t.get("gpu") == 1][0]
assert t["message"] == "Unknown Error" and t["measured"] == "", t' "$tmp/nvml.json" || fail "nvml faults: MIG Skip without NVML's reason"

# ---- levels 2 and 3 on the simulator: CUDA tests SKIP with the reason ----
# r2 FILE LEVEL REASON-REGEX: every CUDA test is a system SKIP matching REASON, deployment still ran
r2() {
	python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["level"] == int(sys.argv[2]), d["level"]
cuda = [t for t in d["tests"] if t["category"] != "Deployment"]
names = [t["name"] for t in cuda]
want = ["CUDA context", "PCIe host to device", "PCIe device to host", "Memory bandwidth", "Memory pattern"]
want += ["Compute stress"] if sys.argv[2] == "3" else []
assert names == want, names
for t in cuda:
    assert t["result"] == "Skip" and re.fullmatch(sys.argv[3], t["message"]) and "gpu" not in t, t
assert any(t["category"] == "Deployment" and t["result"] == "Pass" for t in d["tests"])' "$1" "$2" "$3"
}
GPUWATCH_CUDA_LIBRARY=/nonexistent.so "$BIN" --sim 2xH200 diag -r 2 --json >"$tmp/r2.json" 2>/dev/null
rc=$?
[ $rc -eq 0 ] || fail "-r 2, /nonexistent.so: exit $rc, want 0"
r2 "$tmp/r2.json" 2 '/nonexistent\.so not found: .*No such file.*' || fail "-r 2, /nonexistent.so: not SKIP 'not found'"
GPUWATCH_CUDA_LIBRARY=libm.so.6 "$BIN" --sim 2xH200 diag -r 3 --json >"$tmp/r3.json" 2>/dev/null
rc=$?
[ $rc -eq 0 ] || fail "-r 3, libm: exit $rc, want 0"
r2 "$tmp/r3.json" 3 'libm\.so\.6 is not the CUDA driver: it has no cuInit' || fail "-r 3, libm: not SKIP 'not the CUDA driver'"
# the default name: whichever is true here, the driver's libcuda or none
"$BIN" --sim 2xH200 diag -r 2 --json >"$tmp/r2d.json" 2>/dev/null || fail "-r 2: exit $?, want 0"
r2 "$tmp/r2d.json" 2 'simulated GPUs have no CUDA|libcuda\.so\.1 not found: .+' || fail "-r 2: CUDA tests are not SKIP with a reason"
# a library that loads (CUDA toolkit's stub, where installed): the simulator is the reason
stub=/usr/local/cuda/lib64/stubs/libcuda.so
if [ -f "$stub" ]; then
	GPUWATCH_CUDA_LIBRARY=$stub "$BIN" --sim 2xH200 diag -r 2 --json >"$tmp/r2s.json" 2>/dev/null
	r2 "$tmp/r2s.json" 2 'simulated GPUs have no CUDA' || fail "-r 2, stub libcuda: not SKIP 'simulated GPUs have no CUDA'"
fi
grep -q '^Level 2: ' <("$BIN" --sim 2xH200 diag -r 2 2>/dev/null) || fail "-r 2: no 'Level 2:' line"

# ---- the real driver's paths: the simulator loaded as if it were NVML ----
# (not --sim, so nothing is skipped for being simulated): device files are
# checked for real, and the CUDA toolkit's stub libcuda fails cuInit
sim_lib="$(dirname "$BIN")/libgpuwatch-sim.so"
if [ -f "$sim_lib" ]; then
	mkdir -p "$tmp/dev"
	touch "$tmp/dev/nvidiactl" "$tmp/dev/nvidia-uvm" "$tmp/dev/nvidia0"
	GPUWATCH_SIM=2xH200 GPUWATCH_NVML_LIBRARY=$sim_lib GPUWATCH_DEV_DIR=$tmp/dev GPUWATCH_CUDA_LIBRARY=/nonexistent.so \
		"$BIN" diag -r 2 --json >"$tmp/real.json" 2>/dev/null
	rc=$?
	[ $rc -eq 23 ] || fail "real paths: exit $rc, want 23"
	bad=$(rows <"$tmp/real.json" | grep -v '^overall' | grep -E ' (Fail|Warn)$' | sort | tr '\n' ';')
	[ "$bad" = "1 Device_files Fail;" ] || fail "real paths: got '$bad', want only GPU 1's device file to fail"
	python3 -c '
import json, sys
ts = json.load(open(sys.argv[1]))["tests"]
dev = [t for t in ts if t["name"] == "Device files"]
assert [t["measured"].rsplit("/", 1)[1] for t in dev] == ["nvidiactl", "nvidia-uvm", "nvidia0", "nvidia1"], dev
assert "does not exist" in dev[3]["message"], dev[3]' "$tmp/real.json" || fail "real paths: device file rows"
	stub=/usr/local/cuda/lib64/stubs/libcuda.so
	if [ -f "$stub" ]; then
		GPUWATCH_SIM=2xH200 GPUWATCH_NVML_LIBRARY=$sim_lib GPUWATCH_DEV_DIR=$tmp/dev GPUWATCH_CUDA_LIBRARY=$stub \
			"$BIN" diag -r 2 --json -i 0 >"$tmp/stub.json" 2>/dev/null
		python3 -c '
import json, sys
ts = [t for t in json.load(open(sys.argv[1]))["tests"] if t["category"] != "Deployment"]
assert ts[0]["name"] == "CUDA context" and ts[0]["result"] == "Fail", ts[0]
assert ts[0]["message"].startswith("cuInit failed: CUresult "), ts[0]
assert all(t["result"] == "Skip" and t["message"] == "CUDA did not initialise" for t in ts[1:]), ts' "$tmp/stub.json" ||
			fail "stub libcuda: cuInit's failure is not the CUDA context's Fail"
	fi
fi

# ---- the CUDA tests' plumbing with tests/tools/fake_cuda.c as libcuda ----
if [ -f "$sim_lib" ] && [ -n "${GW_FAKE_CUDA:-}" ]; then
	touch "$tmp/dev/nvidia1"
	fake() { # OUT, then env assignments: diag -r 2 -i 0 with the fake
		local out=$1
		shift
		env GPUWATCH_SIM=2xH200 GPUWATCH_NVML_LIBRARY="$sim_lib" GPUWATCH_DEV_DIR="$tmp/dev" \
			GPUWATCH_CUDA_LIBRARY="$GW_FAKE_CUDA" "$@" "$BIN" diag -r 2 -i 0 --json >"$out" 2>/dev/null
	}
	# CUDA rows as "NAME RESULT | measured | message"
	cuda_rows() {
		python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["tests"]:
    if t["category"] != "Deployment":
        assert t["gpu"] == 0, t
        print("%s %s | %s | %s" % (t["name"].replace(" ", "_"), t["result"], t["measured"], t["message"]))' "$1"
	}
	fake "$tmp/fk.json"
	rc=$?
	[ $rc -eq 0 ] || fail "fake libcuda: exit $rc, want 0: $(cuda_rows "$tmp/fk.json" | grep -v ' Pass ')"
	cuda_rows "$tmp/fk.json" >"$tmp/fk.rows"
	[ "$(cut -d' ' -f1-2 "$tmp/fk.rows" | tr '\n' ';')" = "CUDA_context Pass;PCIe_host_to_device Pass;PCIe_device_to_host Pass;Memory_bandwidth Pass;Memory_pattern Pass;" ] ||
		fail "fake libcuda: $(cat "$tmp/fk.rows")"
	grep -q '^CUDA_context Pass | 0000:.* | CUDA device 0, 4 multiprocessors$' "$tmp/fk.rows" || fail "fake: context row: $(head -1 "$tmp/fk.rows")"
	grep -q '^PCIe_host_to_device Pass | [0-9.]* GB/s | [0-9]*% of the link.s 63.0 GB/s$' "$tmp/fk.rows" || fail "fake: PCIe row is not against gen 5 x16"
	grep -q '^Memory_bandwidth Pass | .* | [0-9]*% of the peak 16 GB/s (1000 MHz x 64 bits x 2)$' "$tmp/fk.rows" || fail "fake: memory bandwidth row"
	grep -q '^Memory_pattern Pass | 0 wrong words' "$tmp/fk.rows" || fail "fake: pattern row"
	fake "$tmp/fk.json" FAKE_CUDA_BAD_WORDS=3
	grep -q '^Memory_pattern Fail | 3 wrong words' <(cuda_rows "$tmp/fk.json") || fail "fake: 3 bad words do not fail the pattern test"
	fake "$tmp/fk.json" FAKE_CUDA_FAIL=cuLaunchKernel
	rc=$?
	[ $rc -eq 23 ] || fail "fake, cuLaunchKernel fails: exit $rc, want 23"
	grep -q '^Memory_bandwidth Fail |  | the copy kernel failed: CUresult 999: fake failure$' <(cuda_rows "$tmp/fk.json") ||
		fail "fake, cuLaunchKernel fails: $(cuda_rows "$tmp/fk.json")"
	fake "$tmp/fk.json" FAKE_CUDA_FAIL=cuCtxCreate_v2
	cuda_rows "$tmp/fk.json" >"$tmp/fk.rows"
	grep -q '^CUDA_context Fail | .* | cuCtxCreate failed: CUresult 999: fake failure$' "$tmp/fk.rows" || fail "fake, no context: $(head -1 "$tmp/fk.rows")"
	[ "$(grep -c ' Skip |  | no usable CUDA context on this GPU$' "$tmp/fk.rows")" = 4 ] || fail "fake, no context: the rest are not Skip"
	fake "$tmp/fk.json" FAKE_CUDA_FAIL=cuMemHostAlloc
	[ "$(cuda_rows "$tmp/fk.json" | grep -c '^PCIe_.* Fail |  | allocating the buffers failed: CUresult 999')" = 2 ] ||
		fail "fake, no pinned memory: $(cuda_rows "$tmp/fk.json")"
	# level 3: an XID during GPU 0's stress fails it; GPU 1's hardware thermal slowdown warns
	cat >"$tmp/stress.scn" <<SCN
[sim]
seed = 7
clock = real
fleet = 2xH200:idle
[gpu 0]
fault = 2s xid 79
[gpu 1]
clock_reasons = 0x40
SCN
	env GPUWATCH_SIM="$tmp/stress.scn" GPUWATCH_NVML_LIBRARY="$sim_lib" GPUWATCH_DEV_DIR="$tmp/dev" \
		GPUWATCH_CUDA_LIBRARY="$GW_FAKE_CUDA" "$BIN" diag -r 3 --stress 3 --json >"$tmp/st.json" 2>/dev/null
	rc=$?
	[ $rc -eq 23 ] || fail "stress: exit $rc, want 23"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["level"] == 3
st = {t["gpu"]: t for t in d["tests"] if t["name"] == "Compute stress"}
assert st[0]["result"] == "Fail" and st[0]["message"].startswith("XID 79 under load"), st[0]
assert st[0]["measured"].endswith("; 1 XIDs"), st[0]
assert st[1]["result"] == "Warn" and "0x40" in st[1]["message"], st[1]' "$tmp/st.json" || fail "stress: verdicts"
	CUDA_VISIBLE_DEVICES=0 fake "$tmp/fk.json" FAKE_CUDA_FAIL=cuDeviceGetByPCIBusId
	grep -q '^CUDA_context Skip | .* | CUDA_VISIBLE_DEVICES=0 hides this GPU from CUDA' <(cuda_rows "$tmp/fk.json") ||
		fail "fake, hidden GPU: not Skip"
fi

# ---- usage ----
for bad in "-r 4" "-r 0" "-r x" "" "-r 1 extra" "--bogus" "-r 3 --stress 0" "-r 3 --stress x" "-r 3 --stress 3601"; do
	# shellcheck disable=SC2086
	"$BIN" --sim 2xH200 diag $bad >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	[ $rc -eq 2 ] || fail "diag $bad: exit $rc, want 2"
	[ -s "$tmp/bad.err" ] || fail "diag $bad: no message on stderr"
done
grep -q 'level is 1, 2 or 3' <("$BIN" --sim 2xH200 diag -r 4 2>&1) || fail "-r 4: message does not name the levels"
"$BIN" diag --help >"$tmp/help" 2>&1 || fail "--help: exit $?"
grep -q 'usage: gpuwatch diag -r LEVEL' "$tmp/help" || fail "--help: no usage line"
grep -q ' 22 a warning' "$tmp/help" || fail "--help: no exit codes"

[ "$fails" -eq 0 ] && echo "diag: all checks passed"
[ "$fails" -eq 0 ]
