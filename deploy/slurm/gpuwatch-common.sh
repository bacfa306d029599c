# shellcheck shell=bash
# gpuwatch-common.sh - what gpuwatch-prolog.sh and gpuwatch-epilog.sh share:
# the settings, the job's GPU list and the locked, atomic rewrite of the
# per-GPU mapping files the agent reads (--hpc-job-mapping-dir). Sourced,
# never run. Nothing here may fail the job: every error is logged and the
# caller exits 0.

# Settings: /etc/default/gpuwatch-slurm (or $GPUWATCH_SLURM_CONF) may set any.
GPUWATCH_SLURM_CONF=${GPUWATCH_SLURM_CONF:-/etc/default/gpuwatch-slurm}
# shellcheck disable=SC1090
[ -r "$GPUWATCH_SLURM_CONF" ] && . "$GPUWATCH_SLURM_CONF"
GPUWATCH_BIN=${GPUWATCH_BIN:-/usr/bin/gpuwatch}
GPUWATCH_HPC_JOB_DIR=${GPUWATCH_HPC_JOB_DIR:-/run/gpuwatch/hpc-jobs}
GPUWATCH_URL=${GPUWATCH_URL:-http://127.0.0.1:9400}
GPUWATCH_SUMMARY_DIR=${GPUWATCH_SUMMARY_DIR:-/var/lib/gpuwatch/jobs}
GPUWATCH_REPORT_TIMEOUT=${GPUWATCH_REPORT_TIMEOUT:-30}

gw_log() { # message: to syslog when logger exists, else standard error
	if command -v logger >/dev/null 2>&1; then
		logger -t gpuwatch-slurm -- "job=${SLURM_JOB_ID:-?} $*" 2>/dev/null || true
	fi
	echo "gpuwatch-slurm: job=${SLURM_JOB_ID:-?} $*" >&2
}

# The job ID, checked: digits, and _ for array tasks is not used by Slurm here.
gw_job_id() {
	case "${SLURM_JOB_ID:-}" in
	'' | *[!0-9]*) return 1 ;;
	*) printf '%s\n' "$SLURM_JOB_ID" ;;
	esac
}

# The job's GPU indexes, one a line: SLURM_JOB_GPUS (Prolog/Epilog), else
# SLURM_STEP_GPUS (TaskProlog), else CUDA_VISIBLE_DEVICES; "0,2-3" style
# lists; UUIDs and other non-index entries are skipped with a log line.
gw_job_gpus() {
	local list=${SLURM_JOB_GPUS:-${SLURM_STEP_GPUS:-${CUDA_VISIBLE_DEVICES:-}}} item a b
	local IFS=,
	for item in $list; do
		case "$item" in
		'' | *[!0-9-]*) gw_log "GPU '$item' is not an index; skipped" ;;
		*-*)
			a=${item%-*} b=${item#*-}
			case "$a$b" in '' | *[!0-9]*) gw_log "GPU range '$item' skipped"; continue ;; esac
			while [ "$a" -le "$b" ]; do printf '%s\n' "$a"; a=$((a + 1)); done
			;;
		*) printf '%s\n' "$((10#$item))" ;;
		esac
	done
}

# gw_edit GPU ID add|remove: rewrite the GPU's mapping file under the
# directory's lock: the lines other than ID, plus ID when adding; written to
# a temporary file in the same directory and renamed over it, so the agent
# never reads half a file; removed when no job is left.
# shellcheck disable=SC2317 # run through gw_locked
gw_edit() {
	local f="$GPUWATCH_HPC_JOB_DIR/$1" tmp="$GPUWATCH_HPC_JOB_DIR/.$1.$2.$$"
	{
		if [ -f "$f" ]; then grep -vx -- "$2" "$f" || true; fi
		if [ "$3" = add ]; then printf '%s\n' "$2"; fi
	} >"$tmp" || { rm -f "$tmp"; return 1; }
	if [ -s "$tmp" ]; then
		chmod 0644 "$tmp" && mv -f "$tmp" "$f"
	else
		rm -f "$tmp" "$f"
	fi
}

# gw_locked CMD...: CMD under an exclusive lock on the mapping directory, so
# concurrent prologs and epilogs of jobs sharing a GPU do not lose each
# other's lines (flock when present, else a mkdir lock).
gw_locked() {
	local lock="$GPUWATCH_HPC_JOB_DIR/.lock" rc i
	if command -v flock >/dev/null 2>&1; then
		(
			flock -w 30 9 || { gw_log "mapping lock not taken in 30 s"; exit 1; }
			"$@"
		) 9>>"$lock"
		return $?
	fi
	for i in $(seq 300); do
		mkdir "$lock.d" 2>/dev/null && break
		[ "$i" = 300 ] && { gw_log "mapping lock not taken in 30 s"; return 1; }
		sleep 0.1
	done
	"$@"
	rc=$?
	rmdir "$lock.d"
	return "$rc"
}
