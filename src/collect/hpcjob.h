/*
 * hpcjob.h - which HPC jobs use each GPU, from dcgm-exporter's job-mapping
 * directory (`--hpc-job-mapping-dir DIR`, env DCGM_HPC_JOB_MAPPING_DIR).
 *
 * The workload manager's prolog writes DIR/<index>, one file per GPU named
 * by its NVML index ("0", "1", ...), holding the ids of the jobs using that
 * GPU, one per line; its epilog empties or removes the file. Every series
 * of a GPU with jobs is then published once per job with an hpc_job label.
 * What dcgm-exporter does, and gpuwatch with it: file names are the decimal
 * GPU index ("00", "+0", "GPU-<uuid>" never match a GPU); sub-directories
 * are skipped; a GPU without a file, or with an empty one, gets no label;
 * ids repeated in a file count once, in first-seen order; the directory and
 * the files are looked at again on every sample, and a missing directory
 * means no labels, not a failure. Files named GPU.INSTANCE are dcgm-exporter's
 * per-MIG-instance mapping; gpuwatch has no per-instance series, so they are
 * listed as ignored.
 *
 * Where dcgm-exporter is silent or fails the whole scrape, gpuwatch is
 * stricter and never fails: each line is trimmed of white space; blank lines
 * are skipped (dcgm-exporter would publish hpc_job=""); lines that are not
 * printable UTF-8 or are longer than GW_HPCJOB_ID_MAX bytes are skipped;
 * at most GW_HPCJOB_MAX_JOBS ids per GPU are kept; a file larger than
 * GW_HPCJOB_FILE_MAX bytes, holding a NUL byte, or that is not a regular
 * file (a FIFO would block the reader; a device never ends) is not read and
 * gives no label; an unreadable file gives no label for that GPU only. Each
 * such problem is reported once, when it appears or changes, through
 * opts.log (the agent logs it), never again while it persists.
 *
 * Cost per poll: one stat() of the directory and one of each GPU's file; a
 * file is read only when its inode, size, mtime or ctime changed, or while
 * its mtime is under two seconds old (a rewrite within one file-time tick
 * keeps both times; reading again until the file is older closes that
 * window). The directory is listed only when its mtime changes, to report
 * names that map to no GPU.
 *
 * Ownership: gw_hpcjob_new() / gw_hpcjob_free(). Job lists are immutable
 * once published and reference counted: the watcher holds the current list
 * of each GPU, and each sampler frame holds the lists it shows.
 * Threading: the watcher and the reference counts belong to one thread (the
 * sampler's); other threads may read a list while they hold a frame that
 * references it.
 */
#ifndef GW_COLLECT_HPCJOB_H
#define GW_COLLECT_HPCJOB_H

#include "core/err.h"

#include <stdbool.h>
#include <stdint.h>

#define GW_HPCJOB_MAX_JOBS 32	 /* ids kept per GPU; GPU sharing rarely runs more jobs */
#define GW_HPCJOB_ID_MAX 64	 /* bytes; Slurm ids ("123456", "4242_17", "99+1") are far shorter */
#define GW_HPCJOB_FILE_MAX 65536 /* bytes; a mapping file holds a few short lines */

/* The jobs on one GPU: immutable once published. */
struct gw_hpcjobs {
	uint64_t gen;	   /* unique per list of one watcher: tells lists apart after one is freed */
	unsigned int refs; /* the owning thread only */
	unsigned int n;	   /* 1..GW_HPCJOB_MAX_JOBS: a GPU without jobs has no list */
	const char *id[GW_HPCJOB_MAX_JOBS];
	char text[]; /* the ids, NUL-terminated one after another */
};

void gw_hpcjobs_ref(struct gw_hpcjobs *j);
void gw_hpcjobs_unref(struct gw_hpcjobs *j); /* NULL is a no-op */

/* What a poll found worth a log line. */
enum gw_hpcjob_event_kind {
	GW_HPCJOB_DIR_DOWN,	 /* the directory cannot be read: no GPU has jobs (err) */
	GW_HPCJOB_DIR_UP,	 /* readable (again) */
	GW_HPCJOB_FILE_BAD,	 /* a GPU's file is not used: why, err when a call failed */
	GW_HPCJOB_LINES_SKIPPED, /* some lines of a GPU's file were skipped (counts below) */
	GW_HPCJOB_JOBS,		 /* a GPU's jobs changed (jobs: the new list, NULL for none) */
	GW_HPCJOB_IGNORED,	 /* entries that name no GPU here: count, and the first one */
};

struct gw_hpcjob_event {
	enum gw_hpcjob_event_kind kind;
	int gpu;	  /* NVML index; -1 for the directory */
	const char *path; /* the file or directory */
	int err;	  /* errno of the failed call; 0 when none failed */
	const char *why;  /* GW_HPCJOB_FILE_BAD: what is wrong, e.g. "not a regular file" */
	const struct gw_hpcjobs *jobs;
	unsigned int too_long, bad_text, over_cap; /* GW_HPCJOB_LINES_SKIPPED */
	unsigned int ignored;			   /* GW_HPCJOB_IGNORED */
	const char *first_ignored;
};

typedef void (*gw_hpcjob_log_fn)(void *arg, const struct gw_hpcjob_event *e);

struct gw_hpcjob_opts {
	gw_hpcjob_log_fn log; /* called on the polling thread; NULL: nothing is reported */
	void *log_arg;
};

struct gw_hpcjob;

/* Watch dir for the GPUs with these NVML indexes. Returns 0 or GW_ENOMEM / GW_EINVAL. */
int gw_hpcjob_new(struct gw_hpcjob **out, const char *dir, const unsigned int *index, unsigned int n,
		  const struct gw_hpcjob_opts *opts, struct gw_err *err);
void gw_hpcjob_free(struct gw_hpcjob *h); /* NULL is a no-op; lists still referenced stay valid */

/* Look at the directory again; returns true when any GPU's jobs changed. */
bool gw_hpcjob_poll(struct gw_hpcjob *h);

/* The current jobs of the GPU with this NVML index (borrowed; ref to keep), NULL for none. */
struct gw_hpcjobs *gw_hpcjob_get(const struct gw_hpcjob *h, unsigned int index);

/* Files read since gw_hpcjob_new (tests check that unchanged files are not re-read). */
uint64_t gw_hpcjob_reads(const struct gw_hpcjob *h);

/*
 * Parse a mapping file's text (len bytes; NULs allowed) into *out: NULL for
 * no jobs. Fills the skipped-line counts of *ev. Returns 0, GW_EPARSE for a
 * file with a NUL byte, or GW_ENOMEM.
 */
int gw_hpcjob_parse(const char *text, size_t len, uint64_t gen, struct gw_hpcjobs **out,
		    struct gw_hpcjob_event *ev);

#endif
