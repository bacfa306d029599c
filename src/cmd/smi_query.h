/*
 * smi_query.h - `smi --query-gpu=... --format=csv[,noheader][,nounits]`.
 *
 * Parses a field list against the field table and prints nvidia-smi's CSV
 * for a set of GPUs. smi.c owns option parsing, GPU selection and looping;
 * this file owns the CSV of --query-gpu and the --help-query-gpu text.
 */
#ifndef GW_CMD_SMI_QUERY_H
#define GW_CMD_SMI_QUERY_H

#include "fields/fields.h"

#include <stdbool.h>
#include <stdio.h>

struct gw_smi_format {
	bool csv;      /* "csv" given (mandatory for queries) */
	bool noheader; /* "noheader" */
	bool nounits;  /* "nounits" */
};

/*
 * Parse "csv,noheader,nounits". Returns 0, or GW_EINVAL with the offending
 * word copied to bad.
 */
int gw_smi_format_parse(const char *spec, struct gw_smi_format *fmt, char *bad, size_t badlen);

/*
 * Parse a comma-separated --query-gpu list into *fields (malloc'd array of
 * table pointers, free() it). Returns 0, or GW_EINVAL with the first unknown
 * name copied to bad (smi prints `Field "bad" is not a valid field to query.`).
 */
int gw_smi_query_parse(const char *list, const struct gw_field ***fields, size_t *n, char *bad, size_t badlen);

/* Header line ("name, memory.used [MiB]\n"). */
void gw_smi_query_header(FILE *out, const struct gw_field *const *fields, size_t n,
			 const struct gw_smi_format *fmt);

/*
 * One CSV row for one GPU. Returns 0, or GW_EGPULOST when the GPU was found
 * lost during this row (the row is still printed, with that GPU's values
 * unavailable).
 */
int gw_smi_query_row(FILE *out, const struct gw_field *const *fields, size_t n, const struct gw_smi_format *fmt,
		     const struct gw_read_ctx *ctx);

/* The text of --help-query-gpu. */
void gw_smi_help_query_gpu(FILE *out);

#endif
