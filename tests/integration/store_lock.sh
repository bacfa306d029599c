#!/usr/bin/env bash
# One writer per store: while an agent holds DIR, `import` and `sim record`
# are refused with the holder's pid and import nothing; readers (`query`)
# still read. The lock is the kernel's (flock), so kill -9 of the holder
# leaves nothing stale: the next writer gets the store at once. An import
# holds it too: an agent started beside it is refused.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
command -v curl >/dev/null && command -v python3 >/dev/null || { echo "skipped: curl or python3 missing"; exit 77; }
tmp=$(mktemp -d)
apid= ipid=
cleanup() {
	[ -n "$apid" ] && kill -9 "$apid" 2>/dev/null
	[ -n "$ipid" ] && kill -9 "$ipid" 2>/dev/null
	exec 7>&- 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

cat >"$tmp/log.csv" <<'LOG'
timestamp, index, temperature.gpu
2026/07/03 10:00:00.000, 0, 55
2026/07/03 10:00:01.000, 0, 56
LOG

"$BIN" --sim 1xH100 agent -a "127.0.0.1:$port" -c 200 --storage.flush-interval 300ms --storage.path "$tmp/data" \
	2>"$tmp/agent.err" &
apid=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.1; done
grep -qx "$apid agent" "$tmp/data/gpuwatch.lock" || fail "lock file: '$(cat "$tmp/data/gpuwatch.lock" 2>&1)'"

# A second writer is refused with the reason, and writes nothing.
TZ=UTC "$BIN" import --storage.path "$tmp/data" "$tmp/log.csv" >"$tmp/imp.out" 2>"$tmp/imp.err"
rc=$?
[ "$rc" = 1 ] || fail "import beside the agent exited $rc, want 1"
grep -q "^gpuwatch import: the store $tmp/data is held by a running agent (pid $apid); stop it or import through it: gpuwatch import --agent" \
	"$tmp/imp.err" || fail "import refusal: $(cat "$tmp/imp.err")"
[ -s "$tmp/imp.out" ] && fail "a refused import printed a summary: $(cat "$tmp/imp.out")"
"$BIN" --sim 1xH100 sim record --duration 10s --storage.path "$tmp/data" >/dev/null 2>"$tmp/rec.err" &&
	fail "sim record beside the agent exited 0"
grep -q "held by a running agent (pid $apid)" "$tmp/rec.err" || fail "sim record refusal: $(cat "$tmp/rec.err")"

# Readers take no lock.
sleep 1.5
out=$("$BIN" query --storage.path "$tmp/data" 'count(DCGM_FI_DEV_GPU_TEMP)' 2>&1)
echo "$out" | grep -q '=> 1 @' || fail "query beside the agent: $out"

# kill -9: nothing stale; the import gets the store at once.
kill -9 "$apid"
wait "$apid" 2>/dev/null
apid=
TZ=UTC "$BIN" import --storage.path "$tmp/data" "$tmp/log.csv" >"$tmp/imp2.out" 2>"$tmp/imp2.err" ||
	fail "import after kill -9 of the agent: $(cat "$tmp/imp2.err")"
got=$("$BIN" query --storage.path "$tmp/data" --time 1783072801 'DCGM_FI_DEV_GPU_TEMP{job="nvidia-smi-import"}' 2>&1)
echo "$got" | grep -q '=> 56 @' || fail "imported sample after the agent's kill: $got"

# An import holds the store while it reads (standard input kept open).
mkfifo "$tmp/fifo"
"$BIN" import --storage.path "$tmp/data" - <"$tmp/fifo" >/dev/null 2>"$tmp/imp3.err" &
ipid=$!
exec 7>"$tmp/fifo"
for _ in $(seq 50); do grep -q "^$ipid import$" "$tmp/data/gpuwatch.lock" 2>/dev/null && break; sleep 0.1; done
grep -qx "$ipid import" "$tmp/data/gpuwatch.lock" || fail "import's lock file: '$(cat "$tmp/data/gpuwatch.lock")'"
"$BIN" --sim 1xH100 agent -a "127.0.0.1:$port" -c 200 --storage.path "$tmp/data" >/dev/null 2>"$tmp/agent2.err" &
apid=$!
for _ in $(seq 50); do kill -0 "$apid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$apid" 2>/dev/null; then
	fail "an agent started beside an import is running"
else
	wait "$apid"
	[ $? != 0 ] || fail "refused agent exited 0"
	grep -q "held by a running import (pid $ipid)" "$tmp/agent2.err" || fail "agent refusal: $(cat "$tmp/agent2.err")"
fi
apid=
kill -9 "$ipid"
wait "$ipid" 2>/dev/null
ipid=
exec 7>&-
"$BIN" --sim 1xH100 agent -a "127.0.0.1:$port" -c 200 --storage.path "$tmp/data" 2>"$tmp/agent3.err" &
apid=$!
ok=0
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && { ok=1; break; }; sleep 0.1; done
[ "$ok" = 1 ] || fail "agent after kill -9 of the import: $(cat "$tmp/agent3.err")"
kill -TERM "$apid"
wait "$apid"
apid=

[ "$fails" = 0 ] && echo "ok: one writer per store, refusals name the holder, kill -9 leaves no stale lock"
exit $((fails > 0))
