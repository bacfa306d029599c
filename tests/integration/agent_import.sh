#!/usr/bin/env bash
# `gpuwatch import --agent URL` sends what it reads to a running agent
# (started with --web.enable-import), which stores it in the store it holds:
# the samples answer the agent's queries at once. An agent without the flag,
# or none at all, is a one-line error; an import into the held store itself
# is refused pointing at --agent.
set -u
BIN=${GW_BIN:?GW_BIN must point at the gpuwatch binary}
DATA=${GW_TEST_DATA:?GW_TEST_DATA must point at tests/}/data/import
command -v curl >/dev/null && command -v python3 >/dev/null || { echo "skipped: curl or python3 missing"; exit 77; }
tmp=$(mktemp -d)
apid=
cleanup() { [ -n "$apid" ] && kill "$apid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export TZ=UTC
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
start_agent() {
	"$BIN" --sim 1xH100 agent -a "127.0.0.1:$port" -c 500 --storage.path "$tmp/data" "$@" 2>>"$tmp/agent.err" &
	apid=$!
	for _ in $(seq 100); do curl -sf -o /dev/null "$url/health" && return; sleep 0.1; done
	fail "agent did not start: $(tail -3 "$tmp/agent.err")"
}
stop_agent() { kill -TERM "$apid"; wait "$apid"; apid=; }
api() { curl -s --data-urlencode "query=$1" --data-urlencode "time=$2" "$url/api/v1/query"; }

start_agent --web.enable-import
"$BIN" import --agent "$url" "$DATA/query_loop.txt" >"$tmp/i.out" 2>"$tmp/i.err"
rc=$?
if grep -q "cannot load" "$tmp/i.err"; then echo "skipped: $(cat "$tmp/i.err")"; exit 77; fi
[ "$rc" = 3 ] || fail "import --agent exited $rc, want 3 (a bad line): $(cat "$tmp/i.err")"
grep -q "query_loop.txt: 65 lines, 3 rows, 50 samples imported, 1 bad lines" "$tmp/i.out" ||
	fail "summary: $(cat "$tmp/i.out")"
grep -q 'query_loop.txt:63: "fifty C" is not a value of temperature.gpu' "$tmp/i.err" || fail "bad line: $(cat "$tmp/i.err")"
# at once, through the agent's own API (no restart, no flush wait)
got=$(api 'DCGM_FI_DEV_FB_USED{gpu="0",job="nvidia-smi-import"}' 1796205600)
echo "$got" | grep -q '"value":\[1796205600,"40112"\]' || fail "agent's query after import: $got"
got=$(api 'DCGM_FI_DEV_POWER_USAGE{gpu="0",job="nvidia-smi-import"}' 1796205660)
echo "$got" | grep -q '"301.25"' || fail "second report's power: $got"
# the same again: every sample is already there
"$BIN" import -q --agent "$url" "$DATA/query_loop.txt" >"$tmp/i2.out" 2>&1
grep -q "0 samples imported, .*older than the store's newest were refused" "$tmp/i2.out" || fail "re-import: $(cat "$tmp/i2.out")"
# into the store itself: refused, pointing at --agent
"$BIN" import --storage.path "$tmp/data" "$DATA/dmon_dt.txt" >/dev/null 2>"$tmp/d.err" && fail "direct import beside the agent exited 0"
grep -q "held by a running agent (pid $apid); stop it or import through it: gpuwatch import --agent" "$tmp/d.err" ||
	fail "direct import refusal: $(cat "$tmp/d.err")"
"$BIN" import --agent "$url" --storage.path "$tmp/data" "$DATA/dmon_dt.txt" >/dev/null 2>"$tmp/both.err"
[ $? = 2 ] || fail "--agent with --storage.path: want exit status 2"
stop_agent

# kept in the store: after a restart without the flag the import is there
start_agent
got=$(api 'DCGM_FI_DEV_FB_USED{gpu="0",job="nvidia-smi-import"}' 1796205600)
echo "$got" | grep -q '"40112"' || fail "imported samples after a restart: $got"
"$BIN" import --agent "$url" "$DATA/dmon_dt.txt" >/dev/null 2>"$tmp/n.err"
[ $? = 1 ] || fail "import into an agent without --web.enable-import: want exit status 1"
grep -q "takes no imports (HTTP 404): start it with --web.enable-import" "$tmp/n.err" || fail "no-flag message: $(cat "$tmp/n.err")"
stop_agent
"$BIN" import --agent "$url" "$DATA/dmon_dt.txt" >/dev/null 2>"$tmp/x.err"
[ $? = 1 ] || fail "import into no agent: want exit status 1"
grep -q "cannot reach the agent at $url/api/v1/import" "$tmp/x.err" || fail "no-agent message: $(cat "$tmp/x.err")"

[ "$fails" = 0 ] && echo "ok: import --agent is queryable at once; refusals say what to do"
exit $((fails > 0))
