/*
 * train.c - live training efficiency from pushes (analysis/trainlive.h).
 * After each push to a group that holds gpuwatch_training_tokens_total,
 * the group's gpuwatch_training_model_info is read against the GPUs, the
 * push joins the group's window with its GPUs' energy counters from the
 * newest frame, and what they give (tokens a second, MFU, HFU, tokens a
 * joule) is stored at the push's time under the group's labels and
 * served on /metrics. The families go when the group is deleted or a
 * push leaves the counter out (a staleness marker each in the store, so
 * queries stop seeing them at once), and leave /metrics when the group
 * has had no push for GW_TRAIN_STALE_MS, as their last samples leave
 * PromQL's 5-minute lookback. A model_info that cannot give MFU is
 * logged once per problem, with why.
 *
 * Everything here runs under push.c's mu: pushes on HTTP threads,
 * renders on whichever thread renders a frame's exposition.
 */
#include "agent/agent_int.h"

#include "core/logq.h"
#include "fields/fields_table.h"
#include "model/storage.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The families, each a value of struct gw_train_values and the flag that says it has one. */
static const struct {
	const char *name, *help;
	size_t value, has;
} fams[] = {
    {"gpuwatch_training_tokens_per_second",
     "Tokens a second of a pushed training job: the increase of its gpuwatch_training_tokens_total over its "
     "pushes of the last minute, or its last two.",
     offsetof(struct gw_train_values, tokens_per_s), offsetof(struct gw_train_values, has_rate)},
    {"gpuwatch_training_mfu_ratio",
     "Model FLOPs utilisation of a pushed training job: tokens a second times model FLOPs a token "
     "(6N + 12LHQT, from gpuwatch_training_model_info) over its GPUs' peak dense tensor FLOP/s.",
     offsetof(struct gw_train_values, mfu), offsetof(struct gw_train_values, has_mfu)},
    {"gpuwatch_training_hfu_ratio",
     "Hardware FLOPs utilisation of a pushed training job: as MFU, with the FLOPs its recomputation adds.",
     offsetof(struct gw_train_values, hfu), offsetof(struct gw_train_values, has_mfu)},
    {"gpuwatch_training_tokens_per_joule",
     "Tokens a joule of a pushed training job: its tokens a second over its GPUs' mean power, from their "
     "energy counters over the same pushes.",
     offsetof(struct gw_train_values, tokens_per_j), offsetof(struct gw_train_values, has_tpj)},
};
#define NFAMS (sizeof(fams) / sizeof(fams[0]))

struct agent_train_job {
	struct gw_push_key key; /* the group's; its labels point into its own buf */
	struct gw_train_window w;
	struct gw_train_info info;
	struct gw_train_values v;
	char problem[GW_ERR_MSG_MAX]; /* the model_info problem last logged; "": none */
	bool logged;		      /* info has been logged as it is */
	bool stored[NFAMS];	      /* the store's latest sample of each family is a value */
};

static double value_of(const struct gw_train_values *v, size_t f, bool *has)
{
	*has = *(const bool *)((const char *)v + fams[f].has);
	return *(const double *)((const char *)v + fams[f].value);
}

/* ---- the job list ----------------------------------------------------------------- */

/* Same set of labels, in any order (as the push store matches groups). */
static bool same_key(const struct gw_push_key *a, const struct gw_push_key *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		bool found = false;
		for (size_t j = 0; j < b->n && !found; j++)
			found = !strcmp(a->l[i].name, b->l[j].name) && !strcmp(a->l[i].value, b->l[j].value);
		if (!found)
			return false;
	}
	return true;
}

static long job_find(const struct agent_train *t, const struct gw_push_key *k)
{
	for (size_t i = 0; i < t->n; i++)
		if (same_key(&t->jobs[i]->key, k))
			return (long)i;
	return -1;
}

static struct agent_train_job *job_add(struct agent_train *t, const struct gw_push_key *k)
{
	struct agent_train_job *j = calloc(1, sizeof(*j));
	struct agent_train_job **jobs = j ? realloc(t->jobs, (t->n + 1) * sizeof(*jobs)) : NULL;
	if (!jobs) {
		free(j);
		return NULL;
	}
	t->jobs = jobs;
	j->key = *k;
	for (size_t i = 0; i < k->n; i++) /* rebase the labels onto the copy's buf */
		j->key.l[i] = (struct gw_lpair){j->key.buf + (k->l[i].name - k->buf),
						j->key.buf + (k->l[i].value - k->buf)};
	t->jobs[t->n++] = j;
	return j;
}

/* "job=llama,node=gpu-01", for the log. */
static const char *key_text(const struct gw_push_key *k, char *buf, size_t len)
{
	char raw[GW_PUSH_KEY_BYTES + GW_PUSH_KEY_MAX * 2];
	size_t w = 0;
	raw[0] = '\0';
	for (size_t i = 0; i < k->n && w < sizeof(raw); i++)
		w += (size_t)snprintf(raw + w, sizeof(raw) - w, "%s%s=%s", i ? "," : "", k->l[i].name,
				      k->l[i].value);
	return gw_logq(buf, len, raw);
}

/* ---- the store ------------------------------------------------------------------- */

/* One sample of a family under the group's labels, and the agent's instance unless the group has one. */
static void store(struct gw_agent *a, const struct gw_push_key *k, const char *name, int64_t t, double v)
{
	struct agent_history *h = &a->history;
	struct gw_lpair l[GW_PUSH_KEY_MAX + 2];
	size_t n = 0;
	bool has_instance = false;
	l[n++] = (struct gw_lpair){GW_METRIC_NAME, name};
	for (size_t i = 0; i < k->n; i++) {
		if (!*k->l[i].value) /* an empty label is no label */
			continue;
		l[n++] = k->l[i];
		has_instance |= strcmp(k->l[i].name, "instance") == 0;
	}
	if (!has_instance)
		l[n++] = (struct gw_lpair){"instance", h->instance};
	uint64_t ref;
	pthread_mutex_lock(&h->append_mu);
	int rc = gw_tsdb_series(h->db, l, n, &ref);
	if (rc == 0)
		rc = gw_tsdb_append(h->db, ref, t, v);
	pthread_mutex_unlock(&h->append_mu);
	if (rc)
		a->push.store_refused++;
	else
		agent_rw_note_append(a, t);
}

/* Each family's value at t, or a staleness marker where the last stored was a value and there is none now. */
static void store_values(struct gw_agent *a, struct agent_train_job *j, int64_t t, bool gone)
{
	for (size_t f = 0; f < NFAMS; f++) {
		bool has;
		double v = value_of(&j->v, f, &has);
		has &= !gone;
		if (a->history.db && (has || j->stored[f]))
			store(a, &j->key, fams[f].name, t, has ? v : gw_stale_nan());
		j->stored[f] = has;
	}
}

static void job_remove(struct gw_agent *a, size_t at, int64_t t)
{
	struct agent_train *tr = &a->push.train;
	struct agent_train_job *j = tr->jobs[at];
	store_values(a, j, t, true);
	char q[512];
	a->o.log(
	    "info",
	    "msg=\"training efficiency no longer derived: the group or its counter is gone\" group=\"%s\"",
	    key_text(&j->key, q, sizeof(q)));
	free(j);
	tr->jobs[at] = tr->jobs[--tr->n];
}

/* ---- a push ----------------------------------------------------------------------- */

#define INFO_LABELS 32

/* What a group holds of the two families; model_info's labels copied (the store's are the call's only). */
struct scan {
	double tokens;
	size_t ntokens, ninfo;
	struct gw_lpair info[INFO_LABELS];
	size_t n;
	char buf[4096];
	size_t used;
};

static const char *keep(struct scan *s, const char *str)
{
	size_t len = strlen(str) + 1;
	if (s->used + len > sizeof(s->buf))
		return NULL;
	char *p = memcpy(s->buf + s->used, str, len);
	s->used += len;
	return p;
}

static int scan_sample(void *ctx, const struct gw_lpair *l, size_t n, double v)
{
	struct scan *s = ctx;
	if (strcmp(l[0].value, GW_TRAIN_TOKENS) == 0) { /* several (a rank label each) add up */
		s->tokens += v;
		s->ntokens++;
	} else if (strcmp(l[0].value, GW_TRAIN_INFO) == 0 && s->ninfo++ == 0) {
		for (size_t i = 1; i < n && s->n < INFO_LABELS; i++) {
			const char *name = keep(s, l[i].name), *value = keep(s, l[i].value);
			if (name && value)
				s->info[s->n++] = (struct gw_lpair){name, value};
		}
	}
	return 0;
}

/* The job's GPUs' energy counters summed (mJ) in the newest frame; false when one is not known. */
static bool energy(struct gw_agent *a, const struct gw_train_info *in, int64_t *t_ms, double *mj)
{
	long k = a->push.train.energy_idx;
	if (k < 0 || !in->ngpu || !a->sampler)
		return false;
	const struct gw_frame *f = gw_sampler_acquire(a->sampler);
	bool ok = f != NULL;
	*mj = 0;
	for (unsigned int i = 0; ok && i < in->ngpu; i++) {
		unsigned int g = in->gpu[i];
		const struct gw_value *v = g < f->ngpus ? &f->gpus[g].v[k] : NULL;
		ok = v && !f->gpus[g].lost && v->state == GW_V_OK && v->kind != GW_VK_STR;
		if (ok)
			*mj += v->kind == GW_VK_INT ? (double)v->i : v->d;
	}
	*t_ms = f ? f->t_ms : 0;
	gw_sampler_release(a->sampler, f);
	return ok;
}

/* Read the group's model_info; log a new problem, or the info when it starts or changes. */
static void read_info(struct gw_agent *a, struct agent_train_job *j, const struct scan *s)
{
	struct agent_train *tr = &a->push.train;
	struct gw_train_info in;
	struct gw_err err;
	gw_err_clear(&err);
	int rc = gw_train_info_read(s->info, s->ninfo ? s->n : 0, tr->gpus, a->ngpus, &in, &err);
	if (rc == 0 && s->ninfo > 1) {
		rc = gw_err_set(&err, GW_EINVAL, "%zu %s samples: push one", s->ninfo, GW_TRAIN_INFO);
		in.mfu_ok = false;
	}
	bool gpus_changed =
	    in.ngpu != j->info.ngpu || memcmp(in.gpu, j->info.gpu, in.ngpu * sizeof(in.gpu[0]));
	if (gpus_changed)
		gw_train_window_energy_reset(&j->w);
	bool changed = memcmp(&in, &j->info, sizeof(in)) != 0;
	j->info = in;
	char q[512], why[GW_ERR_MSG_MAX + 64];
	if (rc && strcmp(err.msg, j->problem) != 0) {
		a->o.log("warn",
			 "msg=\"training model_info not usable: no MFU or HFU for this job\" group=\"%s\" "
			 "why=\"%s\" gpus=%u hint=\"push %s{params,layers,hidden,seq} 1 (heads, head_dim, "
			 "recompute, dtype, gpus optional): docs/EFFICIENCY.md\"",
			 key_text(&j->key, q, sizeof(q)), gw_logq(why, sizeof(why), err.msg), in.ngpu,
			 GW_TRAIN_INFO);
		snprintf(j->problem, sizeof(j->problem), "%s", err.msg);
		j->logged = false;
	} else if (rc == 0 && (changed || !j->logged)) {
		a->o.log("info",
			 "msg=\"training efficiency derived\" group=\"%s\" gpus=%u dtype=%s recompute=%s "
			 "model_flops_per_token=%.6g hardware_flops_per_token=%.6g peak_flops=%.6g",
			 key_text(&j->key, q, sizeof(q)), in.ngpu, gw_dtype_name(in.dtype),
			 gw_recompute_name(in.recompute), in.flops.model_per_token,
			 in.flops.hardware_per_token, in.peak);
		j->problem[0] = '\0';
		j->logged = true;
	}
}

void agent_train_push(struct gw_agent *a, enum gw_push_method m, const struct gw_push_key *k, int64_t now_ms)
{
	struct agent_train *tr = &a->push.train;
	long at = job_find(tr, k);
	struct scan s = {0};
	if (m != GW_PUSH_DELETE)
		gw_push_group_each(a->push.store, k, scan_sample, &s);
	if (!s.ntokens) { /* deleted, or pushed without the counter */
		if (at >= 0)
			job_remove(a, (size_t)at, now_ms);
		return;
	}
	struct agent_train_job *j = at >= 0 ? tr->jobs[at] : job_add(tr, k);
	if (!j) {
		a->o.log("warn", "msg=\"out of memory: no training efficiency for a pushed job\"");
		return;
	}
	read_info(a, j, &s);
	/* a POST that left the counter as it was is no new point of it */
	if (gw_push_family_pushed(a->push.store, k, GW_TRAIN_TOKENS)) {
		int64_t e_ms = 0;
		double mj = 0;
		bool e_ok = energy(a, &j->info, &e_ms, &mj);
		gw_train_window_add(&j->w, now_ms, s.tokens, e_ok, e_ms, mj);
	}
	gw_train_derive(&j->w, j->info.mfu_ok ? &j->info : NULL, &j->v);
	store_values(a, j, now_ms, false);
}

void agent_train_render(struct gw_agent *a, struct gw_expfmt *w, int64_t now_ms)
{
	const struct agent_train *tr = &a->push.train;
	for (size_t f = 0; f < NFAMS; f++) {
		bool opened = false;
		for (size_t i = 0; i < tr->n; i++) {
			const struct agent_train_job *j = tr->jobs[i];
			bool has;
			double v = value_of(&j->v, f, &has);
			if (!has || !gw_train_window_fresh(&j->w, now_ms))
				continue;
			if (!opened)
				gw_expfmt_family(w, fams[f].name, fams[f].help, GW_METRIC_GAUGE);
			opened = true;
			struct gw_label l[GW_PUSH_KEY_MAX];
			size_t n = 0;
			for (size_t k = 0; k < j->key.n; k++)
				if (*j->key.l[k].value)
					l[n++] = (struct gw_label){j->key.l[k].name, j->key.l[k].value};
			gw_expfmt_sample(w, l, n, v);
		}
	}
}

/* ---- open and close ------------------------------------------------------------------ */

int agent_train_open(struct gw_agent *a, struct gw_err *err)
{
	struct agent_train *tr = &a->push.train;
	tr->energy_idx = gw_field_index(gw_field_find_any("energy.total"));
	tr->gpus = calloc(a->ngpus ? a->ngpus : 1, sizeof(*tr->gpus));
	if (!tr->gpus)
		return gw_err_set(err, GW_ENOMEM, "out of memory");
	for (unsigned int g = 0; g < a->ngpus; g++)
		tr->gpus[g] = (struct gw_train_gpu){a->gpus[g].index, a->gpus[g].uuid, a->gpus[g].name};
	return 0;
}

void agent_train_close(struct gw_agent *a)
{
	struct agent_train *tr = &a->push.train;
	for (size_t i = 0; i < tr->n; i++)
		free(tr->jobs[i]);
	free(tr->jobs);
	free(tr->gpus);
	memset(tr, 0, sizeof(*tr));
}
