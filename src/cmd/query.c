/*
 * query.c - `gpuwatch query`: PromQL over the local store from the shell,
 * printed the way `promtool query` prints (or as the HTTP API's JSON).
 */
#include "cmd/cmd.h"

#include "api/json.h"
#include "api/prom_api.h"
#include "store/tsdb.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: gpuwatch query [options] [--] 'EXPR'\n\n"
		     "Evaluate a PromQL expression over the store a gpuwatch agent (or import) wrote.\n\n"
		     "Options:\n"
		     "  --storage.path DIR   the data directory (default data/)\n"
		     "  --time T             instant query at T (RFC 3339 or Unix seconds; default now)\n"
		     "  --start T --end T --step D\n"
		     "                       range query (D: seconds or a duration like 15s)\n"
		     "  --format text|json   promtool-like text (default) or the HTTP API's JSON\n"
		     "  -h, --help           show this help\n");
}

static void print_labels(const struct gw_labels *l)
{
	const char *name = gw_labels_get(l, GW_METRIC_NAME);
	printf("%s{", name ? name : "");
	bool first = true;
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->p[i].name, GW_METRIC_NAME) == 0)
			continue;
		printf("%s%s=\"%s\"", first ? "" : ", ", l->p[i].name, l->p[i].value);
		first = false;
	}
	printf("}");
}

static void print_value(double v)
{
	struct gw_buf b;
	gw_buf_init(&b, 128);
	gw_json_value(&b, v); /* "1.5" with quotes: drop them */
	printf("%.*s", (int)(b.len - 2), b.data + 1);
	gw_buf_release(&b);
}

static void print_time(int64_t t)
{
	struct gw_buf b;
	gw_buf_init(&b, 64);
	gw_json_time(&b, t);
	printf("%s", b.data);
	gw_buf_release(&b);
}

static int print_text(const struct gw_pq_result *r, const struct gw_matrix *m)
{
	if (m) {
		for (size_t i = 0; i < m->n; i++) {
			print_labels(&m->s[i].labels);
			printf(" =>\n");
			for (size_t k = 0; k < m->s[i].n; k++) {
				print_value(m->s[i].v[k]);
				printf(" @[");
				print_time(m->s[i].t[k]);
				printf("]\n");
			}
		}
		return 0;
	}
	switch (r->type) {
	case GW_PQ_T_SCALAR:
		printf("scalar: ");
		print_value(r->scalar);
		printf(" @[");
		print_time(r->t);
		printf("]\n");
		break;
	case GW_PQ_T_STRING:
		printf("string: %s\n", r->string);
		break;
	case GW_PQ_T_VECTOR:
		for (size_t i = 0; i < r->vector.n; i++) {
			print_labels(&r->vector.s[i].labels);
			printf(" => ");
			print_value(r->vector.s[i].v);
			printf(" @[");
			print_time(r->t);
			printf("]\n");
		}
		break;
	default:
		return print_text(NULL, &r->matrix);
	}
	return 0;
}

int gw_cmd_query(int argc, char **argv, const struct gw_cli *cli)
{
	const char *path = "data", *expr = NULL, *ts = NULL, *ss = NULL, *es = NULL, *step = NULL, *format = "text";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **dst = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--storage.path") == 0) {
			dst = &path;
		} else if (strcmp(a, "--time") == 0) {
			dst = &ts;
		} else if (strcmp(a, "--start") == 0) {
			dst = &ss;
		} else if (strcmp(a, "--end") == 0) {
			dst = &es;
		} else if (strcmp(a, "--step") == 0) {
			dst = &step;
		} else if (strcmp(a, "--format") == 0) {
			dst = &format;
		} else if (strcmp(a, "--") == 0 && i + 1 < argc && !expr) {
			expr = argv[++i]; /* an expression that starts with '-' */
			continue;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "gpuwatch query: unknown option '%s'; see 'gpuwatch query --help'\n", a);
			return 2;
		} else if (!expr) {
			expr = a;
			continue;
		} else {
			fprintf(stderr, "gpuwatch query: one expression only (quote it)\n");
			return 2;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "gpuwatch query: %s needs a value\n", a);
			return 2;
		}
		*dst = argv[++i];
	}
	if (!expr) {
		usage(stderr);
		return 2;
	}
	bool range = ss || es || step;
	if (range && !(ss && es && step)) {
		fprintf(stderr, "gpuwatch query: a range query needs --start, --end and --step\n");
		return 2;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t t = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000, start = 0, end = 0, stepms = 0;
	if ((ts && gw_api_parse_time(ts, &t)) || (ss && gw_api_parse_time(ss, &start)) ||
	    (es && gw_api_parse_time(es, &end)) || (step && gw_api_parse_duration(step, &stepms))) {
		fprintf(stderr, "gpuwatch query: cannot read a time or duration (use RFC 3339, Unix seconds, or 15s)\n");
		return 2;
	}
	struct gw_err err;
	gw_err_clear(&err);
	struct gw_pq_node *root = NULL;
	if (gw_promql_parse(expr, &root, &err) != 0) {
		fprintf(stderr, "gpuwatch query: %s\n", err.msg);
		return 2;
	}
	struct gw_tsdb *db = NULL;
	struct gw_tsdb_opts to = {.path = path, .flush_interval_ms = -1, .must_exist = true};
	if (gw_tsdb_open(&db, &to, &err) != 0) {
		fprintf(stderr, "gpuwatch query: %s\n", err.msg);
		gw_promql_free(root);
		return 1;
	}
	struct gw_querier q = gw_tsdb_querier(db);
	struct gw_arena a;
	gw_arena_init(&a, (size_t)1 << 30);
	struct gw_pq_opts po = {0};
	int rc;
	struct gw_pq_result r;
	struct gw_matrix m;
	if (range)
		rc = gw_promql_range(root, &q, start, end, stepms, &po, &a, &m, &err);
	else
		rc = gw_promql_instant(root, &q, t, &po, &a, &r, &err);
	if (rc) {
		fprintf(stderr, "gpuwatch query: %s\n", err.msg[0] ? err.msg : gw_strerror(rc));
	} else if (strcmp(format, "json") == 0) {
		/* The same JSON as the HTTP API's "data", from the same writer. */
		struct gw_buf b;
		gw_buf_init(&b, (size_t)1 << 30);
		if (range)
			gw_api_json_matrix(&b, &m);
		else
			gw_api_json_result(&b, &r);
		gw_buf_putc(&b, '\n');
		fputs(b.data ? b.data : "", stdout);
		gw_buf_release(&b);
	} else {
		print_text(range ? NULL : &r, range ? &m : NULL);
	}
	gw_arena_release(&a);
	gw_promql_free(root);
	gw_tsdb_close(db);
	if (rc)
		return 1;
	return gw_cli_finish_stdout() ? 1 : 0;
}
