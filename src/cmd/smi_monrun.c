#include "cmd/smi_monrun.h"
#include "cmd/smi_collect.h"
#include "cmd/smi_query.h"
#include "cmd/smi_util.h"

#include <stdlib.h>
#include <string.h>

static const char invalid_args[] = "Invalid combination of input arguments. Please run 'gpuwatch %s -h' for help.\n";

static const char *value(int argc, char **argv, int *i, const char *lng, const char *shrt)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);
	if (strncmp(a, lng, n) == 0 && a[n] == '=')
		return a + n + 1;
	if (strcmp(a, lng) == 0 || strcmp(a, shrt) == 0)
		return *i + 1 < argc ? argv[++*i] : NULL;
	return NULL;
}

static bool is(const char *a, const char *lng, const char *shrt)
{
	size_t n = strlen(lng);
	return (strncmp(a, lng, n) == 0 && (a[n] == '=' || !a[n])) || strcmp(a, shrt) == 0;
}

/* -1 to go on, else an exit code */
static int parse(const struct gw_mon_cmd *cmd, struct gw_mon_run *r, int argc, char **argv)
{
	const char *format = NULL, *opts = NULL;
	r->select = cmd->default_select;
	r->delay_s = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			cmd->usage(stdout);
			return GW_EXIT_OK;
		} else if (is(a, "--select", "-s")) {
			if (!(r->select = v = value(argc, argv, &i, "--select", "-s")))
				goto bad;
		} else if (is(a, "--delay", "-d")) {
			if (!gw_smi_parse_uint(value(argc, argv, &i, "--delay", "-d"), &r->delay_s) || !r->delay_s)
				goto bad;
		} else if (is(a, "--count", "-c")) {
			if (!gw_smi_parse_uint(value(argc, argv, &i, "--count", "-c"), &r->count) || !r->count)
				goto bad;
		} else if (is(a, "--id", "-i")) {
			if (!(r->ids = value(argc, argv, &i, "--id", "-i")))
				goto bad;
		} else if (is(a, "--filename", "-f")) {
			if (!(r->file = value(argc, argv, &i, "--filename", "-f")))
				goto bad;
		} else if (is(a, "--options", "-o")) {
			if (!(opts = value(argc, argv, &i, "--options", "-o")))
				goto bad;
		} else if (is(a, "--format", "--format")) {
			if (!(format = value(argc, argv, &i, "--format", "--format")))
				goto bad;
		} else {
			goto bad;
		}
	}
	if (opts && gw_mon_parse_options(opts, &r->opts) != 0)
		goto bad;
	if (format) {
		struct gw_smi_format f = {0};
		char badw[64];
		if (gw_smi_format_parse(format, &f, badw, sizeof(badw)) != 0 || !f.csv)
			goto bad;
		r->opts.csv = true;
		r->opts.noheader = f.noheader;
		r->opts.nounits = f.nounits;
	}
	size_t tn;
	const struct gw_mon_col *t = strcmp(cmd->name, "pmon") == 0 ? gw_pmon_cols(&tn) : gw_dmon_cols(&tn);
	char badc;
	if (!*r->select || gw_mon_select(t, tn, r->select, cmd->select_in_order, r->cols, &r->ncols, &badc) != 0)
		goto bad;
	return -1;
bad:
	printf(invalid_args, cmd->name);
	return GW_EXIT_BADARG;
}

static int open_all(struct gw_mon_run *r, const struct gw_cli *cli)
{
	int rc = gw_cli_open_nvml(cli, &r->nv);
	if (rc != 0)
		return rc;
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_nvml_gpus_list(r->nv, &r->gpus, &r->ngpus, &err) != 0) {
		fprintf(stderr, "gpuwatch: %s\n", err.msg);
		return GW_EXIT_OTHER;
	}
	r->sel = calloc(r->ngpus ? r->ngpus : 1, sizeof(*r->sel));
	if (!r->sel)
		return GW_EXIT_OTHER;
	int n = (int)r->ngpus;
	if (r->ids)
		n = gw_smi_select(r->gpus, r->ngpus, r->ids, r->sel);
	else
		for (unsigned int i = 0; i < r->ngpus; i++)
			r->sel[i] = true;
	if (n <= 0) {
		puts("No devices were found");
		return GW_EXIT_QUERY_FAILED;
	}
	r->out = stdout;
	if (r->file && !(r->out = fopen(r->file, "w"))) {
		r->out = NULL;
		fprintf(stderr, "gpuwatch: cannot open %s for writing\n", r->file);
		return GW_EXIT_OTHER;
	}
	return 0;
}

int gw_mon_main(const struct gw_mon_cmd *cmd, void *state, int argc, char **argv, const struct gw_cli *cli)
{
	struct gw_mon_run r;
	memset(&r, 0, sizeof(r));
	int rc = parse(cmd, &r, argc, argv);
	if (rc >= 0)
		return rc;
	rc = open_all(&r, cli);
	if (rc == 0) {
		gw_smi_loop_begin();
		cmd->header(r.out, &r.opts, r.cols, r.ncols);
		for (unsigned long k = 0; !r.count || k < r.count; k++) {
			struct timespec now;
			clock_gettime(CLOCK_REALTIME, &now);
			cmd->sample(&r, state, &now);
			fflush(r.out);
			if ((r.count && k + 1 >= r.count) || gw_smi_wait_ms((long)r.delay_s * 1000))
				break;
		}
		rc = ferror(r.out) ? GW_EXIT_OTHER : r.any_lost ? GW_EXIT_GPULOST : 0;
	}
	if (r.out && r.out != stdout && fclose(r.out) != 0 && rc == 0)
		rc = GW_EXIT_OTHER;
	free(r.sel);
	free(r.gpus);
	gw_nvml_close(r.nv);
	int wrc = gw_cli_finish_stdout();
	return rc ? rc : wrc;
}

void gw_mon_field_cell(struct gw_mon_run *r, unsigned int gpu, const struct timespec *now, const char *field,
		       char *cell, size_t n)
{
	struct gw_read_ctx c = {.nv = r->nv, .gpu = &r->gpus[gpu], .gpu_count = r->ngpus, .now = *now};
	char t[GW_VALUE_STR_MAX];
	bool lost = false;
	if (!gw_smi_field_text(&c, field, t, sizeof(t), &lost)) {
		snprintf(cell, n, "-");
	} else {
		/* dmon prints whole numbers: watts and the like lose their decimals */
		t[strcspn(t, ".")] = '\0';
		snprintf(cell, n, "%.15s", t);
	}
	if (lost) {
		r->gpus[gpu].lost = true;
		r->any_lost = true;
	}
}
