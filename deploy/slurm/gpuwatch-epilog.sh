#!/usr/bin/env bash
# gpuwatch-epilog.sh - Slurm Epilog: removes the job's ID from every GPU's
# mapping file (all of them, should the job's GPU list be missing), then
# writes the job's summary, `gpuwatch report --job ID` over the agent's
# history (GPU hours, mean utilisation, peak memory, energy, findings), as
# JSON to $GPUWATCH_SUMMARY_DIR/ID.json and as text next to the job's output
# (SLURM_JOB_STDOUT's directory, else SLURM_JOB_WORK_DIR or
# SLURM_SUBMIT_DIR, owned by SLURM_JOB_UID) as gpuwatch-job-ID.txt. Always
# exits 0; without gpuwatch, the summary is skipped. See docs/SLURM.md.
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# shellcheck source=gpuwatch-common.sh
. "$(dirname "$(readlink -f "$0")")/gpuwatch-common.sh" || exit 0

# shellcheck disable=SC2317 # run through gw_locked
unmap() { # ID: out of every GPU's file
	local f
	for f in "$GPUWATCH_HPC_JOB_DIR"/*; do
		[ -f "$f" ] || continue
		case "${f##*/}" in *[!0-9]*) continue ;; esac
		grep -qx -- "$1" "$f" && { gw_edit "${f##*/}" "$1" remove || gw_log "GPU ${f##*/}: mapping not updated"; }
	done
	return 0
}

# report ID FORMAT OUT: the job's report written atomically to OUT
report() {
	local tmp="$3.tmp.$$" t=()
	command -v timeout >/dev/null 2>&1 && t=(timeout "$GPUWATCH_REPORT_TIMEOUT")
	if "${t[@]}" "$GPUWATCH_BIN" report --url "$GPUWATCH_URL" --job "$1" --format "$2" -o "$tmp" 2>"$tmp.err"; then
		mv -f "$tmp" "$3"
		rm -f "$tmp.err"
		return 0
	fi
	gw_log "no $2 summary: $(head -c 300 "$tmp.err" 2>/dev/null)"
	rm -f "$tmp" "$tmp.err"
	return 1
}

outdir() { # where the job's output went, if known
	local d=
	if [ -n "${SLURM_JOB_STDOUT:-}" ]; then d=$(dirname "$SLURM_JOB_STDOUT"); fi
	[ -n "$d" ] || d=${SLURM_JOB_WORK_DIR:-${SLURM_SUBMIT_DIR:-}}
	[ -n "$d" ] && [ -d "$d" ] && printf '%s\n' "$d"
}

main() {
	local job d
	job=$(gw_job_id) || { gw_log "no numeric SLURM_JOB_ID; nothing done"; return 0; }
	[ -d "$GPUWATCH_HPC_JOB_DIR" ] && gw_locked unmap "$job"
	[ -x "$GPUWATCH_BIN" ] || return 0
	[ -n "$(gw_job_gpus)" ] || return 0 # a job without GPUs has no summary
	if mkdir -p "$GPUWATCH_SUMMARY_DIR" 2>/dev/null; then
		report "$job" json "$GPUWATCH_SUMMARY_DIR/$job.json" || return 0
	fi
	d=$(outdir) || return 0
	local out="$d/gpuwatch-job-$job.txt"
	if [ "$(id -u)" = 0 ] && [ -n "${SLURM_JOB_UID:-}" ]; then
		# as the job's user: root must not write where the user could have placed a link
		if command -v setpriv >/dev/null 2>&1; then
			setpriv --reuid="$SLURM_JOB_UID" --regid="${SLURM_JOB_GID:-$SLURM_JOB_UID}" \
				--clear-groups "$GPUWATCH_BIN" report --url "$GPUWATCH_URL" --job "$job" --format text -o "$out" 2>/dev/null ||
				gw_log "no text summary in $d"
		fi
	else
		report "$job" text "$out" || true
	fi
}
main
exit 0
