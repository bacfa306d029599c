#!/usr/bin/env bash
# The shipped systemd unit, checked as systemd reads it: no unknown keys or
# misplaced settings (systemd-analyze verify), its sandbox at most
# "OK" exposure (systemd-analyze security, offline), and a history store in
# the unit's own StateDirectory (the service's working directory is /).
. "$(dirname "$0")/../lib/common.sh"
unit="$GW_TEST_DATA/../deploy/systemd/gpuwatch-agent.service"
if ! command -v systemd-analyze >/dev/null; then
	echo "systemd-analyze not installed (scripts/deps.sh test installs systemd); skipped"
	exit 77
fi
# verify wants the binary the unit names: point it at the one under test.
sed "s#/usr/local/bin/gpuwatch#$GW_BIN#" "$unit" >"$tmp/gpuwatch-agent.service"
out=$(systemd-analyze verify "$tmp/gpuwatch-agent.service" 2>&1)
# Units it names that this machine lacks (nvidia-persistenced) are not the unit's fault.
bad=$(echo "$out" | grep -v 'nvidia-persistenced' | grep -v '^$' || true)
[ -z "$bad" ] || fail "systemd-analyze verify: $bad"
sec=$(systemd-analyze security --offline=yes --threshold=30 "$tmp/gpuwatch-agent.service" 2>&1) ||
	fail "exposure above 3.0: $(echo "$sec" | tail -1)"
echo "$sec" | tail -1
level=$(echo "$sec" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
[ -n "$level" ] || fail "no exposure level in: $(echo "$sec" | tail -2)"
for key in NoNewPrivileges=yes CapabilityBoundingSet= ProtectSystem=strict SystemCallFilter=@system-service \
	StateDirectory=gpuwatch; do
	grep -q "^$key\$" "$unit" || fail "the unit lacks $key"
done
grep -q '^ExecStart=.* --storage.path /var/lib/gpuwatch' "$unit" || fail "ExecStart keeps no history in StateDirectory"
# The flags the unit passes are ones the agent takes.
args=$(sed -n 's/^ExecStart=[^ ]* agent \(.*\) \$GPUWATCH_AGENT_ARGS$/\1/p' "$unit")
[ -n "$args" ] || fail "cannot read ExecStart's flags"
# shellcheck disable=SC2086
"$GW_BIN" --sim 1xH200 agent $args --help >/dev/null 2>&1 || fail "the agent refuses the unit's flags: $args"
echo "$((5 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
