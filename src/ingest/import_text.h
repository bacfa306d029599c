/*
 * import_text.h - the other things people log from nvidia-smi in loops,
 * read into the same series as the CSV importer (import_smi.h): the
 * default table (`while true; do nvidia-smi; sleep 60; done`, each table
 * timed by its date line), `nvidia-smi -q` reports (timed by their
 * Timestamp line), and `nvidia-smi dmon` / `pmon` output (timed by the
 * Date and Time columns of -o DT, by Time alone with opts.start_ms giving
 * the day, or by opts.start_ms and opts.interval_ms without either).
 *
 * Values map to the --query-gpu fields they are (dmon's columns through
 * the field table's dmon names, -q's "Section/Key" and the table's cells
 * through tables in each importer), and from there to the DCGM and native
 * series /metrics exposes; pmon's rows become the per-process families
 * (gpuwatch_process_*). A line these cannot read is reported with its
 * number and skipped, as the CSV importer does; a log that lacks what
 * every row needs (dmon without times and without a start) stops at its
 * first row with the reason.
 *
 * gw_import_sniff() tells every format apart by the first lines of a file,
 * and names what it saw when it is none of them.
 *
 * Times without a zone are local time, as nvidia-smi prints them.
 * Ownership: the caller's; nothing is kept. Threading: none.
 */
#ifndef GW_INGEST_IMPORT_TEXT_H
#define GW_INGEST_IMPORT_TEXT_H

#include "ingest/import_smi.h"

enum gw_import_format {
	GW_IMPORT_UNKNOWN,
	GW_IMPORT_CSV,         /* --query-gpu CSV, '======= date =======' loops */
	GW_IMPORT_OPENMETRICS, /* what `gpuwatch export` writes */
	GW_IMPORT_TABLE,       /* nvidia-smi's default table */
	GW_IMPORT_QUERY,       /* nvidia-smi -q */
	GW_IMPORT_DMON,
	GW_IMPORT_PMON,
	GW_IMPORT_MORE, /* gw_import_sniff: only blank, date and '=====' lines so far */
};

/* The --format name of a format ("csv", "table", "query", ...). */
const char *gw_import_format_name(enum gw_import_format f);
/* --format NAME back to a format; GW_IMPORT_UNKNOWN for a name that is none. */
enum gw_import_format gw_import_format_parse(const char *name);

/*
 * What the first lines of a file (head, n bytes of whole lines) are. For
 * GW_IMPORT_UNKNOWN, *seen says what they look like ("nvidia-smi -L
 * output", "JSON", ...), for the message; GW_IMPORT_MORE: nothing but
 * blank, date and '=====' lines yet (*seen says so too, for a file that
 * ends there). A CSV whose first line is not a header is UNKNOWN: it was
 * logged with noheader and needs --fields (the caller does not sniff then).
 */
enum gw_import_format gw_import_sniff(const char *head, size_t n, const char **seen);

/* The formats gw_import_sniff() knows, in words, for the message about one it does not. */
#define GW_IMPORT_ACCEPTED                                                                                  \
	"gpuwatch imports nvidia-smi --query-gpu CSV logs, -q reports, the default table, dmon and pmon "  \
	"logs, and OpenMetrics text"

int gw_import_table(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err);
int gw_import_query(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err);
int gw_import_dmon(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err);
int gw_import_pmon(FILE *in, const struct gw_import_opts *o, struct gw_import_stats *st, struct gw_err *err);

#endif
