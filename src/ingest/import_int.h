/*
 * import_int.h - what the text importers (import_table.c, import_query.c,
 * import_mon.c) share: the line loop with its bounds, checkpoints and
 * progress, bad-line reports, and one field value to its series.
 * Threading: none.
 */
#ifndef GW_INGEST_IMPORT_INT_H
#define GW_INGEST_IMPORT_INT_H

#include "ingest/import_text.h"

#define INGEST_LINE_MAX (64 * 1024)

struct ingest {
	const struct gw_import_opts *o;
	struct gw_import_stats *st;
	/* set by a line handler to stop the import (a log that cannot be read at all) */
	int stop_rc;
	struct gw_err stop_err;
};

/* Report the current line as bad (printf-style reason) and count it. */
void ingest_bad(struct ingest *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Stop the import with this error (kept for the caller); later lines are not read. */
void ingest_stop(struct ingest *in, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Emit one value of field (by --query-gpu name) as printed (units
 * optional) for GPU g at t_ms, with the instance and job labels.
 * 0, GW_EPARSE when text is not a value of the field (nothing emitted),
 * or the sink's error.
 */
int ingest_value(struct ingest *in, const char *field, const char *text, const struct gw_series_gpu *g, int64_t t_ms);

/* Emit one sample of a series named name with labels (name/value pairs, the
 * instance and job labels added); 0 or the sink's error. */
int ingest_sample(struct ingest *in, const char *name, const struct gw_lpair *l, size_t n, int64_t t_ms, double v);

/*
 * Read in line by line (at most INGEST_LINE_MAX bytes; longer ones are
 * reported and skipped), calling fn with each line without its newline;
 * checkpoints after lines that emitted, progress every 64 MiB. Returns 0,
 * the checkpoint's error, in->stop_rc, or GW_EIO.
 */
int ingest_lines(FILE *f, struct ingest *in, void (*fn)(void *ctx, char *line), void *ctx, struct gw_err *err);

/* s without leading and trailing white space (in place). */
char *ingest_trim(char *s);

/* Whitespace-separated tokens of s (modified in place); commas count as white space when commas is set. */
size_t ingest_tokens(char *s, char **tok, size_t max, bool commas);

#endif
