#!/usr/bin/env bash
# Build gpuwatch and show the GPUs of this machine, or the simulated fleet
# when no NVIDIA driver is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
if build/gpuwatch smi -L >/dev/null 2>&1; then
	exec build/gpuwatch smi
fi
echo "gpuwatch: no NVIDIA driver found; showing the SIMULATED fleet (--sim 8xH200:training)"
echo
build/gpuwatch --sim 8xH200:training smi
echo
echo "SIMULATED device monitor (Ctrl-C to stop):"
exec build/gpuwatch --sim 8xH200:training dmon
