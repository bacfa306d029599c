#!/bin/sh
# drain-slurm.sh - a gpuwatch policy action (exec): drain this node in
# Slurm, so no new job lands on it while a GPU is failing; running jobs
# finish. The agent runs it with the firing in its environment:
#   GPUWATCH_GPU_INDEX, GPUWATCH_GPU_UUID, GPUWATCH_CONDITION, GPUWATCH_VALUE
# and the reason Slurm shows (`sinfo -R`) names them.
#
# Environment it reads beside those:
#   SLURM_NODENAME  the node's name in Slurm (default: `hostname -s`)
#   SCONTROL        the scontrol program (default: scontrol on PATH)
# Exit: scontrol's status; 2 when the firing's variables are missing.
# Needs: the agent's user may run `scontrol update` (root, SlurmUser, or an
# operator in slurm.conf's AuthAltTypes / a sudo rule that SCONTROL names).
set -u
: "${GPUWATCH_GPU_INDEX:?not run by a gpuwatch policy: GPUWATCH_GPU_INDEX is unset}"
: "${GPUWATCH_CONDITION:?not run by a gpuwatch policy: GPUWATCH_CONDITION is unset}"
node=${SLURM_NODENAME:-$(hostname -s)}
scontrol=${SCONTROL:-scontrol}
reason="gpuwatch: GPU $GPUWATCH_GPU_INDEX (${GPUWATCH_GPU_UUID:-?}) $GPUWATCH_CONDITION=${GPUWATCH_VALUE:-}"
if ! command -v "$scontrol" >/dev/null 2>&1; then
	echo "drain-slurm.sh: $scontrol not found: cannot drain $node ($reason)" >&2
	exit 127
fi
exec "$scontrol" update nodename="$node" state=drain reason="$reason"
