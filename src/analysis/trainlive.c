/*
 * trainlive.c - a pushed training job's model_info read against the
 * node's GPUs, its window of pushes, and the efficiency they give
 * (trainlive.h; docs/EFFICIENCY.md).
 */
#include "analysis/trainlive.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The shape's whole-number labels; params is the count. */
static const struct {
	const char *name;
	size_t off; /* of an unsigned int in struct gw_model_shape */
	bool required;
} shape_labels[] = {
    {"layers", offsetof(struct gw_model_shape, layers), true},
    {"hidden", offsetof(struct gw_model_shape, hidden), true},
    {"seq", offsetof(struct gw_model_shape, seq), true},
    {"heads", offsetof(struct gw_model_shape, heads), false},
    {"head_dim", offsetof(struct gw_model_shape, head_dim), false},
};

static const char *label(const struct gw_lpair *l, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(l[i].name, name) == 0)
			return *l[i].value ? l[i].value : NULL; /* an empty label is no label */
	return NULL;
}

static int whole(const char *s, unsigned int *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end || errno || v == 0 || v > 100000000)
		return GW_EINVAL;
	*out = (unsigned int)v;
	return 0;
}

/* Keep the first problem: rc is 0 until one is found. */
#define PROBLEM(...) (void)(rc = rc ? rc : gw_err_set(err, GW_EINVAL, __VA_ARGS__))

/* One item of the gpus label: an index, else a UUID; -1 when it names no GPU here. */
static long gpu_find(const char *item, size_t len, const struct gw_train_gpu *gpus, unsigned int ngpus)
{
	bool digits = len > 0;
	for (size_t i = 0; i < len; i++)
		digits &= isdigit((unsigned char)item[i]) != 0;
	for (unsigned int g = 0; g < ngpus; g++) {
		if (digits && len < 10 && strtoul(item, NULL, 10) == gpus[g].index)
			return g;
		if (!digits && gpus[g].uuid && strlen(gpus[g].uuid) == len &&
		    strncasecmp(item, gpus[g].uuid, len) == 0)
			return g;
	}
	return -1;
}

/* The gpus label ("0,1", "GPU-...,GPU-..."), or every GPU without one. ngpu 0 on a problem. */
static int read_gpus(const char *list, const struct gw_train_gpu *gpus, unsigned int ngpus,
		     struct gw_train_info *out, struct gw_err *err)
{
	out->ngpu = 0;
	if (!list) {
		if (ngpus > GW_TRAIN_GPUS_MAX)
			return gw_err_set(err, GW_EINVAL, "more than %d GPUs: name the job's in gpus",
					  GW_TRAIN_GPUS_MAX);
		for (unsigned int g = 0; g < ngpus; g++)
			out->gpu[out->ngpu++] = g;
		return 0;
	}
	for (const char *p = list; *p;) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t len = strcspn(p, ",");
		while (len && p[len - 1] == ' ')
			len--;
		if (!len)
			break;
		long g = gpu_find(p, len, gpus, ngpus);
		if (g < 0) {
			out->ngpu = 0;
			return gw_err_set(err, GW_EINVAL,
					  "gpus: \"%.*s\" is no GPU here (%u GPUs: an index or a UUID each)",
					  (int)(len > 64 ? 64 : len), p, ngpus);
		}
		bool dup = false;
		for (unsigned int i = 0; i < out->ngpu; i++)
			dup |= out->gpu[i] == (unsigned int)g;
		if (!dup && out->ngpu < GW_TRAIN_GPUS_MAX)
			out->gpu[out->ngpu++] = (unsigned int)g;
		p += strcspn(p, ",");
	}
	return out->ngpu ? 0 : gw_err_set(err, GW_EINVAL, "gpus: \"%.64s\" names no GPU", list);
}

/* The job's GPUs' peak at the dtype, summed; 0 after a problem. */
static double peak_of(const struct gw_train_info *in, const struct gw_train_gpu *gpus, struct gw_err *err,
		      int *rc_out)
{
	int rc = *rc_out;
	double peak = 0;
	for (unsigned int i = 0; i < in->ngpu; i++) {
		const struct gw_train_gpu *g = &gpus[in->gpu[i]];
		const struct gw_gpu_spec *sp = g->name ? gw_gpu_spec_find(g->name) : NULL;
		if (!sp) {
			PROBLEM("GPU %u (%s) is not in the peak table (docs/EFFICIENCY.md)", g->index,
				g->name ? g->name : "no name");
			peak = 0;
			break;
		}
		if (!(sp->peak[in->dtype] > 0)) {
			PROBLEM("GPU %u (%s) has no %s tensor peak: give another dtype", g->index, sp->key,
				gw_dtype_name(in->dtype));
			peak = 0;
			break;
		}
		peak += sp->peak[in->dtype];
	}
	*rc_out = rc;
	return peak;
}

int gw_train_info_read(const struct gw_lpair *l, size_t n, const struct gw_train_gpu *gpus,
		       unsigned int ngpus, struct gw_train_info *out, struct gw_err *err)
{
	memset(out, 0, sizeof(*out));
	int rc = read_gpus(n ? label(l, n, "gpus") : NULL, gpus, ngpus, out, err);
	if (n == 0)
		PROBLEM("no %s pushed: MFU and HFU need the model's shape", GW_TRAIN_INFO);
	const char *v = label(l, n, "dtype");
	int d = v ? gw_dtype_parse(v) : GW_DT_BF16;
	if (d < 0)
		PROBLEM("dtype \"%.32s\" is unknown (bf16, fp16, fp8, tf32)", v);
	out->dtype = d < 0 ? GW_DT_BF16 : (enum gw_dtype)d;
	v = label(l, n, "recompute");
	int r = v ? gw_recompute_parse(v) : GW_RC_NONE;
	if (r < 0)
		PROBLEM("recompute \"%.32s\" is unknown (none, selective, full)", v);
	out->recompute = r < 0 ? GW_RC_NONE : (enum gw_recompute)r;
	v = label(l, n, "params");
	if (n && !v)
		PROBLEM("params is missing (the parameter count, e.g. 8.03e9 or 8B)");
	else if (v && gw_count_parse(v, &out->shape.params) != 0)
		PROBLEM("params \"%.32s\" is not a positive number (e.g. 8.03e9 or 8B)", v);
	for (size_t i = 0; i < sizeof(shape_labels) / sizeof(shape_labels[0]); i++) {
		unsigned int *dst = (unsigned int *)((char *)&out->shape + shape_labels[i].off);
		v = label(l, n, shape_labels[i].name);
		if (n && !v && shape_labels[i].required)
			PROBLEM("%s is missing", shape_labels[i].name);
		else if (v && whole(v, dst) != 0)
			PROBLEM("%s \"%.32s\" is not a whole number from 1", shape_labels[i].name, v);
	}
	out->peak = peak_of(out, gpus, err, &rc);
	out->mfu_ok = rc == 0 && out->ngpu > 0 && out->peak > 0;
	if (out->mfu_ok)
		gw_flops_per_token(&out->shape, out->recompute, &out->flops);
	return rc;
}

/* ---- the window ---------------------------------------------------------------------- */

static struct gw_train_point *at(struct gw_train_window *w, size_t i)
{
	return &w->p[(w->head + i) % GW_TRAIN_POINTS];
}

static const struct gw_train_point *cat(const struct gw_train_window *w, size_t i)
{
	return &w->p[(w->head + i) % GW_TRAIN_POINTS];
}

void gw_train_window_energy_reset(struct gw_train_window *w)
{
	for (size_t i = 0; i < w->n; i++)
		at(w, i)->e_ok = false;
}

void gw_train_window_add(struct gw_train_window *w, int64_t t_ms, double tokens, bool e_ok, int64_t e_ms,
			 double e_mj)
{
	if (!isfinite(tokens) || tokens < 0)
		return;
	if (w->n && tokens < w->raw) /* the job restarted its counter from 0 */
		w->offset += w->raw;
	w->raw = tokens;
	for (size_t i = w->n; e_ok && i-- > 0;)
		if (at(w, i)->e_ok) {
			if (e_mj < at(w, i)->e_mj) /* a GPU's energy counter restarted */
				gw_train_window_energy_reset(w);
			break;
		}
	struct gw_train_point *newest = w->n ? at(w, w->n - 1) : NULL;
	struct gw_train_point p = {t_ms, tokens + w->offset, e_ms, e_mj, e_ok && isfinite(e_mj)};
	if (newest && t_ms <= newest->t_ms) {
		*newest = p;
		return;
	}
	if (w->n == GW_TRAIN_POINTS)
		w->head = (w->head + 1) % GW_TRAIN_POINTS;
	else
		w->n++;
	*at(w, w->n - 1) = p;
}

int64_t gw_train_window_last(const struct gw_train_window *w)
{
	return w->n ? cat(w, w->n - 1)->t_ms : 0;
}

bool gw_train_window_fresh(const struct gw_train_window *w, int64_t now_ms)
{
	return w->n && now_ms - gw_train_window_last(w) <= GW_TRAIN_STALE_MS;
}

/* The oldest point of the window: within GW_TRAIN_WINDOW_MS of the newest, else the one before it. */
static size_t window_start(const struct gw_train_window *w)
{
	int64_t newest = cat(w, w->n - 1)->t_ms;
	size_t i = 0;
	while (i + 2 < w->n && newest - cat(w, i)->t_ms > GW_TRAIN_WINDOW_MS)
		i++;
	return i;
}

/* Watts between the oldest point from `from` on with energy and the newest; 0: not known. */
static double mean_watts(const struct gw_train_window *w, size_t from)
{
	const struct gw_train_point *last = cat(w, w->n - 1);
	if (!last->e_ok)
		return 0;
	for (size_t i = from; i + 1 < w->n; i++) {
		const struct gw_train_point *p = cat(w, i);
		if (p->e_ok && last->e_ms > p->e_ms)
			return (last->e_mj - p->e_mj) / (double)(last->e_ms - p->e_ms); /* mJ a ms is W */
	}
	return 0;
}

void gw_train_derive(const struct gw_train_window *w, const struct gw_train_info *info,
		     struct gw_train_values *out)
{
	memset(out, 0, sizeof(*out));
	if (w->n < 2)
		return;
	size_t first = window_start(w);
	const struct gw_train_point *a = cat(w, first), *b = cat(w, w->n - 1);
	out->tokens_per_s = (b->tokens - a->tokens) / ((double)(b->t_ms - a->t_ms) / 1000.0);
	out->has_rate = true;
	if (info && info->mfu_ok) {
		out->mfu = out->tokens_per_s * info->flops.model_per_token / info->peak;
		out->hfu = out->tokens_per_s * info->flops.hardware_per_token / info->peak;
		out->has_mfu = true;
	}
	out->watts = mean_watts(w, first);
	if (out->watts > 0) {
		out->tokens_per_j = out->tokens_per_s / out->watts;
		out->has_tpj = true;
	}
}
