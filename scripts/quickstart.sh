#!/usr/bin/env bash
# Build gpuwatch and run the agent with its page and the rule pack on this
# machine's GPUs, or on the simulated fleet (clearly labelled) when no
# NVIDIA driver is present.
# Usage: scripts/quickstart.sh [agent options], e.g. -a :9400
# GPUWATCH_SKIP_BUILD=1 uses build/ as it is (tests/integration/readme_steps.sh,
# whose tree is built already); GPUWATCH_ADDRESS sets the listen address.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${GPUWATCH_SKIP_BUILD:-}" = 1 ] || scripts/build.sh
sim=()
if build/gpuwatch smi -L >/dev/null 2>&1; then
	build/gpuwatch smi
else
	echo "gpuwatch: no NVIDIA driver found; running on the SIMULATED fleet (--sim 8xH200:training)"
	sim=(--sim 8xH200:training)
	build/gpuwatch "${sim[@]}" smi
fi
addr=${GPUWATCH_ADDRESS:-:9400}
echo
echo "agent: http://localhost:${addr##*:}/ (metrics at /metrics, alerts of deploy/rules at /api/v1/alerts); Ctrl-C to stop"
exec build/gpuwatch "${sim[@]}" agent -a "$addr" --rules 'deploy/rules/*.yml' "$@"
