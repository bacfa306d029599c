/*
 * export.c - `gpuwatch export`: the store's series as OpenMetrics text
 * (which `promtool tsdb create-blocks-from openmetrics` backfills into
 * Prometheus) or as CSV. A day of an 8-GPU node at 1 s is gigabytes of
 * text, so on a terminal a progress line on standard error says how far
 * it is (series, samples, bytes); piped or redirected stderr gets none.
 */
#include "core/sort.h"
#include "cmd/cmd.h"

#include "api/json.h"
#include "api/prom_api.h"
#include "export/expfmt.h"
#include "store/tsdb.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: gpuwatch export [options]\n\n"
		     "Write the store's series to standard output.\n\n"
		     "Options:\n"
		     "  --storage.path DIR        the data directory (default data/)\n"
		     "  --format openmetrics|csv  OpenMetrics text with time stamps (default), or CSV\n"
		     "                            (time,metric,labels,value)\n"
		     "  --match SELECTOR          only these series (default all), e.g. 'DCGM_FI_DEV_GPU_TEMP'\n"
		     "  --start T --end T         only samples in this range (RFC 3339 or Unix seconds)\n"
		     "  -h, --help                show this help\n\n"
		     "On a terminal, progress (series, samples, bytes written) goes to standard error.\n");
}

/* Progress on a terminal's stderr: redrawn in place at most every PROGRESS_MS. */
#define PROGRESS_MS 200

struct progress {
	bool on; /* stderr is a terminal */
	size_t series, nseries;
	uint64_t samples, bytes;
	struct timespec start, last;
};

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void progress_show(struct progress *p, bool last)
{
	if (!p->on)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!last && since(&p->last, &now) * 1000 < PROGRESS_MS)
		return;
	p->last = now;
	fprintf(stderr, "\rexport: %zu/%zu series, %llu samples, %.1f MiB written, %.1f s%s", p->series, p->nseries,
		(unsigned long long)p->samples, (double)p->bytes / 1048576.0, since(&p->start, &now),
		last ? "\n" : "\033[K");
}

static int series_cmp(const void *a, const void *b)
{
	return gw_labels_cmp(&((const struct gw_series *)a)->labels, &((const struct gw_series *)b)->labels);
}

static void labels_om(struct gw_buf *b, const struct gw_labels *l, bool braces_always)
{
	size_t shown = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->p[i].name, GW_METRIC_NAME) == 0)
			continue;
		gw_buf_puts(b, shown++ ? "," : "{");
		gw_buf_printf(b, "%s=\"", l->p[i].name);
		for (const char *c = l->p[i].value; *c; c++) {
			if (*c == '\\' || *c == '"')
				gw_buf_putc(b, '\\');
			if (*c == '\n')
				gw_buf_puts(b, "\\n");
			else
				gw_buf_putc(b, *c);
		}
		gw_buf_putc(b, '"');
	}
	if (shown)
		gw_buf_putc(b, '}');
	else if (braces_always)
		gw_buf_puts(b, "{}");
}

int gw_cmd_export(int argc, char **argv, const struct gw_cli *cli)
{
	const char *path = "data", *format = "openmetrics", *match = "{__name__=~\".+\"}", *ss = NULL, *es = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **dst = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--storage.path") == 0) {
			dst = &path;
		} else if (strcmp(a, "--format") == 0) {
			dst = &format;
		} else if (strcmp(a, "--match") == 0) {
			dst = &match;
		} else if (strcmp(a, "--start") == 0) {
			dst = &ss;
		} else if (strcmp(a, "--end") == 0) {
			dst = &es;
		} else {
			fprintf(stderr, "gpuwatch export: unknown argument '%s'; see 'gpuwatch export --help'\n", a);
			return 2;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "gpuwatch export: %s needs a value\n", a);
			return 2;
		}
		*dst = argv[++i];
	}
	bool csv = strcmp(format, "csv") == 0;
	if (!csv && strcmp(format, "openmetrics") != 0) {
		fprintf(stderr, "gpuwatch export: --format is openmetrics or csv, not \"%s\"\n", format);
		return 2;
	}
	int64_t start = INT64_MIN / 4, end = INT64_MAX / 4;
	if ((ss && gw_api_parse_time(ss, &start)) || (es && gw_api_parse_time(es, &end))) {
		fprintf(stderr, "gpuwatch export: cannot read --start/--end (RFC 3339 or Unix seconds)\n");
		return 2;
	}
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_pq_node *sel = NULL;
	if (gw_promql_parse(match, &sel, &err) != 0 || sel->kind != GW_PQ_VECTOR_SEL) {
		fprintf(stderr, "gpuwatch export: --match: %s\n", sel ? "expected a series selector" : err.msg);
		gw_promql_free(sel);
		return 2;
	}
	struct gw_tsdb *db = NULL;
	struct gw_tsdb_opts to = {.path = path, .flush_interval_ms = -1, .must_exist = true};
	if (gw_tsdb_open(&db, &to, &err) != 0) {
		fprintf(stderr, "gpuwatch export: %s\n", err.msg);
		gw_promql_free(sel);
		return 1;
	}
	struct gw_arena a;
	gw_arena_init(&a, (size_t)8 << 30);
	struct gw_matcher m[17];
	size_t nm = 0;
	int rc = 0;
	if (sel->u.sel.name)
		rc = gw_matcher_init(&m[nm++], GW_METRIC_NAME, sel->u.sel.name, GW_MATCH_EQ, &err);
	for (size_t i = 0; rc == 0 && i < sel->u.sel.nmatchers && nm < 17; i++)
		rc = gw_matcher_init(&m[nm++], sel->u.sel.matchers[i].name, sel->u.sel.matchers[i].value,
				     sel->u.sel.matchers[i].op, &err);
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_series_set set = {NULL, 0};
	if (rc == 0)
		rc = q.select(q.ctx, m, nm, start, end, &a, &set, &err);
	if (rc) {
		fprintf(stderr, "gpuwatch export: %s\n", err.msg);
	} else {
		gw_qsort(set.s, set.n, sizeof(*set.s), series_cmp);
		struct gw_buf b;
		gw_buf_init(&b, (size_t)1 << 30);
		struct progress pr = {.on = isatty(STDERR_FILENO) == 1, .nseries = set.n};
		clock_gettime(CLOCK_MONOTONIC, &pr.start);
		pr.last = pr.start;
		if (csv)
			pr.bytes += (uint64_t)fprintf(stdout, "time,metric,labels,value\n");
		for (size_t i = 0; i < set.n; i++) {
			const struct gw_series *s = &set.s[i];
			const char *name = gw_labels_get(&s->labels, GW_METRIC_NAME);
			gw_buf_reset(&b);
			labels_om(&b, &s->labels, csv);
			for (size_t k = 0; k < s->n; k++) {
				struct gw_buf v;
				gw_buf_init(&v, 64);
				gw_json_value(&v, s->v[k]);
				struct gw_buf t;
				gw_buf_init(&t, 64);
				gw_json_time(&t, s->t[k]);
				int w;
				if (csv) {
					/* the labels column is quoted CSV: double the quotes */
					w = printf("%s,%s,\"", t.data, name ? name : "");
					for (const char *c = b.data; c && *c; c++) {
						fputs(*c == '"' ? "\"\"" : (char[]){*c, 0}, stdout);
						w += *c == '"' ? 2 : 1;
					}
					w += printf("\",%.*s\n", (int)(v.len - 2), v.data + 1);
				} else {
					w = printf("%s%s %.*s %s\n", name ? name : "", b.data ? b.data : "",
						   (int)(v.len - 2), v.data + 1, t.data);
				}
				pr.bytes += w > 0 ? (uint64_t)w : 0;
				gw_buf_release(&v);
				gw_buf_release(&t);
			}
			pr.series = i + 1;
			pr.samples += s->n;
			progress_show(&pr, false);
		}
		gw_buf_release(&b);
		if (!csv)
			pr.bytes += (uint64_t)fprintf(stdout, "# EOF\n");
		progress_show(&pr, true);
	}
	for (size_t i = 0; i < nm; i++)
		gw_matcher_release(&m[i]);
	gw_arena_release(&a);
	gw_promql_free(sel);
	gw_tsdb_close(db);
	if (rc)
		return 1;
	return gw_cli_finish_stdout() ? 1 : 0;
}
