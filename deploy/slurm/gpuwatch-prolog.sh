#!/usr/bin/env bash
# gpuwatch-prolog.sh - Slurm Prolog (slurm.conf Prolog=, or a file in
# prolog.d/): adds the job's ID to the mapping file of each GPU it was given,
# so the agent (--hpc-job-mapping-dir) labels those GPUs' series hpc_job="ID"
# from its next sample. Always exits 0: monitoring never stops a job.
# See docs/SLURM.md.
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=gpuwatch-common.sh
. "$(dirname "$(readlink -f "$0")")/gpuwatch-common.sh" || exit 0

main() {
	local id gpus g
	id=$(gw_job_id) || { gw_log "no numeric SLURM_JOB_ID; nothing done"; return 0; }
	gpus=$(gw_job_gpus)
	[ -n "$gpus" ] || return 0 # a job without GPUs
	mkdir -p "$GPUWATCH_HPC_JOB_DIR" 2>/dev/null || { gw_log "cannot create $GPUWATCH_HPC_JOB_DIR"; return 0; }
	for g in $gpus; do
		gw_locked gw_edit "$g" "$id" add || gw_log "GPU $g: mapping not written"
	done
}
main
exit 0
